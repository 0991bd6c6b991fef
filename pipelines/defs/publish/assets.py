"""The ``snapshot`` asset: render what the API serves and publish it as an immutable snapshot."""

# No `from __future__ import annotations`: Dagster reads these annotations at definition time.

import dagster as dg
import polars as pl
from dagster import AssetExecutionContext

from analytics.render import render_search_units, render_served_signals
from analytics.schema import (
    ENTITIES,
    SIGNAL_ENTITIES,
    SIGNAL_THEMES,
    SIGNALS,
    UNIT_EMBEDDINGS,
    UNIT_ENTITIES,
    UNITS,
)
from pipelines.defs.analytics.assets import entity_profiles, theme_profiles
from pipelines.defs.decompose.assets import units
from pipelines.defs.search.assets import unit_embeddings
from pipelines.defs.tag.assets import entity_mentions, signal_themes
from pipelines.metadata import markdown_table
from pipelines.publishing import SearchInput, publish_served
from pipelines.resources import AimiResource
from warehouse.tables import read_table


@dg.asset(
    deps=[units, entity_mentions, signal_themes, entity_profiles, theme_profiles, unit_embeddings],
    group_name="publish",
    description=(
        "An immutable snapshot folder (`<data dir>/snapshots/<id>/`): served signal cards and "
        "details, entity profiles and themes pre-rendered as JSON, units, the search indexes "
        "(FAISS over the unit vectors, tantivy BM25 over their text), and a manifest "
        "with row counts and checksums; then `catalog.duckdb` gets fresh `served_*` views. "
        "The CURRENT pointer switches atomically; a running API swaps to it within seconds."
    ),
    owners=["team:data-engineering"],
    # Parquet tables, the FAISS index (and tantivy's), and the DuckDB catalog it refreshes
    kinds={"parquet", "faiss", "duckdb"},
)
def snapshot(context: AssetExecutionContext, aimi: AimiResource) -> dg.MaterializeResult:  # type: ignore[type-arg]
    data = aimi.data()
    signal_frame = read_table(data, "signals", SIGNALS)
    unit_frame = read_table(data, "units", UNITS)
    entities = read_table(data, "entities", ENTITIES)
    unit_entities = read_table(data, "unit_entities", UNIT_ENTITIES)
    rendered = render_served_signals(
        signal_frame,
        unit_frame,
        themes=read_table(data, "signal_themes", SIGNAL_THEMES),
        signal_entities=read_table(data, "signal_entities", SIGNAL_ENTITIES),
        entities=entities,
        unit_entities=unit_entities,
    )
    served_units = unit_frame.join(rendered.select("signal_id"), on="signal_id", how="semi")
    search = SearchInput.from_embeddings(
        render_search_units(rendered, signal_frame, served_units, unit_entities),
        read_table(data, "unit_embeddings", UNIT_EMBEDDINGS),
    )
    published = publish_served(
        data,
        rendered,
        served_units,
        extra_tables={
            "entities": entities,
            "entity_profiles": pl.read_parquet(data.table_path("entity_profiles")),
            "theme_profiles": pl.read_parquet(data.table_path("theme_profiles")),
        },
        as_of=aimi.clock(),
        built_at=aimi.run_started_at(),
        metadata={"signals_without_central_statement": signal_frame.height - rendered.height},
        search=search,
    )
    opened, served = published.snapshot, published.served
    context.log.info(
        "snapshot %s: %d signals (%d new or changed), %d units",
        opened.snapshot_id,
        served.height,
        published.changed,
        served_units.height,
    )
    weekly = (
        served.group_by(pl.col("published_at").dt.truncate("1w").alias("week"))
        .len()
        .sort("week")
        .tail(12)
    )
    tables = pl.DataFrame(
        [(name, entry.rows) for name, entry in opened.manifest.tables.items()],
        schema={"table": pl.String, "rows": pl.Int64},
        orient="row",
    )
    return dg.MaterializeResult(
        metadata={
            # the snapshot's headline count: the signal cards /v1/signals serves
            "dagster/row_count": served.height,
            "snapshot_id": opened.snapshot_id,
            "path": dg.MetadataValue.path(str(opened.path)),
            "as_of": opened.manifest.as_of.isoformat(),
            "signals": served.height,
            "units": served_units.height,
            "signals_without_central_statement": signal_frame.height - served.height,
            "changed_signals": published.changed,
            "last_12_weeks": dg.MetadataValue.md(markdown_table(weekly)),
            "tables": dg.MetadataValue.md(markdown_table(tables)),
        }
    )
