"""Integer codes, the representation the trend computations share (``analytics.trends``,
``analytics.significance``, ``analytics.cooccurrence``): keys as dense codes in key order, runs
of equal ids, ids looked up in a table, and distinct values by one in-place sort, so that strings
are touched only at the edges and everything in between is numpy on integers
(docs/benchmarks.md).

Strings are coded and looked up through Polars' 64-bit hashes, truncated and packed with a row
number into one integer so that one sort groups them; the strings are then compared to their
group's, so every code and match is exact, and a collision takes the previous exact path
(Arrow's ``dictionary_encode``, a Polars join) instead.
"""

from __future__ import annotations

from typing import TypeVar

import numpy as np
import numpy.typing as npt
import polars as pl

IntArray = npt.NDArray[np.int64]
_Ints = TypeVar("_Ints", npt.NDArray[np.int64], npt.NDArray[np.uint32])


def heads(
    ordered: npt.NDArray[np.int64] | npt.NDArray[np.uint32] | npt.NDArray[np.uint64],
) -> IntArray:
    """Where each run of equal values starts in a sorted array."""
    head = np.empty(len(ordered), dtype=np.bool_)
    head[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=head[1:])
    return np.flatnonzero(head)


def distinct_sorted(values: _Ints) -> _Ints:
    """The distinct values in ascending order (``np.unique`` without its overheads). Sorts
    ``values`` in place: callers pass a temporary. Any integer dtype (``uint32`` sorts twice as
    fast as ``int64`` where the values fit)."""
    values.sort()
    distinct: _Ints = values[heads(values)]
    return distinct


def _hashes(values: pl.Series) -> npt.NDArray[np.uint64]:
    """64-bit hashes of a column's values (Polars' own; equal values hash equal). One place,
    so that a test can put colliding hashes in and see the exact fallbacks taken."""
    hashes: npt.NDArray[np.uint64] = values.hash().to_numpy()
    return hashes


def _pack(hashes: npt.NDArray[np.uint64], low_bits: int, low: IntArray) -> npt.NDArray[np.uint64]:
    """The hashes' top ``64 - low_bits`` bits with ``low`` (< 2**low_bits) below them, in place
    of ``hashes``: sorting the result groups equal truncated hashes and keeps ``low`` to find
    each row again."""
    shift = np.uint64(low_bits)
    if not hashes.flags.writeable:
        hashes = hashes.copy()
    hashes >>= shift
    hashes <<= shift
    hashes |= low.view(np.uint64)
    return hashes


def _hashed_codes(values: pl.Series) -> tuple[pl.Series, IntArray] | None:
    """``dense_codes`` of a string column by one hash and one sort of 64-bit integers: rows with
    equal truncated hashes form a group, each row is checked equal to its group's first value
    (distinct hashes are distinct values, so the groups are exactly the distinct values once
    every row is), and only the distinct values are sorted. None when two values share a
    truncated hash: the caller takes the exact path."""
    n = values.len()
    bits = code_bits(n)
    packed = _pack(_hashes(values), bits, np.arange(n, dtype=np.int64))
    packed.sort()
    row = np.bitwise_and(packed, np.uint64((1 << bits) - 1)).view(np.int64)
    packed >>= np.uint64(bits)
    starts = heads(packed)
    del packed
    distinct = values.gather(row[starts])
    order = distinct.arg_sort().cast(pl.Int64).to_numpy()
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    codes: IntArray = np.empty(n, dtype=np.int64)
    codes[row] = np.repeat(rank, np.diff(starts, append=n))
    del row
    ordered = distinct.gather(order)
    if not bool((values == ordered.gather(codes)).all()):
        return None
    return ordered, codes


