"""The story method's measured, unshipped variants (bench/stories/variants.py), passed to
``analytics.stories.cluster_signals`` through its hook: each changes what it should, and with
every variant off the hook is not used (the shipped method)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from types import ModuleType

import numpy as np
import polars as pl
import pytest

from analytics.embedding import EMBEDDING_DIM
from analytics.stories import StoryParams, TermIdf, jaccard
from bench.stories import variants as variants_module
from tests.analytics.test_stories import START, direction, frame


@pytest.fixture(scope="module")
def v() -> ModuleType:
    return variants_module


def titled(rows: Sequence[tuple[str, int, str]]) -> pl.DataFrame:
    """(signal_id, day offset, title) rows as story input signals with a title and no text."""
    signals = frame([(r[0], r[1], "x.com", r[0], None) for r in rows])
    return signals.with_columns(pl.Series("title", [r[2] for r in rows]))


def test_every_variant_off_is_the_shipped_method(v: ModuleType) -> None:
    params = v.BenchParams()
    assert params.product() == StoryParams() and params.variant() is None
    assert v.BenchParams(pair_gate=0.6).variant() is not None


def test_complete_linkage_keeps_a_far_pair_apart_that_average_linkage_joins(
    v: ModuleType,
) -> None:
    # a, b, c at 0, 30 and 60 degrees: a-b and b-c close, a-c (cosine 0.5) under the cut;
    # average linkage joins all three (mean cosine of c to a and b: 0.68), complete only a pair
    signals = frame([(s, 0, "x.com", s, None) for s in ("a", "b", "c")])
    vectors = np.zeros((3, EMBEDDING_DIM), dtype=np.float32)
    for row, degrees in enumerate((0, 30, 60)):
        vectors[row, 0] = np.cos(np.radians(degrees))
        vectors[row, 1] = np.sin(np.radians(degrees))
    average = v.BenchParams(entity_weight=0.0, link=0.65)
    assert float(vectors[0] @ vectors[2]) < average.link
    assert v.cluster(signals, vectors, {}, average) == [0, 0, 0]
    complete = v.BenchParams(entity_weight=0.0, link=0.65, linkage="complete")
    assert len(set(v.cluster(signals, vectors, {}, complete))) == 2


def test_attach_can_require_a_shared_entity(v: ModuleType) -> None:
    rows = [("a", 0, "x.com", "ann", None), ("b", 1, "x.com", "bob", None)]
    vectors = np.stack([direction(0), direction(0, 0.05)])
    entities = {"a": frozenset({"ent_x"}), "b": frozenset({"ent_y"})}
    assert v.cluster(frame(rows), vectors, entities, v.BenchParams()) == [0, 0]
    gated = v.BenchParams(attach_needs_entity=True)
    assert v.cluster(frame(rows), vectors, entities, gated) == [0, 1]
    shared = {"a": frozenset({"ent_x"}), "b": frozenset({"ent_x", "ent_y"})}
    assert v.cluster(frame(rows), vectors, shared, gated) == [0, 0]


def test_a_pair_gate_parts_a_days_pair_without_a_shared_entity_below_it(
    v: ModuleType,
) -> None:
    signals = frame([("a", 0, "x.com", "ann", None), ("b", 0, "x.com", "bob", None)])
    vectors = np.stack([direction(0), direction(0, 0.6)])  # cosine ~0.86
    gate = v.BenchParams(pair_gate=0.9)
    assert v.cluster(signals, vectors, {}, v.BenchParams()) == [0, 0]
    assert v.cluster(signals, vectors, {}, gate) == [0, 1]
    one = frozenset({"ent_x"})
    assert v.cluster(signals, vectors, {"a": one, "b": one}, gate) == [0, 0]


def test_a_size_aware_bar_keeps_a_large_story_from_taking_a_looser_cluster(
    v: ModuleType,
) -> None:
    # day 0: four signals on one subject; day 1: one more, cosine ~0.9 with them
    rows = [(f"a{i}", 0, "x.com", f"p{i}", None) for i in range(4)]
    rows.append(("b", 1, "x.com", "q", None))
    vectors = np.stack([*(direction(0, 0.01 * i) for i in range(4)), direction(0, 0.48)])
    params = v.BenchParams(entity_weight=0.0)
    assert v.cluster(frame(rows), vectors, {}, params) == [0, 0, 0, 0, 0]
    # the bar for a story of four signals: 0.85 + 2 * 0.05 = 0.95, above the cosine
    sized = v.BenchParams(entity_weight=0.0, attach_per_doubling=0.05)
    assert v.cluster(frame(rows), vectors, {}, sized) == [0, 0, 0, 0, 1]


def test_a_term_gate_parts_a_days_pair_that_names_nothing_in_common(v: ModuleType) -> None:
    vectors = np.stack([direction(0), direction(0, 0.6), direction(5)])  # a-b cosine ~0.86
    apart = titled([("a", 0, "gemma qat weights"), ("b", 0, "claude outage"), ("c", 0, "rain")])
    gate = v.BenchParams(term_gate=0.1)
    assert v.cluster(apart, vectors, {}, v.BenchParams()) == [0, 0, 1]
    assert v.cluster(apart, vectors, {}, gate) == [0, 1, 2]
    # "qat" and "gemma" are in two of the day's three signals: rare enough to weigh
    shared = titled([("a", 0, "gemma qat weights"), ("b", 0, "qat gemma bug"), ("c", 0, "rain")])
    assert v.cluster(shared, vectors, {}, gate) == [0, 0, 1]


def test_an_attach_term_gate_keeps_a_cluster_from_a_story_it_names_nothing_of(
    v: ModuleType,
) -> None:
    vectors = np.stack([direction(0), direction(5), direction(0, 0.05), direction(6)])
    rows = [("a", 0, "gemma qat weights"), ("f", 0, "rain"), ("b", 1, "claude outage")]
    rows.append(("g", 1, "snow"))
    gate = v.BenchParams(attach_term_gate=0.1)
    assert v.cluster(titled(rows), vectors, {}, v.BenchParams()) == [0, 1, 0, 2]
    assert v.cluster(titled(rows), vectors, {}, gate) == [0, 1, 2, 3]
    rows[2] = ("b", 1, "gemma qat bug")
    assert v.cluster(titled(rows), vectors, {}, gate) == [0, 1, 0, 2]


def test_term_evidence_on_a_day_never_depends_on_a_later_day(v: ModuleType) -> None:
    rows = [("a", 0, "gemma qat weights"), ("b", 0, "qat gemma bug"), ("c", 0, "rain")]
    # later days name "gemma qat" in every signal: over the whole corpus the two terms would
    # weigh almost nothing, and a and b (cosine ~0.74) would fall under the gate
    later = [(f"d{i}", 1 + i % 2, "gemma qat news") for i in range(6)]
    vectors = np.stack([direction(0), direction(0, 0.9), direction(5), *(direction(7),) * 6])
    params = v.BenchParams(term_weight=1.0, term_gate=0.05, link=0.6)
    first = v.cluster(titled(rows), vectors[:3], {}, params)
    assert first == [0, 0, 1]
    assert v.cluster(titled(rows + later), vectors, {}, params)[:3] == first


def test_weighted_entity_overlap_counts_a_family_named_all_day_for_less(
    v: ModuleType,
) -> None:
    # pairs (0, 1) and (2, 3) each share one entity and hold one of their own: the same plain
    # Jaccard; "fam" is in four of the day's six signals, "spec" in two
    sets = [
        frozenset({"fam", "u0"}),
        frozenset({"fam", "u1"}),
        frozenset({"spec", "u2"}),
        frozenset({"spec", "u3"}),
        frozenset({"fam"}),
        frozenset({"fam"}),
    ]
    plain, weighted = jaccard(sets), v.Variant(v.BenchParams(entity_idf=True)).entity_overlap(sets)
    assert abs(plain[0, 1] - plain[2, 3]) < 1e-6
    assert weighted[0, 1] < weighted[2, 3]
    assert weighted[4, 5] == 1.0 and weighted[0, 2] == 0.0


def test_a_burst_term_new_today_outweighs_a_steady_one_of_the_same_idf(
    v: ModuleType,
) -> None:
    # "steady" is in 2 of the 10 signals the day before and 2 of today's 10; "burst" in none
    # before and 4 today: the same document frequency over the window, so the same IDF
    before = [frozenset({"steady", f"x{i}"}) if i < 2 else frozenset({f"x{i}"}) for i in range(10)]
    today = [frozenset({"steady", "burst"}), frozenset({"steady", "y1"})]
    today += [frozenset({"burst", f"y{i}"}) for i in range(2, 5)]
    today += [frozenset({f"y{i}"}) for i in range(5, 10)]

    def weights(burst: str | None) -> dict[str, float]:
        idf = TermIdf(90)
        idf.add_day(START.date(), before)
        idf.add_day(START.date() + timedelta(days=1), today)
        out: dict[str, float] = v.Variant(v.BenchParams(term_burst=burst)).term_vectors(idf, today)[
            0
        ]
        return out

    plain = weights(None)
    assert abs(plain["steady"] - plain["burst"]) < 1e-9
    # burst factors log(1 + 4 / (0 + 1)) against log(1 + 2 / (2 + 1))
    ratio = float(np.log1p(4.0) / np.log1p(2 / 3))
    for mode in ("times", "only"):
        w = weights(mode)
        assert abs(w["burst"] / w["steady"] - ratio) < 1e-9, mode
    assert v.BenchParams().term_burst is None  # off by default
    assert v.BenchParams().variant() is None  # the shipped method: no hook


def test_a_term_burst_mode_is_checked(v: ModuleType) -> None:
    with pytest.raises(ValueError, match="term_burst"):
        v.BenchParams(term_burst="sometimes")
