"""Where a cold build's time goes, by asset: ingest files into a fresh data dir, run the whole
build in-process (``pipelines.build.build_run``, the instance kept in the data dir) and print a
Markdown table of each step's wall seconds from Dagster's step stats (a multi-asset is one step),
and CPU seconds (this process, every thread, sampled every 0.1 s and read off between the
step's start and end: the steps run one after another in this process), beside the build's total
wall and CPU seconds (a build's MiniLM passes run in it).

Usage: .venv/bin/python -m bench.build.speed.profile --data-dir /tmp/aimi-profile \\
    --as-of 2026-01-01 ../shared/data/ainews/ainews-2024.jsonl [--json F]
       .venv/bin/python -m bench.build.speed.profile --data-dir /tmp/aimi-demo --demo [--json F]

``--demo`` writes the generated demo corpus into the inbox instead (what ``aimi demo-data``
writes) and builds it at the demo's clock (``--as-of`` defaults to it), as the test suite's
background demo build does.

``--data-dir`` must not exist yet (the build is cold: no cached themes, units or embeddings).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("paths", nargs="*", type=Path, help="JSONL files to ingest")
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--as-of", help="the build clock, e.g. 2026-01-01")
    parser.add_argument("--demo", action="store_true", help="build the generated demo corpus")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    if args.data_dir.exists():
        raise SystemExit(f"{args.data_dir} exists: a cold build needs a fresh data dir")
    if args.demo == bool(args.paths):
        raise SystemExit("give JSONL files to ingest, or --demo")
    if args.as_of is None and not args.demo:
        raise SystemExit("--as-of is required with JSONL files")

    from pipelines.build import build_run, dagster_instance
    from warehouse.ingest import ingest_paths
    from warehouse.paths import DataDir

    data = DataDir(args.data_dir)
    started, cpu = time.perf_counter(), time.process_time()
    if args.demo:
        from demo import DEMO_AS_OF, generate_demo_corpus
        from demo.files import write_demo_corpus

        write_demo_corpus(generate_demo_corpus(), data.inbox / "demo")
        as_of = DEMO_AS_OF if args.as_of is None else _as_of(args.as_of)
        names = "the demo corpus"
    else:
        ingest_paths(data, args.paths)
        as_of = _as_of(args.as_of)
        names = ", ".join(p.name for p in args.paths)
    ingested = time.perf_counter() - started, time.process_time() - cpu
    samples: list[tuple[float, float]] = []
    done = threading.Event()

    def sample() -> None:
        # (epoch seconds, this process's CPU seconds), so each step's CPU is read off between
        # its start and end (steps run one after another in this process)
        while not done.is_set():
            samples.append((time.time(), time.process_time()))
            done.wait(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started, cpu = time.perf_counter(), time.process_time()
    run = build_run(data, as_of=as_of)
    built = time.perf_counter() - started, time.process_time() - cpu
    done.set()
    sampler.join()
    samples.append((time.time(), time.process_time()))
    at = [t for t, _ in samples]
    used = [c for _, c in samples]

    def cpu_between(start: float, end: float) -> float:
        return float(np.interp(end, at, used) - np.interp(start, at, used))

    with dagster_instance(data, persistent=True) as instance:
        stats = instance.get_run_step_stats(run.result.run_id)
    steps = sorted(
        (
            (
                s.step_key,
                (s.end_time or 0.0) - (s.start_time or 0.0),
                cpu_between(s.start_time or 0.0, s.end_time or 0.0),
            )
            for s in stats
        ),
        key=lambda item: -item[1],
    )
    load = os.getloadavg()
    print(f"\n### Cold build by asset: {names}\n")
    print(f"- as_of {as_of.isoformat()}; load average at the end {load[0]:.1f} / {load[1]:.1f}")
    print(f"- ingest (demo: writing the corpus): {ingested[0]:.1f} s wall, {ingested[1]:.1f} s CPU")
    print(f"- build: **{built[0]:.1f} s wall**, {built[1]:.1f} s CPU (this process)\n")
    print("| step (asset or multi-asset) | wall (s) | CPU (s) | share of the steps' wall |")
    print("|---|---:|---:|---:|")
    total = sum(seconds for _, seconds, _ in steps) or 1.0
    for key, seconds, cpu_s in steps:
        print(f"| `{key}` | {seconds:.1f} | {cpu_s:.1f} | {100 * seconds / total:.1f}% |")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "paths": [str(p) for p in args.paths],
                    "as_of": as_of.isoformat(),
                    "ingest": ingested,
                    "build": built,
                    "steps": steps,
                },
                indent=1,
            )
        )
    sys.stdout.flush()


def _as_of(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


if __name__ == "__main__":
    main()
