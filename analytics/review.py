"""Human review: approved units are marked ``human_reviewed``, rejected ones are never served."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from analytics.schema import UNIT_REJECTIONS, UNITS

HUMAN_REJECTED = "human_rejected"


@dataclass(frozen=True)
class Reviewed:
    units: pl.DataFrame  # UNITS, approved ones flagged, rejected ones removed, positions renumbered
    rejected: pl.DataFrame  # UNIT_REJECTIONS rows with rule ``human_rejected``
    approved: int


def latest_decisions(reviews: pl.DataFrame) -> pl.DataFrame:
    """One row per unit: its most recent decision (the later line wins a tie in time)."""
    return (
        reviews.with_row_index("line")
        .sort("reviewed_at", "line")
        .group_by("unit_id", maintain_order=True)
        .last()
        .select("unit_id", "decision")
    )


def apply_reviews(units: pl.DataFrame, reviews: pl.DataFrame) -> Reviewed:
    """Apply the latest decision per unit; units without one are left as they are."""
    decisions = latest_decisions(reviews)
    joined = units.join(decisions, on="unit_id", how="left")
    rejected = joined.filter(pl.col("decision") == "reject")
    kept = (
        joined.filter(pl.col("decision").is_null() | (pl.col("decision") != "reject"))
        .with_columns(
            (pl.col("human_reviewed") | (pl.col("decision") == "approve").fill_null(False)).alias(
                "human_reviewed"
            )
        )
        .sort("signal_id", "position")
        .with_columns(pl.int_range(pl.len()).over("signal_id").cast(pl.Int64).alias("position"))
        .select(UNITS.names())
    )
    rejections = rejected.select(
        "unit_id", "signal_id", "role", "text", pl.lit(HUMAN_REJECTED).alias("rule")
    ).cast(UNIT_REJECTIONS)
    approved = joined.filter(pl.col("decision") == "approve").height
    return Reviewed(kept, rejections, approved)
