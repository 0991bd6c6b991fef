"""Materialize the whole asset graph in-process (what `aimi build` runs)."""

from __future__ import annotations

import os
import shutil
from datetime import datetime
from pathlib import Path

import dagster as dg

from pipelines.definitions import ASSETS, CHECKS
from pipelines.resources import AimiResource
from warehouse.paths import DataDir
from warehouse.snapshot import OpenedSnapshot, open_current

DAGSTER_YAML = Path(__file__).resolve().parent.parent / "dagster.yaml"


class BuildError(RuntimeError):
    """A step of the build failed; the message names it."""


def dagster_instance(data: DataDir, *, persistent: bool) -> dg.DagsterInstance:
    """The Dagster instance in ``<data dir>/dagster`` (the UI then shows CLI builds too), or an
    ephemeral one for tests."""
    if not persistent:
        return dg.DagsterInstance.ephemeral()
    data.dagster_home.mkdir(parents=True, exist_ok=True)
    target = data.dagster_home / "dagster.yaml"
    if DAGSTER_YAML.exists() and not target.exists():
        shutil.copyfile(DAGSTER_YAML, target)
    os.environ["DAGSTER_HOME"] = str(data.dagster_home)
    return dg.DagsterInstance.get()


def build(
    data: DataDir,
    *,
    as_of: datetime | None = None,
    persistent: bool = True,
    log_level: str = "WARNING",
    force_reextract: bool = False,
) -> OpenedSnapshot:
    """Run sources → signals → units → snapshot with their checks; return the new snapshot."""
    resource = AimiResource(
        data_dir=str(data.root),
        as_of=as_of.isoformat() if as_of else "",
        force_reextract=force_reextract,
    )
    with dagster_instance(data, persistent=persistent) as instance:
        return _materialize(data, resource, instance, log_level)


def _materialize(
    data: DataDir, resource: AimiResource, instance: dg.DagsterInstance, log_level: str
) -> OpenedSnapshot:
    result = dg.materialize(
        [*ASSETS, *CHECKS],
        resources={"aimi": resource},
        instance=instance,
        raise_on_error=False,
        # Dagster's console logger prints every engine event at DEBUG; a terminal build wants
        # the warnings (quarantined records) and the failures, the rest is in the UI.
        run_config={"loggers": {"console": {"config": {"log_level": log_level}}}},
    )
    if not result.success:
        failures = [event.step_key or "?" for event in result.all_events if event.is_step_failure]
        raise BuildError(f"build failed at step(s): {', '.join(failures) or 'unknown'}")
    for check in result.get_asset_check_evaluations():
        if not check.passed:
            raise BuildError(f"asset check {check.check_name} failed: {check.metadata}")
    opened = open_current(data)
    if opened is None:
        raise BuildError("the build finished but published no snapshot")
    return opened
