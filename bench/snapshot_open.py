"""How long verifying a snapshot takes on open: SHA-256 (``thorough``, what a rollback does, and
what every open did before issue 19) against XXH3-128 (what a server does on every open and hot
swap), with the files in the page cache and, with ``--cold``, after dropping it (root only).

Usage: .venv/bin/python bench/snapshot_open.py SNAPSHOT_DIR [--repeat 3] [--cold]

A snapshot written before issue 19 has no XXH3 in its manifest: it is measured through a
temporary folder of symbolic links to its files beside a manifest with XXH3 added, so the
snapshot itself is never changed. Prints one Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from warehouse.files import file_xxh3  # noqa: E402
from warehouse.snapshot import MANIFEST, open_snapshot  # noqa: E402


def with_xxh3(folder: Path, scratch: Path) -> Path:
    """``folder`` itself when its manifest has XXH3 checksums, else a folder of links to its
    files with a manifest that has them."""
    raw = json.loads((folder / MANIFEST).read_text())
    entries = [*raw["tables"].values(), *raw.get("files", {}).values()]
    if all(entry.get("xxh3") for entry in entries):
        return folder
    linked = scratch / folder.name
    for path in folder.rglob("*"):
        target = linked / path.relative_to(folder)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif path.name != MANIFEST:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(path)
    for entry in raw["tables"].values():
        entry["xxh3"] = file_xxh3(folder / entry["file"])
    for name, entry in raw.get("files", {}).items():
        entry["xxh3"] = file_xxh3(folder / name)
    (linked / MANIFEST).write_text(json.dumps(raw))
    return linked


def drop_caches() -> None:
    subprocess.run(["sync"], check=True)
    Path("/proc/sys/vm/drop_caches").write_text("3\n")


def timed(folder: Path, *, thorough: bool, cold: bool) -> float:
    if cold:
        drop_caches()
    started = time.perf_counter()
    open_snapshot(folder, verify=True, thorough=thorough)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cold", action="store_true", help="also with the page cache dropped")
    args = parser.parse_args()
    folder: Path = args.snapshot.resolve()
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    scratch = Path(tempfile.mkdtemp(prefix="aimi-open-"))
    try:
        measured = with_xxh3(folder, scratch)
        manifest = open_snapshot(measured, verify=False).manifest
        units = manifest.tables.get("search_units")
        open_snapshot(measured, verify=True)  # warm the page cache
        print(
            f"{platform.machine()}, {os.cpu_count()} cpus, python {platform.python_version()}; "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {folder.name}: "
            f"{size / 1e9:.2f} GB, {units.rows if units else '?'} search units; "
            f"medians of {args.repeat}\n"
        )
        print("| checksum | page cache | open, s |")
        print("|---|---|---:|")
        for cold in (False, True) if args.cold else (False,):
            for label, thorough in (("SHA-256 (thorough)", True), ("XXH3-128 (fast)", False)):
                seconds = [
                    timed(measured, thorough=thorough, cold=cold) for _ in range(args.repeat)
                ]
                state = "dropped" if cold else "warm"
                print(f"| {label} | {state} | {statistics.median(seconds):.2f} |")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
