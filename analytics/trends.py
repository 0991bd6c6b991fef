"""Trend analytics over weekly mention counts (docs/design.md §7): the build clock, dense weekly
counts, per-key trend metrics and labels, and the trending lists. The rate-change test behind
``confidence`` is ``analytics.significance``; co-occurrence is ``analytics.cooccurrence``. The
column names below (input, weekly and metric columns) are shared with both.

Pure functions: frames in, frames out. A ``key`` is an entity id or a theme label; the same
functions serve both, with ``kind`` deciding the few entity-only rules (``New``, ``scale``).

Numerics: every threshold that the design states as a ratio is decided in integers, and every
float sort key is rounded to 12 significant digits first, so that values which are equal in exact
arithmetic never reorder on float64 rounding noise. Served floats stay plain float64.

Speed (bench/analytics, docs/benchmarks.md): strings are touched only at the edges. Keys become
dense integer codes in key order (so integer order is output order; ``analytics.codes``), each
mention is matched to its signal once per run of equal signal ids, and distinct (key, signal)
pairs are one sort of packed int64 codes over signals numbered in publication order, so each
key's pairs are one run, oldest first: first, last and notable-since are positions in it, and
everything else per key (counts, weeks, domains) is a ``bincount`` over those codes. No loop
over keys or weeks.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal, NamedTuple

import numpy as np
import numpy.typing as npt
import polars as pl

from analytics.codes import code_bits, dense_codes, distinct_sorted, positions, runs
from analytics.schema import UTC_TIME
from analytics.significance import adjusted_p_values

Kind = Literal["entity", "theme"]
Mode = Literal["rising", "hot", "consistent", "new"]
MODES: tuple[Mode, ...] = ("rising", "hot", "consistent", "new")

WEEKS = 12
MIN_LABELLED = 8
MIN_TRENDING = 2
SIG_DIGITS = 12
ALPHA = 0.05

# Input columns.
SIGNAL_ID = "signal_id"
PUBLISHED_AT = "published_at"
DOMAIN = "domain"
KEY = "key"

# weekly_counts / weekly_totals / co_occurrence.
WEEK_START = "week_start"
COUNT = "count"
TOTAL = "total"

# trend_metrics: the served fields.
SIGNAL_COUNT = "signal_count"
FIRST_SEEN = "first_seen"
LAST_SEEN = "last_seen"
# when the key's signals first numbered NOTABLE_AT (first_seen with fewer): what `New` and the
# `new` trending list date an entity by
NOTABLE_SINCE = "notable_since"
CURRENT_WEEK = "current_week"
PRIOR_WEEK = "prior_week"
SHARE_OF_VOICE = "share_of_voice"
SHARE_OF_VOICE_HISTORY = "share_of_voice_history"
STREAK = "streak"
MOMENTUM_WOW = "momentum_wow"
MOMENTUM_4W = "momentum_4w"
ACCELERATION = "acceleration"
Z_SCORE = "z_score"
PERSISTENCE = "persistence"
SOURCE_DIVERSITY = "source_diversity"
# trend_metrics: the exact integers the labels and filters are decided on.
WINDOW_MENTIONS = "window_mentions"  # Σc W-11…W0
ACTIVE_WEEKS = "active_weeks"  # weeks with c ≥ 1, persistence = active_weeks / 12
RECENT_MENTIONS = "recent_mentions"  # k1 = Σc W-3…W0
PRIOR_MENTIONS = "prior_mentions"  # k2 = Σc W-11…W-4
RECENT_TOTAL = "recent_total"  # n1 = ΣT W-3…W0
PRIOR_TOTAL = "prior_total"  # n2 = ΣT W-11…W-4
P_VALUE = "p_value"  # Benjamini–Hochberg adjusted, eligible keys only
# trend_metrics: the labels.
DIRECTION = "direction"
CONFIDENCE = "confidence"
STABILITY = "stability"
SCALE = "scale"
NOTABILITY = "notability"
NOTABILITY_POINTS = "notability_points"
NOTABILITY_REASONING = "notability_reasoning"

# A name is notable from its third signal on: the count at which a discovered name is accepted
# into the reviewed set (analytics.entity_review). One or two mentions before a launch (a
# rumour, a "coming soon") do not make a model old news when it ships; but a name first heard
# more than half a year before it became notable is an old name talked about again, not a new
# one (docs/decisions/0032-trend-analytics.md).
NOTABLE_AT = 3
NEW_LEAD = timedelta(weeks=26)
# Entity types whose age a corpus cannot tell: a country or a city first named this month is
# not a new entity, so places are never `New` (their notable_since is left null); a place
# talked about more shows as Rising (docs/decisions/0029-places-from-gazetteers-never-new.md).
UNDATED_TYPES = frozenset({"location"})

RISING, STABLE, DECLINING, NEW = "Rising", "Stable", "Declining", "New"
SIGNIFICANT, INSIGNIFICANT = "Significant", "Insignificant"
VOLATILE, STEADY = "Volatile", "Steady"
LARGE, MEDIUM, SMALL = "Large", "Medium", "Small"
HIGH, LOW, NEGLIGIBLE = "High", "Low", "Negligible"
SCALE_POINTS = {LARGE: 3, MEDIUM: 2, SMALL: 1}
THEME_POINTS = 2

_WEEK = timedelta(days=7)
_WEEK_US = 7 * 86_400 * 1_000_000
_IntMatrix = npt.NDArray[np.int64]
_IntArray = npt.NDArray[np.int64]
_FloatArray = npt.NDArray[np.float64]
_BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class Clock:
    """The build clock: ``as_of`` and the 12 complete Monday–Sunday weeks before its week.

    Week offsets run from -11 (oldest, ``W-11``) to 0 (``W0``, the last complete week).
    """

    as_of: datetime

    def __post_init__(self) -> None:
        if self.as_of.tzinfo is None:
            raise ValueError("Clock.as_of must be timezone-aware (UTC)")
        object.__setattr__(self, "as_of", self.as_of.astimezone(UTC))

    @property
    def current_week_start(self) -> datetime:
        """Monday 00:00 UTC of the (incomplete) week containing ``as_of``."""
        day = self.as_of.replace(hour=0, minute=0, second=0, microsecond=0)
        return day - timedelta(days=day.weekday())

    def week_start(self, k: int) -> datetime:
        """Start of week ``W{k}`` for k in -11…0."""
        if not -(WEEKS - 1) <= k <= 0:
            raise ValueError(f"week offset {k} is outside the window -11…0")
        return self.current_week_start + (k - 1) * _WEEK

    @property
    def window_start(self) -> datetime:
        return self.week_start(-(WEEKS - 1))

    @property
    def window_end(self) -> datetime:
        """End (exclusive) of ``W0``: the start of the week containing ``as_of``."""
        return self.current_week_start

    @property
    def week_starts(self) -> list[datetime]:
        """The 12 week starts, oldest first."""
        return [self.window_start + i * _WEEK for i in range(WEEKS)]


def _known_signals(signals: pl.DataFrame, clock: Clock) -> pl.DataFrame:
    return signals.filter(pl.col(PUBLISHED_AT) <= clock.as_of)


def _in_window(frame: pl.DataFrame, clock: Clock) -> pl.DataFrame:
    """Rows inside the window, with the week index 0 (W-11) … 11 (W0)."""
    return frame.filter(_window_filter(clock)).with_columns(week=_week_index(clock))


def _window_filter(clock: Clock) -> pl.Expr:
    return (pl.col(PUBLISHED_AT) >= clock.window_start) & (pl.col(PUBLISHED_AT) < clock.window_end)


def _week_index(clock: Clock) -> pl.Expr:
    return (pl.col(PUBLISHED_AT) - clock.window_start).dt.total_microseconds() // _WEEK_US


def _week_frame(clock: Clock) -> pl.DataFrame:
    return pl.DataFrame(
        {"week": list(range(WEEKS)), WEEK_START: clock.week_starts},
        schema={"week": pl.Int64, WEEK_START: UTC_TIME},
    )


class _SignalTable(NamedTuple):
    """The signals published up to ``as_of``, one row each, as integer columns, in publication
    order (equal times in input order): row order is time order."""

    ids: pl.DataFrame  # (signal_id, row)
    published: _IntArray  # physical ``published_at`` (its own time unit), non-decreasing
    week: _IntArray  # 0 (W-11) … 11 (W0), -1 outside the window
    domain: _IntArray  # a code per distinct domain in the window; -1 outside, null or absent
    domains: int  # how many distinct domains
    time_dtype: pl.DataType


def _signal_table(signals: pl.DataFrame, clock: Clock) -> _SignalTable:
    wanted_columns = [c for c in (SIGNAL_ID, PUBLISHED_AT, DOMAIN) if c in signals.columns]
    known = _known_signals(signals.select(wanted_columns), clock)
    if not known[PUBLISHED_AT].is_sorted():
        known = known.sort(PUBLISHED_AT, maintain_order=True)
    columns = known.select(
        pl.col(PUBLISHED_AT).to_physical().cast(pl.Int64).alias("published"),
        pl.when(_window_filter(clock)).then(_week_index(clock)).otherwise(-1).alias("week"),
    )
    week: _IntArray = columns["week"].cast(pl.Int64).to_numpy()
    # Domains only matter inside the window (source diversity).
    domain: _IntArray = np.full(known.height, -1, dtype=np.int64)
    domains = 0
    if DOMAIN in known.columns:
        wanted = known[DOMAIN].is_not_null().to_numpy() & (week >= 0)
        distinct, codes = dense_codes(known[DOMAIN].filter(pl.Series(wanted)))
        domain[wanted] = codes
        domains = distinct.len()
    return _SignalTable(
        ids=known.select(
            pl.col(SIGNAL_ID), pl.int_range(known.height, dtype=pl.Int64).alias("row")
        ),
        published=columns["published"].to_numpy(),
        week=week,
        domain=domain,
        domains=domains,
        time_dtype=known.schema[PUBLISHED_AT],
    )


class _Pairs(NamedTuple):
    """Distinct (signal, key) pairs as integer codes, sorted by key, then row: ``key`` indexes
    ``keys`` (sorted, so code order is key order) and ``row`` indexes the signal table (whose
    row order is time order), so each key's pairs are one run, oldest signal first."""

    keys: pl.Series
    key: _IntArray
    row: _IntArray


