"""The notify group: ``webhook_deliveries`` POSTs each watchlist's new and changed signals to its
webhook (``publishing.webhooks``); the ``deliver_webhooks`` job runs it, and ``publish_sensor``
starts the job whenever ``CURRENT`` names a new snapshot, and ``retry_sensor`` whenever a batch's
scheduled retry (or a digest) comes due, so retries go on for days and resume after a restart.
Outside the ``refresh`` job, so a slow or dead endpoint never delays a publish."""

# No `from __future__ import annotations`: Dagster reads these annotations at definition time.

import json
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import polars as pl
from dagster import AssetExecutionContext

from analytics.records import RecordError, parse_timestamp
from pipelines.metadata import native_table
from pipelines.resources import DELIVER_ASSET, DELIVER_JOB, AimiResource
from publishing.watch import WatchError
from publishing.webhooks import SCHEDULE_FILE, deliver
from warehouse.snapshot import current_snapshot_id

NOTIFY_GROUP = "notify"


@dg.asset(
    name=DELIVER_ASSET,
    group_name=NOTIFY_GROUP,
    description=(
        "Webhook deliveries (`aimi watch`): every watchlist's new and changed matching signals "
        "since its last delivery, read from the change feed by position, POSTed as one signed "
        "JSON batch with retries and backoff; a batch that fails its last attempt is "
        "dead-lettered (`aimi watch list`). Started by `publish_sensor` after each publish, in "
        "its own run, so a dead endpoint never delays a publish. The log of every attempt is "
        "`<data dir>/watch/deliveries.jsonl`."
    ),
    owners=["team:data-engineering"],
    kinds={"python"},
)
def webhook_deliveries(context: AssetExecutionContext, aimi: AimiResource) -> dg.MaterializeResult:  # type: ignore[type-arg]
    try:
        report = deliver(aimi.data()).to_json()
    except WatchError as exc:
        raise RuntimeError(f"webhook deliveries failed: {exc}") from exc
    rows = report["watchlists"]
    for item in rows:
        if item["state"] == "dead":
            context.log.warning(
                "watchlist %s is dead-lettered: %s; `aimi watch retry %s` sends it again",
                item["name"],
                item["error"],
                item["name"],
            )
        context.log.info(
            "watchlist %s: %s, %d batches (%d signals) delivered in %d attempts%s",
            item["name"],
            item["state"],
            item["delivered"],
            item["signals"],
            item["attempts"],
            f"; {item['error']}" if item["error"] and item["state"] != "ok" else "",
        )
    columns = {
        "name": pl.String,
        "delivered": pl.Int64,
        "signals": pl.Int64,
        "attempts": pl.Int64,
        "failed_attempts": pl.Int64,
        "state": pl.String,
        "error": pl.String,
        "next_attempt_at": pl.String,
    }
    table = pl.DataFrame(
        [{name: item.get(name) for name in columns} for item in rows], schema=columns
    )
    dead = [item["name"] for item in rows if item["state"] == "dead"]
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": len(rows),
            "snapshot_id": report["snapshot_id"] or "",
            "batches": sum(item["delivered"] for item in rows),
            "signals": sum(item["signals"] for item in rows),
            "dead": sum(item["state"] == "dead" for item in rows),
            "pending": sum(item["state"] == "pending" for item in rows),
            # shown in the UI: which watchlists wait for `aimi watch retry`
            "dead_letters": ", ".join(dead) or "none",
            "seconds": report["seconds"],
            "watchlists": native_table(table),
        }
    )


deliver_job = dg.define_asset_job(
    DELIVER_JOB,
    selection=dg.AssetSelection.groups(NOTIFY_GROUP),
    description="POST each watchlist's new and changed signals to its webhook.",
)


@dg.sensor(
    job=deliver_job,
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description=(
        "Starts `deliver_webhooks` when `CURRENT` names a snapshot it has not seen (a build, a "
        "refresh, a rollback), and only when watchlists exist."
    ),
)
def publish_sensor(
    context: dg.SensorEvaluationContext, aimi: AimiResource
) -> dg.SensorResult | dg.SkipReason:
    data = aimi.data()
    snapshot_id = current_snapshot_id(data)
    if snapshot_id is None or snapshot_id == context.cursor:
        return dg.SkipReason(f"no new snapshot (current: {snapshot_id})")
    if not (data.watch_dir / "watchlists.json").is_file():
        return dg.SensorResult(skip_reason=dg.SkipReason("no watchlists"), cursor=snapshot_id)
    return dg.SensorResult(
        run_requests=[
            dg.RunRequest(run_key=f"deliver-{snapshot_id}", tags={"aimi/trigger": "publish"})
        ],
        cursor=snapshot_id,
    )


def _due_at(schedule_path: Path) -> datetime | None:
    try:
        raw = json.loads(schedule_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    due = raw.get("next_due_at") if isinstance(raw, dict) else None
    if not isinstance(due, str):
        return None
    try:
        return parse_timestamp(due)
    except RecordError:
        return None


@dg.sensor(
    job=deliver_job,
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description=(
        "Starts `deliver_webhooks` when a batch's scheduled retry or a digest comes due (the "
        "time the last delivery run left in `<data dir>/watch/schedule.json`), so retries go "
        "on for days with backoff and resume after a restart, until a batch is delivered or "
        "dead-lettered."
    ),
)
def retry_sensor(
    context: dg.SensorEvaluationContext, aimi: AimiResource
) -> dg.SensorResult | dg.SkipReason:
    due = _due_at(aimi.data().watch_dir / SCHEDULE_FILE)
    if due is None:
        return dg.SkipReason("nothing scheduled")
    if due > datetime.now(UTC):
        return dg.SkipReason(f"next retry or digest due at {due.isoformat()}")
    key = due.isoformat()
    if key == context.cursor:  # started for it already; the run writes the next time
        return dg.SkipReason(f"a run was started for {key}")
    return dg.SensorResult(
        run_requests=[dg.RunRequest(run_key=f"retry-{key}", tags={"aimi/trigger": "retry"})],
        cursor=key,
    )
