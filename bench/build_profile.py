"""Where a cold build's time goes, by asset: ingest files into a fresh data dir, run the whole
build in-process (``pipelines.build.build_run``, the instance kept in the data dir) and print a
Markdown table of each step's wall seconds from Dagster's step stats (a multi-asset is one step),
beside the build's total wall and CPU seconds (this process, every thread; a build's MiniLM
passes run in it).

Usage: .venv/bin/python bench/build_profile.py --data-dir /tmp/aimi-profile --as-of 2026-01-01 \\
    ../shared/data/ainews/ainews-2024.jsonl [--json F]

``--data-dir`` must not exist yet (the build is cold: no cached themes, units or embeddings).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("paths", nargs="+", type=Path, help="JSONL files to ingest")
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--as-of", required=True, help="the build clock, e.g. 2026-01-01")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    if args.data_dir.exists():
        raise SystemExit(f"{args.data_dir} exists: a cold build needs a fresh data dir")

    from pipelines.build import build_run, dagster_instance
    from warehouse.ingest import ingest_paths
    from warehouse.paths import DataDir

    data = DataDir(args.data_dir)
    started, cpu = time.perf_counter(), time.process_time()
    ingest_paths(data, args.paths)
    ingested = time.perf_counter() - started, time.process_time() - cpu
    as_of = datetime.fromisoformat(args.as_of).replace(tzinfo=UTC)
    started, cpu = time.perf_counter(), time.process_time()
    run = build_run(data, as_of=as_of)
    built = time.perf_counter() - started, time.process_time() - cpu

    with dagster_instance(data, persistent=True) as instance:
        stats = instance.get_run_step_stats(run.result.run_id)
    steps = sorted(
        ((s.step_key, (s.end_time or 0.0) - (s.start_time or 0.0)) for s in stats),
        key=lambda item: -item[1],
    )
    load = os.getloadavg()
    print(f"\n### Cold build by asset: {', '.join(p.name for p in args.paths)}\n")
    print(f"- as_of {args.as_of}; load average at the end {load[0]:.1f} / {load[1]:.1f}")
    print(f"- ingest: {ingested[0]:.1f} s wall, {ingested[1]:.1f} s CPU")
    print(f"- build: **{built[0]:.1f} s wall**, {built[1]:.1f} s CPU (this process)\n")
    print("| step (asset or multi-asset) | wall (s) | share of the steps |")
    print("|---|---:|---:|")
    total = sum(seconds for _, seconds in steps) or 1.0
    for key, seconds in steps:
        print(f"| `{key}` | {seconds:.1f} | {100 * seconds / total:.1f}% |")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "paths": [str(p) for p in args.paths],
                    "as_of": args.as_of,
                    "ingest": ingested,
                    "build": built,
                    "steps": steps,
                },
                indent=1,
            )
        )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
