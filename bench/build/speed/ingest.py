"""Ingest throughput: records/s of `ingest_paths` on a JSONL file, cold and re-ingest.

Usage: .venv/bin/python -m bench.build.speed.ingest ../shared/data/ainews/ainews-2025.jsonl
Each run uses a fresh temporary data dir; the input is read in place, never copied.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import tempfile
import time
from pathlib import Path

from warehouse.ingest import ingest_paths
from warehouse.paths import DataDir


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    cold: list[float] = []
    warm: list[float] = []
    records = 0
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            data = DataDir(Path(tmp))
            started = time.perf_counter()
            report = ingest_paths(data, [args.path], progress=False)
            cold.append(time.perf_counter() - started)
            records = report.records
            started = time.perf_counter()
            again = ingest_paths(data, [args.path], progress=False)
            warm.append(time.perf_counter() - started)
            assert again.inserted == 0 and again.updated == 0, "re-ingest must change nothing"
    print(
        f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}"
    )
    print(f"file: {args.path.name}, {records:,} records, {args.repeat} runs")
    print(
        f"first ingest: median {statistics.median(cold):.2f}s = "
        f"{records / statistics.median(cold):,.0f} records/s"
    )
    print(
        f"re-ingest (all unchanged): median {statistics.median(warm):.2f}s = "
        f"{records / statistics.median(warm):,.0f} records/s"
    )


if __name__ == "__main__":
    main()
