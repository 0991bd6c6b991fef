"""Trend analytics assets: weekly counts, trend metrics and labels, co-occurrence, for entities
and themes. Thin: load through the warehouse, compute with ``analytics.trends`` and
``analytics.cooccurrence``, write back."""

# No `from __future__ import annotations`: Dagster reads these annotations at definition time.

from typing import Literal

import dagster as dg
import orjson
import polars as pl
from dagster import AssetExecutionContext

from analytics.cooccurrence import co_occurrence
from analytics.profiles import (
    entity_keys,
    render_entity_profiles,
    render_theme_profiles,
    served_keys,
    tag_mix,
    theme_keys,
)
from analytics.render import served_signals
from analytics.schema import ENTITIES, SIGNAL_ENTITIES, SIGNAL_THEMES, SIGNALS, UNITS
from analytics.trends import (
    DIRECTION,
    KEY,
    SHARE_OF_VOICE,
    Clock,
    trend_metrics,
    weekly_counts,
)
from pipelines.defs.decompose.assets import units
from pipelines.defs.tag.assets import entity_mentions, signal_themes
from pipelines.metadata import markdown_table
from pipelines.resources import AimiResource
from warehouse.tables import read_table, write_table


def _materialize(
    context: AssetExecutionContext,
    aimi: AimiResource,
    keys: pl.DataFrame,
    *,
    kind: Literal["entity", "theme"],
    prefix: str,
) -> dg.MaterializeResult:  # type: ignore[type-arg]
    data = aimi.data()
    # Only served signals count, so every profile agrees with the cards /v1/signals serves.
    signals = served_signals(read_table(data, "signals", SIGNALS), read_table(data, "units", UNITS))
    keys = served_keys(keys, signals)
    clock = Clock(aimi.clock())
    metrics = trend_metrics(keys, signals, clock, kind=kind)
    write_table(data, f"{prefix}_trends", metrics)
    write_table(data, f"{prefix}_weekly_counts", weekly_counts(keys, signals, clock))
    write_table(data, f"{prefix}_cooccurrence", co_occurrence(keys))
    if kind == "entity":
        themes = read_table(data, "signal_themes", SIGNAL_THEMES)
        write_table(data, "entity_tag_mix", tag_mix(keys, signals, themes))
    context.log.info("%s trends: %d keys, window ends %s", prefix, metrics.height, clock.window_end)
    labelled = metrics.filter(pl.col(DIRECTION).is_not_null())
    top = metrics.sort(SHARE_OF_VOICE, KEY, descending=[True, False]).head(15)
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": metrics.height,
            "labelled (≥ 8 signals)": labelled.height,
            "window_end": clock.window_end.isoformat(),
            "by_direction": dg.MetadataValue.md(
                markdown_table(labelled.group_by(DIRECTION).len().sort(DIRECTION))
            ),
            "top_share_of_voice": dg.MetadataValue.md(
                markdown_table(top.select(KEY, SHARE_OF_VOICE, DIRECTION))
            ),
        }
    )


@dg.asset(
    deps=[entity_mentions, signal_themes, units],
    group_name="analytics",
    description=(
        "Per entity: signal count, first/last seen, the 12-week trend (weekly counts, share of "
        "voice and its history, streak, momentum, acceleration, z-score, persistence, source "
        "diversity) and its labels (direction, confidence by a binomial test with "
        "Benjamini–Hochberg, stability, scale, notability with its reasoning); also weekly "
        "counts, co-occurrence and per-entity content-type and theme mix tables. Counts only "
        "served signals (those with a verified central statement)."
    ),
    owners=["team:analytics"],
    kinds={"polars", "parquet"},
)
def entity_trends(context: AssetExecutionContext, aimi: AimiResource) -> dg.MaterializeResult:  # type: ignore[type-arg]
    mentions = read_table(aimi.data(), "signal_entities", SIGNAL_ENTITIES)
    return _materialize(context, aimi, entity_keys(mentions), kind="entity", prefix="entity")


@dg.asset(
    deps=[signal_themes, units],
    group_name="analytics",
    description=(
        "Per theme label (both axes): the same trend metrics and labels as entities (no `New`, "
        "no scale), weekly counts and co-occurrence across both axes."
    ),
    owners=["team:analytics"],
    kinds={"polars", "parquet"},
)
def theme_trends(context: AssetExecutionContext, aimi: AimiResource) -> dg.MaterializeResult:  # type: ignore[type-arg]
    themes = read_table(aimi.data(), "signal_themes", SIGNAL_THEMES)
    return _materialize(context, aimi, theme_keys(themes), kind="theme", prefix="theme")


@dg.asset(
    deps=[entity_trends],
    group_name="analytics",
    description=(
        "Every registry and discovered entity as the API serves it: list form, full profile "
        "with the top 25 related entities, and trending item, pre-rendered as JSON, with the "
        "keys the list endpoint filters and sorts on and each trending mode's ranks."
    ),
    owners=["team:analytics"],
    kinds={"polars", "parquet"},
)
def entity_profiles(context: AssetExecutionContext, aimi: AimiResource) -> dg.MaterializeResult:  # type: ignore[type-arg]
    data = aimi.data()
    rendered = render_entity_profiles(
        read_table(data, "entities", ENTITIES),
        pl.read_parquet(data.table_path("entity_trends")),
        pl.read_parquet(data.table_path("entity_tag_mix")),
        pl.read_parquet(data.table_path("entity_cooccurrence")),
        Clock(aimi.clock()),
    )
    write_table(data, "entity_profiles", rendered)
    listed = rendered.filter(pl.col("reviewed") & (pl.col("signal_count") >= 2))
    context.log.info("entity profiles: %d (%d in the default list)", rendered.height, listed.height)
    top = rendered.sort("signal_count", "entity_id", descending=[True, False]).head(15)
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": rendered.height,
            "default_list (reviewed, ≥ 2 signals)": listed.height,
            "rising": int(rendered["rank_rising"].is_not_null().sum()),
            "top_by_signals": dg.MetadataValue.md(
                markdown_table(top.select("name", "type", "signal_count", "direction"))
            ),
        }
    )


@dg.asset(
    deps=[theme_trends],
    group_name="analytics",
    description=(
        "The 12 themes as the API serves them: list form and full form with related themes "
        "from both axes, pre-rendered as JSON."
    ),
    owners=["team:analytics"],
    kinds={"polars", "parquet"},
)
def theme_profiles(context: AssetExecutionContext, aimi: AimiResource) -> dg.MaterializeResult:  # type: ignore[type-arg]
    data = aimi.data()
    rendered = render_theme_profiles(
        pl.read_parquet(data.table_path("theme_trends")),
        pl.read_parquet(data.table_path("theme_cooccurrence")),
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
            "dagster/row_count": rendered.height,
            "themes": dg.MetadataValue.md(markdown_table(preview)),
        }
    )