def _compact(keys: pl.Series, key: _IntArray) -> tuple[pl.Series, _IntArray]:
    """Drop the keys no code refers to any more, renumbering the codes (order is kept)."""
    used = np.bincount(key, minlength=keys.len()) > 0
    if used.all():
        return keys, key
    renumbered = np.cumsum(used) - 1
    return keys.filter(pl.Series(used)), renumbered[key]


def _pairs(mentions: pl.DataFrame, table: _SignalTable) -> _Pairs:
    """Mentions of known signals, distinct per (signal, key); null keys and signals unknown to
    ``signals`` (or published after ``as_of``) are dropped."""
    frame = mentions.select(SIGNAL_ID, KEY).drop_nulls()
    values, lengths = runs(frame[SIGNAL_ID])
    run_row = positions(values, table.ids[SIGNAL_ID])
    if run_row is not None:
        row = np.repeat(run_row, lengths)
        known = row >= 0
        if known.all():
            keys, key = dense_codes(frame[KEY])
        else:
            keys, key = dense_codes(frame[KEY].filter(pl.Series(known)))
            row = row[known]
    else:  # two signals share a truncated hash, or a signal_id twice in ``signals``
        keys, key, row = _joined_pairs(frame, values, lengths, table)
    bits = code_bits(table.ids.height)
    code = distinct_sorted((key << bits) | row)
    return _Pairs(keys=keys, key=code >> bits, row=code & ((1 << bits) - 1))


