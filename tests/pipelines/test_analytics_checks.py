from __future__ import annotations

from datetime import UTC, datetime

import polars as pl

from analytics.trends import Clock, trend_metrics
from pipelines.defs.analytics.checks import trend_table_problems

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
