"""Trend analytics assets: weekly counts, trend metrics and labels, co-occurrence, for entities
and themes. Thin: load through the warehouse, compute with ``analytics.trends``, write back."""

# No `from __future__ import annotations`: Dagster reads these annotations at definition time.

from typing import Literal

import dagster as dg
import polars as pl
from dagster import AssetExecutionContext

from analytics.schema import SIGNAL_ENTITIES, SIGNAL_THEMES, SIGNALS
from analytics.trends import (
    DIRECTION,
    KEY,
    SHARE_OF_VOICE,
    Clock,
    co_occurrence,
    trend_metrics,
    weekly_counts,
)
from pipelines.defs.tag.assets import entity_mentions, signal_themes
from pipelines.metadata import markdown_table
from pipelines.resources import AimiResource
from warehouse.tables import read_table, write_table


def entity_keys(mentions: pl.DataFrame) -> pl.DataFrame:
    return mentions.select("signal_id", pl.col("entity_id").alias(KEY))


def theme_keys(themes: pl.DataFrame) -> pl.DataFrame:
    """One row per (signal, label); the 12 labels are unique across the two axes."""
    return pl.concat(
        [
            themes.select("signal_id", pl.col(axis).alias(KEY)).explode(KEY).drop_nulls(KEY)
            for axis in ("value_chain", "market_force")
        ]
    ).unique()


def _materialize(
    context: AssetExecutionContext,
    aimi: AimiResource,
    keys: pl.DataFrame,
    *,
    kind: Literal["entity", "theme"],
    prefix: str,
) -> dg.MaterializeResult:  # type: ignore[type-arg]
    data = aimi.data()
    signals = read_table(data, "signals", SIGNALS)
    clock = Clock(aimi.clock())
    metrics = trend_metrics(keys, signals, clock, kind=kind)
    write_table(data, f"{prefix}_trends", metrics)
    write_table(data, f"{prefix}_weekly_counts", weekly_counts(keys, signals, clock))
    write_table(data, f"{prefix}_cooccurrence", co_occurrence(keys))
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
    deps=[entity_mentions],
    group_name="analytics",
    description=(
        "Per entity: signal count, first/last seen, the 12-week trend (weekly counts, share of "
        "voice and its history, streak, momentum, acceleration, z-score, persistence, source "
        "diversity) and the labels of DESIGN §7 (direction, confidence by a binomial test with "
        "Benjamini–Hochberg, stability, scale, notability with its reasoning); also weekly "
        "counts and co-occurrence tables."
    ),
    owners=["team:analytics"],
    kinds={"polars", "parquet"},
)
def entity_trends(context: AssetExecutionContext, aimi: AimiResource) -> dg.MaterializeResult:  # type: ignore[type-arg]
    mentions = read_table(aimi.data(), "signal_entities", SIGNAL_ENTITIES)
    return _materialize(context, aimi, entity_keys(mentions), kind="entity", prefix="entity")


@dg.asset(
    deps=[signal_themes],
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
