from __future__ import annotations

import base64
import struct
from datetime import UTC, datetime

import dagster as dg
import polars as pl

from analytics.schema import SIGNALS
from pipelines.metadata import (
    CHANGE,
    MOVER,
    column_schema,
    markdown_table,
    movers_plot,
    native_table,
    top_movers,
    weekly_lines_plot,
    weekly_volume,
    weekly_volume_plot,
)

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


def png_of(markdown: str, title: str) -> tuple[int, int]:
    """The pixel size of the PNG a Markdown image embeds."""
    prefix = f"![{title}](data:image/png;base64,"
    assert markdown.startswith(prefix) and markdown.endswith(")")
    png = base64.b64decode(markdown[len(prefix) : -1], validate=True)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def trend_rows(*rows: tuple[str, int, int, int, int, int]) -> pl.DataFrame:
    return pl.DataFrame(
        rows,
        schema=[
            "key",
            "signal_count",
            "recent_mentions",
            "recent_total",
            "prior_mentions",
            "prior_total",
        ],
        orient="row",
    )


def test_top_movers_ranks_the_change_in_share_of_voice_among_keys_with_enough_signals() -> None:
    metrics = trend_rows(
        # recent share 50 %, prior 10 %: +40 points
        ("ent:/up", 20, 10, 20, 4, 40),
        ("ent:/a-little-up", 9, 3, 20, 4, 40),  # 15 % against 10 %: +5
        ("ent:/down", 30, 2, 20, 20, 40),  # 10 % against 50 %: -40
        ("ent:/flat", 12, 2, 20, 4, 40),  # 10 % both: left out
        ("ent:/few", 7, 10, 20, 0, 40),  # +50, but under 8 signals
        ("ent:/new", 8, 4, 20, 0, 0),  # no prior weeks: 20 % against 0
    )
    movers = top_movers(metrics, names={"ent:/up": "Up Corp"})
    assert movers[MOVER].to_list() == ["Up Corp", "ent:/new", "ent:/a-little-up", "ent:/down"]
    assert [round(c, 6) for c in movers[CHANGE]] == [40.0, 20.0, 5.0, -40.0]
    assert top_movers(metrics, count=1)["key"].to_list() == ["ent:/up", "ent:/down"]
    assert top_movers(metrics.clear()).is_empty()


def test_movers_and_weekly_lines_plots_are_embedded_pngs() -> None:
    movers = top_movers(trend_rows(("a", 9, 10, 20, 4, 40), ("b", 9, 1, 20, 20, 40)))
    width, height = png_of(movers_plot(movers, title="top movers"), "top movers")
    assert width == 640 and 60 < height < 200  # grows with the number of bars
    assert movers_plot(movers.clear()).startswith("_no key")
    weeks = [
        datetime(2026, 8, 3, tzinfo=UTC) + (datetime(2026, 8, 10) - datetime(2026, 8, 3)) * i
        for i in range(12)
    ]
    weekly = pl.DataFrame(
        {
            "key": ["Data"] * 12 + ["Regulatory & Legal"] * 12,
            "week_start": weeks * 2,
            "count": list(range(12)) + [5] * 8 + [18] * 4,
        }
    )
    panels = {"value_chain": ("Data",), "market_force": ("Regulatory & Legal",)}
    markdown = weekly_lines_plot(weekly, panels=panels, title="signals per theme")
    assert png_of(markdown, "signals per theme") == (880, 256)
    assert len(markdown) < 120_000
    assert weekly_lines_plot(weekly.clear(), panels=panels, title="x").startswith("_no rows")


def test_native_tables_keep_numbers_and_show_the_rest_as_text() -> None:
    frame = pl.DataFrame(
        {
            "label": ["a", None],
            "signals": [3, None],
            "share": [0.5, 0.25],
            "week": [datetime(2026, 5, 4, tzinfo=UTC), None],
            "tags": [["x", "y"], []],
        }
    )
    table = native_table(frame, max_rows=1)
    assert isinstance(table, dg.TableMetadataValue)
    assert [record.data for record in table.records] == [
        {
            "label": "a",
            "signals": 3,
            "share": 0.5,
            "week": "2026-05-04 00:00:00+00:00",
            "tags": "['x', 'y']",
        }
    ]
    assert [(c.name, c.type) for c in table.schema.columns] == [
        (name, str(dtype)) for name, dtype in frame.schema.items()
    ]
    assert column_schema(frame.schema) == table.schema
