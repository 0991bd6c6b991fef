"""How long publishing the static half takes: a full render against the incremental build, with
no data change and with a small one, interleaved round by round.

Usage:
    .venv/bin/python -m bench.publishing.speed.site DATA_DIR [--rounds 3]

DATA_DIR is a built data dir (a copy: each round publishes three new snapshots into it, and
pruning keeps five). Each round stages three copies of the current snapshot's tables and
search files, as the ``snapshot`` asset stages one, and times publishing each as the
``static_site`` asset does (``pipelines.publishing.publish_staged``: writing the site,
sealing it into the manifest, switching ``CURRENT``, pruning, the catalog):

- ``full``: no previous site, every page rendered and Pagefind run (what every build did
  before incremental publishing);
- ``unchanged``: the same data again, over the snapshot just published;
- ``changed``: one entity's profile and one signal's detail edited (a different pair each
  round), over the snapshot just published.

Prints a Markdown table for docs/benchmarks.md: the whole publish (what the asset's ``seconds``
metadata records), its CPU seconds (this process and the child with Pagefind: the work itself,
which a busy machine does not inflate as it does wall time), the child's own timing (without
its interpreter start), Pagefind's, the pages rendered and the files linked.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import sys
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import polars as pl

from pipelines.publishing import publish_staged, write_static_site
from warehouse.locks import publish_lock
from warehouse.paths import DataDir
from warehouse.snapshot import (
    OpenedSnapshot,
    add_files,
    open_current,
    stage_snapshot,
    static_file,  # noqa: E402
    switch_current,
)
from warehouse.tables import refresh_catalog

NOTE = "Edited by bench/publishing/speed/site.py"


def edited(tables: dict[str, pl.DataFrame], round_no: int) -> dict[str, pl.DataFrame]:
    """One reviewed entity's profile and one signal's detail changed (the ``round_no``-th)."""
    profiles = tables["entity_profiles"].filter("reviewed")
    entity_id = profiles["entity_id"][round_no % profiles.height]
    signal_id = tables["signals"]["signal_id"][round_no % tables["signals"].height]

    def changed(raw: bytes, field: str) -> bytes:
        body = orjson.loads(raw)
        body[field] = f"{NOTE} at {time.time_ns()}"  # never the text of an earlier run
        return orjson.dumps(body)

    entity, signal = pl.col("entity_id") == entity_id, pl.col("signal_id") == signal_id
    return {
        **tables,
        "entity_profiles": tables["entity_profiles"].with_columns(
            profile_json=pl.when(entity)
            .then(
                pl.col("profile_json").map_elements(
                    lambda raw: changed(raw, "notability_reasoning"), return_dtype=pl.Binary
                )
            )
            .otherwise(pl.col("profile_json"))
        ),
        "signals": tables["signals"].with_columns(
            detail_json=pl.when(signal)
            .then(
                pl.col("detail_json").map_elements(
                    lambda raw: changed(raw, "title"), return_dtype=pl.Binary
                )
            )
            .otherwise(pl.col("detail_json"))
        ),
    }


def stage(data: DataDir, source: OpenedSnapshot, tables: dict[str, pl.DataFrame]) -> OpenedSnapshot:
    def copy_files(folder: Path) -> Mapping[str, Any]:
        for name in source.manifest.files:
            if not static_file(name):
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source.path / name, folder / name)
        return {}

    metadata = {k: v for k, v in source.manifest.metadata.items() if k != "static_site"}
    return stage_snapshot(
        data,
        tables,
        as_of=source.manifest.as_of,
        built_at=datetime.now(UTC),
        metadata=metadata,
        write_files=copy_files,
    )


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the site's interpreter and
    the Pagefind binary it runs): the work, whatever else shares the cores."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def publish_full(data: DataDir, staged: OpenedSnapshot) -> OpenedSnapshot:
    """``publish_staged`` without a previous site."""
    with publish_lock(data):
        opened = add_files(data, staged, write_static_site)
        switch_current(data, opened)
        refresh_catalog(data)
    return opened


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    data = DataDir(args.data_dir.resolve())
    rows: dict[str, list[dict[str, Any]]] = {"full": [], "unchanged": [], "changed": []}
    loads: list[float] = []
    for round_no in range(args.rounds):
        for mode in rows:
            current = open_current(data, verify=False)
            assert current is not None, f"{data.root} has no current snapshot"
            tables = {name: current.read_table(name) for name in current.manifest.tables}
            if mode == "changed":
                tables = edited(tables, round_no)
            staged = stage(data, current, tables)
            loads.append(os.getloadavg()[0])
            before = _cpu()
            started = time.perf_counter()
            published = (publish_full if mode == "full" else publish_staged)(data, staged)
            seconds = time.perf_counter() - started
            cpu = _cpu() - before
            report = published.manifest.metadata["static_site"]
            rows[mode].append({**report, "total": seconds, "cpu": cpu})
            print(
                f"round {round_no + 1} {mode}: {seconds:.1f} s "
                f"(child {report['seconds']} s, rendered {report['rendered_pages']}, "
                f"linked {report['linked_files']}, CPU {cpu:.1f} s, load {loads[-1]:.1f})",
                file=sys.stderr,
            )
    first = rows["full"][0]
    print(
        f"{platform.machine()}, {os.cpu_count()} cpus, python {platform.python_version()}; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {first['pages']:,} pages, "
        f"{first['json_files']:,} JSON files, {first['files']:,} files; {args.rounds} rounds, "
        f"1-minute load average {min(loads):.1f}–{max(loads):.1f} at the start of the runs\n"
    )
    print(
        "| build | publish (asset), s: median (runs) | CPU, s | child, s | Pagefind, s "
        "| pages rendered | files linked |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    for mode, runs in rows.items():
        seconds = [run["total"] for run in runs]
        listed = ", ".join(f"{s:.1f}" for s in seconds)
        print(
            f"| {mode} | {statistics.median(seconds):.1f} ({listed}) "
            f"| {statistics.median(run['cpu'] for run in runs):.1f} "
            f"| {statistics.median(run['seconds'] for run in runs):.1f} "
            f"| {statistics.median(run['pagefind_seconds'] for run in runs):.1f} "
            f"| {runs[-1]['rendered_pages']:,} | {runs[-1]['linked_files']:,} |"
        )


if __name__ == "__main__":
    main()
