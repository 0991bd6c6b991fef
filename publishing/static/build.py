"""Write a snapshot's static half into its folder: the JSON tree, the site's pages and style
sheet, and the Pagefind index over the pages (docs/design.md §10), reusing what did not change since
the previous snapshot."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from publishing.export import (
    EXPORT_DIR,
    FORMATS,
    INDEX_FILE,
    README_FILE,
    ExportSource,
    export_files,
    index_body,
    readme,
)
from publishing.static.reuse import PreviousSite, SiteWriter
from publishing.static.site import render_site
from publishing.static.tree import write_tree
from readmodel.store import LoadedSnapshot
from warehouse.snapshot import SITE_DIR, open_snapshot


class StaticSiteError(RuntimeError):
    """The static site could not be written; the message says why."""


@dataclass(frozen=True)
class StaticReport:
    """What was written: HTML pages, JSON files, every file under ``site/`` and their bytes,
    the seconds each part took, and what the previous snapshot's site spared: the pages
    rendered (the others were linked), the files linked from it and whether its Pagefind
    index was linked instead of built."""

    pages: int
    json_files: int
    feeds: int
    feeds_seconds: float
    export_files: int
    export_bytes: int
    export_seconds: float
    files: int
    bytes: int
    seconds: float
    pagefind_seconds: float
    rendered_pages: int
    linked_files: int
    pagefind_reused: bool
    previous: str | None

    def to_json(self) -> dict[str, float | int | bool | str | None]:
        return asdict(self)


def write_static(folder: Path, previous: Path | None = None) -> StaticReport:
    """Write ``<folder>/site/`` for the snapshot in ``folder``; refuses a folder that has one
    (a snapshot's files are written once).

    ``previous`` is the snapshot published before (its folder): each file whose bytes would
    be the same is hard-linked from its site, each page whose inputs are the same is not
    rendered again, and its Pagefind index is linked when every indexed page is unchanged
    (``publishing.static.reuse``). The result is byte for byte what a full render writes.
    """
    started = time.perf_counter()
    site = folder / SITE_DIR
    if site.exists():
        raise StaticSiteError(f"{site} exists already; a snapshot's site is written once")
    opened = open_snapshot(folder, verify=True)
    snapshot = LoadedSnapshot.from_opened(opened)
    reused = PreviousSite.load(previous) if previous is not None else None
    site.mkdir()
    writer = SiteWriter(site, reused)
    json_files = write_tree(snapshot, writer)
    rendered = render_site(snapshot, opened, writer)
    exported = time.perf_counter()
    export_count, export_bytes = write_export(ExportSource(snapshot, opened), writer)
    indexed = time.perf_counter()
    pagefind_key = writer.pagefind_key()
    pagefind_reused = writer.link_pagefind(pagefind_key)
    if not pagefind_reused:
        run_pagefind(site)
    writer.record(folder, pagefind_key)
    done = time.perf_counter()
    sizes = [
        os.stat(os.path.join(folder, name)).st_size
        for folder, _, names in os.walk(site)
        for name in names
    ]
    return StaticReport(
        pages=rendered.pages,
        json_files=json_files,
        feeds=rendered.feeds,
        feeds_seconds=rendered.feeds_seconds,
        export_files=export_count,
        export_bytes=export_bytes,
        export_seconds=round(indexed - exported, 2),
        files=len(sizes),
        bytes=sum(sizes),
        seconds=round(done - started, 2),
        pagefind_seconds=round(done - indexed, 2),
        rendered_pages=writer.rendered,
        linked_files=writer.linked,
        pagefind_reused=pagefind_reused,
        previous=reused.root.parent.name if reused is not None else None,
    )


def write_export(source: ExportSource, writer: SiteWriter) -> tuple[int, int]:
    """``export/``: every served table in every format, its README and ``index.json`` (each
    file's rows, bytes and SHA-256), through ``writer`` (a table whose bytes did not change is
    linked). Returns how many table files there are and their bytes."""
    files = []
    for item in export_files(source, FORMATS):
        writer.put(f"{EXPORT_DIR}/{item.name}", item.body)
        files.append(item)
    writer.put(f"{EXPORT_DIR}/{README_FILE}", readme())
    writer.put(f"{EXPORT_DIR}/{INDEX_FILE}", index_body(source, files))
    return len(files), sum(len(item.body) for item in files)


def run_pagefind(site: Path) -> None:
    """Index the pages marked ``data-pagefind-body`` into ``site/pagefind/`` with the Pagefind
    binary the ``pagefind[bin]`` package ships."""
    done = subprocess.run(
        [sys.executable, "-m", "pagefind", "--site", str(site), "--silent"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0 or not (site / "pagefind" / "pagefind-ui.js").is_file():
        detail = (done.stderr or done.stdout).strip()[-500:]
        raise StaticSiteError(f"pagefind failed on {site} (exit {done.returncode}): {detail}")
