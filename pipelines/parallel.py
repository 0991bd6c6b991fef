"""``aimi build``'s graph as a job on Dagster's multiprocess executor (``aimi build --processes
N``, ``pipelines.build``). The job is made when this module is imported: the executor's fork
server imports it once, and every step's process, forked from that server, finds it made
instead of resolving the definitions again (seconds per step on a loaded machine)."""

from __future__ import annotations

import dagster as dg

from pipelines.definitions import ASSETS, CHECKS
from pipelines.resources import AimiResource

PARALLEL_JOB = "aimi_build_multiprocess"

_JOB = dg.Definitions(
    assets=ASSETS,
    asset_checks=CHECKS,
    jobs=[dg.define_asset_job(PARALLEL_JOB, executor_def=dg.multiprocess_executor)],
    resources={"aimi": AimiResource()},
).resolve_job_def(PARALLEL_JOB)


def parallel_build_job() -> dg.JobDefinition:
    """The job (``dg.reconstructable`` calls this in every step's process)."""
    return _JOB