def _joined_pairs(
    frame: pl.DataFrame, values: pl.Series, lengths: _IntArray, table: _SignalTable
) -> tuple[pl.Series, _IntArray, _IntArray]:
    """``_pairs``' keys, key codes and rows by a Polars join on the signal id strings: the
    exact path, taken when the hashed lookup (``analytics.codes.positions``) cannot be."""
    found = values.to_frame().with_row_index("run").join(table.ids, on=SIGNAL_ID, how="inner")
    run = found["run"].cast(pl.Int64).to_numpy()
    if np.bincount(run, minlength=values.len()).max(initial=0) <= 1:
        run_row = np.full(values.len(), -1, dtype=np.int64)
        run_row[run] = found["row"].to_numpy()
        row = np.repeat(run_row, lengths)
        known = row >= 0
        keys, key = dense_codes(frame[KEY])
        keys, key = _compact(keys, key[known])
        return keys, key, row[known]
    # a signal_id twice in ``signals``: each of its rows counts, as a join gives
    joined = frame.join(table.ids, on=SIGNAL_ID, how="inner")
    keys, key = dense_codes(joined[KEY])
    return keys, key, joined["row"].to_numpy()


def _week_counts(key: _IntArray, week: _IntArray, n: int) -> _IntMatrix:
    """``c(w)`` as a (keys × 12) matrix, oldest week first, from the distinct (key, signal)
    pairs' key codes and their signals' weeks (-1 outside the window)."""
    inside = week >= 0
    cells = key[inside] * WEEKS + week[inside]
    counts: _IntMatrix = np.bincount(cells, minlength=n * WEEKS).reshape(-1, WEEKS)
    return counts


