"""Co-occurrence (docs/design.md §7) on small hand-computed mentions and against brute force: both
directions, related keys, edge cases, the packed pair sort (32- and 64-bit pair codes), the two
directions in (key_a, key_b) order, and exactness when the key hashes collide."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from itertools import permutations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from analytics import codes
from analytics.cooccurrence import (
    KEY_A,
    KEY_B,
    _ordered_pairs,
    _sort_with_counts,
    co_occurrence,
    related,
)
from analytics.trends import COUNT, KEY


def test_co_occurrence_both_directions() -> None:
    mentions = pl.DataFrame(
        {"signal_id": ["s1", "s1", "s2", "s2", "s2", "s3"], KEY: ["a", "b", "a", "b", "c", "a"]}
    )
    expected = pl.DataFrame(
        {
            KEY_A: ["a", "a", "b", "b", "c", "c"],
            KEY_B: ["b", "c", "a", "c", "a", "b"],
            COUNT: [2, 1, 2, 1, 1, 1],
        }
    )
    assert_frame_equal(co_occurrence(mentions), expected)


def test_related_capped_at_25_count_desc_then_id() -> None:
    keys = [f"k{i:02d}" for i in range(30)]
    mentions = pl.DataFrame(
        {
            "signal_id": ["s0"] * 31 + ["s1"] * 3,
            KEY: ["x", *keys, "x", "k29", "k28"],
        }
    )
    top = related(co_occurrence(mentions), "x")
    expected = pl.DataFrame(
        {KEY: ["k28", "k29", *keys[:23]], COUNT: [2, 2] + [1] * 23},
        schema={KEY: pl.String, COUNT: pl.Int64},
    )
    assert_frame_equal(top, expected)
    assert related(co_occurrence(mentions), "x", limit=1)[KEY].to_list() == ["k28"]


def test_co_occurrence_edge_cases() -> None:
    schema = {KEY_A: pl.String, KEY_B: pl.String, COUNT: pl.Int64}
    empty = pl.DataFrame(schema={"signal_id": pl.String, KEY: pl.String})
    assert_frame_equal(co_occurrence(empty), pl.DataFrame(schema=schema))
    # One key per signal: no pairs at all.
    lonely = pl.DataFrame({"signal_id": ["s1", "s2", "s3"], KEY: ["a", "b", "a"]})
    assert_frame_equal(co_occurrence(lonely), pl.DataFrame(schema=schema))
    # Repeated mentions count one signal; rows of one signal need not be adjacent; rows with
    # a null signal or key are ignored.
    mentions = pl.DataFrame(
        {
            "signal_id": ["s1", "s2", "s1", "s1", "s2", None, "s2", "s1"],
            KEY: ["b", "a", "a", "b", "b", "a", None, "a"],
        }
    )
    expected = pl.DataFrame({KEY_A: ["a", "b"], KEY_B: ["b", "a"], COUNT: [2, 2]}, schema=schema)
    assert_frame_equal(co_occurrence(mentions), expected)


def test_co_occurrence_with_integer_keys() -> None:
    mentions = pl.DataFrame({"signal_id": ["s1", "s1", "s2", "s2"], KEY: [10, 2, 2, 10]})
    expected = pl.DataFrame({KEY_A: [2, 10], KEY_B: [10, 2], COUNT: [2, 2]})
    assert_frame_equal(co_occurrence(mentions), expected)


def test_co_occurrence_matches_brute_force_on_random_mentions() -> None:
    rng = random.Random(7)
    keys = [f"k{i:02d}" for i in range(40)]
    rows = [
        (f"s{signal}", rng.choice(keys[: rng.randint(1, 40)]))
        for signal in range(400)
        for _ in range(rng.randint(1, 9))
    ]
    rng.shuffle(rows)
    per_signal: dict[str, set[str]] = defaultdict(set)
    for signal_id, key in rows:
        per_signal[signal_id].add(key)
    counted = Counter(pair for ks in per_signal.values() for pair in permutations(sorted(ks), 2))
    expected = pl.DataFrame(
        [(a, b, n) for (a, b), n in sorted(counted.items())],
        schema={KEY_A: pl.String, KEY_B: pl.String, COUNT: pl.Int64},
        orient="row",
    )
    mentions = pl.DataFrame(rows, schema={"signal_id": pl.String, KEY: pl.String}, orient="row")
    assert_frame_equal(co_occurrence(mentions), expected)
    # Grouped by signal, each signal's rows form one run.
    assert_frame_equal(co_occurrence(mentions.sort("signal_id")), expected)


def test_pair_sort_falls_back_when_counts_do_not_pack() -> None:
    # Codes near 2^62 leave no room for a count in the same int64: the argsort path.
    codes = np.array([2**62 + 5, 3, 2**62], dtype=np.int64)
    counts = np.array([1, 7, 2], dtype=np.int64)
    ordered, ordered_counts = _sort_with_counts(codes, counts)
    assert ordered.tolist() == [3, 2**62, 2**62 + 5]
    assert ordered_counts.tolist() == [7, 2, 1]
    packed, packed_counts = _sort_with_counts(np.array([9, 4]), np.array([3, 5]))
    assert (packed.tolist(), packed_counts.tolist()) == ([4, 9], [5, 3])


def _brute_force(rows: list[tuple[str, str]]) -> pl.DataFrame:
    per_signal: dict[str, set[str]] = defaultdict(set)
    for signal_id, key in rows:
        per_signal[signal_id].add(key)
    counted = Counter(pair for ks in per_signal.values() for pair in permutations(sorted(ks), 2))
    return pl.DataFrame(
        [(a, b, n) for (a, b), n in sorted(counted.items())],
        schema={KEY_A: pl.String, KEY_B: pl.String, COUNT: pl.Int64},
        orient="row",
    )


def test_co_occurrence_past_16_bit_codes_matches_brute_force() -> None:
    # 70,000 keys: two codes no longer fit in 32 bits, so the pairs are packed in int64
    rng = random.Random(8)
    keys = [f"k{i:05d}" for i in range(70_000)]
    rows = [(f"s{i % 30_000}", key) for i, key in enumerate(keys)]
    rows += [(f"s{rng.randrange(30_000)}", rng.choice(keys)) for _ in range(20_000)]
    mentions = pl.DataFrame(rows, schema={"signal_id": pl.String, KEY: pl.String}, orient="row")
    assert_frame_equal(co_occurrence(mentions), _brute_force(rows))


def test_ordered_pairs_equal_a_sort_of_both_directions() -> None:
    rng = np.random.default_rng(9)
    bits, n = 7, 100
    a, b = rng.integers(0, n, 3_000), rng.integers(0, n, 3_000)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    pair = np.unique((lo << bits) | hi)
    pair = pair[(pair >> bits) != (pair & ((1 << bits) - 1))]  # a < b only
    count = rng.integers(1, 50, len(pair))
    key_a, key_b, counts = _ordered_pairs(pair.astype(np.uint32), count, bits)
    rows = sorted(
        [(int(p >> bits), int(p & 127), int(c)) for p, c in zip(pair, count, strict=True)]
        + [(int(p & 127), int(p >> bits), int(c)) for p, c in zip(pair, count, strict=True)]
    )
    assert list(zip(key_a.tolist(), key_b.tolist(), counts.tolist(), strict=True)) == rows


def test_co_occurrence_exact_when_hashes_collide(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(10)
    rows = [(f"s{rng.randrange(300)}", f"k{rng.randrange(60)}") for _ in range(2_000)]
    mentions = pl.DataFrame(rows, schema={"signal_id": pl.String, KEY: pl.String}, orient="row")

    def colliding(values: pl.Series) -> np.ndarray:
        return (values.hash().to_numpy() % np.uint64(3)) << np.uint64(62)

    monkeypatch.setattr(codes, "_hashes", colliding)
    assert_frame_equal(co_occurrence(mentions), _brute_force(rows))
