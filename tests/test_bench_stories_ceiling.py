"""The stories' evidence ceiling (bench/stories/ceiling.py): the weighted logistic fit, the
judged pairs' weights, and the agreement of two readings of the same pairs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from tests.bench_scripts import bench_script


@pytest.fixture(scope="module")
def ceiling() -> Iterator[ModuleType]:
    with bench_script("stories", "ceiling") as module:
        yield module


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
