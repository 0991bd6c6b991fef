"""Co-occurrence (docs/design.md §7): for every two keys, how many signals mention both, and a key's
related keys, the rule behind a profile's ``related_entities`` and a theme's related themes.

Counted on integer codes (``analytics.codes``): each signal's distinct keys become a sorted run,
every pair inside a signal one packed int64, and one sort counts them.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from analytics.codes import IntArray, code_bits, dense_codes, distinct_sorted, group_codes, heads
from analytics.trends import COUNT, KEY, SIGNAL_ID

# co_occurrence: the two keys of a pair (its count is ``COUNT``).
KEY_A = "key_a"
KEY_B = "key_b"


def _pair_codes(group_start: IntArray, group_size: IntArray, key: IntArray, bits: int) -> IntArray:
    """``(a << bits) | b`` for every two keys ``a < b`` of every group, groups being runs of
    ascending distinct key codes. Groups of one size share one index pattern, so this loops
    over the (few) sizes, not the groups, writing each size's pairs into one output array."""
    top = int(group_size.max(initial=0))
    groups = np.bincount(group_size, minlength=top + 1)
    sizes = np.arange(top + 1)
    out = np.empty(int((groups * (sizes * (sizes - 1) // 2)).sum()), dtype=np.int64)
    at = 0
    for size in range(2, top + 1):
        if not groups[size]:
            continue
        starts = group_start[group_size == size]
        block = key[starts[:, None] + np.arange(size)]  # one row of keys per group
        first, second = np.triu_indices(size, 1)
        pairs = out[at : at + len(starts) * len(first)].reshape(len(starts), len(first))
        np.left_shift(np.take(block, first, axis=1), bits, out=pairs)
        pairs |= np.take(block, second, axis=1)
        at += pairs.size
    return out


def _sort_with_counts(codes: IntArray, counts: IntArray) -> tuple[IntArray, IntArray]:
    """Distinct non-negative ``codes`` in ascending order, each with its count. When both fit
    in one int64 the count is packed below the code and one in-place sort does it (``codes``
    is then overwritten); otherwise an argsort."""
    count_bits = int(counts.max(initial=0)).bit_length()
    if len(codes) and int(codes.max()).bit_length() + count_bits <= 63:
        packed = codes
        packed <<= count_bits
        packed |= counts
        packed.sort()
        sorted_counts = packed & ((1 << count_bits) - 1)
        packed >>= count_bits
        return packed, sorted_counts
    order = np.argsort(codes)
    return codes[order], counts[order]


def co_occurrence(mentions: pl.DataFrame) -> pl.DataFrame:
    """Signals containing both keys, for every ordered pair of distinct keys (both directions
    are present, so ``related`` is a plain filter). Returns (key_a, key_b, count) sorted by
    key_a, key_b. Rows with a null signal_id or key are ignored.

    Computed on integer codes: keys are numbered in key order, each signal's distinct keys are
    sorted, every unordered pair ``a < b`` inside a signal becomes one int64 ``(a << bits) |
    b``, and one sort of those codes counts them; the reverse direction is added and sorted in
    with the count packed into the same int64. Key strings are looked up once, at the end.
    """
    frame = mentions.select(SIGNAL_ID, KEY).drop_nulls()
    keys, key = dense_codes(frame[KEY])
    bits = code_bits(keys.len())
    mask = (1 << bits) - 1
    # Distinct (signal, key) in (signal, key) order; a signal's keys are then a sorted run.
    signal = group_codes(frame[SIGNAL_ID])
    signal_key = distinct_sorted((signal << bits) | key)
    starts = heads(signal_key >> bits)
    sizes = np.diff(starts, append=len(signal_key))
    signal_key &= mask

    codes = _pair_codes(starts, sizes, signal_key, bits)
    codes.sort()
    firsts = heads(codes)
    count = np.diff(firsts, append=len(codes))
    pair = codes[firsts]
    del codes
    # Both directions: (a, b) as counted, then (b, a).
    both = np.empty(2 * len(pair), dtype=np.int64)
    both[: len(pair)] = pair
    reverse = both[len(pair) :]
    np.bitwise_and(pair, mask, out=reverse)
    reverse <<= bits
    reverse |= pair >> bits
    del pair
    both, counts = _sort_with_counts(both, np.tile(count, 2))
    del count
    # the strings are gathered one column at a time, each code array freed once used
    key_b = keys.gather(both & mask)
    both >>= bits
    key_a = keys.gather(both)
    del both
    return pl.DataFrame({KEY_A: key_a, KEY_B: key_b, COUNT: pl.Series(counts, dtype=pl.Int64)})


def related(co: pl.DataFrame, key: str, limit: int = 25) -> pl.DataFrame:
    """The keys co-occurring with ``key``: count desc, then key asc, at most ``limit``.
    Returns (key, count); ``key`` itself never appears."""
    return (
        co.filter((pl.col(KEY_A) == key) & (pl.col(KEY_B) != key))
        .select(pl.col(KEY_B).alias(KEY), COUNT)
        .sort([COUNT, KEY], descending=[True, False])
        .head(limit)
    )
