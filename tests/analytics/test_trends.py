"""Trend analytics (docs/design.md §7) on small hand-computed corpora: clock, weekly counts,
metrics, labels (the Benjamini–Hochberg step as the labels see it) and the trending lists. The
binomial test itself is in test_significance.py, co-occurrence in test_cooccurrence.py."""

from __future__ import annotations

import math
import random
from datetime import UTC, datetime, timedelta

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from scipy.stats import binomtest

from analytics import codes
from analytics.schema import UTC_TIME
from analytics.trends import (
    ACTIVE_WEEKS,
    CONFIDENCE,
    COUNT,
    CURRENT_WEEK,
    DECLINING,
    DIRECTION,
    FIRST_SEEN,
    KEY,
    MOMENTUM_4W,
    NEW,
    NEW_LEAD,
    NOTABILITY,
    NOTABILITY_REASONING,
    NOTABLE_SINCE,
    P_VALUE,
    PRIOR_MENTIONS,
    PRIOR_TOTAL,
    RECENT_MENTIONS,
    RECENT_TOTAL,
    RISING,
    SCALE,
    SHARE_OF_VOICE,
    SHARE_OF_VOICE_HISTORY,
    SIGNAL_COUNT,
    STABILITY,
    STABLE,
    STREAK,
    TOTAL,
    WEEK_START,
    Z_SCORE,
    Clock,
    Kind,
    share_direction,
    trend_metrics,
    trending,
    undated_keys,
    weekly_counts,
    weekly_totals,
)

# A Wednesday: W0 is Monday 2025-03-10 … Sunday 2025-03-16, the window starts 2024-12-23.
AS_OF = datetime(2025, 3, 19, 12, tzinfo=UTC)
CLOCK = Clock(AS_OF)
_WEEK = timedelta(days=7)


class Corpus:
    """Signals and their mentions, built week by week relative to ``CLOCK``."""

    def __init__(self) -> None:
        self.signals: list[tuple[str, datetime, str]] = []
        self.mentions: list[tuple[str, str]] = []

    def add(self, when: datetime, *keys: str, domain: str = "d0") -> None:
        signal_id = f"s{len(self.signals):04d}"
        self.signals.append((signal_id, when, domain))
        self.mentions.extend((signal_id, key) for key in keys)

    def week(self, k: int, *keys: str, n: int = 1, domain: str = "d0") -> None:
        """``n`` signals in week ``W{k}`` (Tuesday noon), each mentioning all ``keys``."""
        for _ in range(n):
            self.add(CLOCK.week_start(k) + timedelta(days=1, hours=12), *keys, domain=domain)

    def counts(self, key: str, weekly: list[int]) -> None:
        """``weekly[i]`` signals mentioning ``key`` in week W(i-11)."""
        for i, n in enumerate(weekly):
            self.week(i - 11, key, n=n)

    def frames(self) -> tuple[pl.DataFrame, pl.DataFrame]:
        signals = pl.DataFrame(
            self.signals,
            schema={"signal_id": pl.String, "published_at": UTC_TIME, "domain": pl.String},
            orient="row",
        )
        mentions = pl.DataFrame(
            self.mentions, schema={"signal_id": pl.String, KEY: pl.String}, orient="row"
        )
        return mentions, signals

    def metrics(self, kind: Kind = "entity", clock: Clock = CLOCK) -> dict[str, dict[str, object]]:
        mentions, signals = self.frames()
        frame = trend_metrics(mentions, signals, clock, kind=kind)
        return {row[KEY]: row for row in frame.iter_rows(named=True)}


