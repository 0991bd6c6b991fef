"""Write a snapshot's static half into its folder: the JSON tree, the site's pages and style
sheet, and the Pagefind index over the pages (DESIGN §10)."""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from serving.static.paths import SITE_DIR
from serving.static.site import render_site
from serving.static.tree import write_tree
from serving.store import LoadedSnapshot
from warehouse.snapshot import open_snapshot


class StaticSiteError(RuntimeError):
    """The static site could not be written; the message says why."""


@dataclass(frozen=True)
class StaticReport:
    """What was written: HTML pages, JSON files, every file under ``site/`` and their bytes,
    and the seconds each part took."""

    pages: int
    json_files: int
    files: int
    bytes: int
    seconds: float
    pagefind_seconds: float

    def to_json(self) -> dict[str, float | int]:
        return asdict(self)


def write_static(folder: Path) -> StaticReport:
    """Write ``<folder>/site/`` for the snapshot in ``folder``; refuses a folder that has one
    (a snapshot's files are written once)."""
    started = time.perf_counter()
    site = folder / SITE_DIR
    if site.exists():
        raise StaticSiteError(f"{site} exists already; a snapshot's site is written once")
    opened = open_snapshot(folder, verify=True)
    snapshot = LoadedSnapshot.from_opened(opened)
    site.mkdir()
    tree = write_tree(snapshot, site)
    rendered = render_site(snapshot, opened, site)
    indexed = time.perf_counter()
    run_pagefind(site)
    done = time.perf_counter()
    files = [path for path in site.rglob("*") if path.is_file()]
    return StaticReport(
        pages=rendered.pages,
        json_files=tree.files,
        files=len(files),
        bytes=sum(path.stat().st_size for path in files),
        seconds=round(done - started, 2),
        pagefind_seconds=round(done - indexed, 2),
    )


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
