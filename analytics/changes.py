"""Change sequencing for the feed (docs/design.md §4): a signal gets a new, globally increasing
``change_seq`` whenever what is served for it is new or different."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

import polars as pl

from analytics.schema import CHANGE_STATE


@dataclass(frozen=True)
class Sequenced:
    served: pl.DataFrame  # the input with ``change_seq`` and ``changed_at`` filled in
    state: pl.DataFrame  # the new CHANGE_STATE
    changed: int  # how many signals got a new sequence number


def served_hash(detail_json: bytes) -> str:
    """What a reader of the signal can see, as one hash: the detail carries every card field."""
    return hashlib.sha256(detail_json).hexdigest()


def assign_change_seqs(served: pl.DataFrame, state: pl.DataFrame, *, now: datetime) -> Sequenced:
    """Number the new and changed signals after the highest number ever given out.

    ``served`` needs ``signal_id``, ``published_at`` and ``detail_json``. Unchanged signals
    keep their number; new numbers go out in ``(published_at, signal_id)`` order, so a feed
    reader sees older material first. Signals no longer served stay in the state (``served``
    false) so that, should they return, they count as changed. Numbers never repeat.
    """
    hashes = served.select(
        "signal_id",
        "published_at",
        pl.col("detail_json")
        .map_elements(served_hash, return_dtype=pl.String)
        .alias("served_hash"),
    )
    previous = state.filter(pl.col("served")).select(
        "signal_id",
        pl.col("served_hash").alias("previous_hash"),
        pl.col("change_seq").alias("previous_seq"),
        pl.col("changed_at").alias("previous_at"),
    )
    joined = hashes.join(previous, on="signal_id", how="left")
    unchanged = pl.col("served_hash") == pl.col("previous_hash")
    high = state["change_seq"].max()
    start = int(high) + 1 if isinstance(high, int) else 1
    fresh = (
        joined.filter(~unchanged.fill_null(False))
        .sort("published_at", "signal_id")
        .with_row_index("offset")
        .select(
            "signal_id",
            (pl.col("offset").cast(pl.Int64) + start).alias("change_seq"),
            pl.lit(now).cast(CHANGE_STATE["changed_at"]).alias("changed_at"),
        )
    )
    kept = joined.filter(unchanged.fill_null(False)).select(
        "signal_id",
        pl.col("previous_seq").alias("change_seq"),
        pl.col("previous_at").alias("changed_at"),
    )
    numbers = pl.concat([kept, fresh])
    current = hashes.select("signal_id", "served_hash").join(numbers, on="signal_id")
    current = current.with_columns(pl.lit(True).alias("served"))
    retired = state.join(current.select("signal_id"), on="signal_id", how="anti").with_columns(
        pl.lit(False).alias("served")
    )
    new_state = (
        pl.concat([current.select(CHANGE_STATE.names()), retired.select(CHANGE_STATE.names())])
        .cast(CHANGE_STATE)
        .sort("signal_id")
    )
    out = served.drop("change_seq", "changed_at", strict=False).join(
        numbers, on="signal_id", how="left"
    )
    return Sequenced(served=out.select(served.columns), state=new_state, changed=fresh.height)