def test_clock_as_of_inside_a_week_and_on_a_monday() -> None:
    assert CLOCK.week_start(0) == datetime(2025, 3, 10, tzinfo=UTC)
    assert CLOCK.week_start(-11) == datetime(2024, 12, 23, tzinfo=UTC)
    assert CLOCK.window_end == datetime(2025, 3, 17, tzinfo=UTC)
    # Monday 00:00 starts a new week: the week just ended is complete and becomes W0.
    monday = Clock(datetime(2025, 3, 17, tzinfo=UTC))
    assert monday.week_start(0) == datetime(2025, 3, 10, tzinfo=UTC)
    sunday_night = Clock(datetime(2025, 3, 16, 23, 59, 59, tzinfo=UTC))
    assert sunday_night.week_start(0) == datetime(2025, 3, 3, tzinfo=UTC)
    assert len(CLOCK.week_starts) == 12
    with pytest.raises(ValueError, match="timezone-aware"):
        Clock(datetime(2025, 3, 19))
    with pytest.raises(ValueError, match="outside the window"):
        CLOCK.week_start(1)


def test_w0_boundaries_and_signals_after_as_of_ignored() -> None:
    corpus = Corpus()
    corpus.add(datetime(2025, 3, 10, tzinfo=UTC), "a")  # first instant of W0
    corpus.add(datetime(2025, 3, 16, 23, 59, 59, tzinfo=UTC), "a")  # last second of W0
    corpus.add(datetime(2025, 3, 17, tzinfo=UTC), "a")  # current week: counted, not weekly
    corpus.add(AS_OF, "a")  # exactly as_of: known
    corpus.add(AS_OF + timedelta(microseconds=1), "a", "late")  # after as_of: ignored
    row = corpus.metrics()["a"]
    assert row[SIGNAL_COUNT] == 4
    assert row["last_seen"] == AS_OF
    assert row[CURRENT_WEEK] == 2
    assert "late" not in corpus.metrics()
    # as_of on Monday 00:00: W0 is still the week of 03-10, and the Monday signal is known.
    monday = Clock(datetime(2025, 3, 17, tzinfo=UTC))
    assert corpus.metrics(clock=monday)["a"][CURRENT_WEEK] == 2
    assert corpus.metrics(clock=monday)["a"][SIGNAL_COUNT] == 3


def test_weekly_counts_dense_with_zero_weeks() -> None:
    corpus = Corpus()
    corpus.week(-11, "a", "b")
    corpus.week(0, "a", n=2)
    corpus.week(-3)  # a signal with no mentions still counts in the totals
    corpus.add(CLOCK.week_start(-11) - timedelta(seconds=1), "c")  # before the window
    mentions, signals = corpus.frames()
    starts = CLOCK.week_starts
    expected = pl.DataFrame(
        {
            KEY: ["a"] * 12 + ["b"] * 12 + ["c"] * 12,
            WEEK_START: starts * 3,
            COUNT: [1] + [0] * 10 + [2] + [1] + [0] * 11 + [0] * 12,
        },
        schema={KEY: pl.String, WEEK_START: UTC_TIME, COUNT: pl.Int64},
    )
    assert_frame_equal(weekly_counts(mentions, signals, CLOCK), expected)
    totals = pl.DataFrame(
        {WEEK_START: starts, TOTAL: [1] + [0] * 7 + [1, 0, 0, 2]},
        schema={WEEK_START: UTC_TIME, TOTAL: pl.Int64},
    )
    assert_frame_equal(weekly_totals(signals, CLOCK), totals)


def test_duplicate_mentions_count_one_signal() -> None:
    corpus = Corpus()
    corpus.week(0, "a", "a")
    assert corpus.metrics()["a"][CURRENT_WEEK] == 1


def test_trend_fields_hand_computed() -> None:
    corpus = Corpus()
    corpus.counts("a", [0, 0, 0, 0, 1, 1, 0, 0, 1, 2, 1, 3])
    corpus.week(0, n=3)  # unrelated signals: T(W0) = 6
    row = corpus.metrics()["a"]
    assert row[CURRENT_WEEK] == 3
    assert row["prior_week"] == 1
    assert row[SHARE_OF_VOICE] == 7 / 10  # Σc = 1+2+1+3, ΣT = 1+2+1+6
    assert row[SHARE_OF_VOICE_HISTORY] == [0.0] * 4 + [1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.5]
    assert row["momentum_wow"] == 2.0  # (3 − 1) / 1
    assert row[MOMENTUM_4W] == 2.5  # (7 − 2) / 2
    assert row["acceleration"] == 2.0 - (-0.5)  # wow(W-1) = (1 − 2) / 2
    assert row["persistence"] == 6 / 12
    assert row[STREAK] == 1


