"""The fetch job and ``sources_sensor``, which keeps one dynamic partition per entry of
``<data dir>/sources.yaml`` and materializes each source's partition when it is due.

Dagster schedules cannot add partitions, and sources come and go between ticks, so a sensor
does both: every minute it adds the partitions of new sources and deletes those of removed
ones, then requests one run per due source (its ``every`` since its last fetch: never
fetched, or ``1d`` ago for a daily source). The files a run fetches land in the inbox, where
``inbox_sensor`` sees them and starts ``refresh`` (docs/dagster.md, "The sources group").
"""

# No `from __future__ import annotations`: Dagster reads these annotations at definition time.

from datetime import UTC, datetime

import dagster as dg

from fetch.run import is_due, next_due
from fetch.sources import Source, SourceListError, load_sources
from fetch.state import FetchState, LastRun
from pipelines import resources
from pipelines.defs.sources.assets import (
    FETCH_ASSET,
    FETCH_JOB,
    SOURCE_PARTITIONS,
    SOURCE_PARTITIONS_NAME,
    SOURCES_GROUP,
    fetch_host,
)
from pipelines.defs.sources.resource import FetchResource
from pipelines.resources import TRIGGER_TAG

# the run tag the run queue limits to one run at a time per value (dagster.yaml), so two
# sources on one host are never fetched at once even when several runs may run side by side
FETCH_HOST_TAG = "aimi/fetch_host"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_IN_FLIGHT = [
    dg.DagsterRunStatus.QUEUED,
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
]

fetch_job = dg.define_asset_job(
    FETCH_JOB,
    # partitioned as its asset is (SOURCE_PARTITIONS), which Dagster infers
    selection=dg.AssetSelection.groups(SOURCES_GROUP),
    description="Fetch one source (a partition of `fetched_items`) into the inbox.",
)


def due_run_key(source: Source, last: LastRun | None, now: datetime) -> str:
    """The run key of a due source's run: the same on every tick until the source is fetched
    (so a source is requested once while its run waits in the queue), and a new one each
    interval after that if no fetch was recorded (a run that crashed is tried again one
    ``every`` later, not every minute)."""
    anchor = next_due(source, last) or source.added or _EPOCH
    attempt = max(0, int((now - anchor) / source.interval))
    fetched = last.started_at.isoformat() if last else "never"
    return f"fetch:{source.name}:{fetched}:{attempt}"


def partitions_in_flight(instance: dg.DagsterInstance) -> set[str]:
    """The sources whose partition a queued or running run fetches (the sensor's, or one
    started from the UI)."""
    key = dg.AssetKey(FETCH_ASSET)
    found: set[str] = set()
    for run in instance.get_runs(filters=dg.RunsFilter(statuses=_IN_FLIGHT)):
        fetches = run.job_name == FETCH_JOB or key in (run.asset_selection or ())
        partition = run.tags.get("dagster/partition")
        if fetches and partition:
            found.add(partition)
    return found


@dg.sensor(
    job=fetch_job,
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description=(
        "Keeps one partition of `fetched_items` per source in `<data dir>/sources.yaml` (adds "
        "new sources', deletes removed ones') and starts a run for each source that is due "
        "(its `every` since its last fetch), one run per source. An invalid sources.yaml "
        "changes nothing and says why."
    ),
)
def sources_sensor(
    context: dg.SensorEvaluationContext, fetch: FetchResource
) -> dg.SensorResult | dg.SkipReason:
    data = fetch.data()
    try:
        listed = load_sources(data)
    except SourceListError as exc:
        # never delete every partition because of a typo in the file
        return dg.SkipReason(f"sources.yaml is not valid; partitions left as they are: {exc}")
    names = listed.names()
    existing = context.instance.get_dynamic_partitions(SOURCE_PARTITIONS_NAME)
    added = [name for name in names if name not in set(existing)]
    removed = [name for name in existing if name not in set(names)]
    partition_requests: list[dg.AddDynamicPartitionsRequest | dg.DeleteDynamicPartitionsRequest]
    partition_requests = []
    if added:
        partition_requests.append(SOURCE_PARTITIONS.build_add_request(added))
    if removed:
        partition_requests.append(SOURCE_PARTITIONS.build_delete_request(removed))
    run_requests: list[dg.RunRequest] = []
    waiting: list[str] = []
    upcoming: list[tuple[datetime, str]] = []
    if listed.sources:
        now = resources.wall_clock()
        running = partitions_in_flight(context.instance)
        with FetchState(data) as state:
            for source in listed.sources:
                last = state.last_run(source.name)
                if not is_due(source, last, now):
                    due = next_due(source, last)
                    if due is not None:
                        upcoming.append((due, source.name))
                    continue
                if source.name in running:
                    waiting.append(source.name)
                    continue
                run_requests.append(
                    dg.RunRequest(
                        partition_key=source.name,
                        run_key=due_run_key(source, last, now),
                        tags={TRIGGER_TAG: "sensor", FETCH_HOST_TAG: fetch_host(source)},
                    )
                )
    if run_requests or partition_requests:
        return dg.SensorResult(
            run_requests=run_requests, dynamic_partitions_requests=partition_requests
        )
    if not names:
        return dg.SkipReason("no sources; add one with `aimi sources add URL`")
    said = f"{len(names)} source(s), none due"
    if waiting:
        said += f"; fetching: {', '.join(waiting)}"
    if upcoming:
        due, name = min(upcoming)
        said += f"; next: {name} at {due.astimezone(UTC).strftime('%Y-%m-%d %H:%M')} UTC"
    return dg.SkipReason(said)
