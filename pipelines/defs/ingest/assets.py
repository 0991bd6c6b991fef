"""The ``sources`` asset: ingest new or changed inbox files, then describe the sources table."""

# No `from __future__ import annotations`: Dagster reads these annotations at definition time.

import dagster as dg
from dagster import AssetExecutionContext

from analytics.schema import SOURCES
from pipelines.metadata import markdown_table
from pipelines.resources import AimiResource
from warehouse.ingest import ingest_paths
from warehouse.tables import read_table


@dg.asset(
    group_name="ingest",
    description=(
        "Every source ever ingested, one row per canonical URL (latest version). Materializing "
        "reads new or changed files in `<data dir>/inbox/` with the adapters `aimi ingest` "
        "uses (JSONL source records, Markdown with YAML front matter, HTML, RSS/Atom feeds, "
        "PDF, VTT/SRT transcripts; `<file>.meta.yaml` sidecars supply missing fields); "
        "records that fail validation go to `quarantine`. `aimi ingest PATH` adds sources "
        "from anywhere."
    ),
    owners=["team:data-engineering"],
    kinds={"polars", "parquet"},
)
def sources(context: AssetExecutionContext, aimi: AimiResource) -> dg.MaterializeResult:  # type: ignore[type-arg]
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
    by_kind = table.group_by("kind").len().sort("kind")
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": table.height,
            "inserted": inserted,
            "updated": updated,
            "quarantined": quarantined,
            "by_kind": dg.MetadataValue.md(markdown_table(by_kind)),
        }
    )