def weekly_totals(signals: pl.DataFrame, clock: Clock) -> pl.DataFrame:
    """``T(w)``: all signals per window week, oldest first, zero weeks included.

    ``signals`` needs ``signal_id`` and ``published_at``. Returns (week_start, total).
    """
    counted = (
        _in_window(_known_signals(signals, clock), clock)
        .group_by("week")
        .agg(pl.col(SIGNAL_ID).n_unique().cast(pl.Int64).alias(TOTAL))
    )
    return (
        _week_frame(clock)
        .join(counted, on="week", how="left")
        .select(WEEK_START, pl.col(TOTAL).fill_null(0))
        .sort(WEEK_START)
    )


def weekly_counts(mentions: pl.DataFrame, signals: pl.DataFrame, clock: Clock) -> pl.DataFrame:
    """``c(w)``: distinct signals per key per window week, dense over the 12 weeks.

    ``mentions`` needs (signal_id, key) (other columns are ignored; time comes from
    ``signals``; rows with a null key are ignored). Every key with a signal up to ``as_of``
    gets 12 rows, even when all its signals fall outside the window. Returns (key, week_start,
    count) sorted by key, week.
    """
    table = _signal_table(signals, clock)
    pairs = _pairs(mentions, table)
    n = pairs.keys.len()
    counts = _week_counts(pairs.key, table.week[pairs.row], n)
    return pl.DataFrame(
        {
            KEY: pairs.keys.gather(np.repeat(np.arange(n), WEEKS)),
            WEEK_START: _week_frame(clock)[WEEK_START].gather(np.tile(np.arange(WEEKS), n)),
            COUNT: pl.Series(counts.ravel(), dtype=pl.Int64),
        }
    )


def _streaks(counts: _IntMatrix) -> _IntArray:
    """Consecutive weeks ending at W0 with c(w) > c(w-1), compared inside the window (0–11)."""
    growth = counts[:, 1:] > counts[:, :-1]  # column j: week j+1 grew over week j
    # Walking back from W0, the streak ends at the first non-growth week.
    broken = ~growth[:, ::-1]
    first_break = np.where(broken.any(axis=1), broken.argmax(axis=1), growth.shape[1])
    result: _IntArray = first_break.astype(np.int64)
    return result


def _z_scores(counts: _IntMatrix) -> _FloatArray:
    """(c(W0) − mean) / max(std, 1) over W-11…W-1, from integer sums so equal inputs give
    bit-identical results."""
    base = counts[:, :-1]
    m = base.shape[1]
    total = base.sum(axis=1)
    squares = (base * base).sum(axis=1)
    # Sample variance = (m·Σx² − (Σx)²) / (m·(m−1)); the numerator is an exact integer.
    variance = (m * squares - total * total) / (m * (m - 1))
    std = np.maximum(np.sqrt(variance), 1.0)
    z: _FloatArray = (m * counts[:, -1] - total) / (m * std)
    return z


