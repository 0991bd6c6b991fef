"""Significance of a change in mention rate (docs/design.md §7 ``confidence``): the two-sided exact
binomial test, vectorised so that every key is tested in one pass and each p-value is the same
float ``scipy.stats.binomtest`` gives, and the Benjamini–Hochberg adjustment across the keys.

A key's recent and prior mentions (k1 of n1 signals in W-3…W0, k2 of n2 in W-11…W-4) are two
Poisson counts; conditional on k1 + k2, k1 is binomial with p = n1 / (n1 + n2) when the rate did
not change. ``analytics.trends`` turns the adjusted p-values into the ``confidence`` label.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import polars as pl

from analytics.codes import IntArray, distinct_sorted

FloatArray = npt.NDArray[np.float64]

# The unadjusted p-value beside a trend table's Benjamini–Hochberg adjusted ``p_value``.
RAW_P_VALUE = "raw_p_value"


def _binary_search(
    sign: float, target: FloatArray, lo: FloatArray, hi: FloatArray, n: IntArray, p: FloatArray
) -> FloatArray:
    """scipy's ``_binary_search_for_binom_tst`` run on many cases at once: per case, the ``i``
    in ``lo…hi`` with ``a(i) ≤ target < a(i+1)`` for ``a(x) = sign · pmf(x)``, visiting the same
    midpoints in the same order as scipy so the answer is the same integer."""
    from scipy.stats import binom  # scipy.stats takes a second to import: only when testing

    lo, hi = lo.copy(), hi.copy()
    found = np.full(len(lo), np.nan)
    active = np.flatnonzero(lo < hi)
    while len(active):
        mid = lo[active] + (hi[active] - lo[active]) // 2
        value = sign * binom.pmf(mid, n[active], p[active])
        below, above = value < target[active], value > target[active]
        hit = ~below & ~above  # equal (or NaN, which scipy also returns at once)
        lo[active[below]] = mid[below] + 1
        hi[active[above]] = mid[above] - 1
        found[active[hit]] = mid[hit]
        active = active[~hit]
        active = active[lo[active] < hi[active]]
    ended = np.isnan(found)
    last = lo[ended]
    at_last = sign * binom.pmf(last, n[ended], p[ended])
    found[ended] = np.where(at_last <= target[ended], last, last - 1)
    return found


def binom_test_p_values(
    k: npt.ArrayLike, n: npt.ArrayLike, p: npt.ArrayLike
) -> npt.NDArray[np.float64]:
    """Two-sided exact binomial test p-values, vectorized: element by element the same float as
    ``scipy.stats.binomtest(k, n, p).pvalue`` (scipy's rule: the p-value sums the pmf of every
    outcome no more likely than ``k``, within a relative 1e-7, found by the same binary search
    over the far side of the mode).

    ``k``, ``n`` (≥ 1, ``k ≤ n``) and ``p`` (in [0, 1]) broadcast together; inputs are not
    validated beyond that.
    """
    from scipy.stats import binom

    k_arr, n_arr, p_arr = np.broadcast_arrays(
        np.asarray(k, dtype=np.int64), np.asarray(n, dtype=np.int64), np.asarray(p, dtype=float)
    )
    k_arr, n_arr, p_arr = k_arr.ravel(), n_arr.ravel(), p_arr.ravel()
    shape = np.broadcast_shapes(np.shape(k), np.shape(n), np.shape(p))
    rerr = 1 + 1e-7
    d = binom.pmf(k_arr, n_arr, p_arr)
    mean = p_arr * n_arr
    pvalue = np.ones(len(k_arr))
    # k below the mean: the far side is ceil(pn)…n, where the pmf decreases.
    low = np.flatnonzero(k_arr < mean)
    if len(low):
        kl, nl, pr = k_arr[low], n_arr[low], p_arr[low]
        ix = _binary_search(-1.0, -d[low] * rerr, np.ceil(mean[low]), nl.astype(float), nl, pr)
        y = nl - ix + (d[low] * rerr == binom.pmf(ix, nl, pr))
        pvalue[low] = binom.cdf(kl, nl, pr) + binom.sf(nl - y, nl, pr)
    # k above the mean: the far side is 0…floor(pn), where the pmf increases.
    high = np.flatnonzero(k_arr > mean)
    if len(high):
        kh, nh, ph = k_arr[high], n_arr[high], p_arr[high]
        ix = _binary_search(1.0, d[high] * rerr, np.zeros(len(high)), np.floor(mean[high]), nh, ph)
        y = ix + 1
        pvalue[high] = binom.cdf(y - 1, nh, ph) + binom.sf(kh - 1, nh, ph)
    result: npt.NDArray[np.float64] = np.minimum(pvalue, 1.0).reshape(shape)
    return result


def raw_p_values(k1: IntArray, k2: IntArray, n1: int, n2: int) -> FloatArray:
    """Two-sided conditional binomial test of two Poisson rates, one raw p-value per key.

    With no mentions in either period, or no signals at all in one period, there is nothing to
    compare and the p-value is 1 (the key still counts in the Benjamini–Hochberg family).
    Computed once per distinct (k1, k2): ``n1`` and ``n2`` are the same for every key.
    """
    out: FloatArray = np.ones(len(k1))
    testable = (k1 + k2 > 0) if n1 and n2 else np.zeros(len(k1), dtype=np.bool_)
    if not testable.any():
        return out
    a, b = k1[testable], k2[testable]
    width = int(b.max()) + 1
    case = a * width + b
    distinct = distinct_sorted(case.copy())
    where = np.searchsorted(distinct, case)
    ka, kb = distinct // width, distinct % width
    out[testable] = binom_test_p_values(ka, ka + kb, n1 / (n1 + n2))[where]
    return out


def adjusted_p_values(k1: IntArray, k2: IntArray, n1: int, n2: int) -> FloatArray:
    """Benjamini–Hochberg adjusted p-values of the rate-change test, one per key, the keys given
    being the family. ``k1``/``k2``: each key's recent and prior mentions; ``n1``/``n2``: all
    signals in the two periods."""
    from scipy.stats import false_discovery_control

    raw = raw_p_values(k1, k2, n1, n2)
    if not len(raw):
        return raw
    adjusted: FloatArray = false_discovery_control(raw, method="bh")
    return adjusted


def with_raw_p_values(trends: pl.DataFrame) -> pl.DataFrame:
    """A trend table (``analytics.trends.trend_metrics``) with ``raw_p_value``: each key's
    p-value before the adjustment, where it has an adjusted one (null elsewhere). The site
    shows both; the trend table keeps only the adjusted one, which the label is decided on."""
    k1 = trends["recent_mentions"].to_numpy().astype(np.int64)
    k2 = trends["prior_mentions"].to_numpy().astype(np.int64)
    # every key of one table shares the period totals n1 and n2 (none when it has no keys)
    n1, n2 = (
        int(total or 0)
        for total in trends.select(pl.col("recent_total").max(), pl.col("prior_total").max()).row(0)
    )
    raw = pl.Series(RAW_P_VALUE, raw_p_values(k1, k2, n1, n2), dtype=pl.Float64)
    return trends.with_columns(
        pl.when(pl.col("p_value").is_null()).then(None).otherwise(raw).alias(RAW_P_VALUE)
    )
