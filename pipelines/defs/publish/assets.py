"""The publish group: ``snapshot`` renders what the API serves into a new immutable snapshot
folder; ``static_site`` writes the static JSON tree and the market-pulse site into it and
publishes it (``CURRENT`` moves only then, after the snapshot's checks)."""

# No `from __future__ import annotations`: Dagster reads these annotations at definition time.

import time
from datetime import timedelta

import dagster as dg
import polars as pl
from dagster import AssetExecutionContext

from analytics.corroboration import corroboration_objects
from analytics.render import render_search_units, render_served_signals
from analytics.schema import (
    CLAIM_LINKS,
    ENTITIES,
    SIGNAL_ENTITIES,
    SIGNAL_THEMES,
    SIGNALS,
    STORIES,
    UNIT_EMBEDDINGS,
    UNIT_ENTITIES,
    UNITS,
)
from analytics.significance import with_raw_p_values
from analytics.stories import render_stories, signal_story
from pipelines.defs.analytics.assets import (
    claim_links_table,
    entity_profiles,
    stories,
    theme_profiles,
)
from pipelines.defs.decompose.assets import UNITS_TABLE
from pipelines.defs.search.assets import unit_embeddings
from pipelines.defs.tag.assets import (
    ENTITIES_TABLE,
    SIGNAL_ENTITIES_TABLE,
    UNIT_ENTITIES_TABLE,
    signal_themes,
)
from pipelines.metadata import native_table
from pipelines.publishing import Published, SearchInput, publish_staged, stage_served
from pipelines.resources import AimiResource
from warehouse.snapshot import SnapshotError, open_staged
from warehouse.tables import read_stored, read_table

_TEAM = "team:data-engineering"

# Fresh while the daily refresh (06:00 UTC) keeps publishing: a warning after 26 hours (one
# missed run, with slack), stale after 48 (two). Judged on when the snapshot was last
# materialized, not on its `as_of`, so a data dir pinned to the demo's clock is as fresh as its
# last build (docs/dagster.md).
SNAPSHOT_FRESHNESS = dg.FreshnessPolicy.time_window(
    fail_window=timedelta(hours=48), warn_window=timedelta(hours=26)
)


@dg.asset(
    deps=[
        UNITS_TABLE,
        ENTITIES_TABLE,
        SIGNAL_ENTITIES_TABLE,
        UNIT_ENTITIES_TABLE,
        signal_themes,
        entity_profiles,
        theme_profiles,
        unit_embeddings,
        stories,
        claim_links_table,
    ],
    group_name="publish",
    description=(
        "An immutable snapshot folder (`<data dir>/snapshots/<id>/`): served signal cards and "
        "details, entity profiles and themes pre-rendered as JSON, the trend tables, units, "
        "the search indexes (FAISS over the unit vectors, tantivy BM25 over their text and over "
        "each signal's complete text), and "
        "a manifest with row counts and checksums. Staged, not yet served: `STAGED` names it; "
        "`static_site` publishes it once the checks below have passed. Also numbers new and "
        "changed signals for the change feed (the `change_state` table). Fresh while it was "
        "materialized in the last 26 hours (a warning after that, stale after 48)."
    ),
    owners=[_TEAM],
    # Parquet tables, the FAISS index (and tantivy's), and the DuckDB catalog it refreshes
    kinds={"parquet", "faiss", "duckdb"},
    freshness_policy=SNAPSHOT_FRESHNESS,
)
def snapshot(context: AssetExecutionContext, aimi: AimiResource) -> dg.MaterializeResult:  # type: ignore[type-arg]
    data = aimi.data()
    signal_frame = read_table(data, "signals", SIGNALS)
    unit_frame = read_table(data, "units", UNITS)
    entities = read_table(data, "entities", ENTITIES)
    unit_entities = read_table(data, "unit_entities", UNIT_ENTITIES)
    story_frame = read_table(data, "stories", STORIES)
    # each card's story (a roundup's: the one holding most of its units), each claim's
    # corroboration
    story_of = signal_story(story_frame)
    corroboration = corroboration_objects(
        read_table(data, "claim_links", CLAIM_LINKS), unit_frame, signal_frame
    )
    rendered = render_served_signals(
        signal_frame,
        unit_frame,
        themes=read_table(data, "signal_themes", SIGNAL_THEMES),
        signal_entities=read_table(data, "signal_entities", SIGNAL_ENTITIES),
        entities=entities,
        unit_entities=unit_entities,
        story_of=story_of,
        corroboration=corroboration,
    )
    served_units = unit_frame.join(rendered.select("signal_id"), on="signal_id", how="semi")
    search = SearchInput.from_embeddings(
        render_search_units(rendered, signal_frame, served_units, unit_entities, corroboration),
        read_table(data, "unit_embeddings", UNIT_EMBEDDINGS),
        # each signal's complete text (a podcast segment's transcript): search finds a source
        # by words no unit carries, and serves its unit nearest them
        sources=signal_frame.select("signal_id", "text"),
        unit_spans=served_units.select("unit_id", "start_char", "end_char"),
    )
    published = stage_served(
        data,
        rendered,
        served_units,
        extra_tables={
            "entities": entities,
            "entity_profiles": read_stored(data, "entity_profiles"),
            "theme_profiles": read_stored(data, "theme_profiles"),
            # the counts behind each label's test, and its raw p-value, which the site shows
            "entity_trends": with_raw_p_values(read_stored(data, "entity_trends")),
            "theme_trends": with_raw_p_values(read_stored(data, "theme_trends")),
            # what /v1/stories serves
            "stories": render_stories(story_frame, signal_frame, entities, unit_frame),
        },
        as_of=aimi.clock(),
        built_at=aimi.run_started_at(),
        metadata={"signals_without_central_statement": signal_frame.height - rendered.height},
        search=search,
    )
    opened, served = published.snapshot, published.served
    context.log.info(
        "snapshot %s staged: %d signals (%d new or changed), %d units",
        opened.snapshot_id,
        served.height,
        published.changed,
        served_units.height,
    )
    return dg.MaterializeResult(
        metadata=_snapshot_metadata(published, served_units.height, signal_frame.height)
    )


