"""Integer codes (analytics.codes): dense codes in value order, and group codes whether rows come
grouped by id or not."""

from __future__ import annotations

import random

import numpy as np
import polars as pl
import pytest

from analytics.codes import dense_codes, group_codes


@pytest.mark.parametrize(
    "values",
    [
        ["b", "a", "é", "B", "", "a", "b", "ab"],
        [],
        ["only"],
        [3, 1, 2, 3, 1],
    ],
)
def test_dense_codes_number_values_in_sort_order(values: list[object]) -> None:
    series = pl.Series("key", values)
    distinct, codes = dense_codes(series)
    assert distinct.to_list() == sorted(set(values))
    assert distinct.name == "key"
    assert codes.dtype == np.int64
    assert distinct.gather(codes).to_list() == values


def _same_partition(codes: np.ndarray, ids: list[str]) -> bool:
    """Equal codes exactly where the ids are equal."""
    pairs = set(zip(codes.tolist(), ids, strict=True))
    return len(pairs) == len(set(ids)) == len(set(codes.tolist()))


def test_group_codes_grouped_rows_are_numbered_by_run() -> None:
    ids = ["s3", "s3", "s1", "s2", "s2", "s2"]
    codes = group_codes(pl.Series(ids))
    assert codes.tolist() == [0, 0, 1, 2, 2, 2]


def test_group_codes_split_groups_still_share_a_code() -> None:
    # s1's rows are in two runs: the runs' hashes repeat, so the exact path groups them
    ids = ["s1", "s2", "s1", "s1", "s3", "s2"]
    codes = group_codes(pl.Series(ids))
    assert _same_partition(codes, ids)
    assert codes[0] == codes[2] == codes[3] and codes[1] == codes[5] != codes[0]


def test_group_codes_any_order_matches_the_ids() -> None:
    rng = random.Random(5)
    ids = [f"s{rng.randrange(300)}" for _ in range(5_000)]
    assert _same_partition(group_codes(pl.Series(ids)), ids)
    ids.sort()
    assert _same_partition(group_codes(pl.Series(ids)), ids)


def test_group_codes_edge_sizes() -> None:
    assert group_codes(pl.Series([], dtype=pl.String)).tolist() == []
    assert group_codes(pl.Series(["x", "x"])).tolist() == [0, 0]
