"""Materialization metadata helpers: small frames as Markdown tables for the Dagster UI."""

from __future__ import annotations

import polars as pl


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
