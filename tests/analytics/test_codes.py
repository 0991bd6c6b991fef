"""Integer codes (analytics.codes): dense codes in value order, exact whether the hashes collide or
not; group codes whether rows come grouped by id or not; positions of ids in a table against a
dictionary lookup, and the cases it leaves to a join."""

from __future__ import annotations

import random

import numpy as np
import polars as pl
import pytest

from analytics import codes
from analytics.codes import dense_codes, group_codes, positions


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


def _colliding(values: pl.Series) -> np.ndarray:
    """A 64-bit hash with three values in its top bits: most values share a truncated hash."""
    return (values.hash().to_numpy() % np.uint64(3)) << np.uint64(62)


def _random_ids(rng: random.Random, n: int, distinct: int) -> list[str]:
    return [f"id-{rng.randrange(distinct)}" for _ in range(n)]


def test_dense_codes_hashed_equals_the_sorted_distinct_values() -> None:
    ids = _random_ids(random.Random(11), 20_000, 3_000)
    series = pl.Series("key", ids)
    hashed = codes._hashed_codes(series)
    assert hashed is not None  # Polars' hash gives 3,000 distinct truncated hashes
    distinct = sorted(set(ids))
    assert hashed[0].to_list() == distinct
    where = {value: i for i, value in enumerate(distinct)}
    assert hashed[1].tolist() == [where[value] for value in ids]


def test_dense_codes_are_exact_when_hashes_collide(monkeypatch: pytest.MonkeyPatch) -> None:
    ids = _random_ids(random.Random(12), 5_000, 700)
    series = pl.Series("key", ids)
    expected_distinct, expected_codes = dense_codes(series)
    monkeypatch.setattr(codes, "_hashes", _colliding)
    assert codes._hashed_codes(series) is None  # the check saw the collisions
    distinct, colliding_codes = dense_codes(series)  # … and the exact path was taken
    assert distinct.to_list() == expected_distinct.to_list() == sorted(set(ids))
    assert colliding_codes.tolist() == expected_codes.tolist()
    assert _same_partition(group_codes(series), ids)


def _naive_positions(values: list[str], table: list[str]) -> list[int]:
    where = {value: i for i, value in enumerate(table)}
    return [where.get(value, -1) for value in values]


def test_positions_match_a_dictionary_lookup() -> None:
    rng = random.Random(13)
    table = [f"s{i}" for i in rng.sample(range(50_000), 8_000)]
    # values: present and absent ids, repeated, in any order
    values = [f"s{rng.randrange(50_000)}" for _ in range(12_000)] + table[:50]
    found = positions(pl.Series(values), pl.Series(table))
    assert found is not None
    assert found.tolist() == _naive_positions(values, table)
    assert (found >= 0).sum() > 1_000 and (found < 0).sum() > 1_000  # both cases occur
    empty = pl.Series([], dtype=pl.String)
    assert positions(empty, pl.Series(table)).tolist() == []  # type: ignore[union-attr]
    assert positions(pl.Series(["x"]), empty).tolist() == [-1]  # type: ignore[union-attr]


def test_positions_defer_to_a_join_when_table_hashes_repeat(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a repeated id, a null, or two ids of one truncated hash: not a lookup this can answer
    assert positions(pl.Series(["a"]), pl.Series(["a", "b", "a"])) is None
    assert positions(pl.Series(["a"]), pl.Series(["a", None])) is None  # a null id: joined
    monkeypatch.setattr(codes, "_hashes", _colliding)
    assert positions(pl.Series(["a"]), pl.Series([f"s{i}" for i in range(10)])) is None


def test_positions_a_value_sharing_a_rows_hash_is_not_that_row(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # "z" hashes like "b" (a collision): the strings are compared, so "z" is in no row
    table_hash = {"a": 1, "b": 2, "c": 3, "z": 2, "y": 3}

    def fake(values: pl.Series) -> np.ndarray:
        return np.array([table_hash[v] for v in values.to_list()], dtype=np.uint64) << 40

    monkeypatch.setattr(codes, "_hashes", fake)
    found = positions(pl.Series(["z", "b", "a", "y", "c", "b"]), pl.Series(["a", "b", "c"]))
    assert found is not None
    assert found.tolist() == [-1, 1, 0, -1, 2, 1]