def _wow(now: _IntArray, before: _IntArray) -> _FloatArray:
    wow: _FloatArray = (now - before) / np.maximum(before, 1)
    return wow


def _scales(window: _IntArray, signal_count: _IntArray, eligible: _BoolArray) -> pl.Series:
    """Scale of eligible entities by rank (window mentions desc, signal_count desc, key asc; key
    codes are in key order); ceilings of 10% and 35% taken in integers. Others are Small."""
    chosen = np.flatnonzero(eligible)
    order = chosen[np.lexsort((chosen, -signal_count[chosen], -window[chosen]))]
    n = len(order)
    large, medium = (n + 9) // 10, (7 * n + 19) // 20  # ceil(0.10 n), ceil(0.35 n)
    rank = np.arange(1, n + 1)
    level = np.full(len(eligible), 2, dtype=np.int64)  # Small
    level[order] = np.where(rank <= large, 0, np.where(rank <= medium, 1, 2))
    return pl.Series(SCALE, [LARGE, MEDIUM, SMALL], dtype=pl.String).gather(level)


def _reasoning(kind: Kind) -> pl.Expr:
    """The notability sentence, e.g. ``High (5 points): scale Large +3, 6 source domains (≥ 5)
    +1, persistence 12/12 (≥ 0.5) +1, change Insignificant +0.``"""
    diversity, active = pl.col(SOURCE_DIVERSITY), pl.col(ACTIVE_WEEKS)
    rich, persistent = diversity >= 5, 2 * active >= WEEKS
    significant = pl.col(CONFIDENCE) == SIGNIFICANT
    base = (
        pl.format(
            "scale {} +{}",
            pl.col(SCALE),
            pl.col(SCALE).replace_strict(SCALE_POINTS, return_dtype=pl.Int64),
        )
        if kind == "entity"
        else pl.lit(f"theme base +{THEME_POINTS}")
    )
    return pl.format(
        f"{{}} ({{}} points): {{}}, {{}} source domains ({{}} 5) +{{}}, "
        f"persistence {{}}/{WEEKS} ({{}} 0.5) +{{}}, change {{}} +{{}}.",
        pl.col(NOTABILITY),
        pl.col(NOTABILITY_POINTS),
        base,
        diversity,
        pl.when(rich).then(pl.lit("≥")).otherwise(pl.lit("<")),
        rich.cast(pl.Int64),
        active,
        pl.when(persistent).then(pl.lit("≥")).otherwise(pl.lit("<")),
        persistent.cast(pl.Int64),
        pl.col(CONFIDENCE),
        significant.cast(pl.Int64),
    )


