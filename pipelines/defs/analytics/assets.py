"""Trend analytics: for entities and for themes, one step computes the trend metrics and labels,
the weekly counts and the co-occurrence (and, for entities, the content-type and theme mix) and
materializes each table it writes; then the profiles the API serves. Thin: load through the
warehouse, compute with ``analytics.trends`` and ``analytics.cooccurrence``, write back."""

# No `from __future__ import annotations`: Dagster reads these annotations at definition time.

from collections.abc import Iterator
from typing import Literal

import dagster as dg
import orjson
import polars as pl
from dagster import AssetExecutionContext

from analytics.cooccurrence import co_occurrence
from analytics.corroboration import CONTESTS, CorroborationParams, claim_inputs, claim_links
from analytics.profiles import (
    entity_keys,
    render_entity_profiles,
    render_theme_profiles,
    served_keys,
    tag_mix,
    theme_keys,
)
from analytics.render import served_signals
from analytics.schema import (
    CLAIM_LINKS,
    ENTITIES,
    ENTITY_PROFILES,
    SIGNAL_ENTITIES,
    SIGNAL_THEMES,
    SIGNALS,
    STORIES,
    THEME_PROFILES,
    UNIT_EMBEDDINGS,
    UNIT_ENTITIES,
    UNITS,
)
from analytics.stories import (
    StoryParams,
    build_stories,
    story_counts,
    story_inputs,
    story_items,
)
from analytics.themes import THEME_LABELS
from analytics.trends import (
    DIRECTION,
    KEY,
    MIN_LABELLED,
    SHARE_OF_VOICE,
    Clock,
    trend_metrics,
    undated_keys,
    weekly_counts,
)
from pipelines.defs.decompose.assets import UNITS_TABLE
from pipelines.defs.search.assets import unit_embeddings
from pipelines.defs.tag.assets import (
    ENTITIES_TABLE,
    SIGNAL_ENTITIES_TABLE,
    UNIT_ENTITIES_TABLE,
    signal_themes,
)
from pipelines.metadata import (
    column_schema,
    movers_plot,
    native_table,
    table_metadata,
    top_movers,
    warehouse_table,
    weekly_lines_plot,
)
from pipelines.resources import AimiResource
from warehouse.paths import DataDir
from warehouse.tables import read_stored, read_table, write_table

_TEAM = "team:analytics"
_TREND_DEPS = (signal_themes, UNITS_TABLE)


def _tables(prefix: str, kind: str) -> dict[str, dg.AssetSpec]:
    # entities: their types say which are never New (places)
    deps = (
        (*_TREND_DEPS, SIGNAL_ENTITIES_TABLE, ENTITIES_TABLE) if kind == "entity" else _TREND_DEPS
    )
    tables = {
        "trends": warehouse_table(
            f"{prefix}_trends",
            deps=deps,
            group_name="analytics",
            owner=_TEAM,
            description=(
                f"Per {kind}: signal count, first/last seen, the 12-week trend (weekly counts, "
                "share of voice and its history, streak, momentum, acceleration, z-score, "
                "persistence, source diversity) and its labels (direction, confidence by a "
                "binomial test with Benjamini–Hochberg, stability"
                + (", scale, notability with its reasoning" if kind == "entity" else "")
                + "). Counts only served signals (those with a verified central statement); "
                "its metadata plots the top movers."
            ),
        ),
        "weekly_counts": warehouse_table(
            f"{prefix}_weekly_counts",
            deps=deps,
            group_name="analytics",
            owner=_TEAM,
            description=(
                f"Served signals per {kind} per week of the 12-week window (every key has 12 "
                "rows, zeros included)"
                + (
                    ": its metadata plots the weekly volume of every theme."
                    if kind == "theme"
                    else "."
                )
            ),
        ),
        "cooccurrence": warehouse_table(
            f"{prefix}_cooccurrence",
            deps=deps,
            group_name="analytics",
            owner=_TEAM,
            description=(
                f"Signals in common for every ordered pair of {kind} keys (both directions): "
                "the related lists of the profiles."
            ),
        ),
    }
    if kind == "entity":
        tables["tag_mix"] = warehouse_table(
            "entity_tag_mix",
            deps=deps,
            group_name="analytics",
            owner=_TEAM,
            description=(
                "Per entity, its served signals counted per content type and per theme label "
                "(non-zero counts only): the mix shown on its profile."
            ),
        )
    return tables


ENTITY_TABLES = _tables("entity", "entity")
THEME_TABLES = _tables("theme", "theme")


