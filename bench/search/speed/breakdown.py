"""Where our executor's time goes, per filter set: the mask, the lexical leg as run and by each
of its two paths (ranked unfiltered then filtered, or the filters as query clauses), the dense
leg as run and by each path (exact numpy over the allowed rows, or FAISS IVF with an ID
selector), and the whole ``search`` call; one BLAS thread, as ``aimi serve`` runs. Reads a
corpus prepared by ``run.py prepare``.

Usage: .venv/bin/python -m bench.search.speed.breakdown --work /tmp/aimi-search-bench --size 100000
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt
from threadpoolctl import threadpool_limits

from bench.search.speed.corpus import FilterValues, filter_specs
from bench.search.speed.engines import DEPTH, LIMIT, search_filters
from retrieval.engine import SearchFilters, SearchIndex, SearchRequest
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
    threadpool_limits(limits=1)
    folder = args.work / str(args.size)
    snapshots = folder / "ours" / "snapshots"
    opened = open_snapshot(snapshots / (snapshots / "CURRENT").read_text().strip(), verify=False)
    index = SearchIndex(opened, opened.manifest.as_of)
    texts: list[str] = json.loads((args.work / "queries.json").read_text())
    vectors = np.load(args.work / "query_vectors.npy")
    meta = json.loads((folder / "meta.json").read_text())
    specs = filter_specs(FilterValues(**meta["filter_values"]))
    print(f"{args.size:,} units, load {os.getloadavg()[0]:.2f}; medians in ms, one thread\n")
    print(
        "| filter | allowed | mask | lexical as run | lexical ranked, then filtered "
        "| lexical with clauses | dense as run | dense exact | dense IVF + selector | search() |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    shipped_share = index.post_filter_min_share
    for spec in specs:
        filters = search_filters(spec)
        mask = index.mask(filters)
        allowed = index.size if mask is None else int(mask.sum())
        rows = np.flatnonzero(mask) if mask is not None else np.arange(index.size)

        def lexical(i: int, f: SearchFilters = filters) -> object:
            return index.lexical_leg(texts[i], f, DEPTH)

        def lexical_by(share: float) -> float:
            index.post_filter_min_share = share
            try:
                return _median_ms(lexical)
            finally:
                index.post_filter_min_share = shipped_share

        def exact(i: int, rows: npt.NDArray[np.int64] = rows) -> object:
            scores = index._scores_of(rows, vectors[i])
            return np.argpartition(-scores, DEPTH)[:DEPTH]

        def ivf(
            i: int, mask: npt.NDArray[np.bool_] | None = mask, allowed: int = allowed
        ) -> object:
            return index._ivf_search(vectors[i].reshape(1, -1), mask, allowed, DEPTH)

        def search(i: int, filters: SearchFilters = filters) -> object:
            return index.search(SearchRequest(vectors[i], texts[i], filters, limit=LIMIT))

        def masking(_i: int, filters: SearchFilters = filters) -> object:
            return index.mask(filters)

        def dense(i: int, mask: npt.NDArray[np.bool_] | None = mask) -> object:
            return index.dense_leg(vectors[i], mask, DEPTH)

        nan = float("nan")
        cells = [
            _median_ms(masking),
            _median_ms(lexical),
            lexical_by(0.0) if mask is not None else nan,
            lexical_by(2.0) if mask is not None else nan,
            _median_ms(dense),
            _median_ms(exact) if DEPTH < allowed <= 60_000 else nan,
            _median_ms(ivf) if index.ivf is not None else nan,
            _median_ms(search),
        ]
        print(
            f"| {spec.name} | {allowed:,} | " + " | ".join(f"{c:.2f}" for c in cells) + " |",
            flush=True,
        )
    print(f"\nload at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