def test_streak_counts_growth_weeks_ending_at_w0() -> None:
    corpus = Corpus()
    corpus.counts("up3", [5, 5, 5, 5, 5, 5, 5, 1, 0, 1, 2, 3])
    corpus.counts("flat", [0] * 10 + [2, 2])
    corpus.counts("all", list(range(12)))
    metrics = corpus.metrics()
    assert metrics["up3"][STREAK] == 3
    assert metrics["flat"][STREAK] == 0
    assert metrics["all"][STREAK] == 11


def test_z_score_uses_one_when_std_is_zero() -> None:
    corpus = Corpus()
    corpus.counts("flat", [1] * 11 + [4])
    # W-11…W-1 = ten 0s and one 11: mean 1, sample variance (10·1 + 100) / 10 = 11.
    corpus.counts("spiky", [0] * 10 + [11, 12])
    metrics = corpus.metrics()
    assert metrics["flat"][Z_SCORE] == 3.0  # (4 − 1) / max(0, 1)
    assert metrics["spiky"][Z_SCORE] == pytest.approx(11 / math.sqrt(11), rel=1e-15)


def test_share_of_voice_zero_when_no_signals_in_last_four_weeks() -> None:
    corpus = Corpus()
    corpus.week(-9, "a", n=2)
    row = corpus.metrics()["a"]
    assert row[SHARE_OF_VOICE] == 0.0
    assert row[SHARE_OF_VOICE_HISTORY] == [0.0, 0.0, 1.0] + [0.0] * 9


def test_eight_signals_get_labels_seven_do_not() -> None:
    corpus = Corpus()
    corpus.counts("eight", [1] * 8 + [0] * 4)
    corpus.counts("seven", [1] * 7 + [0] * 5)
    metrics = corpus.metrics()
    eight, seven = metrics["eight"], metrics["seven"]
    assert eight[DIRECTION] == "Declining"  # prior share 8/8 > 0, recent share 0
    assert eight[CONFIDENCE] is not None
    assert eight[STABILITY] == "Volatile"
    assert eight[NOTABILITY] is not None
    assert eight[SCALE] == "Large"  # the only eligible entity
    for field in (DIRECTION, CONFIDENCE, STABILITY, NOTABILITY, NOTABILITY_REASONING, P_VALUE):
        assert seven[field] is None
    assert seven[SCALE] == "Small"


def test_eligible_key_silent_in_window_is_stable_steady_insignificant() -> None:
    corpus = Corpus()
    for _ in range(8):
        corpus.add(CLOCK.window_start - timedelta(days=30), "old")
    corpus.week(0)
    row = corpus.metrics()["old"]
    assert (row[DIRECTION], row[STABILITY], row[CONFIDENCE]) == (
        "Stable",
        "Steady",
        "Insignificant",
    )
    assert row[P_VALUE] == 1.0


def test_entity_first_seen_mid_window_is_new_but_theme_is_not() -> None:
    corpus = Corpus()
    corpus.week(-3, "fresh", n=4)
    corpus.week(-1, "fresh", n=4)
    corpus.week(-8, n=5)
    assert corpus.metrics("entity")["fresh"][DIRECTION] == "New"
    # Prior share 0 (k2 = 0) and recent share > 0.
    assert corpus.metrics("theme")["fresh"][DIRECTION] == "Rising"
    assert corpus.metrics("theme")["fresh"][SCALE] is None


