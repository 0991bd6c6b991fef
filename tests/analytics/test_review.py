from __future__ import annotations

from datetime import UTC, datetime

import polars as pl

from analytics.review import apply_reviews, latest_decisions
from analytics.schema import REVIEWS, UNITS


def units() -> pl.DataFrame:
    rows = [
        ("u1", "s1", 0, "thesis"),
        ("u2", "s1", 1, "claim"),
        ("u3", "s1", 2, "claim"),
        ("u4", "s2", 0, "synopsis"),
    ]
    return pl.DataFrame(
        [
            {
                "unit_id": u,
                "signal_id": s,
                "position": p,
                "role": r,
                "text": f"text {u}",
                "argument_id": None,
                "evidence": [{"text": "text", "truncated": True}],
                "entities": [],
                "human_reviewed": False,
                "start_char": 0,
                "end_char": 6,
            }
            for u, s, p, r in rows
        ],
        schema=UNITS,
        orient="row",
    )


def reviews(*rows: tuple[str, str, int]) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "unit_id": u,
                "decision": d,
                "reviewer": "ana",
                "reviewed_at": datetime(2026, 6, day, tzinfo=UTC),
                "note": None,
            }
            for u, d, day in rows
        ],
        schema=REVIEWS,
        orient="row",
    )


def test_latest_decision_wins_and_ties_go_to_the_later_line() -> None:
    decided = latest_decisions(
        reviews(
            ("u1", "reject", 1), ("u1", "approve", 2), ("u2", "approve", 3), ("u2", "reject", 3)
        )
    )
    assert dict(decided.iter_rows()) == {"u1": "approve", "u2": "reject"}


def test_approved_are_flagged_rejected_removed_and_positions_renumbered() -> None:
    result = apply_reviews(units(), reviews(("u1", "approve", 1), ("u2", "reject", 1)))
    s1 = result.units.filter(pl.col("signal_id") == "s1").sort("position")
    assert s1.select("unit_id", "position", "human_reviewed").rows() == [
        ("u1", 0, True),
        ("u3", 1, False),
    ]
    assert result.rejected.select("unit_id", "rule").rows() == [("u2", "human_rejected")]
    assert result.approved == 1


def test_no_reviews_change_nothing() -> None:
    result = apply_reviews(units(), pl.DataFrame(schema=REVIEWS))
    assert result.units.sort("unit_id").equals(units().sort("unit_id"))
    assert result.rejected.is_empty()