def _materialize(
    context: AssetExecutionContext,
    aimi: AimiResource,
    keys: pl.DataFrame,
    *,
    kind: Literal["entity", "theme"],
    tables: dict[str, dg.AssetSpec],
) -> Iterator[dg.MaterializeResult]:  # type: ignore[type-arg]
    data = aimi.data()
    # A subset run (e.g. `key:theme_trends+` in the UI) computes and writes only the tables
    # it selected: the four are independent views of the same inputs.
    selected = context.selected_asset_keys
    # Only served signals count, so every profile agrees with the cards /v1/signals serves.
    signals = served_signals(read_table(data, "signals", SIGNALS), read_table(data, "units", UNITS))
    keys = served_keys(keys, signals)
    clock = Clock(aimi.clock())
    if tables["trends"].key in selected:
        yield _trends(context, data, keys, signals, clock, kind, tables["trends"])
    if tables["weekly_counts"].key in selected:
        yield _weekly_counts(data, keys, signals, clock, kind, tables["weekly_counts"])
    if tables["cooccurrence"].key in selected:
        pairs = co_occurrence(keys)
        write_table(data, f"{kind}_cooccurrence", pairs)
        yield dg.MaterializeResult(
            asset_key=tables["cooccurrence"].key,
            metadata={
                **table_metadata(pairs),
                "strongest_pairs": native_table(
                    pairs.filter(pl.col("key_a") < pl.col("key_b"))
                    .sort("count", "key_a", "key_b", descending=[True, False, False])
                    .head(10)
                ),
            },
        )
    if "tag_mix" in tables and tables["tag_mix"].key in selected:
        themes = read_table(data, "signal_themes", SIGNAL_THEMES)
        mix = tag_mix(keys, signals, themes)
        write_table(data, "entity_tag_mix", mix)
        yield dg.MaterializeResult(
            asset_key=tables["tag_mix"].key,
            metadata={
                **table_metadata(mix),
                "by_axis": native_table(
                    mix.group_by("axis").agg(pl.col("count").sum().alias("mentions")).sort("axis")
                ),
            },
        )


def _trends(
    context: AssetExecutionContext,
    data: DataDir,
    keys: pl.DataFrame,
    signals: pl.DataFrame,
    clock: Clock,
    kind: Literal["entity", "theme"],
    spec: dg.AssetSpec,
) -> dg.MaterializeResult:  # type: ignore[type-arg]
    undated = undated_keys(read_table(data, "entities", ENTITIES)) if kind == "entity" else []
    metrics = trend_metrics(keys, signals, clock, kind=kind, undated=undated)
    write_table(data, f"{kind}_trends", metrics)
    context.log.info("%s trends: %d keys, window ends %s", kind, metrics.height, clock.window_end)
    labelled = metrics.filter(pl.col(DIRECTION).is_not_null())
    top = metrics.sort(SHARE_OF_VOICE, KEY, descending=[True, False]).head(15)
    movers = top_movers(metrics, names=_display_names(data) if kind == "entity" else {})
    return dg.MaterializeResult(
        asset_key=spec.key,
        metadata={
            **table_metadata(metrics),
            f"labelled (≥ {MIN_LABELLED} signals)": labelled.height,
            "window_end": clock.window_end.isoformat(),
            "by_direction": native_table(labelled.group_by(DIRECTION).len().sort(DIRECTION)),
            "top_share_of_voice": native_table(top.select(KEY, SHARE_OF_VOICE, DIRECTION)),
            "top_movers": dg.MetadataValue.md(
                movers_plot(movers, title=f"top movers ({kind}s, ≥ {MIN_LABELLED} signals)")
            ),
        },
    )


def _weekly_counts(
    data: DataDir,
    keys: pl.DataFrame,
    signals: pl.DataFrame,
    clock: Clock,
    kind: Literal["entity", "theme"],
    spec: dg.AssetSpec,
) -> dg.MaterializeResult:  # type: ignore[type-arg]
    weekly = weekly_counts(keys, signals, clock)
    write_table(data, f"{kind}_weekly_counts", weekly)
    weekly_metadata: dict[str, dg.RawMetadataValue] = {
        **table_metadata(weekly),
        "keys": weekly[KEY].n_unique(),
        "window_end": clock.window_end.isoformat(),
    }
    if kind == "theme":
        weekly_metadata["weekly_volume"] = dg.MetadataValue.md(
            weekly_lines_plot(
                weekly,
                panels={str(axis): labels for axis, labels in THEME_LABELS.items()},
                title="signals per theme",
            )
        )
    return dg.MaterializeResult(asset_key=spec.key, metadata=weekly_metadata)


def _display_names(data: DataDir) -> dict[str, str]:
    entities = read_table(data, "entities", ENTITIES)
    return dict(zip(entities["entity_id"].to_list(), entities["name"].to_list(), strict=True))


