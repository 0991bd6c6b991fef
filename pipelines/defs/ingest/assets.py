"""The ingest group: one step reads new or changed inbox files and materializes the three tables
it writes, ``sources``, ``quarantine`` and ``ingest_log``."""

# No `from __future__ import annotations`: Dagster reads these annotations at definition time.

from collections.abc import Iterator

import dagster as dg
import polars as pl
from dagster import AssetExecutionContext

from analytics.schema import INGEST_LOG, QUARANTINE, SOURCES
from pipelines.metadata import native_table, table_metadata, warehouse_table
from pipelines.resources import AimiResource
from warehouse.ingest import ingest_paths
from warehouse.tables import read_table

_TEAM = "team:data-engineering"

SOURCES_TABLE = warehouse_table(
    "sources",
    schema=SOURCES,
    group_name="ingest",
    owner=_TEAM,
    description=(
        "Every source ever ingested, one row per canonical URL (latest version). Materializing "
        "reads new or changed files in `<data dir>/inbox/` with the adapters `aimi ingest` "
        "uses (JSONL source records, Markdown with YAML front matter, HTML, RSS/Atom feeds, "
        "PDF, VTT/SRT transcripts; `<file>.meta.yaml` sidecars supply missing fields); "
        "records that fail validation go to `quarantine`. `aimi ingest PATH` adds sources "
        "from anywhere."
    ),
)
QUARANTINE_TABLE = warehouse_table(
    "quarantine",
    schema=QUARANTINE,
    group_name="ingest",
    owner=_TEAM,
    description=(
        "Records and files that could not be ingested: file, line, the offending field, the "
        "reason in words and the raw record. Written by the same step as `sources`; its check "
        "watches the quarantine rate."
    ),
)
INGEST_LOG_TABLE = warehouse_table(
    "ingest_log",
    schema=INGEST_LOG,
    group_name="ingest",
    owner=_TEAM,
    description=(
        "Every file read, with its checksum and how many records it held and how many were "
        "quarantined, so an unchanged inbox file is not read twice."
    ),
)


@dg.multi_asset(
    name="sources",
    specs=[SOURCES_TABLE, QUARANTINE_TABLE, INGEST_LOG_TABLE],
    description="Ingest the inbox: new or changed files into sources, quarantine and the log.",
)
def ingest(context: AssetExecutionContext, aimi: AimiResource) -> Iterator[dg.MaterializeResult]:  # type: ignore[type-arg]
    data = aimi.data()
    inserted = updated = quarantined = 0
    if data.inbox.is_dir():
        report = ingest_paths(
            data,
            [data.inbox],
            skip_unchanged_files=True,
            progress=False,
            now=aimi.run_started_at(),
        )
        context.log.info("inbox: %s", report.summary())
        inserted, updated, quarantined = report.inserted, report.updated, len(report.quarantined)
        for item in report.quarantined[:20]:
            context.log.warning("quarantined %s:%s %s", item.file, item.line, item.reason)
    table = read_table(data, "sources", SOURCES)
    context.log.info("sources: %d in the warehouse", table.height)
    yield dg.MaterializeResult(
        asset_key=SOURCES_TABLE.key,
        metadata={
            **table_metadata(table),
            "inserted": inserted,
            "updated": updated,
            "quarantined": quarantined,
            "by_kind": native_table(table.group_by("kind").len("sources").sort("kind")),
        },
    )
    quarantine = read_table(data, "quarantine", QUARANTINE)
    yield dg.MaterializeResult(
        asset_key=QUARANTINE_TABLE.key,
        metadata={
            **table_metadata(quarantine),
            "this_run": quarantined,
            "by_reason": native_table(
                quarantine.group_by("reason")
                .len("records")
                .sort("records", "reason", descending=[True, False])
            ),
        },
    )
    log = read_table(data, "ingest_log", INGEST_LOG)
    yield dg.MaterializeResult(
        asset_key=INGEST_LOG_TABLE.key,
        metadata={
            **table_metadata(log),
            "records_read": int(log["records"].sum()),
            "records_quarantined": int(log["quarantined"].sum()),
            "latest_files": native_table(
                log.sort("ingested_at", descending=True)
                .select(
                    pl.col("path").str.split("/").list.last().alias("file"),
                    "records",
                    "quarantined",
                    "ingested_at",
                )
                .head(10)
            ),
        },
    )