@pytest.mark.parametrize(
    ("k1", "n1", "k2", "n2", "expected"),
    [
        # r = (4/9) / (16/45) = 5/4 exactly, but float64 gives 1.2499999999999998.
        (4, 9, 16, 45, "Rising"),
        # r = (6/13) / (15/26) = 4/5 exactly, but float64 gives 0.8000000000000002.
        (6, 13, 15, 26, "Declining"),
        (4, 9, 17, 45, "Stable"),
    ],
)
def test_direction_ratio_on_the_boundary_is_decided_in_integers(
    k1: int, n1: int, k2: int, n2: int, expected: str
) -> None:
    corpus = Corpus()
    corpus.week(-2, "t", n=k1)
    corpus.week(-2, n=n1 - k1)
    corpus.week(-6, "t", n=k2)
    corpus.week(-6, n=n2 - k2)
    assert corpus.metrics()["t"][DIRECTION] == expected


def test_benjamini_hochberg_step_matches_hand_computation() -> None:
    corpus = Corpus()
    spec = {"a": (12, 2), "b": (6, 3), "c": (4, 4)}  # (k1 recent, k2 prior)
    for key, (k1, k2) in spec.items():
        corpus.week(-1, key, n=k1)
        corpus.week(-5, key, n=k2)
    corpus.week(-1, n=40 - 22)  # n1 = 40
    corpus.week(-5, n=40 - 9)  # n2 = 40, so p = 1/2
    metrics = corpus.metrics("theme")
    raw = {key: binomtest(k1, k1 + k2, 0.5).pvalue for key, (k1, k2) in spec.items()}
    # Ascending order a < b < c; BH: adj(i) = min over j ≥ i of p(j)·m/j.
    assert raw["a"] < raw["b"] < raw["c"]
    adj_c = raw["c"]
    adj_b = min(raw["b"] * 3 / 2, adj_c)
    adj_a = min(raw["a"] * 3, adj_b)
    assert metrics["a"][P_VALUE] == pytest.approx(adj_a, rel=1e-12)
    assert metrics["b"][P_VALUE] == pytest.approx(adj_b, rel=1e-12)
    assert metrics["c"][P_VALUE] == pytest.approx(adj_c, rel=1e-12)
    assert metrics["a"][CONFIDENCE] == ("Significant" if adj_a < 0.05 else "Insignificant")
    assert metrics["a"][CONFIDENCE] == "Significant"
    assert metrics["c"][CONFIDENCE] == "Insignificant"


def test_scale_ranking_ties_by_signal_count_then_entity_id() -> None:
    corpus = Corpus()
    early = CLOCK.window_start - timedelta(days=1)
    # (window mentions, extra signals before the window)
    spec = {"k": (20, 0), "b": (10, 2), "a": (10, 2), "d": (10, 1), "c": (10, 1)}
    spec |= {f"e{i}": (8, 0) for i in range(5)}
    for key, (window, extra) in spec.items():
        corpus.week(-5, key, n=window)
        for _ in range(extra):
            corpus.add(early, key)
    corpus.week(-5, "z", n=7)
    metrics = corpus.metrics()
    # n = 10 eligible: Large ranks ≤ ceil(1.0) = 1, Medium ≤ ceil(3.5) = 4.
    scales = {key: metrics[key][SCALE] for key in [*spec, "z"]}
    assert scales == {
        "k": "Large",
        "a": "Medium",
        "b": "Medium",
        "c": "Medium",
        "d": "Small",
        **{f"e{i}": "Small" for i in range(5)},
        "z": "Small",
    }


def test_scale_ceilings_are_integer_for_thirty_entities() -> None:
    # 0.10 · 30 is 3.0000000000000004 in float64: a float ceiling would give 4 Large.
    corpus = Corpus()
    for i in range(30):
        corpus.week(-5, f"e{i:02d}", n=8 + 30 - i)
    metrics = corpus.metrics()
    scales = [metrics[f"e{i:02d}"][SCALE] for i in range(30)]
    assert scales == ["Large"] * 3 + ["Medium"] * 8 + ["Small"] * 19  # ceil(10.5) = 11


