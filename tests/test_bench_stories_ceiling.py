"""The stories' evidence ceiling (bench/stories/ceiling.py): the weighted logistic fit, the
judged pairs' weights, and the agreement of two readings of the same pairs."""

from __future__ import annotations

import json
import math
from datetime import UTC, date, datetime
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from bench.stories import ceiling as ceiling_script


@pytest.fixture(scope="module")
def ceiling() -> ModuleType:
    return ceiling_script


def test_the_logistic_fit_ranks_by_the_feature_that_decides(ceiling: ModuleType) -> None:
    rng = np.random.default_rng(7)
    x = rng.uniform(0, 1, size=(400, 2))
    # the first feature decides (with noise); the second is noise
    y = (x[:, 0] + rng.normal(0, 0.1, 400) > 0.5).astype(float)
    beta = ceiling.fit_logistic(x, y, np.ones(400))
    assert beta[0] > 5 and abs(beta[1]) < 1
    scores = ceiling.logistic_score(x, beta)
    # on the raw features: the score crosses 0 near x0 = 0.5
    assert abs(-beta[2] / beta[0] - 0.5) < 0.05
    assert float(np.corrcoef(scores, x[:, 0])[0, 1]) > 0.99


def test_a_weight_of_two_counts_as_the_row_twice(ceiling: ModuleType) -> None:
    rng = np.random.default_rng(8)
    x = rng.normal(size=(60, 3))
    y = (x[:, 1] + rng.normal(0, 1, 60) > 0).astype(float)
    weights = np.ones(60)
    weights[:10] = 2.0
    doubled = ceiling.fit_logistic(np.vstack([x, x[:10]]), np.concatenate([y, y[:10]]), np.ones(70))
    weighted = ceiling.fit_logistic(x, y, weights)
    assert np.allclose(doubled, weighted)
    # scaling every weight changes nothing
    assert np.allclose(ceiling.fit_logistic(x, y, 7.5 * weights), weighted)
    # and unweighted differs
    plain = ceiling.fit_logistic(x, y, np.ones(60))
    assert not np.allclose(plain, weighted)


def test_each_judged_pair_weighs_its_strata_size_over_its_judged_pairs(
    ceiling: ModuleType,
) -> None:
    pools = {"method/2024": {("a", f"b{i}") for i in range(10)}, "candidate/2024": {("c", "d")}}
    judged = [
        {"stratum": "method/2024"},
        {"stratum": "method/2024"},
        {"stratum": "candidate/2024"},
    ]
    assert ceiling.judged_weights(judged, pools).tolist() == [5.0, 5.0, 1.0]


def test_agreement_of_two_readings(ceiling: ModuleType) -> None:
    first = [True, True, True, False, False, False, False, False]
    second = [True, True, False, True, False, False, False, False]
    out = ceiling.agreement(first, second)
    assert out["agreement"] == pytest.approx(6 / 8)
    # chance agreement: 3/8 * 3/8 + 5/8 * 5/8 = 34/64
    assert out["kappa"] == pytest.approx((6 / 8 - 34 / 64) / (1 - 34 / 64))
    assert out["f1"] == pytest.approx(2 * 2 / 6)
    assert ceiling.agreement(first, first)["kappa"] == pytest.approx(1.0)


def readings(
    tmp_path: Path, committed: list[tuple[str, str, bool]], second: list[dict[str, object]]
) -> tuple[Path, Path]:
    """The committed verdicts ``(a, b, same_event)`` and a second reading, written as the two
    files ``compare_readings`` reads."""
    judged = tmp_path / "judged.json"
    judged.write_text(
        json.dumps({"pairs": [{"a": a, "b": b, "same_event": y} for a, b, y in committed]})
    )
    again = tmp_path / "second.json"
    again.write_text(json.dumps({"pairs": second}))
    return judged, again


def test_readings_are_compared_on_judged_pairs_only(ceiling: ModuleType, tmp_path: Path) -> None:
    judged, second = readings(
        tmp_path,
        [("b", "a", True), ("c", "d", False)],
        [
            {"a": "a", "b": "b", "same_event": True, "close": False},
            {"a": "c", "b": "d", "same_event": True, "close": True},
        ],
    )
    out = ceiling.compare_readings(judged, second, 50)
    assert out["all"]["agreement"] == pytest.approx(0.5)
    assert out["all, not close"]["pairs"] == 1 and out["all, not close"]["agreement"] == 1.0
    judged, second = readings(
        tmp_path, [("b", "a", True)], [{"a": "x", "b": "y", "same_event": True, "close": False}]
    )
    with pytest.raises(SystemExit):
        ceiling.compare_readings(judged, second, 50)


def test_samples_are_compared_apart_and_together(ceiling: ModuleType, tmp_path: Path) -> None:
    judged, second = readings(
        tmp_path,
        [("a", "b", True), ("c", "d", True)],
        [
            {"a": "a", "b": "b", "same_event": True, "close": False, "sample": "x"},
            {"a": "c", "b": "d", "same_event": False, "close": False, "sample": "y"},
        ],
    )
    out = ceiling.compare_readings(judged, second, 10)
    assert out["x"]["agreement"] == 1.0 and out["y"]["agreement"] == 0.0
    assert out["every sample"]["pairs"] == 2


