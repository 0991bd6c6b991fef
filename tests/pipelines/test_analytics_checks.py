from __future__ import annotations

from datetime import UTC, datetime

import polars as pl

from analytics.schema import STORIES
from analytics.trends import Clock, trend_metrics
from pipelines.defs.analytics.checks import story_problems, trend_table_problems

AS_OF = datetime(2026, 6, 3, tzinfo=UTC)


def metrics(keys: list[str], counts: list[int]) -> pl.DataFrame:
    signals, mentions = [], []
    for key, count in zip(keys, counts, strict=True):
        for n in range(count):
            sid = f"{key}-{n}"
            signals.append(
                {
                    "signal_id": sid,
                    "published_at": datetime(2026, 5, 1 + n % 28, tzinfo=UTC),
                    "domain": f"d{n % 3}.com",
                }
            )
            mentions.append({"signal_id": sid, "key": key})
    return trend_metrics(pl.DataFrame(mentions), pl.DataFrame(signals), Clock(AS_OF), kind="theme")


def test_a_sound_theme_table_passes() -> None:
    assert trend_table_problems(metrics(["Infrastructure", "Data"], [9, 3]), themes=True) == []


def test_each_broken_invariant_is_named() -> None:
    good = metrics(["Infrastructure", "Data"], [9, 3])
    shorthand = good.with_columns(pl.lit("C&I").alias("key"))
    assert any("unique" in p for p in trend_table_problems(shorthand, themes=True))
    assert any("outside the 12" in p for p in trend_table_problems(shorthand, themes=True))
    too_big = good.with_columns(pl.lit(1.5).alias("share_of_voice"))
    assert "share_of_voice outside [0, 1]" in trend_table_problems(too_big, themes=True)
    short = good.with_columns(pl.col("share_of_voice_history").list.head(11))
    assert "share_of_voice_history is not 12 weeks long" in trend_table_problems(short, themes=True)
    labelled = good.with_columns(pl.lit("Rising").alias("direction"))
    assert "direction set below 8 signals" in trend_table_problems(labelled, themes=True)


def _stories(rows: list[tuple[str, list[str], list[tuple[str, list[str]]]]]) -> pl.DataFrame:
    """(story_id, signal_ids, parts as (signal_id, unit_ids)) rows as a ``STORIES`` table."""
    at = datetime(2026, 5, 1, tzinfo=UTC)
    return pl.DataFrame(
        [
            {
                "story_id": story_id,
                "title": "t",
                "title_signal_id": signal_ids[0],
                "first_seen": at,
                "last_seen": at,
                "signal_ids": signal_ids,
                "signal_count": len(signal_ids),
                "entity_ids": [],
                "value_chain": [],
                "market_force": [],
                "domains": [],
                "authors": [],
                "independent_sources": 1,
                "merged_from": [],
                "split_from": None,
                "parts": [{"signal_id": s, "unit_ids": u} for s, u in parts],
            }
            for story_id, signal_ids, parts in rows
        ],
        schema=STORIES,
    )


def test_a_roundup_may_be_a_part_of_several_stories_and_nothing_else_may() -> None:
    split = _stories(
        [
            ("sty_a", ["dig", "p1"], [("dig", ["u0"])]),
            ("sty_b", ["dig", "p2"], [("dig", ["u1", "u2"])]),
        ]
    )
    assert story_problems(split) == []
    twice = _stories([("sty_a", ["p1"], []), ("sty_b", ["p1", "p2"], [])])
    assert story_problems(twice) == ["1 signals in more than one story: ['p1']"]
    whole_and_part = _stories([("sty_a", ["dig"], []), ("sty_b", ["dig"], [("dig", ["u1"])])])
    assert story_problems(whole_and_part) == ["1 signals in more than one story: ['dig']"]
    shared_unit = _stories(
        [("sty_a", ["dig"], [("dig", ["u0"])]), ("sty_b", ["dig"], [("dig", ["u0"])])]
    )
    assert story_problems(shared_unit) == ["1 units in several parts"]