def trend_metrics(
    mentions: pl.DataFrame,
    signals: pl.DataFrame,
    clock: Clock,
    *,
    kind: Kind,
    undated: Collection[str] = (),
) -> pl.DataFrame:
    """Per key: the trend fields and labels of docs/design.md §7, one row per key, sorted by key.

    ``mentions``: (signal_id, key); rows with a null key are ignored. ``signals``: (signal_id,
    published_at, domain), all signals of the corpus (they are the totals ``T(w)``). Keys whose
    signals are all after ``as_of`` do not appear. Labels are null below ``MIN_LABELLED``
    signals, except ``scale``, which is then ``Small`` for entities (``scale`` is null for
    themes, which have none). Keys in ``undated`` (``undated_keys``: places) get no
    ``notable_since``, so they are never ``New``.
    """
    table = _signal_table(signals, clock)
    pairs = _pairs(mentions, table)
    n = pairs.keys.len()
    key, row = pairs.key, pairs.row

    # Each key's pairs are one run in time order: its first, last and NOTABLE_AT-th signals
    # are positions in the run.
    signal_count = np.bincount(key, minlength=n)
    first = np.cumsum(signal_count) - signal_count
    first_seen = table.published[row[first]]
    last_seen = table.published[row[first + signal_count - 1]]
    notable_since = first_seen.copy()
    enough = signal_count >= NOTABLE_AT
    notable_since[enough] = table.published[row[first[enough] + NOTABLE_AT - 1]]

    week = table.week[row]
    counts = _week_counts(key, week, n)
    diversity = _source_diversity(table, key, row, week, n)
    totals: _IntArray = weekly_totals(signals, clock)[TOTAL].to_numpy().astype(np.int64)

    k1 = counts[:, 8:].sum(axis=1)
    k2 = counts[:, :8].sum(axis=1)
    k_mid = counts[:, 4:8].sum(axis=1)
    n1, n2 = int(totals[8:].sum()), int(totals[:8].sum())
    history = np.divide(
        counts, totals, out=np.zeros(counts.shape, dtype=np.float64), where=totals > 0
    )
    wow = _wow(counts[:, 11], counts[:, 10])
    active = (counts >= 1).sum(axis=1)

    metrics = pl.DataFrame(
        [
            pairs.keys.alias(KEY),
            pl.Series(SIGNAL_COUNT, signal_count, dtype=pl.Int64),
            pl.Series(FIRST_SEEN, first_seen).cast(table.time_dtype),
            pl.Series(LAST_SEEN, last_seen).cast(table.time_dtype),
            pl.Series(NOTABLE_SINCE, notable_since).cast(table.time_dtype),
            pl.Series(CURRENT_WEEK, counts[:, 11], dtype=pl.Int64),
            pl.Series(PRIOR_WEEK, counts[:, 10], dtype=pl.Int64),
            pl.Series(SHARE_OF_VOICE, k1 / n1 if n1 else np.zeros(n), dtype=pl.Float64),
            pl.Series(SHARE_OF_VOICE_HISTORY, history, dtype=pl.Array(pl.Float64, WEEKS)).cast(
                pl.List(pl.Float64)
            ),
            pl.Series(STREAK, _streaks(counts), dtype=pl.Int64),
            pl.Series(MOMENTUM_WOW, wow, dtype=pl.Float64),
            pl.Series(MOMENTUM_4W, (k1 - k_mid) / np.maximum(k_mid, 1), dtype=pl.Float64),
            pl.Series(ACCELERATION, wow - _wow(counts[:, 10], counts[:, 9]), dtype=pl.Float64),
            pl.Series(Z_SCORE, _z_scores(counts), dtype=pl.Float64),
            pl.Series(PERSISTENCE, active / WEEKS, dtype=pl.Float64),
            pl.Series(WINDOW_MENTIONS, counts.sum(axis=1), dtype=pl.Int64),
            pl.Series(ACTIVE_WEEKS, active, dtype=pl.Int64),
            pl.Series(RECENT_MENTIONS, k1, dtype=pl.Int64),
            pl.Series(PRIOR_MENTIONS, k2, dtype=pl.Int64),
            pl.Series(RECENT_TOTAL, np.full(n, n1), dtype=pl.Int64),
            pl.Series(PRIOR_TOTAL, np.full(n, n2), dtype=pl.Int64),
            pl.Series(SOURCE_DIVERSITY, diversity, dtype=pl.Int64),
        ]
    )
    if undated:
        metrics = _without_notable_since(metrics, undated)
    return _with_labels(metrics, clock, kind=kind, history=history)


