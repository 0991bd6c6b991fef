"""Co-occurrence (docs/design.md §7): for every two keys, how many signals mention both, and a key's
related keys, the rule behind a profile's ``related_entities`` and a theme's related themes.

Counted on integer codes (``analytics.codes``): each signal's distinct keys become a sorted run,
every pair inside a signal one packed int64, and one sort counts them.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import polars as pl

from analytics.codes import IntArray, code_bits, dense_codes, distinct_sorted, group_codes, heads
from analytics.trends import COUNT, KEY, SIGNAL_ID

# co_occurrence: the two keys of a pair (its count is ``COUNT``).
KEY_A = "key_a"
KEY_B = "key_b"
# pairs of key codes packed as (a << bits) | b: 32 bits when two codes fit in them
PairCodes = npt.NDArray[np.uint32] | npt.NDArray[np.int64]


def _pair_codes(group_start: IntArray, group_size: IntArray, key: IntArray, bits: int) -> PairCodes:
    """``(a << bits) | b`` for every two keys ``a < b`` of every group, groups being runs of
    ascending distinct key codes. Groups of one size share one index pattern, so this loops
    over the (few) sizes, not the groups, writing each size's pairs into one output array:
    ``uint32`` when two codes fit in it (half the bytes to write and sort), else ``int64``."""
    top = int(group_size.max(initial=0))
    groups = np.bincount(group_size, minlength=top + 1)
    sizes = np.arange(top + 1)
    total = int((groups * (sizes * (sizes - 1) // 2)).sum())
    narrow: PairCodes
    out: PairCodes
    if 2 * bits <= 32:
        narrow, out = key.astype(np.uint32), np.empty(total, dtype=np.uint32)
    else:
        narrow, out = key, np.empty(total, dtype=np.int64)
    shift = out.dtype.type(bits)
    at = 0
    for size in range(2, top + 1):
        if not groups[size]:
            continue
        starts = group_start[group_size == size]
        block = narrow[starts[:, None] + np.arange(size)]  # one row of keys per group
        first, second = np.triu_indices(size, 1)
        pairs = out[at : at + len(starts) * len(first)].reshape(len(starts), len(first))
        np.left_shift(np.take(block, first, axis=1), shift, out=pairs)
        np.bitwise_or(pairs, np.take(block, second, axis=1), out=pairs)
        at += pairs.size
    return out


def _ordered_pairs(
    pair: PairCodes, count: IntArray, bits: int
) -> tuple[IntArray, IntArray, IntArray]:
    """Every distinct pair ``a < b`` (packed, ascending) in both directions, sorted by
    (key_a, key_b): the key_a codes, the key_b codes and the counts. (a, b) as counted, then
    (b, a), sorted once with the count packed into the same int64: on this machine's AVX-512
    sort that beats placing each row without a sort (tried, docs/benchmarks.md)."""
    rows, mask = len(pair), (1 << bits) - 1
    wide = pair.astype(np.int64)
    both: IntArray = np.empty(2 * rows, dtype=np.int64)
    both[:rows] = wide
    reverse = both[rows:]
    np.bitwise_and(wide, mask, out=reverse)
    reverse <<= bits
    reverse |= wide >> bits
    del wide
    both, counts = _sort_with_counts(both, np.tile(count, 2))
    key_b = both & mask
    both >>= bits
    return both, key_b, counts


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
    sorted, every unordered pair ``a < b`` inside a signal becomes one packed integer ``(a <<
    bits) | b``, and one sort of those codes counts them; the reverse direction is added and
    sorted in with the count packed into the same int64 (``_ordered_pairs``). Key strings are
    looked up once, at the end.
    """
    frame = mentions.select(SIGNAL_ID, KEY).drop_nulls()
    keys, key = dense_codes(frame[KEY])
    bits = code_bits(keys.len())
    # Distinct (signal, key) in (signal, key) order; a signal's keys are then a sorted run.
    signal = group_codes(frame[SIGNAL_ID])
    signal_key = distinct_sorted((signal << bits) | key)
    del signal, key
    starts = heads(signal_key >> bits)
    sizes = np.diff(starts, append=len(signal_key))
    signal_key &= (1 << bits) - 1

    codes = _pair_codes(starts, sizes, signal_key, bits)
    del signal_key
    codes.sort()
    firsts = heads(codes)
    count = np.diff(firsts, append=len(codes))
    pair = codes[firsts]
    del codes, firsts
    key_a, key_b, counts = _ordered_pairs(pair, count, bits)
    del pair, count
    # the strings are gathered one column at a time, each code array freed once used
    a = keys.gather(key_a)
    del key_a
    b = keys.gather(key_b)
    del key_b
    return pl.DataFrame({KEY_A: a, KEY_B: b, COUNT: pl.Series(counts, dtype=pl.Int64)})


def related(co: pl.DataFrame, key: str, limit: int = 25) -> pl.DataFrame:
    """The keys co-occurring with ``key``: count desc, then key asc, at most ``limit``.
    Returns (key, count); ``key`` itself never appears."""
    return (
        co.filter((pl.col(KEY_A) == key) & (pl.col(KEY_B) != key))
        .select(pl.col(KEY_B).alias(KEY), COUNT)
        .sort([COUNT, KEY], descending=[True, False])
        .head(limit)
    )
