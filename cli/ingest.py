"""``aimi ingest PATH…``: read source files into the warehouse, quarantining bad records."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated

import typer

from cli.common import DataDirOption, data_dir_of, echo


def ingest(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Files or folders of: JSON Lines (.jsonl, .ndjson), Markdown (.md, .markdown), "
            "web pages (.html, .htm), RSS or Atom feeds (.xml, .rss, .atom), PDF (.pdf), "
            "transcripts (.vtt, .srt)."
        ),
    ],
    data_dir: DataDirOption = None,
) -> None:
    """Read source files into the warehouse; bad records are quarantined, the rest goes on.

    Exit status: 0 all ingested, 3 some quarantined, 1 none could be ingested.
    """
    from warehouse.ingest import ingest_paths

    # pypdf logs every oddity of a damaged PDF; the quarantine report already says what failed
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    report = ingest_paths(data_dir_of(data_dir), paths)
    echo(report.summary())
    if report.quarantined:
        echo(f"quarantined {len(report.quarantined)}:", err=True)
        for item in report.quarantined[:25]:
            where = f"{item.file}:{item.line}" if item.line else item.file
            field = f" [{item.field}]" if item.field else ""
            echo(f"  {where}{field} {item.reason}", err=True)
        if len(report.quarantined) > 25:
            echo(f"  ... {len(report.quarantined) - 25} more", err=True)
        echo("  (all of them: the `quarantine` table in the catalog)", err=True)
        raise typer.Exit(1 if report.accepted == 0 else 3)
