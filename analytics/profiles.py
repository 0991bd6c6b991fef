"""Entity profiles, themes and trending items as the API serves them (docs/api.md §2.5, §2.6, §4.7),
pre-rendered to JSON once per snapshot (docs/design.md §10).

Inputs are the trend tables of ``analytics.trends`` (one row per key with signals), the
co-occurrence tables of ``analytics.cooccurrence``, and the per-key tag mix of ``tag_mix``.
Keys without any signal up to ``as_of`` (a registry entry never mentioned, a theme no signal
carries) still get a profile: zero counts, no dates, no labels, so that every known id, name and
label resolves.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

import orjson
import polars as pl

from analytics import trends as t
from analytics.cooccurrence import KEY_A, KEY_B, co_occurrence
from analytics.entities import EntityType
from analytics.records import iso_utc
from analytics.schema import CONTENT_TYPES, ENTITY_PROFILES, THEME_PROFILES
from analytics.themes import AXES, THEME_LABELS, Axis

TypePrimary = Literal["Organization", "Person", "Product", "Other"]
# docs/design.md §6: the trending endpoint's coarser types.
TYPE_PRIMARY: dict[EntityType, TypePrimary] = {
    "organization": "Organization",
    "person": "Person",
    "model": "Product",
    "hardware": "Product",
    "other": "Product",
    "location": "Other",
    "event": "Other",
    "regulation_policy": "Other",
}
RELATED_LIMIT = 25
CONTENT_TYPE = "content_type"  # the tag_mix "axis" of content-type counts

_LABEL_FIELDS = (t.DIRECTION, t.CONFIDENCE, t.STABILITY, t.NOTABILITY)


def served_keys(mentions: pl.DataFrame, signals: pl.DataFrame) -> pl.DataFrame:
    """Distinct (signal_id, key) pairs of the given signals only."""
    return (
        mentions.select(t.SIGNAL_ID, t.KEY)
        .unique()
        .join(signals.select(t.SIGNAL_ID), on=t.SIGNAL_ID, how="semi")
    )


def tag_mix(mentions: pl.DataFrame, signals: pl.DataFrame, themes: pl.DataFrame) -> pl.DataFrame:
    """Per key, its signals counted per content type and per theme label.

    ``mentions``: (signal_id, key); ``signals``: (signal_id, content_type), the signals that
    count; ``themes``: (signal_id, value_chain, market_force). Returns (key, axis, label,
    count) where ``axis`` is ``content_type``, ``value_chain`` or ``market_force``; only
    non-zero counts appear.
    """
    pairs = served_keys(mentions, signals)
    by_type = (
        pairs.join(signals.select(t.SIGNAL_ID, CONTENT_TYPE), on=t.SIGNAL_ID)
        .group_by(t.KEY, pl.col(CONTENT_TYPE).alias("label"))
        .agg(pl.len().cast(pl.Int64).alias(t.COUNT))
        .with_columns(pl.lit(CONTENT_TYPE).alias("axis"))
    )
    parts = [by_type]
    for axis in AXES:
        labels = themes.select(t.SIGNAL_ID, pl.col(axis).alias("label")).explode("label")
        parts.append(
            pairs.join(labels.drop_nulls("label").unique(), on=t.SIGNAL_ID)
            .group_by(t.KEY, "label")
            .agg(pl.len().cast(pl.Int64).alias(t.COUNT))
            .with_columns(pl.lit(axis).alias("axis"))
        )
    return pl.concat(
        [p.select(t.KEY, "axis", "label", t.COUNT) for p in parts], how="vertical"
    ).sort(t.KEY, "axis", "label")


def _mix_of(mix: pl.DataFrame) -> dict[str, dict[str, dict[str, int]]]:
    found: dict[str, dict[str, dict[str, int]]] = {}
    for key, axis, label, count in mix.select(t.KEY, "axis", "label", t.COUNT).iter_rows():
        found.setdefault(key, {}).setdefault(axis, {})[label] = count
    return found


def _distributions(mix: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, int]]:
    """Every content type and every label of each axis, zeros included, in canonical order."""
    return {
        "content_type_mix": {c: mix.get(CONTENT_TYPE, {}).get(c, 0) for c in CONTENT_TYPES},
        "value_chain_distribution": {
            label: mix.get("value_chain", {}).get(label, 0) for label in THEME_LABELS["value_chain"]
        },
        "market_force_distribution": {
            label: mix.get("market_force", {}).get(label, 0)
            for label in THEME_LABELS["market_force"]
        },
    }


def unrated_reasoning(signal_count: int) -> str:
    """Why an item has no labels, in words a reader of the answer understands (it once cited a
    section of the project's spec, which no API user has)."""
    noun = "signal" if signal_count == 1 else "signals"
    return (
        f"Not rated: {signal_count} {noun} so far, too few to judge; notability, direction, "
        f"confidence and stability are given from {t.MIN_LABELLED} signals on."
    )


def _related(co: pl.DataFrame, limit: int | None) -> dict[str, list[tuple[str, int]]]:
    """key → [(other key, signals containing both)], count desc then key asc."""
    ordered = co.sort([KEY_A, t.COUNT, KEY_B], descending=[False, True, False])
    if limit is not None:
        ordered = ordered.group_by(KEY_A, maintain_order=True).head(limit)
    found: dict[str, list[tuple[str, int]]] = {}
    for a, b, count in ordered.select(KEY_A, KEY_B, t.COUNT).iter_rows():
        if a != b:
            found.setdefault(a, []).append((b, count))
    return found


def _time(value: Any) -> str | None:
    return None if value is None else iso_utc(value)


def _short_trend(row: Mapping[str, Any], *, diversity: bool) -> dict[str, Any]:
    trend = {
        "share_of_voice": row.get(t.SHARE_OF_VOICE, 0.0),
        "streak": row.get(t.STREAK, 0),
        "current_week": row.get(t.CURRENT_WEEK, 0),
        "prior_week": row.get(t.PRIOR_WEEK, 0),
    }
    if diversity:
        trend["source_diversity"] = row.get(t.SOURCE_DIVERSITY, 0)
    return trend


def _labels(row: Mapping[str, Any], signal_count: int) -> dict[str, Any]:
    labels = {name: row.get(name) for name in _LABEL_FIELDS}
    labels["notability_reasoning"] = row.get(t.NOTABILITY_REASONING) or unrated_reasoning(
        signal_count
    )
    return labels


def render_entity_profiles(
    entities: pl.DataFrame,
    metrics: pl.DataFrame,
    mix: pl.DataFrame,
    co: pl.DataFrame,
    clock: t.Clock,
    story_counts: Mapping[str, int] | None = None,
) -> pl.DataFrame:
    """One ENTITY_PROFILES row per entity of ``entities`` (the ENTITIES table).

    ``metrics``: the entity ``trend_metrics``; ``mix``: ``tag_mix`` of entity mentions;
    ``co``: entity ``co_occurrence``. Trending ranks cover reviewed entities only (the
    human-reviewed set the list serves by default); unreviewed discovered names still get a
    profile, and appear in the list with ``min_signals=1``. ``story_counts``
    (``analytics.stories.story_counts``) adds ``story_count`` to the list form and the profile.
    """
    by_key = {row[t.KEY]: row for row in metrics.iter_rows(named=True)}
    mixes = _mix_of(mix)
    related = _related(co, RELATED_LIMIT)
    ref = {
        entity_id: (name, kind)
        for entity_id, name, kind in entities.select("entity_id", "name", "type").iter_rows()
    }
    ranks = _trending_ranks(entities, metrics, clock)
    rows: list[dict[str, Any]] = []
    for entity in entities.sort("entity_id").iter_rows(named=True):
        entity_id = entity["entity_id"]
        row: Mapping[str, Any] = by_key.get(entity_id, {})
        signal_count = int(row.get(t.SIGNAL_COUNT, 0))
        distributions = _distributions(mixes.get(entity_id, {}))
        listed = _listed(entity, row, signal_count, distributions, story_counts)
        profile = {**listed, "related_entities": _related_entities(related.get(entity_id, []), ref)}
        type_primary = TYPE_PRIMARY[entity["type"]]
        item = {
            "entity_id": entity_id,
            "display_name": entity["name"],
            "type_primary": type_primary,
            "signal_count": signal_count,
            "first_seen": listed["first_seen"],
            "last_seen": listed["last_seen"],
            "trend": _trending_trend(row),
            **distributions,
        }
        themes = [
            label
            for axis in AXES
            for label, count in distributions[f"{axis}_distribution"].items()
            if count
        ]
        rows.append(
            {
                "entity_id": entity_id,
                "name": entity["name"],
                "type": entity["type"],
                "type_primary": type_primary,
                "reviewed": entity["reviewed"],
                "signal_count": signal_count,
                "first_seen": row.get(t.FIRST_SEEN),
                "recent_mentions": int(row.get(t.RECENT_MENTIONS, 0)),
                **{name: row.get(name) for name in _LABEL_FIELDS},
                "scale": listed["scale"],
                "themes": themes,
                **{f"rank_{mode}": ranks[mode].get(entity_id) for mode in t.MODES},
                "list_json": orjson.dumps(listed),
                "profile_json": orjson.dumps(profile),
                "trending_json": orjson.dumps(item),
            }
        )
    return pl.DataFrame(rows, schema=ENTITY_PROFILES, orient="row")


def _related_entities(
    related: list[tuple[str, int]], ref: Mapping[str, tuple[str, str]]
) -> list[dict[str, Any]]:
    """A profile's related entities: each with its name, type and co-occurrence count."""
    return [
        {
            "entity_id": other,
            "name": ref[other][0],
            "type": ref[other][1],
            "co_occurrence_count": count,
        }
        for other, count in related
        if other in ref
    ]


def _trending_ranks(
    entities: pl.DataFrame, metrics: pl.DataFrame, clock: t.Clock
) -> dict[str, dict[str, int]]:
    """Each trending mode's rank of each reviewed entity (from 1)."""
    reviewed_ids = entities.filter(pl.col("reviewed"))["entity_id"]
    rankable = metrics.filter(pl.col(t.KEY).is_in(reviewed_ids.implode()))
    return {
        mode: {
            key: rank
            for rank, key in enumerate(t.trending(rankable, mode, clock)[t.KEY].to_list(), 1)
        }
        for mode in t.MODES
    }


def _listed(
    entity: Mapping[str, Any],
    row: Mapping[str, Any],
    signal_count: int,
    distributions: dict[str, dict[str, int]],
    story_counts: Mapping[str, int] | None,
) -> dict[str, Any]:
    """An entity's list form (what the profile adds its related entities to)."""
    head: dict[str, Any] = {
        "entity_id": entity["entity_id"],
        "name": entity["name"],
        "type": entity["type"],
    }
    if entity["wikipedia_url"]:
        head["wikipedia_url"] = entity["wikipedia_url"]
    listed = {
        **head,
        "signal_count": signal_count,
        "first_seen": _time(row.get(t.FIRST_SEEN)),
        "last_seen": _time(row.get(t.LAST_SEEN)),
        "trend": _short_trend(row, diversity=True),
        "scale": row.get(t.SCALE) or t.SMALL,
        **_labels(row, signal_count),
        **distributions,
    }
    if story_counts is not None:
        listed["story_count"] = story_counts.get(entity["entity_id"], 0)
    return listed


def _trending_trend(row: Mapping[str, Any]) -> dict[str, Any]:
    """The trend object of a trending item."""
    return {
        "momentum_wow": row.get(t.MOMENTUM_WOW, 0.0),
        "momentum_4w": row.get(t.MOMENTUM_4W, 0.0),
        "acceleration": row.get(t.ACCELERATION, 0.0),
        "z_score": row.get(t.Z_SCORE, 0.0),
        "persistence": row.get(t.PERSISTENCE, 0.0),
        "share_of_voice": row.get(t.SHARE_OF_VOICE, 0.0),
        "share_of_voice_history": row.get(t.SHARE_OF_VOICE_HISTORY) or [0.0] * t.WEEKS,
        "streak": row.get(t.STREAK, 0),
        "current_week": row.get(t.CURRENT_WEEK, 0),
        "prior_week": row.get(t.PRIOR_WEEK, 0),
    }


def _axis_of() -> dict[str, Axis]:
    return {label: axis for axis in AXES for label in THEME_LABELS[axis]}


def render_theme_profiles(
    metrics: pl.DataFrame, co: pl.DataFrame, story_counts: Mapping[str, int] | None = None
) -> pl.DataFrame:
    """The 12 THEME_PROFILES rows in canonical order (value chain first), whether or not any
    signal carries the label. ``related_themes`` draws from both axes, count desc then axis
    and label in canonical order. ``story_counts`` adds ``story_count`` to both forms."""
    by_key = {row[t.KEY]: row for row in metrics.iter_rows(named=True)}
    axis_of = _axis_of()
    order = {label: i for i, label in enumerate(axis_of)}
    related = _related(co, None)
    rows: list[dict[str, Any]] = []
    for position, (label, axis) in enumerate(axis_of.items()):
        row: Mapping[str, Any] = by_key.get(label, {})
        signal_count = int(row.get(t.SIGNAL_COUNT, 0))
        listed = {
            "axis": axis,
            "label": label,
            "signal_count": signal_count,
            "trend": _short_trend(row, diversity=False),
            **_labels(row, signal_count),
        }
        if story_counts is not None:
            listed["story_count"] = story_counts.get(label, 0)
        others = sorted(
            ((other, count) for other, count in related.get(label, []) if other in axis_of),
            key=lambda pair: (-pair[1], order[pair[0]]),
        )
        full = {
            **listed,
            "related_themes": [
                {"axis": axis_of[other], "label": other, "co_occurrence_count": count}
                for other, count in others
            ],
        }
        rows.append(
            {
                "axis": axis,
                "label": label,
                "position": position,
                "list_json": orjson.dumps(listed),
                "theme_json": orjson.dumps(full),
            }
        )
    return pl.DataFrame(rows, schema=THEME_PROFILES, orient="row")


def theme_keys(themes: pl.DataFrame) -> pl.DataFrame:
    """One (signal_id, key) row per (signal, label); the 12 labels are unique across axes."""
    return pl.concat(
        [
            themes.select(t.SIGNAL_ID, pl.col(axis).alias(t.KEY)).explode(t.KEY).drop_nulls(t.KEY)
            for axis in AXES
        ]
    ).unique()


def entity_keys(mentions: pl.DataFrame) -> pl.DataFrame:
    return mentions.select(t.SIGNAL_ID, pl.col("entity_id").alias(t.KEY))


def profile_tables(
    *,
    signals: pl.DataFrame,
    signal_entities: pl.DataFrame,
    signal_themes: pl.DataFrame,
    entities: pl.DataFrame,
    clock: t.Clock,
) -> dict[str, pl.DataFrame]:
    """Everything from scratch in one call: ``entity_profiles`` and ``theme_profiles`` over the
    given (served) signals. The pipeline runs the same steps as separate assets; this is for
    callers without the warehouse (tests, one-off scripts)."""
    ekeys = served_keys(entity_keys(signal_entities), signals)
    tkeys = served_keys(theme_keys(signal_themes), signals)
    return {
        "entity_profiles": render_entity_profiles(
            entities,
            t.trend_metrics(ekeys, signals, clock, kind="entity", undated=t.undated_keys(entities)),
            tag_mix(ekeys, signals, signal_themes),
            co_occurrence(ekeys),
            clock,
        ),
        "theme_profiles": render_theme_profiles(
            t.trend_metrics(tkeys, signals, clock, kind="theme"), co_occurrence(tkeys)
        ),
    }


def recount(
    cards: Iterable[Mapping[str, Any]],
) -> tuple[dict[str, int], dict[tuple[str, str], int]]:
    """Signal and pair counts per entity id, straight from served signal cards: the check that
    profiles agree with what ``/v1/signals`` serves."""
    counts: dict[str, int] = {}
    pairs: dict[tuple[str, str], int] = {}
    for card in cards:
        ids = sorted({ref["entity_id"] for ref in card["entities"]})
        for i, a in enumerate(ids):
            counts[a] = counts.get(a, 0) + 1
            for b in ids[i + 1 :]:
                pairs[(a, b)] = pairs.get((a, b), 0) + 1
    return counts, pairs