def dense_codes(values: pl.Series) -> tuple[pl.Series, IntArray]:
    """The distinct values of a null-free column in Polars sort order, and each value's index
    into them, so that integer order is value order.

    Strings are hashed once and the 64-bit hashes sorted (``_hashed_codes``), each row then
    checked equal to its group's value, so the codes are exact; only the few distinct values
    are sorted as strings. Two values sharing a truncated hash (about one corpus in two
    thousand at 50k distinct keys in 5M rows) take Arrow's ``dictionary_encode`` instead, the
    previous path, which costs about 1.5× as much (docs/benchmarks.md, "Analytics stage at
    scale")."""
    if values.dtype == pl.String:
        if values.len():
            hashed = _hashed_codes(values.rechunk())
            if hashed is not None:
                return hashed[0].alias(values.name), hashed[1]
        import pyarrow.compute as pc  # half a second to import: only when coding

        encoded = pc.dictionary_encode(values.rechunk().to_arrow())
        seen = pl.Series(values.name, encoded.dictionary, dtype=pl.String)
        order = seen.arg_sort().cast(pl.Int64).to_numpy()
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order), dtype=np.int64)
        indices = encoded.indices.to_numpy(zero_copy_only=False)
        return seen.gather(order), rank[indices]
    distinct = values.unique().sort()
    lookup = distinct.to_frame("value").with_row_index("code")
    codes = (
        values.to_frame("value")
        .join(lookup, on="value", how="left", maintain_order="left")
        .get_column("code")
    )
    return distinct, codes.cast(pl.Int64).to_numpy()


def positions(values: pl.Series, table: pl.Series) -> IntArray | None:
    """Each value's row in ``table`` (a string column of distinct ids), -1 where it has none:
    a join of ``values`` to ``table`` by one sort of their packed 64-bit hashes. Each value is
    matched to the table row of equal truncated hash and the strings compared, so a match is
    exact, and a value whose hash no table row has is in no row. None when two table rows
    share a truncated hash (a repeated id, or a collision), or when either side has a null:
    the caller joins instead."""
    if table.null_count() or values.null_count():
        return None
    nt, nv = table.len(), values.len()
    bits = code_bits(max(nt, nv))
    tag = 1 << bits  # value rows sort after the table row of equal hash
    packed = np.concatenate(
        (
            _pack(_hashes(table), bits + 1, np.arange(nt, dtype=np.int64)),
            _pack(_hashes(values), bits + 1, np.arange(tag, tag + nv, dtype=np.int64)),
        )
    )
    packed.sort()
    low = np.bitwise_and(packed, np.uint64((tag << 1) - 1)).view(np.int64)
    packed >>= np.uint64(bits + 1)
    is_table = low < tag
    same = packed[1:] == packed[:-1]
    if bool((same & is_table[1:] & is_table[:-1]).any()):
        return None
    # the value rows right after a table row of the same hash: runs of them follow it
    matched = np.zeros(len(low), dtype=np.bool_)
    matched[1:] = same & ~is_table[1:]
    # the table row each run of values hangs on: the last table position at or before it
    last = np.where(is_table, np.arange(len(low), dtype=np.int64), 0)
    np.maximum.accumulate(last, out=last)
    wanted = np.flatnonzero(matched)
    value_row = low[wanted] - tag
    table_row = low[last[wanted]]
    result: IntArray = np.full(nv, -1, dtype=np.int64)
    equal = (values.gather(value_row) == table.gather(table_row)).to_numpy()
    result[value_row[equal]] = table_row[equal]
    return result


def runs(ids: pl.Series) -> tuple[pl.Series, IntArray]:
    """Runs of equal consecutive ids: their values (named as ``ids``) and lengths. Mentions
    usually arrive grouped by signal (~5 per signal), so looking up one id per run instead of
    one per row saves most of the string hashing; any order is still correct, only slower."""
    run = ids.rle_id().to_numpy()  # a number per run, cheaper than ``rle``'s struct
    starts = heads(run)
    lengths: IntArray = np.diff(starts, append=len(run))
    return ids.gather(starts), lengths


def group_codes(ids: pl.Series) -> IntArray:
    """A code per row of a null-free column, equal for equal values. Rows usually come grouped
    by id (a pipeline writes a signal's mentions together): then each run of equal ids is one
    group, numbered in order, which distinct 64-bit hashes of the run values prove (distinct
    hashes are distinct values; a repeated hash, a split group or a collision, takes the exact
    path). Otherwise the run values are numbered by ``dense_codes``."""
    values, lengths = runs(ids)
    hashes = np.sort(values.hash().to_numpy())
    if len(hashes) < 2 or bool((hashes[1:] != hashes[:-1]).all()):
        return np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    return np.repeat(dense_codes(values)[1], lengths)


def code_bits(n: int) -> int:
    """Bits that hold the codes 0 … n-1 (at least one), so that two codes pack into one int64
    as ``(a << bits) | b`` and unpack with a shift and a mask."""
    return max(n - 1, 1).bit_length()
