"""Materialization metadata helpers: small frames as Markdown tables, and the weekly-volume bar
chart as a Markdown image (an embedded PNG), for the Dagster UI."""

from __future__ import annotations

import base64
import io
from datetime import datetime

import polars as pl

WEEK = "week"
COUNT = "signals"


def markdown_table(frame: pl.DataFrame, *, max_rows: int = 20) -> str:
    """A Markdown table of the first ``max_rows`` rows; long cell values are shortened."""
    shown = frame.head(max_rows)
    head = "| " + " | ".join(shown.columns) + " |\n|" + "---|" * shown.width + "\n"
    rows = "".join("| " + " | ".join(_cell(v) for v in row) + " |\n" for row in shown.iter_rows())
    more = f"\n_{frame.height - max_rows} more rows_\n" if frame.height > max_rows else ""
    return head + rows + more


def _cell(value: object) -> str:
    text = str(value).replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= 120 else text[:117] + "..."


def weekly_volume(published_at: pl.Series, *, weeks: int = 52) -> pl.DataFrame:
    """Rows per week (``week``: the Monday 00:00 UTC starting it; ``signals``: the count) over
    the last ``weeks`` weeks up to the latest timestamp, empty weeks included as zeros."""
    weekly = (
        published_at.drop_nulls()
        .dt.truncate("1w")
        .alias(WEEK)
        .to_frame()
        .group_by(WEEK)
        .len(COUNT)
        .sort(WEEK)
    )
    if weekly.is_empty():
        return weekly
    return weekly.upsample(WEEK, every="1w").with_columns(pl.col(COUNT).fill_null(0)).tail(weeks)


def weekly_volume_plot(weekly: pl.DataFrame, *, title: str = "signals per week") -> str:
    """A bar chart of a ``weekly_volume`` frame as Markdown: an image whose source is a base64
    PNG data URI, which the Dagster UI shows inline with the rest of the metadata."""
    if weekly.is_empty():
        return "_no rows yet: nothing to plot_"
    # Imported here: the Agg canvas needs no display and no pyplot state, and only the asset
    # that plots pays for matplotlib's import. One filled step patch, plain week indices and a
    # fixed layout keep a render well under the cost of a bar per week with date tickers.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    weeks: list[datetime] = weekly[WEEK].to_list()
    figure = Figure(figsize=(8, 2.5), dpi=80)
    FigureCanvasAgg(figure)
    figure.subplots_adjust(left=0.07, right=0.99, bottom=0.14, top=0.88)
    axes = figure.add_subplot()
    axes.stairs(weekly[COUNT].to_list(), range(len(weeks) + 1), fill=True, color="#4c72b0")
    step = max(1, len(weeks) // 8)
    ticks = list(range(0, len(weeks), step))
    axes.set_xticks(ticks, [f"{weeks[i]:%Y-%m-%d}" for i in ticks], fontsize=8)
    axes.set_xlim(0, len(weeks))
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.tick_params(axis="y", labelsize=8)
    axes.set_title(f"{title} (weeks from Monday, UTC)", fontsize=10)
    axes.spines[["top", "right"]].set_visible(False)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    encoded = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f"![{title}](data:image/png;base64,{encoded})"
