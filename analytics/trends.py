"""Trend analytics over weekly mention counts (DESIGN §7): the build clock, dense weekly counts,
per-key trend metrics and labels, co-occurrence, and the trending lists.

Pure functions: frames in, frames out. A ``key`` is an entity id or a theme label; the same
functions serve both, with ``kind`` deciding the few entity-only rules (``New``, ``scale``).

Numerics: every threshold that the design states as a ratio is decided in integers, and every
float sort key is rounded to 12 significant digits first, so that values which are equal in exact
arithmetic never reorder on float64 rounding noise. Served floats stay plain float64.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

import numpy as np
import numpy.typing as npt
import polars as pl
from scipy.stats import binomtest, false_discovery_control

from analytics.schema import UTC_TIME

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
KEY_A = "key_a"
KEY_B = "key_b"

# trend_metrics: the served fields.
SIGNAL_COUNT = "signal_count"
FIRST_SEEN = "first_seen"
LAST_SEEN = "last_seen"
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
_FloatArray = npt.NDArray[np.float64]


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
    return frame.filter(
        (pl.col(PUBLISHED_AT) >= clock.window_start) & (pl.col(PUBLISHED_AT) < clock.window_end)
    ).with_columns(
        week=((pl.col(PUBLISHED_AT) - clock.window_start).dt.total_microseconds() // _WEEK_US)
    )


def _mentions(mentions: pl.DataFrame, signals: pl.DataFrame, clock: Clock) -> pl.DataFrame:
    """Distinct (signal, key) pairs of signals published up to ``as_of``, with time and domain.

    Mentions of signals absent from ``signals`` are dropped.
    """
    known = _known_signals(signals, clock)
    columns = [SIGNAL_ID, PUBLISHED_AT] + ([DOMAIN] if DOMAIN in known.columns else [])
    return (
        mentions.select(SIGNAL_ID, KEY)
        .unique()
        .join(known.select(columns), on=SIGNAL_ID, how="inner")
    )


def _week_frame(clock: Clock) -> pl.DataFrame:
    return pl.DataFrame(
        {"week": list(range(WEEKS)), WEEK_START: clock.week_starts},
        schema={"week": pl.Int64, WEEK_START: UTC_TIME},
    )


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
    ``signals``). Every key with a signal up to ``as_of`` gets 12 rows, even when all its
    signals fall outside the window. Returns (key, week_start, count) sorted by key, week.
    """
    pairs = _mentions(mentions, signals, clock)
    keys = pairs.select(KEY).unique()
    counted = (
        _in_window(pairs, clock).group_by(KEY, "week").agg(pl.len().cast(pl.Int64).alias(COUNT))
    )
    return (
        keys.join(_week_frame(clock), how="cross")
        .join(counted, on=[KEY, "week"], how="left")
        .select(KEY, WEEK_START, pl.col(COUNT).fill_null(0))
        .sort(KEY, WEEK_START)
    )


def _streaks(counts: _IntMatrix) -> npt.NDArray[np.int64]:
    """Consecutive weeks ending at W0 with c(w) > c(w-1), compared inside the window (0–11)."""
    growth = counts[:, 1:] > counts[:, :-1]  # column j: week j+1 grew over week j
    # Walking back from W0, the streak ends at the first non-growth week.
    broken = ~growth[:, ::-1]
    first_break = np.where(broken.any(axis=1), broken.argmax(axis=1), growth.shape[1])
    result: npt.NDArray[np.int64] = first_break.astype(np.int64)
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


def _wow(now: _IntMatrix, before: _IntMatrix) -> _FloatArray:
    return (now - before) / np.maximum(before, 1)


def _p_values(k1: list[int], k2: list[int], n1: list[int], n2: list[int]) -> list[float]:
    """Two-sided conditional binomial test of two Poisson rates, one raw p-value per key.

    With no mentions in either period, or no signals at all in one period, there is nothing to
    compare and the p-value is 1 (the key still counts in the Benjamini–Hochberg family).
    """
    cache: dict[tuple[int, int, int, int], float] = {}
    out: list[float] = []
    for a, b, x, y in zip(k1, k2, n1, n2, strict=True):
        case = (a, b, x, y)
        if case not in cache:
            if a + b == 0 or x == 0 or y == 0:
                cache[case] = 1.0
            else:
                cache[case] = float(binomtest(a, a + b, x / (x + y)).pvalue)
        out.append(cache[case])
    return out