def _source_diversity(
    table: _SignalTable, key: _IntArray, row: _IntArray, week: _IntArray, n: int
) -> _IntArray:
    """Per key: the distinct domains of its signals inside the window."""
    diversity: _IntArray = np.zeros(n, dtype=np.int64)
    if table.domains:
        inside = week >= 0
        domain = table.domain[row[inside]]
        seen = domain >= 0
        # distinct (key, domain) of the window's pairs, in 32 bits when they fit (half the
        # bytes to sort)
        key_domain = key[inside][seen] * table.domains + domain[seen]
        if n * table.domains <= 2**32:
            distinct = distinct_sorted(key_domain.astype(np.uint32)).astype(np.int64)
        else:
            distinct = distinct_sorted(key_domain)
        diversity = np.bincount(distinct // table.domains, minlength=n)
    return diversity


def _without_notable_since(metrics: pl.DataFrame, undated: Collection[str]) -> pl.DataFrame:
    """``notable_since`` null for the ``undated`` keys, so they are never ``New``."""
    return metrics.with_columns(
        pl.when(pl.col(KEY).is_in(pl.Series(list(undated), dtype=pl.String).implode()))
        .then(None)
        .otherwise(pl.col(NOTABLE_SINCE))
        .alias(NOTABLE_SINCE)
    )


def undated_keys(entities: pl.DataFrame) -> list[str]:
    """The ids of ``entities`` (entity_id, type) whose type is in ``UNDATED_TYPES``."""
    return entities.filter(pl.col("type").is_in(list(UNDATED_TYPES)))["entity_id"].to_list()


def is_new(clock: Clock) -> pl.Expr:
    """docs/design.md §7's ``New``, dated by notability (docs/decisions/0032-trend-analytics.md):
    notable (its third signal) from ``start(W-3)`` on, and first seen at most ``NEW_LEAD`` before
    that. The
    ``direction`` label and the ``new`` trending list both use it, so they never disagree."""
    notable = pl.col(NOTABLE_SINCE)
    return (notable >= clock.week_start(-3)) & (notable - pl.col(FIRST_SEEN) <= NEW_LEAD)


def share_direction() -> pl.Expr:
    """docs/design.md §7's share rule, without ``New``: ``Rising`` when r = share(W-3…W0) /
    share(W-11…W-4) ≥ 1.25 (or the prior share is 0 and the recent one is not), ``Declining``
    when r ≤ 0.8, else ``Stable`` (also when both shares are 0). r is compared cross-multiplied,
    in integers: ``4·k1·n2 ≥ 5·k2·n1``. The ``direction`` label and the ``rising`` trending mode
    both use it, so they never disagree."""
    k1, k2 = pl.col(RECENT_MENTIONS), pl.col(PRIOR_MENTIONS)
    n1, n2 = pl.col(RECENT_TOTAL), pl.col(PRIOR_TOTAL)
    recent_share = (k1 > 0) & (n1 > 0)
    prior_share = (k2 > 0) & (n2 > 0)
    return (
        pl.when(~recent_share & ~prior_share)
        .then(pl.lit(STABLE))
        .when(~prior_share)
        .then(pl.lit(RISING))
        .when(~recent_share)
        .then(pl.lit(DECLINING))
        .when(4 * k1 * n2 >= 5 * k2 * n1)
        .then(pl.lit(RISING))
        .when(5 * k1 * n2 <= 4 * k2 * n1)
        .then(pl.lit(DECLINING))
        .otherwise(pl.lit(STABLE))
    )


def _with_labels(
    metrics: pl.DataFrame, clock: Clock, *, kind: Kind, history: _FloatArray
) -> pl.DataFrame:
    eligible = pl.col(SIGNAL_COUNT) >= MIN_LABELLED
    direction = share_direction()
    if kind == "entity":
        direction = pl.when(is_new(clock)).then(pl.lit(NEW)).otherwise(direction)

    # Coefficient of variation of the 12 weekly shares; an all-zero history has no variation
    # at all and is Steady.
    mean = history.mean(axis=1) if len(history) else np.zeros(0)
    std = history.std(axis=1) if len(history) else np.zeros(0)
    cv = np.divide(std, mean, out=np.zeros(len(mean)), where=mean > 0)
    volatile = pl.Series("cv", cv, dtype=pl.Float64).round_sig_figs(SIG_DIGITS) > 0.5

    # Raw p-values of the eligible keys, Benjamini–Hochberg adjusted across them; null for the
    # others.
    chosen = (metrics[SIGNAL_COUNT] >= MIN_LABELLED).to_numpy()
    n1_value = int(metrics[RECENT_TOTAL][0]) if metrics.height else 0
    n2_value = int(metrics[PRIOR_TOTAL][0]) if metrics.height else 0
    adjusted = np.full(metrics.height, np.nan)
    adjusted[chosen] = adjusted_p_values(
        metrics[RECENT_MENTIONS].to_numpy()[chosen],
        metrics[PRIOR_MENTIONS].to_numpy()[chosen],
        n1_value,
        n2_value,
    )
    p_value = pl.Series(P_VALUE, adjusted, dtype=pl.Float64, nan_to_null=True)

    labelled = metrics.with_columns(
        pl.when(eligible).then(direction).alias(DIRECTION),
        pl.when(eligible)
        .then(pl.when(pl.lit(volatile)).then(pl.lit(VOLATILE)).otherwise(pl.lit(STEADY)))
        .alias(STABILITY),
        p_value,
    ).with_columns(
        pl.when(pl.col(P_VALUE).is_null())
        .then(pl.lit(None, dtype=pl.String))
        .when(pl.col(P_VALUE) < ALPHA)
        .then(pl.lit(SIGNIFICANT))
        .otherwise(pl.lit(INSIGNIFICANT))
        .alias(CONFIDENCE)
    )

    if kind == "entity":
        scales = _scales(
            metrics[WINDOW_MENTIONS].to_numpy(), metrics[SIGNAL_COUNT].to_numpy(), chosen
        )
        labelled = labelled.with_columns(scales)
        base = pl.col(SCALE).replace_strict(SCALE_POINTS, return_dtype=pl.Int64)
    else:
        labelled = labelled.with_columns(pl.lit(None, dtype=pl.String).alias(SCALE))
        base = pl.lit(THEME_POINTS, dtype=pl.Int64)

    points = (
        base
        + (pl.col(SOURCE_DIVERSITY) >= 5).cast(pl.Int64)
        + (2 * pl.col(ACTIVE_WEEKS) >= WEEKS).cast(pl.Int64)  # persistence ≥ 0.5
        + (pl.col(CONFIDENCE) == SIGNIFICANT).cast(pl.Int64)
    )
    labelled = labelled.with_columns(pl.when(eligible).then(points).alias(NOTABILITY_POINTS))
    labelled = labelled.with_columns(
        pl.when(pl.col(NOTABILITY_POINTS) >= 5)
        .then(pl.lit(HIGH))
        .when(pl.col(NOTABILITY_POINTS) == 4)
        .then(pl.lit(MEDIUM))
        .when(pl.col(NOTABILITY_POINTS) == 3)
        .then(pl.lit(LOW))
        .when(pl.col(NOTABILITY_POINTS).is_not_null())
        .then(pl.lit(NEGLIGIBLE))
        .alias(NOTABILITY)
    )
    return labelled.with_columns(
        pl.when(pl.col(NOTABILITY).is_not_null()).then(_reasoning(kind)).alias(NOTABILITY_REASONING)
    )


def _exact(column: str) -> pl.Expr:
    return pl.col(column).round_sig_figs(SIG_DIGITS)


def trending(
    metrics: pl.DataFrame, mode: Mode, clock: Clock, *, limit: int | None = None
) -> pl.DataFrame:
    """The trending list of docs/design.md §7 over keys with at least 2 signals, filtered and
    ordered for ``mode``; ties always end on key asc. Float sort keys are rounded to 12 significant
    digits so mathematically equal values tie exactly."""
    base = metrics.filter(pl.col(SIGNAL_COUNT) >= MIN_TRENDING)
    by: list[pl.Expr]
    if mode == "rising":
        # the direction label's share rule, whatever the signal count, and c(W0) ≥ 2: a
        # one-week blip inside a falling share is not rising
        base = base.filter((share_direction() == RISING) & (pl.col(CURRENT_WEEK) >= 2))
        by = [_exact(Z_SCORE), _exact(MOMENTUM_4W)]
    elif mode == "hot":
        base = base.filter(pl.col(CURRENT_WEEK) >= 1)
        by = [pl.col(CURRENT_WEEK), _exact(SHARE_OF_VOICE)]
    elif mode == "consistent":
        # persistence ≥ 0.75 ⇔ at least 9 of the 12 weeks active.
        base = base.filter(4 * pl.col(ACTIVE_WEEKS) >= 3 * WEEKS)
        by = [pl.col(ACTIVE_WEEKS), _exact(SHARE_OF_VOICE)]
    elif mode == "new":
        base = base.filter(is_new(clock))
        by = [pl.col(SIGNAL_COUNT)]
    else:
        raise ValueError(f"unknown trending mode {mode!r}; expected one of {', '.join(MODES)}")
    ordered = base.sort([*by, pl.col(KEY)], descending=[True] * len(by) + [False])
    return ordered if limit is None else ordered.head(limit)
