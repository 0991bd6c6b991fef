"""Checks on the trend tables: the invariants the entity and theme endpoints will rely on.
Both block: a run stops before a broken trend table reaches the profiles and the snapshot."""

# No `from __future__ import annotations`: Dagster reads these annotations at definition time.

import dagster as dg
import polars as pl

from analytics.themes import THEME_LABELS
from analytics.trends import (
    CONFIDENCE,
    DIRECTION,
    KEY,
    MIN_LABELLED,
    NOTABILITY,
    SCALE,
    SHARE_OF_VOICE,
    SHARE_OF_VOICE_HISTORY,
    SIGNAL_COUNT,
    SMALL,
    STABILITY,
)
from pipelines.defs.analytics.assets import ENTITY_TABLES, THEME_TABLES, stories
from pipelines.resources import AimiResource
from warehouse.tables import read_stored

MIN_SIGNALS_FOR_LABELS = 8
WINDOW_WEEKS = 12


def trend_table_problems(metrics: pl.DataFrame, *, themes: bool) -> list[str]:
    """Everything wrong with a trend table, in words; empty when it holds."""
    problems: list[str] = []
    if metrics[KEY].n_unique() != metrics.height:
        problems.append("keys are not unique")
    if themes:
        canonical = {label for labels in THEME_LABELS.values() for label in labels}
        strange = sorted(set(metrics[KEY].to_list()) - canonical)
        if strange:
            problems.append(f"labels outside the 12: {strange[:5]}")
    shares = metrics[SHARE_OF_VOICE]
    history = metrics[SHARE_OF_VOICE_HISTORY]
    if metrics.height and not (shares.is_between(0, 1).all()):
        problems.append("share_of_voice outside [0, 1]")
    if metrics.height and not (history.list.len() == WINDOW_WEEKS).all():
        problems.append("share_of_voice_history is not 12 weeks long")
    flat = history.explode().drop_nulls()
    if flat.len() and not flat.is_between(0, 1).all():
        problems.append("a weekly share outside [0, 1]")
    below = metrics.filter(pl.col(SIGNAL_COUNT) < MIN_SIGNALS_FOR_LABELS)
    for label in (DIRECTION, CONFIDENCE, STABILITY, NOTABILITY):
        if below[label].is_not_null().any():
            problems.append(f"{label} set below {MIN_SIGNALS_FOR_LABELS} signals")
    if not themes and (below[SCALE] != SMALL).any():
        problems.append(f"scale not Small below {MIN_SIGNALS_FOR_LABELS} signals")
    return problems


def _check(aimi: AimiResource, table: str, *, themes: bool) -> dg.AssetCheckResult:
    problems = trend_table_problems(read_stored(aimi.data(), table), themes=themes)
    return dg.AssetCheckResult(
        passed=not problems, metadata={"problems": "; ".join(problems) or "none"}
    )


@dg.asset_check(
    asset=ENTITY_TABLES["trends"].key,
    description=(
        f"Unique keys, shares in [0, 1], 12-week histories, labels null below {MIN_LABELLED} "
        "signals. "
        "Blocking: when it fails, the profiles and the snapshot are not materialized."
    ),
    blocking=True,
)
def entity_trends_hold(aimi: AimiResource) -> dg.AssetCheckResult:
    return _check(aimi, "entity_trends", themes=False)


@dg.asset_check(
    asset=THEME_TABLES["trends"].key,
    description=(
        "Only the 12 canonical labels, unique, shares in [0, 1], 12-week histories, labels "
        f"null below {MIN_LABELLED} signals. Blocking: when it fails, the profiles and the "
        "snapshot are not "
        "materialized."
    ),
    blocking=True,
)
def theme_trends_hold(aimi: AimiResource) -> dg.AssetCheckResult:
    return _check(aimi, "theme_trends", themes=True)


def story_problems(stories: pl.DataFrame) -> list[str]:
    """Everything wrong with a stories table, in words; empty when it holds."""
    problems: list[str] = []
    members = stories.select("story_id", "signal_ids").explode("signal_ids")
    empty = stories.filter(pl.col("signal_ids").list.len() == 0).height
    if empty:
        problems.append(f"{empty} stories without a signal")
    # a roundup split into its items (issue 45) is a part of each of its items' stories; any
    # other signal is in one story
    parts = (
        stories.select("story_id", "parts")
        .explode("parts")
        .drop_nulls("parts")
        .select("story_id", pl.col("parts").struct.unnest())
    )
    whole = members.join(
        parts.select("story_id", pl.col("signal_id").alias("signal_ids")),
        on=["story_id", "signal_ids"],
        how="anti",
    )
    repeated = whole.filter(pl.col("signal_ids").is_duplicated())["signal_ids"].unique()
    split = set(parts["signal_id"].to_list()) & set(whole["signal_ids"].to_list())
    if repeated.len() or split:
        shown = [*repeated.head(3).to_list(), *sorted(split)[:3]]
        problems.append(f"{repeated.len() + len(split)} signals in more than one story: {shown}")
    units = parts.explode("unit_ids")["unit_ids"]
    if units.is_duplicated().any():
        problems.append(f"{units.filter(units.is_duplicated()).n_unique()} units in several parts")
    if stories["story_id"].n_unique() != stories.height:
        problems.append("story ids are not unique")
    return problems


@dg.asset_check(
    asset=stories,
    blocking=True,
    description=(
        "Every signal is in at most one story (a roundup split into its items: a part of each "
        "of its items' stories, each unit in one part), no story is without a signal, and "
        "story ids are unique (blocking: the snapshot never serves a broken stories table)."
    ),
)
def stories_hold(aimi: AimiResource) -> dg.AssetCheckResult:
    table = read_stored(aimi.data(), "stories")
    problems = story_problems(table)
    return dg.AssetCheckResult(
        passed=not problems,
        metadata={"stories": table.height, "problems": "; ".join(problems) or "none"},
    )