@dg.multi_asset(
    name="entity_trends",
    specs=list(ENTITY_TABLES.values()),
    can_subset=True,
    description="Entity trend metrics and labels, weekly counts, co-occurrence and tag mix.",
)
def entity_trends(
    context: AssetExecutionContext, aimi: AimiResource
) -> Iterator[dg.MaterializeResult]:  # type: ignore[type-arg]
    mentions = read_table(aimi.data(), "signal_entities", SIGNAL_ENTITIES)
    yield from _materialize(
        context, aimi, entity_keys(mentions), kind="entity", tables=ENTITY_TABLES
    )


@dg.multi_asset(
    name="theme_trends",
    specs=list(THEME_TABLES.values()),
    can_subset=True,
    description="Theme trend metrics and labels, weekly counts and co-occurrence.",
)
def theme_trends(
    context: AssetExecutionContext, aimi: AimiResource
) -> Iterator[dg.MaterializeResult]:  # type: ignore[type-arg]
    themes = read_table(aimi.data(), "signal_themes", SIGNAL_THEMES)
    yield from _materialize(context, aimi, theme_keys(themes), kind="theme", tables=THEME_TABLES)


@dg.asset(
    deps=[
        ENTITIES_TABLE,
        ENTITY_TABLES["trends"],
        ENTITY_TABLES["tag_mix"],
        ENTITY_TABLES["cooccurrence"],
        "stories",
    ],
    metadata={"dagster/column_schema": column_schema(ENTITY_PROFILES)},
    group_name="analytics",
    description=(
        "Every registry and discovered entity as the API serves it: list form, full profile "
        "with the top 25 related entities and the number of stories it is in, and trending "
        "item, pre-rendered as JSON, with the keys the list endpoint filters and sorts on and "
        "each trending mode's ranks."
    ),
    owners=["team:analytics"],
    kinds={"polars", "parquet"},
)
def entity_profiles(context: AssetExecutionContext, aimi: AimiResource) -> dg.MaterializeResult:  # type: ignore[type-arg]
    data = aimi.data()
    rendered = render_entity_profiles(
        read_table(data, "entities", ENTITIES),
        read_stored(data, "entity_trends"),
        read_stored(data, "entity_tag_mix"),
        read_stored(data, "entity_cooccurrence"),
        Clock(aimi.clock()),
        story_counts=story_counts(read_table(data, "stories", STORIES)),
    )
    write_table(data, "entity_profiles", rendered)
    listed = rendered.filter(pl.col("reviewed") & (pl.col("signal_count") >= 2))
    context.log.info("entity profiles: %d (%d in the default list)", rendered.height, listed.height)
    top = rendered.sort("signal_count", "entity_id", descending=[True, False]).head(15)
    return dg.MaterializeResult(
        metadata={
            **table_metadata(rendered),
            "default_list (reviewed, ≥ 2 signals)": listed.height,
            "rising": int(rendered["rank_rising"].is_not_null().sum()),
            "top_by_signals": native_table(top.select("name", "type", "signal_count", "direction")),
        }
    )


@dg.asset(
    deps=[THEME_TABLES["trends"], THEME_TABLES["cooccurrence"], "stories"],
    metadata={"dagster/column_schema": column_schema(THEME_PROFILES)},
    group_name="analytics",
    description=(
        "The 12 themes as the API serves them: list form and full form with related themes "
        "from both axes and the number of stories carrying the label, pre-rendered as JSON."
    ),
    owners=["team:analytics"],
    kinds={"polars", "parquet"},
)
def theme_profiles(context: AssetExecutionContext, aimi: AimiResource) -> dg.MaterializeResult:  # type: ignore[type-arg]
    data = aimi.data()
    rendered = render_theme_profiles(
        read_stored(data, "theme_trends"),
        read_stored(data, "theme_cooccurrence"),
        story_counts=story_counts(read_table(data, "stories", STORIES)),
    )
    write_table(data, "theme_profiles", rendered)
    context.log.info("theme profiles: %d", rendered.height)
    fields = ("axis", "label", "signal_count", DIRECTION)
    listed = [orjson.loads(raw) for raw in rendered["list_json"]]
    preview = pl.DataFrame(
        [tuple(item.get(field) for field in fields) for item in listed],
        schema={
            "axis": pl.String,
            "label": pl.String,
            "signal_count": pl.Int64,
            DIRECTION: pl.String,
        },
        orient="row",
    )
    return dg.MaterializeResult(
        metadata={
            **table_metadata(rendered),
            "themes": native_table(preview),
        }
    )