def test_notability_points_and_reasoning() -> None:
    corpus = Corpus()
    for k in range(-11, 1):
        corpus.week(k, "a", domain=f"d{k % 6}")  # 6 domains, active all 12 weeks
    row = corpus.metrics()["a"]
    # Large 3 + diversity 1 + persistence 1 + confidence 0 (a flat share is no change).
    assert row[NOTABILITY] == "High"
    assert row[NOTABILITY_REASONING] == (
        "High (5 points): scale Large +3, 6 source domains (≥ 5) +1, "
        "persistence 12/12 (≥ 0.5) +1, change Insignificant +0."
    )
    theme = corpus.metrics("theme")["a"]
    assert theme[NOTABILITY] == "Medium"
    assert str(theme[NOTABILITY_REASONING]).startswith("Medium (4 points): theme base +2, ")


def _metrics_frame(rows: list[dict[str, object]]) -> pl.DataFrame:
    defaults: dict[str, object] = {
        SIGNAL_COUNT: 5,
        FIRST_SEEN: CLOCK.window_start,
        NOTABLE_SINCE: CLOCK.window_start,
        CURRENT_WEEK: 0,
        MOMENTUM_4W: 0.0,
        Z_SCORE: 0.0,
        SHARE_OF_VOICE: 0.0,
        ACTIVE_WEEKS: 0,
        # shares: recent 4 of 100 signals against prior 4 of 200, r = 2 (rising)
        RECENT_MENTIONS: 4,
        PRIOR_MENTIONS: 4,
        RECENT_TOTAL: 100,
        PRIOR_TOTAL: 200,
    }
    return pl.DataFrame(
        [defaults | row for row in rows],
        schema={
            KEY: pl.String,
            SIGNAL_COUNT: pl.Int64,
            FIRST_SEEN: UTC_TIME,
            NOTABLE_SINCE: UTC_TIME,
            CURRENT_WEEK: pl.Int64,
            MOMENTUM_4W: pl.Float64,
            Z_SCORE: pl.Float64,
            SHARE_OF_VOICE: pl.Float64,
            ACTIVE_WEEKS: pl.Int64,
            RECENT_MENTIONS: pl.Int64,
            PRIOR_MENTIONS: pl.Int64,
            RECENT_TOTAL: pl.Int64,
            PRIOR_TOTAL: pl.Int64,
        },
    )


def _keys(frame: pl.DataFrame) -> list[str]:
    return frame[KEY].to_list()


def test_rising_filters_and_orders_equal_z_scores_by_momentum_then_id() -> None:
    metrics = _metrics_frame(
        [
            {KEY: "a", Z_SCORE: 0.1 + 0.2, MOMENTUM_4W: 1.0, CURRENT_WEEK: 2},
            {KEY: "b", Z_SCORE: 0.3, MOMENTUM_4W: 2.0, CURRENT_WEEK: 2},
            {KEY: "d", Z_SCORE: 0.3, MOMENTUM_4W: 2.0, CURRENT_WEEK: 3},
            {KEY: "c", Z_SCORE: 0.3, MOMENTUM_4W: 2.0, CURRENT_WEEK: 2},
            {KEY: "top", Z_SCORE: 5.0, MOMENTUM_4W: 0.5, CURRENT_WEEK: 2},
            # equal shares (r = 1): Stable, however high the z-score
            {KEY: "flat", Z_SCORE: 9.0, CURRENT_WEEK: 5, RECENT_MENTIONS: 2},
            {KEY: "quiet", Z_SCORE: 9.0, MOMENTUM_4W: 1.0, CURRENT_WEEK: 1},
            {KEY: "rare", Z_SCORE: 9.0, MOMENTUM_4W: 1.0, CURRENT_WEEK: 5, SIGNAL_COUNT: 1},
        ]
    )
    assert _keys(trending(metrics, "rising", CLOCK)) == ["top", "b", "c", "d", "a"]
    assert _keys(trending(metrics, "rising", CLOCK, limit=2)) == ["top", "b"]


