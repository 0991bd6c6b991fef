"""Materialize the whole asset graph in-process (what `aimi build` runs), or only the derived
views and the embeddings (what `POST /v1/admin/refresh` runs). One build at a time per data
dir: both hold ``build.lock``.

``aimi build --processes N`` runs the same graph on Dagster's multiprocess executor: every step
in its own process, N at a time, the per-signal passes split into N chunks (``pipelines.chunks``);
the launcher holds the build lock for the whole run and the steps check it is still held
(docs/decisions/0068-a-multiprocess-build.md)."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import dagster as dg

from pipelines.definitions import ASSETS, CHECKS
from pipelines.resources import AimiResource, resource_for_run, run_tags
from warehouse import clock, locks
from warehouse.build_encoder import available_cores
from warehouse.build_record import BuildRecord, CheckOutcome, write_build_record
from warehouse.paths import DataDir
from warehouse.settings import DecomposerChoice
from warehouse.snapshot import OpenedSnapshot, current_snapshot_id, open_current
from warehouse.tables import catalog_refreshed_at_the_end

DAGSTER_YAML = Path(__file__).resolve().parent.parent / "dagster.yaml"


# What a refresh re-materializes (docs/api.md §4.10): the aggregate views behind profiles,
# co-occurrence, the theme overview and the weekly counts, then the embeddings of new units and the
# snapshot.
REFRESHED_VIEWS = ("entity_trends", "theme_trends", "entity_profiles", "theme_profiles")
# the tables the same steps write beside them (the views' multi-assets)
_WRITTEN_WITH = (
    "entity_weekly_counts",
    "entity_cooccurrence",
    "entity_tag_mix",
    "theme_weekly_counts",
    "theme_cooccurrence",
)
_REFRESHED = (*REFRESHED_VIEWS, *_WRITTEN_WITH, "unit_embeddings", "snapshot", "static_site")


class BuildError(RuntimeError):
    """A step of the build failed; the message names it."""


class BuildBusy(BuildError):
    """Another build or refresh holds the data dir's build lock."""


class DiskFull(BuildError):
    """The data dir's filesystem filled up during the run: a step's write, Dagster's own
    run storage (SQLite under ``<data dir>/dagster``) or the catalog's."""


# how each writer says it: OSError's errno, SQLite ("database or disk is full"), DuckDB and the
# site's child process (the OSError's text)
_FULL_DISK_TEXTS = ("No space left on device", "database or disk is full", "Disk quota exceeded")