@dg.asset(
    deps=[UNITS_TABLE, SIGNAL_ENTITIES_TABLE, UNIT_ENTITIES_TABLE, signal_themes, unit_embeddings],
    metadata={"dagster/column_schema": column_schema(STORIES)},
    group_name="analytics",
    description=(
        "Stories: served signals about the same event or development, grouped within a "
        "rolling window of days (docs/design.md §7); a roundup (a digest of unrelated items, "
        "found from its text) is split into its items first, each joining its own event's "
        "story. Per story a stable id (carried over from the previous build by shared signals; "
        "merges and splits recorded), a title naming the event (never a heading used on many "
        "days), first and last seen, its signals, the roundup units in it (parts), entities "
        "and themes, and its independent sources (distinct publishers: authors, else domains; "
        "chapters and reprints counted once)."
    ),
    owners=[_TEAM],
    kinds={"polars", "parquet"},
)
def stories(context: AssetExecutionContext, aimi: AimiResource) -> dg.MaterializeResult:  # type: ignore[type-arg]
    data = aimi.data()
    units = read_table(data, "units", UNITS)
    embeddings = read_table(data, "unit_embeddings", UNIT_EMBEDDINGS)
    signal_entities = read_table(data, "signal_entities", SIGNAL_ENTITIES)
    served, vectors = story_inputs(
        read_table(data, "signals", SIGNALS), units, embeddings, aimi.clock()
    )
    items, item_vectors = story_items(
        served,
        vectors,
        units,
        embeddings,
        read_table(data, "unit_entities", UNIT_ENTITIES),
        signal_entities,
    )
    previous = read_table(data, "stories", STORIES)
    built, _ = build_stories(
        items,
        item_vectors,
        signal_entities,
        read_table(data, "signal_themes", SIGNAL_THEMES),
        previous=previous,
        params=StoryParams(),
    )
    write_table(data, "stories", built)
    multi = built.filter(pl.col("signal_count") > 1)
    parts = items.filter(pl.col("item_id") != pl.col("signal_id"))
    context.log.info(
        "stories: %d (%d with more than one signal) over %d signals",
        built.height,
        multi.height,
        served.height,
    )
    top = built.sort(
        "independent_sources", "signal_count", "story_id", descending=[True, True, False]
    )
    return dg.MaterializeResult(
        metadata={
            **table_metadata(built),
            "signals": served.height,
            "stories with more than one signal": multi.height,
            "merged": int((built["merged_from"].list.len() > 0).sum()),
            "split": int(built["split_from"].is_not_null().sum()),
            "roundups split": parts["signal_id"].n_unique(),
            "roundup items": parts.height,
            "top_by_sources": native_table(
                top.head(10).select("title", "signal_count", "independent_sources", "last_seen")
            ),
        }
    )


@dg.asset(
    name="claim_links",
    deps=[UNITS_TABLE, UNIT_ENTITIES_TABLE, unit_embeddings],
    metadata={"dagster/column_schema": column_schema(CLAIM_LINKS)},
    group_name="analytics",
    description=(
        "Corroboration (docs/design.md §7): per claim unit (thesis, synopsis, claim) of a "
        "served signal, the claims of other voices that state the same fact — the same "
        "entities, numbers that agree, MiniLM cosine ≥ 0.8, at most 7 days apart, compared "
        "only within a block of one entity set and time bucket — and those that reverse it "
        "(contested: the verifier's negation and antonym cues). Both directions; `counted` "
        "marks one claim per copy group, so a reprint counts once."
    ),
    owners=[_TEAM],
    kinds={"polars", "parquet"},
)
def claim_links_table(context: AssetExecutionContext, aimi: AimiResource) -> dg.MaterializeResult:  # type: ignore[type-arg]
    data = aimi.data()
    claims, vectors = claim_inputs(
        read_table(data, "signals", SIGNALS),
        read_table(data, "units", UNITS),
        read_table(data, "unit_entities", UNIT_ENTITIES),
        read_table(data, "unit_embeddings", UNIT_EMBEDDINGS),
        aimi.clock(),
    )
    links = claim_links(claims, vectors, CorroborationParams())
    write_table(data, "claim_links", links)
    contested = links.filter(pl.col("relation") == CONTESTS)
    corroborated = links.filter(pl.col("relation") != CONTESTS)
    context.log.info(
        "claim links: %d over %d claims (%d contesting)",
        links.height,
        claims.height,
        contested.height,
    )
    return dg.MaterializeResult(
        metadata={
            **table_metadata(links),
            "claims compared": claims.height,
            "claims corroborated": corroborated["unit_id"].n_unique(),
            "claims contested": contested["unit_id"].n_unique(),
            "strongest": native_table(
                corroborated.sort("similarity", descending=True)
                .head(10)
                .select("unit_id", "other_unit_id", "similarity")
            ),
        }
    )