def test_rising_is_the_direction_labels_share_rule_at_its_edges() -> None:
    # n1 = 100 recent signals, n2 = 200 prior: r = (k1/100) / (k2/200) = 2·k1/k2
    metrics = _metrics_frame(
        [
            # r = 2·5/8 = 1.25 exactly: Rising (4·k1·n2 = 4000 ≥ 5·k2·n1 = 4000)
            {KEY: "edge", RECENT_MENTIONS: 5, PRIOR_MENTIONS: 8, CURRENT_WEEK: 2},
            # r = 2·5/9 = 1.11: Stable, not rising
            {KEY: "below", RECENT_MENTIONS: 5, PRIOR_MENTIONS: 9, CURRENT_WEEK: 2},
            # absent in the 8 prior weeks, present now: Rising
            {KEY: "fresh", RECENT_MENTIONS: 3, PRIOR_MENTIONS: 0, CURRENT_WEEK: 2},
            # a one-week blip inside a falling share (r = 2·6/40 = 0.3, Declining) with a big
            # z-score and positive 4-week momentum: what the old rule listed
            {
                KEY: "blip",
                RECENT_MENTIONS: 6,
                PRIOR_MENTIONS: 40,
                CURRENT_WEEK: 5,
                Z_SCORE: 8.0,
                MOMENTUM_4W: 4.0,
            },
            # rising share, but only one signal in W0
            {KEY: "lone", RECENT_MENTIONS: 9, PRIOR_MENTIONS: 2, CURRENT_WEEK: 1},
            # rising share at 3 signals: listed, whatever the signal count (labels need 8)
            {KEY: "small", SIGNAL_COUNT: 3, RECENT_MENTIONS: 3, PRIOR_MENTIONS: 0, CURRENT_WEEK: 2},
        ]
    )
    assert sorted(_keys(trending(metrics, "rising", CLOCK))) == ["edge", "fresh", "small"]
    labels = dict(metrics.select(KEY, share_direction().alias("d")).iter_rows())
    assert (labels["edge"], labels["below"], labels["blip"]) == (RISING, STABLE, DECLINING)