def _story_of(story_frame: pl.DataFrame) -> dict[str, str]:
    """Each signal's story id."""
    return dict(
        story_frame.select("story_id", pl.col("signal_ids").alias("signal_id"))
        .explode("signal_id")
        .select("signal_id", "story_id")
        .iter_rows()
    )


def _snapshot_metadata(
    published: Published, units: int, signals: int
) -> "dict[str, dg.RawMetadataValue]":  # a name only type checkers see
    opened, served = published.snapshot, published.served
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
    return {
        # the snapshot's headline count: the signal cards /v1/signals serves
        "dagster/row_count": served.height,
        "snapshot_id": opened.snapshot_id,
        "path": dg.MetadataValue.path(str(opened.path)),
        "as_of": opened.manifest.as_of.isoformat(),
        "signals": served.height,
        "units": units,
        "signals_without_central_statement": signals - served.height,
        "changed_signals": published.changed,
        "last_12_weeks": native_table(weekly),
        "tables": native_table(tables, max_rows=30),
    }


@dg.asset(
    deps=[snapshot],
    group_name="publish",
    description=(
        "The static half of the snapshot, in `<snapshot>/site/`: a JSON tree byte-identical "
        "to the API's answers (`json/v1/…`: every entity profile, theme, theme list, trending "
        "list and signal detail), the market-pulse HTML site (overview, entity, theme, signal "
        "and method pages, charts as inline SVG) and its Pagefind search index. Sealed into "
        "the manifest, then the CURRENT pointer switches atomically and `catalog.duckdb` gets "
        "fresh `served_*` views; a running API swaps to it within seconds. A file whose bytes "
        "did not change since the current snapshot is hard-linked from it, and a page whose "
        "inputs did not change is not rendered again."
    ),
    owners=["team:data-engineering"],
    kinds={"html", "json"},
)
def static_site(context: AssetExecutionContext, aimi: AimiResource) -> dg.MaterializeResult:  # type: ignore[type-arg]
    data = aimi.data()
    staged = open_staged(data)
    if staged is None:
        raise SnapshotError("no staged snapshot: materialize `snapshot` first")
    started = time.perf_counter()
    opened = publish_staged(data, staged, lock_token=aimi.lock_token)
    seconds = time.perf_counter() - started
    report = opened.manifest.metadata["static_site"]
    context.log.info(
        "static site for %s: %d pages (%d rendered), %d JSON files, %d files linked from %s "
        "in %.1f s; published",
        opened.snapshot_id,
        report["pages"],
        report["rendered_pages"],
        report["json_files"],
        report["linked_files"],
        report["previous"] or "no previous site",
        seconds,
    )
    site = opened.path / "site"
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": report["pages"],
            "snapshot_id": opened.snapshot_id,
            "pages": report["pages"],
            "json_files": report["json_files"],
            "feeds": report.get("feeds", 0),
            "feeds_seconds": report.get("feeds_seconds", 0.0),
            "bytes": report["bytes"],
            "seconds": round(seconds, 2),
            "pagefind_seconds": report["pagefind_seconds"],
            "rendered_pages": report["rendered_pages"],
            "linked_files": report["linked_files"],
            "pagefind_reused": report["pagefind_reused"],
            "preview": dg.MetadataValue.url((site / "index.html").as_uri()),
            "path": dg.MetadataValue.path(str(site)),
            "summary": dg.MetadataValue.md(
                f"{report['pages']} pages, {report['json_files']} JSON files and "
                f"{report.get('feeds', 0)} Atom feeds ({report['bytes'] / 1e6:.1f} MB) in "
                f"{seconds:.1f} s; {report['rendered_pages']} pages rendered, "
                f"{report['linked_files']} of {report['files']} files unchanged since the "
                "previous snapshot and hard-linked from it. Serve them with "
                "`aimi serve --site` (under `/site/`) or copy them with `aimi site export DIR`."
            ),
        }
    )