def _scale_ranks(metrics: pl.DataFrame, eligible: pl.Expr) -> pl.DataFrame:
    """Scale of eligible entities by rank; ceilings of 10% and 35% taken in integers."""
    ranked = (
        metrics.filter(eligible)
        .sort([WINDOW_MENTIONS, SIGNAL_COUNT, KEY], descending=[True, True, False])
        .with_row_index("rank", offset=1)
    )
    n = ranked.height
    large, medium = (n + 9) // 10, (7 * n + 19) // 20  # ceil(0.10 n), ceil(0.35 n)
    return ranked.select(
        KEY,
        pl.when(pl.col("rank") <= large)
        .then(pl.lit(LARGE))
        .when(pl.col("rank") <= medium)
        .then(pl.lit(MEDIUM))
        .otherwise(pl.lit(SMALL))
        .alias(SCALE),
    )


def _reasoning(
    label: str, points: int, scale: str | None, diversity: int, active: int, confidence: str
) -> str:
    base = f"scale {scale} +{SCALE_POINTS[scale]}" if scale else f"theme base +{THEME_POINTS}"
    return (
        f"{label} ({points} points): {base}, "
        f"{diversity} source domains ({'≥' if diversity >= 5 else '<'} 5) "
        f"+{int(diversity >= 5)}, "
        f"persistence {active}/{WEEKS} ({'≥' if 2 * active >= WEEKS else '<'} 0.5) "
        f"+{int(2 * active >= WEEKS)}, "
        f"change {confidence} +{int(confidence == SIGNIFICANT)}."
    )


def trend_metrics(
    mentions: pl.DataFrame, signals: pl.DataFrame, clock: Clock, *, kind: Kind
) -> pl.DataFrame:
    """Per key: the trend fields and labels of DESIGN §7, one row per key, sorted by key.

    ``mentions``: (signal_id, key). ``signals``: (signal_id, published_at, domain), all signals
    of the corpus (they are the totals ``T(w)``). Keys whose signals are all after ``as_of``
    do not appear. Labels are null below 8 signals, except ``scale``, which is then ``Small``
    for entities (``scale`` is null for themes, which have none).
    """
    pairs = _mentions(mentions, signals, clock)
    has_domain = DOMAIN in pairs.columns
    stats = (
        pairs.group_by(KEY)
        .agg(
            pl.len().cast(pl.Int64).alias(SIGNAL_COUNT),
            pl.col(PUBLISHED_AT).min().alias(FIRST_SEEN),
            pl.col(PUBLISHED_AT).max().alias(LAST_SEEN),
        )
        .sort(KEY)
        .with_row_index("row")
    )
    windowed = _in_window(pairs, clock)
    diversity = (
        windowed.group_by(KEY).agg(
            pl.col(DOMAIN).drop_nulls().n_unique().cast(pl.Int64).alias(SOURCE_DIVERSITY)
        )
        if has_domain
        else pl.DataFrame(schema={KEY: pl.String, SOURCE_DIVERSITY: pl.Int64})
    )
    cells = (
        windowed.group_by(KEY, "week")
        .agg(pl.len().alias(COUNT))
        .join(stats.select(KEY, "row"), on=KEY)
    )
    counts: _IntMatrix = np.zeros((stats.height, WEEKS), dtype=np.int64)
    counts[cells["row"].to_numpy(), cells["week"].to_numpy()] = cells[COUNT].to_numpy()
    totals: _IntMatrix = weekly_totals(signals, clock)[TOTAL].to_numpy().astype(np.int64)

    k1 = counts[:, 8:].sum(axis=1)
    k2 = counts[:, :8].sum(axis=1)
    k_mid = counts[:, 4:8].sum(axis=1)
    n1, n2 = int(totals[8:].sum()), int(totals[:8].sum())
    history = np.divide(
        counts, totals, out=np.zeros(counts.shape, dtype=np.float64), where=totals > 0
    )
    wow = _wow(counts[:, 11], counts[:, 10])
    active = (counts >= 1).sum(axis=1)

    metrics = stats.drop("row").with_columns(
        pl.Series(CURRENT_WEEK, counts[:, 11]),
        pl.Series(PRIOR_WEEK, counts[:, 10]),
        pl.Series(SHARE_OF_VOICE, k1 / n1 if n1 else np.zeros(len(k1)), dtype=pl.Float64),
        pl.Series(SHARE_OF_VOICE_HISTORY, history.tolist(), dtype=pl.List(pl.Float64)),
        pl.Series(STREAK, _streaks(counts)),
        pl.Series(MOMENTUM_WOW, wow, dtype=pl.Float64),
        pl.Series(MOMENTUM_4W, (k1 - k_mid) / np.maximum(k_mid, 1), dtype=pl.Float64),
        pl.Series(ACCELERATION, wow - _wow(counts[:, 10], counts[:, 9]), dtype=pl.Float64),
        pl.Series(Z_SCORE, _z_scores(counts), dtype=pl.Float64),
        pl.Series(PERSISTENCE, active / WEEKS, dtype=pl.Float64),
        pl.Series(WINDOW_MENTIONS, counts.sum(axis=1)),
        pl.Series(ACTIVE_WEEKS, active.astype(np.int64)),
        pl.Series(RECENT_MENTIONS, k1),
        pl.Series(PRIOR_MENTIONS, k2),
        pl.lit(n1, dtype=pl.Int64).alias(RECENT_TOTAL),
        pl.lit(n2, dtype=pl.Int64).alias(PRIOR_TOTAL),
    )
    metrics = metrics.join(diversity, on=KEY, how="left").with_columns(
        pl.col(SOURCE_DIVERSITY).fill_null(0)
    )
    return _with_labels(metrics, clock, kind=kind, history=history)


