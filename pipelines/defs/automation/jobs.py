"""The refresh job, its daily schedule, and a sensor that starts it when the inbox changes.

Both are on by default, so ``make dagster`` keeps the snapshot current: files dropped into
``<data dir>/inbox`` are built within a minute or two, and the daily run rolls the trend window
forward even when nothing new arrived (the clock moves; ``AIMI_AS_OF`` pins it).
"""

# No `from __future__ import annotations`: Dagster reads these annotations at definition time.

import hashlib
from pathlib import Path

import dagster as dg

from pipelines.resources import AimiResource, forecast_tags
from warehouse.ingest import unlogged_files
from warehouse.snapshot import current_snapshot_id

refresh_job = dg.define_asset_job(
    "refresh",
    # everything but the webhook deliveries, which run after a publish in their own job, and
    # the source fetches (one partition per source, `sources_sensor`), whose files this job's
    # ingest reads from the inbox
    selection=dg.AssetSelection.all() - dg.AssetSelection.groups("notify", "sources"),
    description="Ingest the inbox, re-derive what changed, recompute trends, publish a snapshot.",
)


@dg.schedule(
    name="daily_refresh",
    job=refresh_job,
    cron_schedule="0 6 * * *",
    execution_timezone="UTC",
    default_status=dg.DefaultScheduleStatus.RUNNING,
    description="Every day at 06:00 UTC: the trend window ends on the last complete week.",
)
def daily_refresh(aimi: AimiResource) -> dg.RunRequest:
    # tagged with the trigger, and the as_of and decomposer the run will use (docs/dagster.md)
    return dg.RunRequest(tags=forecast_tags(aimi, trigger="schedule"))


def inbox_fingerprint(inbox: Path) -> tuple[str, int]:
    """A digest of every file's relative path, size and modification time, and the count of
    files: equal digests mean nothing was added, replaced or removed."""
    digest = hashlib.sha256()
    files = 0
    if inbox.is_dir():
        for path in sorted(p for p in inbox.rglob("*") if p.is_file()):
            stat = path.stat()
            digest.update(
                f"{path.relative_to(inbox)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode()
            )
            files += 1
    return digest.hexdigest()[:32], files


@dg.sensor(
    job=refresh_job,
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description=(
        "Starts `refresh` when files in `<data dir>/inbox` are added, changed or removed; its "
        "first evaluation starts none when a snapshot exists and the ingest log already holds "
        "every inbox file with its current bytes."
    ),
)
def inbox_sensor(
    context: dg.SensorEvaluationContext, aimi: AimiResource
) -> dg.SensorResult | dg.SkipReason:
    data = aimi.data()
    fingerprint, files = inbox_fingerprint(data.inbox)
    if fingerprint == context.cursor:
        return dg.SkipReason(f"inbox unchanged ({files} files)")
    if (
        context.cursor is None
        and current_snapshot_id(data) is not None
        and not unlogged_files(data, [data.inbox])
    ):
        # the first evaluation (a new Dagster home over a data dir `aimi build` published):
        # nothing to do when every inbox file was ingested with its current bytes
        context.update_cursor(fingerprint)
        return dg.SkipReason(f"inbox already built ({files} files in the ingest log)")
    return dg.SensorResult(
        run_requests=[
            dg.RunRequest(
                run_key=f"inbox-{fingerprint}",
                tags={**forecast_tags(aimi, trigger="sensor"), "inbox_files": str(files)},
            )
        ],
        cursor=fingerprint,
    )
