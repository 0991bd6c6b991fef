"""The notify group: ``webhook_deliveries`` POSTs each watchlist's new and changed signals to its
webhook (``publishing.webhooks``); the ``deliver_webhooks`` job runs it, and ``publish_sensor``
starts the job whenever ``CURRENT`` names a new snapshot. Outside the ``refresh`` job, so a slow
or dead endpoint never delays a publish."""

# No `from __future__ import annotations`: Dagster reads these annotations at definition time.

import dagster as dg
import polars as pl
from dagster import AssetExecutionContext

from pipelines.metadata import native_table
from pipelines.resources import DELIVER_ASSET, DELIVER_JOB, AimiResource
from publishing.watch import WatchError
from publishing.webhooks import deliver
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
        context.log.info(
            "watchlist %s: %s, %d batches (%d signals) delivered in %d attempts%s",
            item["name"],
            item["state"],
            item["delivered"],
            item["signals"],
            item["attempts"],
            f"; {item['error']}" if item["error"] and item["state"] != "ok" else "",
        )
    table = pl.DataFrame(
        rows,
        schema={
            "name": pl.String,
            "delivered": pl.Int64,
            "signals": pl.Int64,
            "attempts": pl.Int64,
            "failed_attempts": pl.Int64,
            "state": pl.String,
            "error": pl.String,
        },
    )
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": len(rows),
            "snapshot_id": report["snapshot_id"] or "",
            "batches": sum(item["delivered"] for item in rows),
            "signals": sum(item["signals"] for item in rows),
            "dead": sum(item["state"] == "dead" for item in rows),
            "pending": sum(item["state"] == "pending" for item in rows),
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