def _with_labels(
    metrics: pl.DataFrame, clock: Clock, *, kind: Kind, history: _FloatArray
) -> pl.DataFrame:
    eligible = pl.col(SIGNAL_COUNT) >= MIN_LABELLED
    k1, k2 = pl.col(RECENT_MENTIONS), pl.col(PRIOR_MENTIONS)
    n1, n2 = pl.col(RECENT_TOTAL), pl.col(PRIOR_TOTAL)
    recent_share = (k1 > 0) & (n1 > 0)
    prior_share = (k2 > 0) & (n2 > 0)
    # r = (k1/n1)/(k2/n2) against 5/4 and 4/5, cross-multiplied so the integers decide.
    direction = (
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
    if kind == "entity":
        direction = (
            pl.when(pl.col(FIRST_SEEN) >= clock.week_start(-3))
            .then(pl.lit(NEW))
            .otherwise(direction)
        )

    # Coefficient of variation of the 12 weekly shares; an all-zero history has no variation
    # at all and is Steady.
    mean = history.mean(axis=1) if len(history) else np.zeros(0)
    std = history.std(axis=1) if len(history) else np.zeros(0)
    cv = np.divide(std, mean, out=np.zeros(len(mean)), where=mean > 0)
    volatile = pl.Series("cv", cv, dtype=pl.Float64).round_sig_figs(SIG_DIGITS) > 0.5

    labelled = metrics.with_columns(
        pl.when(eligible).then(direction).alias(DIRECTION),
        pl.when(eligible)
        .then(pl.when(pl.lit(volatile)).then(pl.lit(VOLATILE)).otherwise(pl.lit(STEADY)))
        .alias(STABILITY),
    )

    chosen = labelled.filter(eligible)
    raw = _p_values(
        chosen[RECENT_MENTIONS].to_list(),
        chosen[PRIOR_MENTIONS].to_list(),
        chosen[RECENT_TOTAL].to_list(),
        chosen[PRIOR_TOTAL].to_list(),
    )
    adjusted = false_discovery_control(raw, method="bh").tolist() if raw else []
    p_values = pl.DataFrame(
        {KEY: chosen[KEY], P_VALUE: adjusted}, schema={KEY: pl.String, P_VALUE: pl.Float64}
    )
    labelled = labelled.join(p_values, on=KEY, how="left").with_columns(
        pl.when(pl.col(P_VALUE).is_null())
        .then(pl.lit(None, dtype=pl.String))
        .when(pl.col(P_VALUE) < ALPHA)
        .then(pl.lit(SIGNIFICANT))
        .otherwise(pl.lit(INSIGNIFICANT))
        .alias(CONFIDENCE)
    )

    if kind == "entity":
        scales = _scale_ranks(labelled, eligible)
        labelled = labelled.join(scales, on=KEY, how="left").with_columns(
            pl.col(SCALE).fill_null(SMALL)
        )
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
    reasons = [
        None
        if label is None
        else _reasoning(label, pts, scale if kind == "entity" else None, div, act, conf)
        for label, pts, scale, div, act, conf in zip(
            labelled[NOTABILITY],
            labelled[NOTABILITY_POINTS],
            labelled[SCALE],
            labelled[SOURCE_DIVERSITY],
            labelled[ACTIVE_WEEKS],
            labelled[CONFIDENCE],
            strict=True,
        )
    ]
    return labelled.with_columns(pl.Series(NOTABILITY_REASONING, reasons, dtype=pl.String))


def co_occurrence(mentions: pl.DataFrame) -> pl.DataFrame:
    """Signals containing both keys, for every ordered pair of distinct keys (both directions
    are present, so ``related`` is a plain filter). Returns (key_a, key_b, count)."""
    pairs = mentions.select(SIGNAL_ID, KEY).unique()
    return (
        pairs.rename({KEY: KEY_A})
        .join(pairs.rename({KEY: KEY_B}), on=SIGNAL_ID)
        .filter(pl.col(KEY_A) != pl.col(KEY_B))
        .group_by(KEY_A, KEY_B)
        .agg(pl.len().cast(pl.Int64).alias(COUNT))
        .sort(KEY_A, KEY_B)
    )


def related(co: pl.DataFrame, key: str, limit: int = 25) -> pl.DataFrame:
    """The keys co-occurring with ``key``: count desc, then key asc, at most ``limit``.
    Returns (key, count); ``key`` itself never appears."""
    return (
        co.filter((pl.col(KEY_A) == key) & (pl.col(KEY_B) != key))
        .select(pl.col(KEY_B).alias(KEY), COUNT)
        .sort([COUNT, KEY], descending=[True, False])
        .head(limit)
    )


def _exact(column: str) -> pl.Expr:
    return pl.col(column).round_sig_figs(SIG_DIGITS)


def trending(
    metrics: pl.DataFrame, mode: Mode, clock: Clock, *, limit: int | None = None
) -> pl.DataFrame:
    """The trending list of DESIGN §7 over keys with at least 2 signals, filtered and ordered
    for ``mode``; ties always end on key asc. Float sort keys are rounded to 12 significant
    digits so mathematically equal values tie exactly."""
    base = metrics.filter(pl.col(SIGNAL_COUNT) >= MIN_TRENDING)
    by: list[pl.Expr]
    if mode == "rising":
        base = base.filter((pl.col(MOMENTUM_4W) > 0) & (pl.col(CURRENT_WEEK) >= 2))
        by = [_exact(Z_SCORE), _exact(MOMENTUM_4W)]
    elif mode == "hot":
        base = base.filter(pl.col(CURRENT_WEEK) >= 1)
        by = [pl.col(CURRENT_WEEK), _exact(SHARE_OF_VOICE)]
    elif mode == "consistent":
        # persistence ≥ 0.75 ⇔ at least 9 of the 12 weeks active.
        base = base.filter(4 * pl.col(ACTIVE_WEEKS) >= 3 * WEEKS)
        by = [pl.col(ACTIVE_WEEKS), _exact(SHARE_OF_VOICE)]
    elif mode == "new":
        base = base.filter(pl.col(FIRST_SEEN) >= clock.week_start(-3))
        by = [pl.col(SIGNAL_COUNT)]
    else:
        raise ValueError(f"unknown trending mode {mode!r}; expected one of {', '.join(MODES)}")
    ordered = base.sort([*by, pl.col(KEY)], descending=[True] * len(by) + [False])
    return ordered if limit is None else ordered.head(limit)