def test_the_committed_second_reading_holds_only_judged_pairs(ceiling: ModuleType) -> None:
    root = Path(__file__).resolve().parents[1] / "bench" / "stories"
    out = ceiling.compare_readings(
        root / "event_pairs_judged.json", root / "event_pairs_rejudged.json", 20
    )
    assert out["uniform"]["pairs"] == out["method 2024"]["pairs"] == 40
    assert out["every sample"]["pairs"] == 80


def test_quadratic_appends_products_and_squares_of_non_binary_columns(
    ceiling: ModuleType,
) -> None:
    x = np.asarray([[2.0, 1.0, 3.0], [4.0, 0.0, 5.0]])  # the middle column is 0/1
    out = ceiling.quadratic(x, [False, True, False])
    # 3 columns, 3 products, 2 squares
    assert out.shape == (2, 8)
    assert out[0].tolist() == [2.0, 1.0, 3.0, 2.0, 6.0, 3.0, 4.0, 9.0]
    # the evidence's own columns: the two "same" flags are 0/1, whatever a sample holds
    assert ceiling.quadratic(np.ones((1, 7))).shape == (1, 7 + 21 + 5)


def test_weighted_auc_counts_weighted_pairs_ordered_right(ceiling: ModuleType) -> None:
    y = np.asarray([1.0, 0.0, 0.0])
    scores = np.asarray([0.5, 0.9, 0.1])
    # the yes pair above the second no (weight 3), below the first (weight 1)
    assert ceiling.weighted_auc(scores, y, np.asarray([1.0, 1.0, 3.0])) == pytest.approx(0.75)
    assert ceiling.weighted_auc(np.zeros(3), y, np.ones(3)) == pytest.approx(0.5)


def test_features_weigh_terms_by_the_later_days_idf(ceiling: ModuleType) -> None:
    import polars as pl

    from analytics.stories import StoryParams

    days = [date(2025, 3, 1), date(2025, 3, 3), date(2025, 3, 3), date(2025, 3, 9)]
    ids = ["p0", "p1", "p2", "p3"]
    served = pl.DataFrame(
        {
            "signal_id": ids,
            "title": ["gpt-7x launch", "gpt-7x is here", "the launch", "the launch"],
            "text": ["", "", "", ""],
            "published_at": [datetime(d.year, d.month, d.day, tzinfo=UTC) for d in days],
        }
    )
    social = pl.DataFrame(
        {"signal_id": ids, "author": ["a", "a", "", ""], "domain": ["x.com", "x.com", "", ""]}
    )
    vectors = np.eye(4, dtype=np.float32)
    vectors[1] = vectors[0]
    data = {
        "social": social,
        "served": served,
        "ids": ids,
        "days": days,
        "vectors": vectors,
        "signal_vectors": vectors,
        "entities": {"p0": frozenset({"e1"}), "p1": frozenset({"e1", "e2"})},
    }
    out = ceiling.features(data, [("p0", "p1"), ("p2", "p3"), ("p0", "p3")], StoryParams())
    title_text, units, entities, terms, days_apart, author, site = out.T
    assert title_text.tolist() == [1.0, 0.0, 0.0] and units.tolist() == [1.0, 0.0, 0.0]
    assert entities.tolist() == [0.5, 0.0, 0.0]
    # the IDF of (p0, p1) is over the signals up to its later day, 2025-03-03: p0, p1, p2 (not
    # p3, later): "gpt-7x" and "launch" in 2 of 3, "is" and "here" in 1 of 3
    shared, rare = math.log(3 / 2), math.log(3)
    assert terms[0] == pytest.approx(shared / math.sqrt(2) / math.hypot(shared, rare, rare))
    assert terms[1] == pytest.approx(1.0)  # the same terms
    assert days_apart.tolist() == [2.0, 4.0, 4.0]  # 6 and 8 days apart, capped at 4
    # an empty author or site is nobody's: never the same
    assert author.tolist() == [1.0, 0.0, 0.0] and site.tolist() == [1.0, 0.0, 0.0]


def test_a_threshold_grouping_unjudged_pairs_is_not_chosen(ceiling: ModuleType) -> None:
    year = object.__new__(ceiling.Year)
    # stratum m: s0 judged yes, s1 no; stratum t: t0 judged no, t1 and t2 never judged
    year.pairs = [("a", "s0"), ("a", "s1"), ("a", "t0"), ("a", "t1"), ("a", "t2")]
    year.pools = {"m": set(year.pairs[:2]), "t": set(year.pairs[2:])}
    year.judged = [
        {"a": "a", "b": "s0", "stratum": "m", "same_event": True},
        {"a": "a", "b": "s1", "stratum": "m", "same_event": False},
        {"a": "a", "b": "t0", "stratum": "t", "same_event": False},
    ]
    scores = np.asarray([0.9, 0.1, 0.05, 0.95, 0.92])
    # at 0.9, {s0, t1, t2} would score F1 1.0 with t1 and t2 left out as unknown; every
    # threshold above 0.05 leaves t's grouped pairs without a judged one
    threshold, best = year.best_threshold(scores)
    assert threshold == pytest.approx(0.05) and best == pytest.approx(2 * 0.2 / 1.2)
    assert year.figures(year.grouped(scores, 0.9))["unknown_grouped"] == 2
