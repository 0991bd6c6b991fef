"""The source legs' cost in the race, interleaved: on a ``run.py prepare``d size, the race's
function (``engines.FAIR_LEGS``) and the same with the source legs (``engines.SOURCE_LEGS``) on
one opened snapshot, query by query in turn (the order alternating), so that a busy machine's
swings fall on both alike. Per filter set: p50 of each, the paired per-query difference's
median, and how often the source legs spoke (lifted any unit). ``--lance CONFIG`` (a config
``run.py lance-build`` built) puts LanceDB's hybrid search in the same turns, a third engine.

Usage: .venv/bin/python -m bench.search.speed.ab_sources --work /tmp/aimi-search-bench --size 100000
       [--lance ivf_flat-np24]   (with PYTHONPATH=/tmp/lancedb-pkgs)
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path
from typing import Any

from threadpoolctl import threadpool_limits

from bench.search.speed.engines import FAIR_LEGS, LANCE_CONFIGS, SOURCE_LEGS, Lance, Ours, lance_dir
from bench.search.speed.run import _queries, _size_dir, _snapshot_dir, _specs
from retrieval.engine import SearchIndex
from warehouse.snapshot import open_snapshot


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--work", type=Path, default=Path("/tmp/aimi-search-bench"))
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--lance", help="a LanceDB config to interleave too")
    args = parser.parse_args()
    threadpool_limits(limits=1)  # as `aimi serve` and run.py's ours
    texts, vectors = _queries(args.work)
    opened = open_snapshot(_snapshot_dir(args.work, args.size))
    index = SearchIndex(opened, opened.manifest.as_of)
    engines: dict[str, Any] = {
        "fair": Ours(index, legs=FAIR_LEGS),
        "sources": Ours(index, legs=SOURCE_LEGS),
    }
    if args.lance:
        config = LANCE_CONFIGS[args.lance]
        engines["lance"] = Lance(_size_dir(args.work, args.size) / lance_dir(config), config)
    names = list(engines)
    print(f"load {os.getloadavg()[0]:.2f}, CPU {time.process_time():.1f} s")
    print(
        "| filter | p50 without | p50 with source legs | paired difference, median ms "
        "| legs spoke (title, passage or verbatim) |"
        + (f" LanceDB {args.lance} p50 | with ÷ LanceDB |" if args.lance else "")
    )
    print("|---|---|---|---|---|" + ("---|---|" if args.lance else ""))
    pooled: dict[str, list[float]] = {name: [] for name in names}
    cpu = dict.fromkeys(names, 0.0)
    for spec in _specs(args.work, args.size):
        prepared = {name: engine.prepare(spec) for name, engine in engines.items()}
        mask = index.mask(prepared["fair"])
        spoke = sum(
            bool(sum(map(len, index.contained_legs(text, mask))) or index.verbatim_leg(text, mask))
            for text in texts
        )
        ms: dict[str, list[float]] = {name: [] for name in names}
        for i, text in enumerate(texts):
            order = names if i % 2 == 0 else names[::-1]
            for name in order:
                started, began = time.perf_counter(), time.process_time()
                engines[name].search(text, vectors[i], prepared[name])
                ms[name].append((time.perf_counter() - started) * 1000)
                cpu[name] += time.process_time() - began
        diffs = [b - a for a, b in zip(ms["fair"], ms["sources"], strict=True)]
        with_legs = statistics.median(ms["sources"])
        lance = (
            f" {statistics.median(ms['lance']):.2f} | "
            f"{with_legs / statistics.median(ms['lance']):.2f} |"
            if args.lance
            else ""
        )
        print(
            f"| {spec.name} | {statistics.median(ms['fair']):.2f} "
            f"| {with_legs:.2f} | {statistics.median(diffs):+.2f} "
            f"| {spoke} of {len(texts)} |{lance}",
            flush=True,
        )
        for name in pooled:
            pooled[name].extend(ms[name])
    a, b = statistics.median(pooled["fair"]), statistics.median(pooled["sources"])
    print(
        f"\nall sets: p50 {a:.2f} → {b:.2f} ms ({b / a:.2f}×); CPU {cpu['fair']:.1f} → "
        f"{cpu['sources']:.1f} s ({cpu['sources'] / cpu['fair']:.2f}×); load "
        f"{os.getloadavg()[0]:.2f}"
    )
    if args.lance:
        c = statistics.median(pooled["lance"])
        print(
            f"LanceDB {args.lance}: p50 {c:.2f} ms over all sets; with source legs ÷ LanceDB "
            f"{b / c:.2f}×, without {a / c:.2f}×; LanceDB's CPU {cpu['lance']:.1f} s (its "
            "thread pool: both cores)"
        )


if __name__ == "__main__":
    main()