def _disk_full(exc: BaseException | None, data: DataDir) -> bool:
    """Whether ``exc`` (or what it was raised from or during) is a full disk. SQLite reports a
    write that found no room as "disk I/O error" as often as "database or disk is full": that
    one counts when the data dir's filesystem has less than a page left."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        text = str(exc)
        if any(t in text for t in _FULL_DISK_TEXTS):
            return True
        if "disk I/O error" in text and _free_bytes(data) < 4096:
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _free_bytes(data: DataDir) -> int:
    try:
        return shutil.disk_usage(data.root).free
    except OSError:
        return 1 << 62  # unknown: not called full


@contextlib.contextmanager
def _full_disk_stops_the_run(data: DataDir) -> Iterator[None]:
    """A full disk as ``DiskFull``, one line naming what still serves, not the tracebacks of
    whichever writer (Dagster's storage, DuckDB, a step) met it first. Nothing was published:
    ``CURRENT`` moves last, after every write of the run."""
    try:
        yield
    except BuildError:
        raise
    except Exception as exc:
        if not _disk_full(exc, data):
            raise
        try:
            serving = current_snapshot_id(data)
        except OSError:
            serving = None
        still = f"CURRENT still names {serving}" if serving else "no snapshot was published"
        raise DiskFull(
            "the data dir's disk is full (No space left on device, "
            f"{_free_bytes(data):,} bytes free): the run stopped and published nothing; "
            f"{still}. Free some space and run it again."
        ) from exc


@dataclass(frozen=True)
class BuildRun:
    """A finished build: the snapshot it published and Dagster's in-process result, whose
    materialization events carry the metadata the UI shows (row counts, previews, the plot)."""

    snapshot: OpenedSnapshot
    result: dg.ExecuteInProcessResult | dg.ExecuteJobResult


@dataclass(frozen=True)
class RefreshReport:
    views: tuple[str, ...]
    units_embedded: int
    snapshot: OpenedSnapshot


@contextlib.contextmanager
def build_lock(data: DataDir, *, wait: bool, token: str = "") -> Iterator[None]:
    """Exclusive use of the data dir for one build; ``wait=False`` raises ``BuildBusy``;
    ``token`` is written into the lock file (``locks.build_lock``)."""

    from warehouse.lease import LeaseBusy
    from warehouse.s3 import ObjectStoreError

    def say_waiting() -> None:
        sys.stderr.write(f"waiting for the build running on {data.root} to finish\n")

    def say_lease_waiting(why: str) -> None:
        sys.stderr.write(f"waiting: {why}\n")

    with contextlib.ExitStack() as held:
        try:
            held.enter_context(
                locks.build_lock(
                    data,
                    wait=wait,
                    on_wait=say_waiting,
                    token=token,
                    on_lease_wait=say_lease_waiting,
                )
            )
        except LeaseBusy as busy:
            raise BuildBusy(f"{busy}; try again when it has finished") from None
        except locks.LockBusy:
            raise BuildBusy(
                f"another build or refresh is running on {data.root} (it holds "
                f"{data.build_lock.name}); try again when it has finished"
            ) from None
        except ObjectStoreError as exc:  # unreachable, or no conditional writes there
            raise BuildError(f"cannot take the build lease: {exc}") from None
        yield


def dagster_instance(data: DataDir, *, persistent: bool, processes: int = 1) -> dg.DagsterInstance:
    """The Dagster instance in ``<data dir>/dagster`` (the UI then shows CLI builds too), or an
    ephemeral one for tests (in a temporary folder for a multiprocess run, whose steps read
    the run from its storage)."""
    if not persistent:
        return dg.DagsterInstance.local_temp() if processes > 1 else dg.DagsterInstance.ephemeral()
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
    decomposer: DecomposerChoice | None = None,
    wall_clock: bool = False,
    processes: int = 1,
    chunks: int | None = None,
) -> OpenedSnapshot:
    """Run sources → signals → units → snapshot with their checks; return the new snapshot."""
    return build_run(
        data,
        as_of=as_of,
        persistent=persistent,
        log_level=log_level,
        force_reextract=force_reextract,
        decomposer=decomposer,
        wall_clock=wall_clock,
        processes=processes,
        chunks=chunks,
    ).snapshot


def build_run(
    data: DataDir,
    *,
    as_of: datetime | None = None,
    persistent: bool = True,
    log_level: str = "WARNING",
    force_reextract: bool = False,
    decomposer: DecomposerChoice | None = None,
    wall_clock: bool = False,
    processes: int = 1,
    chunks: int | None = None,
) -> BuildRun:
    """``build``, keeping Dagster's result as well as the snapshot.

    The data dir remembers the clock (``warehouse.clock``): ``as_of`` pins it for every later
    run of any kind, ``wall_clock`` returns to the wall clock, neither keeps what it was.
    ``processes`` above 1 runs the steps on the multiprocess executor, that many at a time,
    the per-signal passes in as many chunks (or ``chunks``), each process's encoder on its
    share of the cores.
    """
    if as_of is not None and wall_clock:
        raise ValueError("give as_of or wall_clock, not both")
    if processes < 1:
        raise ValueError(f"processes must be at least 1, not {processes}")
    token = secrets.token_hex(16) if processes > 1 else ""
    with (
        _full_disk_stops_the_run(data),
        build_lock(data, wait=True, token=token),
        dagster_instance(data, persistent=persistent, processes=processes) as instance,
    ):
        if as_of is not None:
            clock.pin(data, as_of, by=f"aimi build --as-of {as_of.isoformat()}")
        elif wall_clock:
            clock.unpin(data)
        # the run's one read of the wall clock (docs/design.md §7), once the lock is ours
        resource = resource_for_run(
            data, as_of=as_of, force_reextract=force_reextract, decomposer=decomposer
        )
        changes: dict[str, Any] = {"chunks": chunks or processes}
        if processes > 1:
            changes |= {"threads": max(1, available_cores() // processes), "lock_token": token}
        # a new resource, not `model_copy`: Dagster builds a run's resource from the config
        # it was made with, which a copy's updates do not reach
        resource = AimiResource(**{**_fields(resource), **changes})
        return _materialize(
            data, resource, instance, log_level, trigger="aimi-build", processes=processes
        )


def refresh(
    data: DataDir,
    *,
    as_of: datetime | None = None,
    persistent: bool = True,
    log_level: str = "WARNING",
) -> RefreshReport:
    """Re-materialize the derived views, embed units not embedded yet, publish a snapshot.
    Raises ``BuildBusy`` at once when a build or another refresh is running."""
    with (
        _full_disk_stops_the_run(data),
        build_lock(data, wait=False),
        dagster_instance(data, persistent=persistent) as instance,
    ):
        resource = resource_for_run(data, as_of=as_of)
        run = _materialize(
            data, resource, instance, log_level, trigger="admin-refresh", selection=_REFRESHED
        )
    embedded = 0
    for event in run.result.get_asset_materialization_events():
        materialization = event.event_specific_data.materialization  # type: ignore[union-attr]
        if materialization.asset_key != dg.AssetKey("unit_embeddings"):
            continue
        value = materialization.metadata.get("units_embedded")
        if isinstance(value, dg.IntMetadataValue) and value.value is not None:
            embedded = value.value
    return RefreshReport(REFRESHED_VIEWS, embedded, run.snapshot)


def _materialize(
    data: DataDir,
    resource: AimiResource,
    instance: dg.DagsterInstance,
    log_level: str,
    *,
    trigger: str,
    selection: tuple[str, ...] | None = None,
    processes: int = 1,
) -> BuildRun:
    # Dagster's console logger prints every engine event at DEBUG; a terminal build wants the
    # warnings (quarantined records) and the failures, the rest is in the UI.
    loggers = {"console": {"config": {"log_level": log_level}}}
    result: dg.ExecuteInProcessResult | dg.ExecuteJobResult
    with catalog_refreshed_at_the_end(data):
        if processes > 1:
            result = _execute_multiprocess(resource, instance, loggers, trigger, processes)
        else:
            result = dg.materialize(
                [*ASSETS, *CHECKS],
                selection=list(selection) if selection else None,
                resources={"aimi": resource},
                instance=instance,
                tags=run_tags(resource, trigger=trigger),
                raise_on_error=False,
                run_config={"loggers": loggers},
            )
    checks = [
        CheckOutcome(check.check_name, check.asset_key.to_user_string(), check.passed)
        for check in result.get_asset_check_evaluations()
    ]
    record = partial(
        BuildRecord,
        kind="refresh" if selection else "build",
        run_id=result.run_id,
        started_at=resource.run_started_at().isoformat(),
        as_of=resource.clock().isoformat(),
        checks=checks,
    )
    for check in result.get_asset_check_evaluations():
        if not check.passed and check.severity == dg.AssetCheckSeverity.WARN:
            sys.stderr.write(f"warning: {_check_line(check)}\n")
    try:
        opened = _published(data, result)
    except BuildError as exc:
        finished = datetime.now(UTC).isoformat()
        write_build_record(data, record(finished_at=finished, success=False, error=str(exc)))
        raise
    finished = datetime.now(UTC).isoformat()
    write_build_record(
        data, record(finished_at=finished, success=True, snapshot_id=opened.snapshot_id)
    )
    return BuildRun(opened, result)


def _fields(resource: AimiResource) -> dict[str, Any]:
    """The resource's configured fields, by name."""
    return {name: getattr(resource, name) for name in AimiResource.model_fields}


def _execute_multiprocess(
    resource: AimiResource,
    instance: dg.DagsterInstance,
    loggers: Mapping[str, object],
    trigger: str,
    processes: int,
) -> dg.ExecuteJobResult:
    """Run the whole graph with at most ``processes`` steps at once, each in a process forked
    from a server that imported the definitions once (a spawned process imports Dagster and
    every stage again: seconds per step). The steps get this resource's settings through the
    run config, so they share its clock, chunks, threads and the lock's token."""
    defaults = {name: field.default for name, field in AimiResource.model_fields.items()}
    config = {name: value for name, value in _fields(resource).items() if value != defaults[name]}
    run_config = {
        "loggers": loggers,
        "resources": {"aimi": {"config": config}},
        "execution": {
            "config": {
                "max_concurrent": processes,
                "start_method": {"forkserver": {"preload_modules": ["pipelines.parallel"]}},
            }
        },
    }
    from pipelines.parallel import parallel_build_job

    return dg.execute_job(
        dg.reconstructable(parallel_build_job),
        instance=instance,
        run_config=run_config,
        tags=run_tags(resource, trigger=trigger),
        raise_on_error=False,
    )


def _published(
    data: DataDir, result: dg.ExecuteInProcessResult | dg.ExecuteJobResult
) -> OpenedSnapshot:
    """The snapshot a successful run published; ``BuildError`` naming the failed steps or
    checks otherwise."""
    if not result.success:
        failures = [event for event in result.all_events if event.is_step_failure]
        steps = ", ".join(event.step_key or "?" for event in failures) or "unknown"
        reasons = [_failure_message(event) for event in failures]
        detail = "; ".join(r for r in reasons if r)
        raise BuildError(f"build failed at step(s): {steps}" + (f": {detail}" if detail else ""))
    for check in result.get_asset_check_evaluations():
        # a warning-severity check (the quarantine and rejection rates) warns, never fails
        if not check.passed and check.severity == dg.AssetCheckSeverity.ERROR:
            raise BuildError(f"asset check {check.check_name} failed: {check.metadata}")
    opened = open_current(data)
    if opened is None:
        raise BuildError("the build finished but published no snapshot")
    return opened


def _check_line(check: dg.AssetCheckEvaluation) -> str:
    values = ", ".join(f"{key} {value.value}" for key, value in check.metadata.items())
    return f"check {check.check_name} on {check.asset_key.to_user_string()} did not pass ({values})"


def _failure_message(event: dg.DagsterEvent) -> str:
    """The error a failed step raised, as one line (``dg.Failure``'s description or the
    exception's message)."""
    data = event.step_failure_data
    error = data.error if data is not None else None
    if error is None:
        return ""
    if data is not None and data.user_failure_data is not None:
        return data.user_failure_data.description or error.message.strip()
    # a user exception is wrapped: its own message is the cause's
    cause = error.cause or error
    return cause.message.strip().splitlines()[0] if cause.message else ""
