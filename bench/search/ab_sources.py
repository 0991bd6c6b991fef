"""The source legs' cost in the race, interleaved: on a ``run.py prepare``d size, the race's
function (``engines.FAIR_LEGS``) and the same with the source legs (``engines.SOURCE_LEGS``) on
one opened snapshot, query by query in turn (the order alternating), so that a busy machine's
swings fall on both alike. Per filter set: p50 of each, the paired per-query difference's
median, and how often the source legs spoke (lifted any unit).

Usage: .venv/bin/python bench/search/ab_sources.py --work /tmp/aimi-search-bench --size 100000
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from engines import FAIR_LEGS, SOURCE_LEGS, Ours
from run import _queries, _snapshot_dir, _specs
from threadpoolctl import threadpool_limits

from serving.search import SearchIndex
from warehouse.snapshot import open_snapshot


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--work", type=Path, default=Path("/tmp/aimi-search-bench"))
    parser.add_argument("--size", type=int, required=True)
    args = parser.parse_args()
    threadpool_limits(limits=1)  # as `aimi serve` and run.py's ours
    texts, vectors = _queries(args.work)
    opened = open_snapshot(_snapshot_dir(args.work, args.size))
    index = SearchIndex(opened, opened.manifest.as_of)
    engines = {
        "fair": Ours(index, legs=FAIR_LEGS),
        "sources": Ours(index, legs=SOURCE_LEGS),
    }
    print(f"load {os.getloadavg()[0]:.2f}, CPU {time.process_time():.1f} s")
    print(
        "| filter | p50 without | p50 with source legs | paired difference, median ms "
        "| legs spoke |"
    )
    print("|---|---|---|---|---|")
    pooled: dict[str, list[float]] = {"fair": [], "sources": []}
    cpu = {"fair": 0.0, "sources": 0.0}
    for spec in _specs(args.work, args.size):
        prepared = engines["fair"].prepare(spec)
        mask = index.mask(prepared)
        spoke = sum(bool(sum(map(len, index.contained_legs(text, mask)))) for text in texts)
        ms: dict[str, list[float]] = {"fair": [], "sources": []}
        for i, text in enumerate(texts):
            order = ("fair", "sources") if i % 2 == 0 else ("sources", "fair")
            for name in order:
                started, began = time.perf_counter(), time.process_time()
                engines[name].search(text, vectors[i], prepared)
                ms[name].append((time.perf_counter() - started) * 1000)
                cpu[name] += time.process_time() - began
        diffs = [b - a for a, b in zip(ms["fair"], ms["sources"], strict=True)]
        print(
            f"| {spec.name} | {statistics.median(ms['fair']):.2f} "
            f"| {statistics.median(ms['sources']):.2f} | {statistics.median(diffs):+.2f} "
            f"| {spoke} of {len(texts)} |",
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


if __name__ == "__main__":
    main()
