from __future__ import annotations

from datetime import UTC, datetime

import polars as pl

from analytics.changes import assign_change_seqs
from analytics.schema import CHANGE_STATE, SERVED_SIGNALS

T1 = datetime(2026, 6, 1, tzinfo=UTC)
T2 = datetime(2026, 6, 2, tzinfo=UTC)
T3 = datetime(2026, 6, 3, tzinfo=UTC)


def served(*rows: tuple[str, int, bytes]) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "signal_id": sid,
                "published_at": datetime(2026, 5, day, tzinfo=UTC),
                "content_type": "event",
                "domain": "example.com",
                "title": sid,
                "change_seq": None,
                "changed_at": None,
                "card_json": b"{}",
                "detail_json": detail,
            }
            for sid, day, detail in rows
        ],
        schema=SERVED_SIGNALS,
        orient="row",
    )


def seqs(frame: pl.DataFrame) -> dict[str, int]:
    return dict(frame.select("signal_id", "change_seq").iter_rows())


def test_first_publish_numbers_oldest_first() -> None:
    result = assign_change_seqs(
        served(("b", 2, b"B"), ("a", 2, b"A"), ("c", 1, b"C")),
        pl.DataFrame(schema=CHANGE_STATE),
        now=T1,
    )
    assert seqs(result.served) == {"c": 1, "a": 2, "b": 3}
    assert result.changed == 3
    assert result.served["changed_at"].to_list() == [T1] * 3


def test_unchanged_keep_their_number_changed_and_new_get_the_next() -> None:
    first = assign_change_seqs(
        served(("a", 1, b"A"), ("b", 2, b"B")), pl.DataFrame(schema=CHANGE_STATE), now=T1
    )
    same = assign_change_seqs(served(("a", 1, b"A"), ("b", 2, b"B")), first.state, now=T2)
    assert same.changed == 0 and seqs(same.served) == {"a": 1, "b": 2}
    assert same.served["changed_at"].to_list() == [T1, T1]

    edited = assign_change_seqs(
        served(("a", 1, b"A2"), ("b", 2, b"B"), ("c", 3, b"C")), same.state, now=T3
    )
    assert edited.changed == 2
    assert seqs(edited.served) == {"a": 3, "b": 2, "c": 4}


def test_numbers_never_repeat_even_after_a_signal_leaves_and_returns() -> None:
    first = assign_change_seqs(
        served(("a", 1, b"A"), ("b", 2, b"B")), pl.DataFrame(schema=CHANGE_STATE), now=T1
    )
    gone = assign_change_seqs(served(("b", 2, b"B")), first.state, now=T2)
    assert gone.changed == 0
    assert gone.state.filter(pl.col("signal_id") == "a")["served"].to_list() == [False]
    back = assign_change_seqs(served(("a", 1, b"A"), ("b", 2, b"B")), gone.state, now=T3)
    assert seqs(back.served) == {"a": 3, "b": 2}
    assert back.state["change_seq"].max() == 3
