"""Search on a real, full snapshot: in-process retrieval, the MiniLM query embedding, and
``GET /v1/search`` over HTTP (uvicorn, one worker, as ``aimi serve`` runs it).

Usage:
    .venv/bin/python -m bench.search.speed.real_snapshot --data-dir /tmp/ainews-full

Queries and filter values come from the snapshot itself (bench/search/speed/corpus.py). Three
figures per filter set, each call timed on its own, sequentially:

- in-process: ``SearchIndex.search`` on the loaded snapshot, query vector given (also with
  BLAS/OpenMP limited to one thread: a prototype, not the shipped configuration);
- HTTP, retrieval only: the real app (``create_app``) served by uvicorn in a child process whose
  query embedder is replaced by a lookup of the precomputed vectors (labelled prototype), so the
  figure is HTTP + routing + validation + retrieval + rendering;
- HTTP end to end: ``aimi serve`` itself, MiniLM embedding the query on every request; and the
  same with ``OPENBLAS_NUM_THREADS=1`` in its environment (labelled prototype).

The embedding alone (MiniLM, one query per call) is timed in-process.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.search.speed.corpus import (
    FilterSpec,
    FloatMatrix,
    choose_filter_values,
    filter_specs,
    load_source,
    query_texts,
)

WARMUP = 20
API_KEY = "bench"
_MODULE = "bench.search.speed.real_snapshot"  # the lookup server runs in a process of its own


def _stats(ms: list[float]) -> str:
    return f"{statistics.median(ms):.2f} / {float(np.percentile(ms, 99)):.2f}"


def _timed(calls: int, call: Callable[[int], object]) -> list[float]:
    for i in range(min(WARMUP, calls)):
        call(i)
    latencies: list[float] = []
    for i in range(calls):
        started = time.perf_counter()
        call(i)
        latencies.append((time.perf_counter() - started) * 1000)
    return latencies


def _params(spec: FilterSpec) -> dict[str, str]:
    from datetime import UTC, datetime, timedelta

    def iso(us: int) -> str:
        moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=us)
        return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    params: dict[str, str] = {}
    if spec.role is not None:
        params["role"] = spec.role
    if spec.theme is not None:
        params["theme"] = spec.theme
    if spec.entity is not None:
        params["entity"] = spec.entity
    if spec.published_from_us is not None:
        params["published_after"] = iso(spec.published_from_us)
    if spec.published_before_us is not None:
        params["published_before"] = iso(spec.published_before_us)
    return params


class _LookupEmbedder:
    """Stands in for the query encoder in the retrieval-only server: precomputed vectors."""

    def __init__(self, texts: list[str], vectors: FloatMatrix) -> None:
        self.vectors = dict(zip(texts, vectors, strict=True))

    def warm(self) -> None:
        pass

    def __call__(self, texts: Sequence[str]) -> FloatMatrix:
        return np.stack([self.vectors[text] for text in texts])


def serve_lookup(port: int, queries_file: Path) -> None:
    """Child process: the real app over uvicorn, query embedder replaced by a lookup."""
    import uvicorn

    from serving.app import create_app

    saved = json.loads(queries_file.read_text())
    app = create_app()
    app.state.query_embedder = _LookupEmbedder(
        saved["texts"], np.asarray(saved["vectors"], dtype=np.float32)
    )
    uvicorn.run(app, host="127.0.0.1", port=port, workers=1, log_level="info")


def _wait_ready(client: Any, base: str, first: dict[str, str]) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            if client.get(f"{base}/v1/search", params=first).status_code == 200:
                return
        except Exception:  # noqa: BLE001  (not listening yet)
            pass
        time.sleep(1)
    raise SystemExit(f"{base} did not answer a search within 300 s")


def _http(
    base: str, texts: list[str], specs: list[FilterSpec], server: subprocess.Popen[bytes]
) -> dict[str, list[float]]:
    import httpx

    results: dict[str, list[float]] = {}
    try:
        with httpx.Client(headers={"X-API-Key": API_KEY}, timeout=60) as client:
            _wait_ready(client, base, {"q": texts[0]})
            for spec in specs:
                params = _params(spec)

                def call(i: int, params: dict[str, str] = params) -> None:
                    response = client.get(f"{base}/v1/search", params={"q": texts[i], **params})
                    if response.status_code != 200:
                        raise SystemExit(f"{response.status_code}: {response.text[:300]}")

                results[spec.name] = _timed(len(texts), call)
                print(f"  {base} {spec.name}: {_stats(results[spec.name])}", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=30)
    return results


def _in_process(
    data_dir: Path, texts: list[str], vectors: FloatMatrix, specs: list[FilterSpec]
) -> tuple[dict[str, int], dict[str, list[float]], dict[str, list[float]]]:
    """Allowed rows per filter, then latencies as shipped and with one BLAS/OpenMP thread."""
    from threadpoolctl import threadpool_limits

    from bench.search.speed.engines import Ours
    from retrieval.engine import SearchIndex
    from warehouse.paths import DataDir
    from warehouse.snapshot import open_current

    opened = open_current(DataDir(data_dir))
    assert opened is not None
    index = SearchIndex(opened, opened.manifest.as_of)
    ours = Ours(index)
    allowed: dict[str, int] = {}
    in_process: dict[str, list[float]] = {}
    one_thread: dict[str, list[float]] = {}
    for spec in specs:
        prepared = ours.prepare(spec)
        mask = index.mask(prepared)
        allowed[spec.name] = index.size if mask is None else int(mask.sum())

        def call(i: int, prepared: Any = prepared) -> object:
            return ours.search(texts[i], vectors[i], prepared)

        in_process[spec.name] = _timed(len(texts), call)
        with threadpool_limits(limits=1):
            one_thread[spec.name] = _timed(len(texts), call)
        print(
            f"  in-process {spec.name}: {_stats(in_process[spec.name])}; "
            f"1 thread {_stats(one_thread[spec.name])}",
            flush=True,
        )
    return allowed, in_process, one_thread


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/ainews-full"))
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--queries", type=int, default=200, help="how many queries (≤ 200)")
    parser.add_argument("--serve-lookup", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_lookup is not None:
        serve_lookup(args.port, args.serve_lookup)
        return

    from warehouse.embeddings import load_minilm

    print(f"load {os.getloadavg()[0]:.2f}", flush=True)
    source = load_source(args.data_dir)
    texts = query_texts(source)[: args.queries]
    specs = filter_specs(choose_filter_values(source))
    model = load_minilm()
    vectors = model(texts)
    embed_ms = _timed(len(texts), lambda i: model([texts[i]]))
    print(f"{source.units.height} units; MiniLM one query: {_stats(embed_ms)} ms", flush=True)

    allowed, in_process, one_thread = _in_process(args.data_dir, texts, vectors, specs)

    env = {**os.environ, "AIMI_DATA_DIR": str(args.data_dir), "AIMI_DEV_API_KEY": API_KEY}
    queries_file = Path(f"/tmp/aimi-search-queries-{os.getpid()}.json")
    queries_file.write_text(json.dumps({"texts": texts, "vectors": vectors.tolist()}))
    lookup_port = args.port + 1
    lookup = subprocess.Popen(
        [
            sys.executable,
            "-m",
            _MODULE,
            "--serve-lookup",
            str(queries_file),
            "--port",
            str(lookup_port),
        ],
        env=env,
        stderr=subprocess.DEVNULL,
    )
    http_lookup = _http(f"http://127.0.0.1:{lookup_port}", texts, specs, lookup)
    queries_file.unlink()
    aimi = Path(sys.executable).parent / "aimi"
    served = subprocess.Popen(
        [str(aimi), "serve", "--port", str(args.port)], env=env, stderr=subprocess.DEVNULL
    )
    http_full = _http(f"http://127.0.0.1:{args.port}", texts, specs, served)
    # prototype, not the shipped configuration: OpenBLAS limited to one thread in the server
    served = subprocess.Popen(
        [str(aimi), "serve", "--port", str(args.port)],
        env={**env, "OPENBLAS_NUM_THREADS": "1"},
        stderr=subprocess.DEVNULL,
    )
    http_blas1 = _http(f"http://127.0.0.1:{args.port}", texts, specs, served)

    print(f"\n{source.units.height:,} units, load now {os.getloadavg()[0]:.2f}; p50 / p99 ms\n")
    print(
        "| filter | allowed | in-process | in-process, 1 BLAS thread | HTTP, retrieval only "
        "| HTTP end to end (MiniLM) | the same, OPENBLAS_NUM_THREADS=1 |"
    )
    print("|---|---|---|---|---|---|---|")
    for spec in specs:
        name = spec.name
        print(
            f"| {name} | {allowed[name]:,} | {_stats(in_process[name])} "
            f"| {_stats(one_thread[name])} | {_stats(http_lookup[name])} "
            f"| {_stats(http_full[name])} | {_stats(http_blas1[name])} |"
        )
    pooled = {
        label: [ms for name, values in figures.items() if name != "none" for ms in values]
        for label, figures in (
            ("in-process", in_process),
            ("1 thread", one_thread),
            ("HTTP retrieval", http_lookup),
            ("HTTP full", http_full),
            ("HTTP full, 1 BLAS thread", http_blas1),
        )
    }
    print("\nfiltered, pooled:", {k: _stats(v) for k, v in pooled.items()})
    print(f"MiniLM one query: {_stats(embed_ms)} ms")


if __name__ == "__main__":
    main()
