"""Integer codes, the representation the trend computations share (``analytics.trends``,
``analytics.significance``, ``analytics.cooccurrence``): keys as dense codes in key order, runs
of equal ids, and distinct values by one in-place sort, so that strings are touched only at the
edges and everything in between is numpy on int64 (docs/benchmarks.md).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import polars as pl

IntArray = npt.NDArray[np.int64]


def heads(ordered: IntArray) -> IntArray:
    """Where each run of equal values starts in a sorted array."""
    head = np.empty(len(ordered), dtype=np.bool_)
    head[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=head[1:])
    return np.flatnonzero(head)


def distinct_sorted(values: IntArray) -> IntArray:
    """The distinct values in ascending order (``np.unique`` without its overheads). Sorts
    ``values`` in place: callers pass a temporary."""
    values.sort()
    distinct: IntArray = values[heads(values)]
    return distinct


def dense_codes(values: pl.Series) -> tuple[pl.Series, IntArray]:
    """The distinct values of a null-free column in Polars sort order, and each value's index
    into them, so that integer order is value order.

    Strings take one hash pass (Arrow's ``dictionary_encode``: the distinct values in order of
    appearance and an index per row), then only the few distinct values are sorted and the
    indices renumbered through that order: hashing each string once, where ``unique`` then a
    cast to ``Enum`` hashed every row twice (docs/benchmarks.md, "Analytics stage at scale")."""
    if values.dtype == pl.String:
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


def runs(ids: pl.Series) -> tuple[pl.Series, IntArray]:
    """Runs of equal consecutive ids: their values (named as ``ids``) and lengths. Mentions
    usually arrive grouped by signal (~5 per signal), so looking up one id per run instead of
    one per row saves most of the string hashing; any order is still correct, only slower."""
    encoded = ids.rle()
    lengths: IntArray = encoded.struct.field("len").cast(pl.Int64).to_numpy()
    return encoded.struct.field("value").alias(ids.name), lengths


def group_codes(ids: pl.Series) -> IntArray:
    """A code per row of a null-free column, equal for equal values. Rows usually come grouped
    by id (a pipeline writes a signal's mentions together): then each run of equal ids is one
    group, numbered in order, which distinct 64-bit hashes of the run values prove (distinct
    hashes are distinct values; a repeated hash, a split group or a collision, takes the exact
    path). Otherwise the run values are hashed into codes by Arrow's ``dictionary_encode``."""
    values, lengths = runs(ids)
    hashes = np.sort(values.hash().to_numpy())
    if len(hashes) < 2 or bool((hashes[1:] != hashes[:-1]).all()):
        return np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(values.rechunk().to_arrow())
    indices: IntArray = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    return np.repeat(indices, lengths)


def code_bits(n: int) -> int:
    """Bits that hold the codes 0 … n-1 (at least one), so that two codes pack into one int64
    as ``(a << bits) | b`` and unpack with a shift and a mask."""
    return max(n - 1, 1).bit_length()
