"""Where our executor's time goes, per filter set: the mask, the lexical leg, the dense leg by
either path (exact numpy over the allowed rows, or FAISS IVF with an ID selector), RRF and the
finish (sort, diversity cap), and the whole ``search`` call; with BLAS/OpenMP as shipped and
limited to one thread. Reads a corpus prepared by ``run.py prepare``.

Usage: .venv/bin/python bench/search/breakdown.py --work /tmp/aimi-search-bench --size 100000
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from corpus import FilterValues, filter_specs
from engines import DEPTH, LIMIT, STOP_WORDS, TunedIndex, search_filters
from threadpoolctl import threadpool_limits

from serving.search import SearchFilters, SearchIndex, SearchRequest
from warehouse.snapshot import open_snapshot

CALLS = 100


def _median_ms(call: Callable[[int], object], calls: int = CALLS) -> float:
    for i in range(10):
        call(i)
    latencies = []
    for i in range(calls):
        started = time.perf_counter()
        call(i)
        latencies.append((time.perf_counter() - started) * 1000)
    return statistics.median(latencies)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work", type=Path, default=Path("/tmp/aimi-search-bench"))
    parser.add_argument("--size", type=int, required=True)
    args = parser.parse_args()
    folder = args.work / str(args.size)
    snapshots = folder / "ours" / "snapshots"
    opened = open_snapshot(snapshots / (snapshots / "CURRENT").read_text().strip(), verify=False)
    index = SearchIndex(opened, opened.manifest.as_of)
    texts: list[str] = json.loads((args.work / "queries.json").read_text())
    vectors = np.load(args.work / "query_vectors.npy")
    meta = json.loads((folder / "meta.json").read_text())
    specs = filter_specs(FilterValues(**meta["filter_values"]))
    # the prototype's precomputed masks, borrowed onto this index for its mask()
    tuned: Any = index
    tuned.role_masks = {str(v): index.roles == v for v in np.unique(index.roles)}
    tuned.content_type_masks = {
        str(v): index.content_types == v for v in np.unique(index.content_types)
    }
    print(f"{args.size:,} units, load {os.getloadavg()[0]:.2f}; medians in ms\n")
    print(
        "| threads | filter | allowed | mask | mask, roles precomputed | lexical | dense exact "
        "| dense IVF+selector | dense as run | search() |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for threads in ("as shipped", "1"):
        limits = threadpool_limits(limits=1) if threads == "1" else contextlib.nullcontext()
        with limits:
            for spec in specs:
                filters = search_filters(spec)
                mask = index.mask(filters)
                allowed = index.size if mask is None else int(mask.sum())
                rows = np.flatnonzero(mask) if mask is not None else np.arange(index.size)

                def exact(i: int, rows: npt.NDArray[np.int64] = rows) -> object:
                    scores = index.vectors[rows] @ vectors[i]
                    return np.argpartition(-scores, DEPTH)[:DEPTH]

                def ivf(
                    i: int, mask: npt.NDArray[np.bool_] | None = mask, allowed: int = allowed
                ) -> object:
                    return index._ivf_search(vectors[i].reshape(1, -1), mask, allowed, DEPTH)

                def search(i: int, filters: SearchFilters = filters) -> object:
                    request = SearchRequest(vectors[i], texts[i], filters, limit=LIMIT)
                    return index.search(request)

                cells = [
                    _median_ms(lambda _i, f=filters: index.mask(f)),
                    _median_ms(lambda _i, f=filters: TunedIndex.mask(tuned, f)),
                    _median_ms(lambda i, f=filters: index.lexical_leg(texts[i], f, DEPTH)),
                    _median_ms(exact) if DEPTH < allowed <= 60_000 else float("nan"),
                    _median_ms(ivf) if index.ivf is not None else float("nan"),
                    _median_ms(lambda i, m=mask: index.dense_leg(vectors[i], m, DEPTH)),
                    _median_ms(search),
                ]
                print(
                    f"| {threads} | {spec.name} | {allowed:,} | "
                    + " | ".join(f"{c:.2f}" for c in cells)
                    + " |",
                    flush=True,
                )
    print(
        "\nLexical leg variants (one thread), medians in ms: as run (depth 100), depth 50, "
        "the query without stop words (depth 100)\n"
    )
    print("| filter | as run | depth 50 | no stop words |")
    print("|---|---|---|---|")
    with threadpool_limits(limits=1):
        for spec in specs:
            filters = search_filters(spec)

            def strip(text: str) -> str:
                kept = [w for w in text.split() if w.lower() not in STOP_WORDS]
                return " ".join(kept) or text

            cells = [
                _median_ms(lambda i, f=filters: index.lexical_leg(texts[i], f, DEPTH)),
                _median_ms(lambda i, f=filters: index.lexical_leg(texts[i], f, DEPTH // 2)),
                _median_ms(lambda i, f=filters: index.lexical_leg(strip(texts[i]), f, DEPTH)),
            ]
            print(f"| {spec.name} | " + " | ".join(f"{c:.2f}" for c in cells) + " |", flush=True)
    print(f"\nload at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
