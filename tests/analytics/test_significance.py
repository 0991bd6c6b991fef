"""The rate-change test behind ``confidence``: the vectorised exact binomial test against
scipy, float for float, and the Benjamini–Hochberg adjustment across keys."""

from __future__ import annotations

import random

import numpy as np
import polars as pl
import pytest
from scipy.stats import binomtest, false_discovery_control

from analytics.significance import (
    RAW_P_VALUE,
    adjusted_p_values,
    binom_test_p_values,
    with_raw_p_values,
)


def _binomtest_cases() -> list[tuple[int, int, float]]:
    rng = random.Random(11)
    cases = [(0, 1, 0.5), (1, 1, 0.5), (0, 5, 0.0), (3, 5, 0.0), (5, 5, 1.0), (2, 5, 1.0)]
    cases += [(5, 10, 0.5), (3, 9, 1 / 3), (7, 20, 0.35)]  # k == p·n and near it
    for _ in range(400):
        n = rng.choice([rng.randint(1, 30), rng.randint(1, 3_000), rng.randint(1, 200_000)])
        p = rng.choice([rng.random(), rng.randint(1, 10_000) / 10_001])
        k = rng.choice([rng.randint(0, n), min(n, max(0, round(p * n) + rng.randint(-3, 3)))])
        cases.append((k, n, p))
    # The benchmark's shape: exposures n1/(n1+n2) of real totals, counts near the expectation.
    for k1 in range(0, 40):
        for k2 in (0, 1, k1, 2 * k1 + 1, 80):
            if k1 + k2:
                cases.append((k1, k1 + k2, 402_961 / (402_961 + 765_049)))
    return cases


def test_binom_test_p_values_equal_scipy_binomtest() -> None:
    cases = _binomtest_cases()
    k, n, p = (np.array(column) for column in zip(*cases, strict=True))
    ours = binom_test_p_values(k, n, p)
    expected = [binomtest(int(a), int(b), float(c)).pvalue for a, b, c in cases]
    mismatched = [
        (case, mine, theirs)
        for case, mine, theirs in zip(cases, ours.tolist(), expected, strict=True)
        if mine != theirs
    ]
    assert not mismatched
    # Scalars and broadcasting.
    assert binom_test_p_values(3, 10, 0.5).shape == ()
    assert float(binom_test_p_values(3, 10, 0.5)) == binomtest(3, 10, 0.5).pvalue
    assert binom_test_p_values([1, 2], 10, 0.3).tolist() == [
        binomtest(1, 10, 0.3).pvalue,
        binomtest(2, 10, 0.3).pvalue,
    ]


def test_adjusted_p_values_are_benjamini_hochberg_over_the_given_keys() -> None:
    k1 = np.array([12, 6, 4, 0, 9], dtype=np.int64)
    k2 = np.array([2, 3, 4, 0, 30], dtype=np.int64)
    n1, n2 = 40, 120
    p = n1 / (n1 + n2)
    raw = [binomtest(a, a + b, p).pvalue if a + b else 1.0 for a, b in zip(k1, k2, strict=True)]
    expected = false_discovery_control(raw, method="bh")
    assert adjusted_p_values(k1, k2, n1, n2).tolist() == pytest.approx(expected, rel=1e-12)
    # no signals in one period: nothing to compare, every p-value is 1
    assert adjusted_p_values(k1, k2, n1, 0).tolist() == [1.0] * 5
    assert adjusted_p_values(k1[:0], k2[:0], n1, n2).tolist() == []


def test_raw_p_values_sit_beside_the_adjusted_ones_they_came_from() -> None:
    k1, k2, n1, n2 = [3, 0, 5, 12], [1, 0, 20, 2], 100, 200
    adjusted = adjusted_p_values(np.array(k1), np.array(k2), n1, n2)
    trends = pl.DataFrame(
        {
            "recent_mentions": k1,
            "prior_mentions": k2,
            "recent_total": [n1] * 4,
            "prior_total": [n2] * 4,
            # the second key is below the labelling threshold: no adjusted p, so no raw one
            "p_value": [adjusted[0], None, adjusted[2], adjusted[3]],
        }
    )
    raw = with_raw_p_values(trends)[RAW_P_VALUE].to_list()
    assert raw[1] is None
    for i in (0, 2, 3):
        assert raw[i] == binomtest(k1[i], k1[i] + k2[i], n1 / (n1 + n2)).pvalue
    # adjusting the raw values of the whole family gives the adjusted ones back
    family = [raw[0], 1.0, raw[2], raw[3]]  # the untestable key counts with p = 1
    assert np.allclose(false_discovery_control(family, method="bh"), adjusted)