def test_no_rising_entity_is_labelled_declining_or_stable() -> None:
    corpus = Corpus()
    week0 = CLOCK.week_start(0)
    for week in range(12):
        when = week0 - (11 - week) * _WEEK + timedelta(hours=1)
        for i in range(30):
            corpus.add(when, f"filler{i % 7}")
        # loud early, quiet for 7 weeks, then one loud week at W0: its 4-week momentum and its
        # z-score are positive, its share falls
        for _ in range(20 if week < 4 else 25 if week == 11 else 1):
            corpus.add(when, "blip")
        # grows steadily
        for _ in range(week // 2):
            corpus.add(when, "grower")
    metrics = corpus.metrics("entity")
    frame = trend_metrics(*corpus.frames(), CLOCK, kind="entity")
    rising = _keys(trending(frame, "rising", CLOCK))
    assert "grower" in rising and "blip" not in rising
    blip = metrics["blip"]
    assert blip[DIRECTION] == DECLINING
    assert float(blip[Z_SCORE]) > 0 and float(blip[MOMENTUM_4W]) > 0  # type: ignore[arg-type]
    for key in rising:
        assert metrics[key][DIRECTION] in (RISING, NEW, None), key


def test_hot_orders_by_current_week_then_share_then_id() -> None:
    metrics = _metrics_frame(
        [
            {KEY: "a", CURRENT_WEEK: 1, SHARE_OF_VOICE: 0.5},
            {KEY: "b", CURRENT_WEEK: 3, SHARE_OF_VOICE: 0.1},
            {KEY: "c", CURRENT_WEEK: 1, SHARE_OF_VOICE: 0.7},
            {KEY: "d", CURRENT_WEEK: 1, SHARE_OF_VOICE: 0.1 + 0.2},
            {KEY: "e", CURRENT_WEEK: 1, SHARE_OF_VOICE: 0.3},
            {KEY: "zero", CURRENT_WEEK: 0, SHARE_OF_VOICE: 0.9},
        ]
    )
    assert _keys(trending(metrics, "hot", CLOCK)) == ["b", "c", "a", "d", "e"]


def test_consistent_needs_nine_active_weeks() -> None:
    metrics = _metrics_frame(
        [
            {KEY: "a", ACTIVE_WEEKS: 9, SHARE_OF_VOICE: 0.2},
            {KEY: "b", ACTIVE_WEEKS: 12, SHARE_OF_VOICE: 0.1},
            {KEY: "c", ACTIVE_WEEKS: 9, SHARE_OF_VOICE: 0.4},
            {KEY: "d", ACTIVE_WEEKS: 8, SHARE_OF_VOICE: 0.9},
        ]
    )
    assert _keys(trending(metrics, "consistent", CLOCK)) == ["b", "c", "a"]


def test_new_is_notable_from_w_minus_3_by_signal_count() -> None:
    start = CLOCK.week_start(-3)
    metrics = _metrics_frame(
        [
            {KEY: "a", NOTABLE_SINCE: start, SIGNAL_COUNT: 3},
            {KEY: "b", NOTABLE_SINCE: start + timedelta(days=9), SIGNAL_COUNT: 4},
            {KEY: "c", NOTABLE_SINCE: start + timedelta(days=1), SIGNAL_COUNT: 3},
            {KEY: "old", NOTABLE_SINCE: start - timedelta(microseconds=1), SIGNAL_COUNT: 9},
            {KEY: "one", NOTABLE_SINCE: start, SIGNAL_COUNT: 1},
        ]
    )
    assert _keys(trending(metrics, "new", CLOCK)) == ["b", "a", "c"]


def test_a_name_is_notable_from_its_third_signal() -> None:
    """Two mentions months before a launch (a rumour) leave a model new when it ships; a third
    one before the window makes it an old name, and so does a first mention more than half a
    year before it became notable; fewer than three signals date it by its first."""
    corpus = Corpus()
    rumour = CLOCK.window_start - timedelta(days=60)
    launch = CLOCK.week_start(-2) + timedelta(days=1, hours=12)
    for key in ("rumoured", "known"):
        corpus.add(rumour, key)
        corpus.add(rumour + timedelta(days=3), key)
    corpus.add(rumour + timedelta(days=5), "known")
    corpus.add(launch - NEW_LEAD - timedelta(days=1), "revived")
    corpus.add(launch - NEW_LEAD + timedelta(days=1), "barely")
    corpus.week(-2, "rumoured", "known", "revived", "barely", n=7)  # 8+ signals: labelled
    corpus.week(-1, "thin")
    corpus.add(rumour, "thin-old")
    corpus.week(-1, "thin-old")
    metrics = corpus.metrics()
    assert metrics["rumoured"][FIRST_SEEN] == rumour
    assert metrics["rumoured"][NOTABLE_SINCE] == launch
    assert metrics["rumoured"][DIRECTION] == NEW
    assert metrics["known"][NOTABLE_SINCE] == rumour + timedelta(days=5)
    assert metrics["known"][DIRECTION] != NEW
    assert metrics["revived"][NOTABLE_SINCE] == launch
    assert metrics["revived"][DIRECTION] != NEW
    assert metrics["barely"][DIRECTION] == NEW
    assert metrics["thin"][NOTABLE_SINCE] == metrics["thin"][FIRST_SEEN]
    assert metrics["thin-old"][NOTABLE_SINCE] == rumour
    mentions, signals = corpus.frames()
    listed = trending(trend_metrics(mentions, signals, CLOCK, kind="entity"), "new", CLOCK)
    assert _keys(listed) == ["rumoured", "barely"]  # by signal count: 9, 8


def test_a_place_is_never_new_its_rise_is_rising() -> None:
    """Issue 28: "India" and "Switzerland" were in the new list of a corpus that first named
    them three times this month. Undated keys (places) get no notable_since: never New, not in
    the new list, and the share rule labels their rise."""
    corpus = Corpus()
    corpus.week(-3, "india", "a-model", n=4)
    corpus.week(-1, "india", "a-model", n=4)
    corpus.week(-8, n=5)
    mentions, signals = corpus.frames()
    plain = trend_metrics(mentions, signals, CLOCK, kind="entity")
    assert set(_keys(trending(plain, "new", CLOCK))) == {"india", "a-model"}
    dated = trend_metrics(mentions, signals, CLOCK, kind="entity", undated=["india"])
    rows = {row[KEY]: row for row in dated.iter_rows(named=True)}
    assert rows["india"][NOTABLE_SINCE] is None and rows["india"][DIRECTION] == RISING
    assert rows["a-model"][DIRECTION] == NEW
    assert _keys(trending(dated, "new", CLOCK)) == ["a-model"]
    entities = pl.DataFrame({"entity_id": ["india", "a-model"], "type": ["location", "model"]})
    assert undated_keys(entities) == ["india"]


def test_trend_metrics_do_not_depend_on_mention_order() -> None:
    corpus = Corpus()
    rng = random.Random(3)
    for i in range(300):
        keys = rng.sample(["a", "b", "c", "d", "e", "f"], rng.randint(1, 4))
        corpus.add(CLOCK.window_start + timedelta(hours=7 * i), *keys, domain=f"d{i % 7}")
    mentions, signals = corpus.frames()
    shuffled = mentions.sample(fraction=1.0, shuffle=True, seed=5)
    unknown = pl.DataFrame({"signal_id": ["nope"], KEY: ["ghost"]})
    kinds: tuple[Kind, ...] = ("entity", "theme")
    for kind in kinds:
        grouped = trend_metrics(mentions, signals, CLOCK, kind=kind)
        assert_frame_equal(
            trend_metrics(pl.concat([shuffled, unknown]), signals, CLOCK, kind=kind), grouped
        )
    assert_frame_equal(
        weekly_counts(shuffled, signals, CLOCK), weekly_counts(mentions, signals, CLOCK)
    )


def test_signal_listed_twice_counts_once_per_listing() -> None:
    # A data error, kept as the relational join has always treated it: each listing of the
    # signal_id is a signal of its own (the weekly totals count distinct ids).
    corpus = Corpus()
    corpus.week(0, "a")
    corpus.week(-1, "b")
    mentions, signals = corpus.frames()
    twice = pl.concat([signals, signals.head(1).with_columns(pl.col("published_at") - _WEEK)])
    metrics = {
        row[KEY]: row
        for row in trend_metrics(mentions, twice, CLOCK, kind="entity").iter_rows(named=True)
    }
    assert metrics["a"][SIGNAL_COUNT] == 2
    assert metrics["a"][SHARE_OF_VOICE_HISTORY][-2:] == [0.5, 1.0]  # T(W-1) = 2
    assert metrics["b"][SIGNAL_COUNT] == 1


def test_trend_metrics_exact_when_hashes_collide(monkeypatch: pytest.MonkeyPatch) -> None:
    # Signal ids and keys are matched and coded through truncated 64-bit hashes; when those
    # collide the exact paths (a join on the strings, Arrow's dictionary) give the same tables.
    corpus = Corpus()
    rng = random.Random(4)
    for i in range(400):
        keys = rng.sample([f"k{j}" for j in range(30)], rng.randint(1, 5))
        corpus.add(CLOCK.window_start + timedelta(hours=5 * i), *keys, domain=f"d{i % 9}")
    mentions, signals = corpus.frames()
    mentions = pl.concat([mentions, pl.DataFrame({"signal_id": ["nope"], KEY: ["ghost"]})])
    expected = trend_metrics(mentions, signals, CLOCK, kind="entity")
    weekly = weekly_counts(mentions, signals, CLOCK)
    assert "ghost" not in expected[KEY].to_list()

    def colliding(values: pl.Series) -> np.ndarray:
        return (values.hash().to_numpy() % np.uint64(3)) << np.uint64(62)

    monkeypatch.setattr(codes, "_hashes", colliding)
    assert_frame_equal(trend_metrics(mentions, signals, CLOCK, kind="entity"), expected)
    assert_frame_equal(weekly_counts(mentions, signals, CLOCK), weekly)
