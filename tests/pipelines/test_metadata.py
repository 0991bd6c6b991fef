from __future__ import annotations

import base64
import struct
from datetime import UTC, datetime

import polars as pl

from analytics.schema import SIGNALS
from pipelines.metadata import markdown_table, weekly_volume, weekly_volume_plot

PUBLISHED_AT = SIGNALS["published_at"]


def stamps(*values: datetime | None) -> pl.Series:
    return pl.Series("published_at", values, dtype=PUBLISHED_AT)


def test_weekly_volume_counts_monday_weeks_and_fills_empty_ones() -> None:
    weekly = weekly_volume(
        stamps(
            datetime(2026, 5, 4, tzinfo=UTC),  # a Monday
            datetime(2026, 5, 10, 23, 59, tzinfo=UTC),  # the Sunday of the same week
            datetime(2026, 5, 25, 8, tzinfo=UTC),
            None,
        )
    )
    assert weekly.rows() == [
        (datetime(2026, 5, 4, tzinfo=UTC), 2),
        (datetime(2026, 5, 11, tzinfo=UTC), 0),
        (datetime(2026, 5, 18, tzinfo=UTC), 0),
        (datetime(2026, 5, 25, tzinfo=UTC), 1),
    ]
    last_two = weekly_volume(stamps(datetime(2026, 5, 4, tzinfo=UTC)), weeks=2)
    assert last_two.height == 1
    assert weekly_volume(stamps(*weekly["week"]), weeks=2)["week"].to_list() == [
        datetime(2026, 5, 18, tzinfo=UTC),
        datetime(2026, 5, 25, tzinfo=UTC),
    ]
    assert weekly_volume(stamps()).is_empty()


def test_weekly_volume_plot_is_a_markdown_image_of_an_embedded_png() -> None:
    weekly = weekly_volume(
        stamps(*(datetime(2026, 1 + n % 5, 1 + n % 28, tzinfo=UTC) for n in range(60)))
    )
    markdown = weekly_volume_plot(weekly, title="signals per week")
    prefix = "![signals per week](data:image/png;base64,"
    assert markdown.startswith(prefix) and markdown.endswith(")")
    png = base64.b64decode(markdown[len(prefix) : -1], validate=True)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert (width, height) == (640, 200)
    assert len(markdown) < 60_000  # stored in every materialization event: keep it small
    assert weekly_volume_plot(weekly.clear()) == "_no rows yet: nothing to plot_"


def test_markdown_table_escapes_shortens_and_counts_what_it_left_out() -> None:
    frame = pl.DataFrame({"name": ["a|b", "x" * 200, "line\nbreak"], "n": [1, 2, 3]})
    table = markdown_table(frame, max_rows=2)
    assert table.splitlines()[:3] == ["| name | n |", "|---|---|", "| a\\|b | 1 |"]
    assert "x" * 117 + "..." in table and "x" * 118 not in table
    assert table.endswith("_1 more rows_\n")
