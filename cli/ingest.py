"""``aimi ingest PATH…``: read source files into the warehouse, quarantining bad records."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated

import typer

from cli.common import DataDirOption, data_dir_of, echo
from warehouse.paths import DataDir


def ingest(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Files or folders of: JSON Lines (.jsonl, .ndjson), Markdown (.md, .markdown), "
            "web pages (.html, .htm), RSS or Atom feeds (.xml, .rss, .atom), PDF (.pdf), "
            "transcripts (.vtt, .srt)."
        ),
    ] = None,
    warc: Annotated[
        list[Path] | None,
        typer.Option(
            "--warc",
            help="A fetch archive (a .warc.gz file or a folder of them, e.g. "
            "`<data dir>/fetch/archive`): the fetched items are written into the inbox again "
            "and ingested, with no network. Repeatable.",
        ),
    ] = None,
    data_dir: DataDirOption = None,
) -> None:
    """Read source files into the warehouse; bad records are quarantined, the rest goes on.

    Exit status: 0 all ingested, 3 some quarantined, 1 none could be ingested, 2 nothing given
    or an archive that cannot be read.
    """
    from warehouse.ingest import ingest_paths

    data = data_dir_of(data_dir)
    paths = list(paths or [])
    for archive in warc or []:
        paths += _replayed(data, archive)
    if not paths:
        echo("error: give files or folders to ingest, or --warc ARCHIVE", err=True)
        raise typer.Exit(2)
    # pypdf logs every oddity of a damaged PDF; the quarantine report already says what failed
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    report = ingest_paths(data, paths)
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


def _replayed(data: DataDir, archive: Path) -> list[Path]:
    from fetch.run import replay_archive

    if not archive.exists():
        echo(f"error: --warc {archive}: no such file or folder", err=True)
        raise typer.Exit(2)
    try:
        files, missing = replay_archive(data, archive)
    except (OSError, ValueError, KeyError) as exc:
        echo(f"error: --warc {archive} cannot be read: {exc}", err=True)
        raise typer.Exit(2) from None
    echo(f"{archive}: {len(files)} archived item(s) written to the inbox")
    if missing:
        echo(f"  {missing} item(s) whose response is not in the archive were skipped", err=True)
    return files
