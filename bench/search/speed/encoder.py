"""Query encoder speed and agreement: the torch MiniLM forward pass (``warehouse.embeddings``,
what served search queries before issue 15) against ONNX Runtime fp32
(``warehouse.onnx_encoder``) and the same graph with int8 weights (dynamic quantization, per
channel; the served default since it runs every text alone, so its batches of 8 are 8 runs).

Usage: .venv/bin/python -m bench.search.speed.encoder [--queries 1500] [--threads 1] [--no-int8]
    [--json F]

The queries are distinct texts from the generated demo corpus (2–5-word keyword queries cut
from titles, titles, first sentences), each encoded once per encoder, so no cache of any kind
can help; the encoders take turns query by query, so a change in the machine's load hits them
alike. Torch runs twice: as ``aimi serve`` ran it (torch's default intra-op threads, one per
core) and with one thread; ONNX Runtime with ``--threads`` (1: as a server worker runs it).
Reported: per-query latency p50/p90/p99 (one text per call from one client thread,
tokenization included; p50 also by kind of query), throughput in batches of 8 (concurrent
searches, as ``retrieval.query_embedder`` batches them) and of 64, agreement (cosine to the
served torch vectors: median and min), and the load average before and after. The ONNX file
files come from the model cache (``AIMI_MODEL_CACHE``), exported first when absent.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from analytics.embedding import FloatMatrix
from demo import generate_demo_corpus
from warehouse.embeddings import MiniLM, load_tokenizer, max_seq_length, model_dir
from warehouse.onnx_encoder import OnnxEncoder, export_onnx, onnx_model_path
from warehouse.settings import load_settings

Encoder = Callable[[Sequence[str]], FloatMatrix]
WARMUP = 30
BATCH_SIZES = (8, 64)
KINDS = ("keywords", "title", "sentence")
TORCH_SERVED = "torch as served"
TORCH_ONE = "torch, 1 thread"
ONNX = "onnx-fp32"
INT8 = "onnx-int8"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


class Query(NamedTuple):
    text: str
    kind: str  # "keywords", "title" or "sentence"


def distinct_queries(count: int, seed: int = 15) -> list[Query]:
    """``count`` distinct query texts from the demo corpus, shuffled: 2–5-word keyword queries
    cut from titles, titles, and first sentences (one text, one kind: the first kind wins)."""
    corpus = generate_demo_corpus()
    rng = random.Random(seed)
    titles = [r["title"].strip() for r in corpus.records if r.get("title")]
    keywords = []
    for title in titles:
        words = title.split()
        if len(words) >= 3:
            size = rng.randint(2, min(5, len(words)))
            start = rng.randint(0, len(words) - size)
            keywords.append(" ".join(words[start : start + size]).lower())
    sentences = [
        _SENTENCE_END.split(r["text"].strip(), maxsplit=1)[0]
        for r in corpus.records
        if r.get("text")
    ]
    kinds: dict[str, str] = {}
    for kind, texts in (("keywords", keywords), ("title", titles), ("sentence", sentences)):
        for text in texts:
            if text:
                kinds.setdefault(text, kind)
    if len(kinds) < count:
        raise SystemExit(f"the demo corpus yields {len(kinds)} distinct queries, not {count}")
    pool = [Query(text, kind) for text, kind in kinds.items()]
    rng.shuffle(pool)
    return pool[:count]


def percentiles(seconds: list[float]) -> dict[str, float]:
    ms = np.asarray(seconds) * 1000
    return {f"p{q}": round(float(np.percentile(ms, q)), 2) for q in (50, 90, 99)}


def cosines(a: FloatMatrix, b: FloatMatrix) -> dict[str, float]:
    values = np.einsum("ij,ij->i", a, b) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return {"median": round(float(np.median(values)), 6), "min": round(float(values.min()), 6)}


class TorchAt:
    """The torch MiniLM with ``threads`` intra-op threads for each call (the setting is
    process-wide, so it is set every time)."""

    def __init__(self, model: MiniLM, threads: int) -> None:
        self.model = model
        self.threads = threads

    def __call__(self, texts: Sequence[str]) -> FloatMatrix:
        import torch

        torch.set_num_threads(self.threads)
        return self.model(texts)


def run(queries: list[Query], warmup: list[Query], threads: int, with_int8: bool) -> dict[str, Any]:
    import torch

    served_threads = torch.get_num_threads()  # as `aimi serve` leaves it: one per core
    load_before = os.getloadavg()
    cache = load_settings().model_cache
    model = export_onnx(onnx_model_path(cache)).path
    minilm = MiniLM()
    encoders: dict[str, Encoder] = {
        TORCH_SERVED: TorchAt(minilm, served_threads),
        TORCH_ONE: TorchAt(minilm, 1),
        ONNX: OnnxEncoder(model, threads=threads),
    }
    if with_int8:
        int8 = export_onnx(onnx_model_path(cache, "int8"), precision="int8").path
        encoders[INT8] = OnnxEncoder(int8, threads=threads)
    names = list(encoders)
    for query in warmup:
        for name in names:
            encoders[name]([query.text])

    latencies: dict[str, list[float]] = {name: [] for name in names}
    single: dict[str, list[FloatMatrix]] = {name: [] for name in names}
    for i, query in enumerate(queries):
        # take turns, starting with a different encoder each query
        for name in names[i % len(names) :] + names[: i % len(names)]:
            started = time.perf_counter()
            vector = encoders[name]([query.text])
            latencies[name].append(time.perf_counter() - started)
            single[name].append(vector)
    vectors = {name: np.vstack(rows) for name, rows in single.items()}

    texts = [query.text for query in queries]
    throughput: dict[str, dict[str, float]] = {name: {} for name in names}
    batched: dict[str, FloatMatrix] = {}
    for size in BATCH_SIZES:
        for name in names:
            encoder = encoders[name]
            started = time.perf_counter()
            parts = [encoder(texts[s : s + size]) for s in range(0, len(texts), size)]
            throughput[name][f"batch{size}_per_s"] = round(
                len(texts) / (time.perf_counter() - started), 1
            )
            batched[name] = np.vstack(parts)

    reference = vectors[TORCH_SERVED]
    tokenizer = load_tokenizer(model_dir(), max_seq_length(model_dir()))
    tokens = np.asarray([len(tokenizer.encode(text).ids) for text in texts])
    kinds = np.asarray([query.kind for query in queries])
    return {
        "queries": len(texts),
        "distinct": len(set(texts)),
        "tokens_median": float(np.median(tokens)),
        "kinds": {
            kind: {
                "count": int((kinds == kind).sum()),
                "tokens_median": float(np.median(tokens[kinds == kind])),
            }
            for kind in KINDS
        },
        "threads": threads,
        "torch_served_threads": served_threads,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "encoders": {
            name: {
                "latency_ms": percentiles(latencies[name]),
                "latency_p50_ms_by_kind": {
                    kind: round(
                        float(np.median(np.asarray(latencies[name])[kinds == kind])) * 1000, 2
                    )
                    for kind in KINDS
                },
                **throughput[name],
                "cosine_single_vs_torch": cosines(vectors[name], reference),
                f"cosine_batch{BATCH_SIZES[-1]}_vs_torch_single": cosines(batched[name], reference),
            }
            for name in names
        },
    }


def report(result: dict[str, Any]) -> str:
    kinds = result["kinds"]
    lines = [
        f"machine: {platform.machine()}, {os.cpu_count()} cores, python "
        f"{platform.python_version()}; {result['queries']} distinct queries (median "
        f"{result['tokens_median']:.0f} tokens), {result['threads']} intra-op thread(s)",
        f"load average (1/5/15 min) before {result['load_average_before']}, "
        f"after {result['load_average_after']}",
        "",
        f"torch as served: {result['torch_served_threads']} intra-op threads (torch's default; "
        "`aimi serve` limits BLAS, not torch's OpenMP pool)",
        "",
        "| encoder | p50 ms | p90 ms | p99 ms | batch 8 q/s | batch 64 q/s "
        "| cosine to torch median / min |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, row in result["encoders"].items():
        lat, cos = row["latency_ms"], row["cosine_single_vs_torch"]
        lines.append(
            f"| {name} | {lat['p50']:.2f} | {lat['p90']:.2f} | {lat['p99']:.2f} "
            f"| {row['batch8_per_s']:.0f} | {row['batch64_per_s']:.0f} "
            f"| {cos['median']:.6f} / {cos['min']:.6f} |"
        )
    lines += [
        "",
        "| p50 ms by query kind | "
        + " | ".join(
            f"{k} ({kinds[k]['count']}, {kinds[k]['tokens_median']:.0f} tokens)" for k in KINDS
        )
        + " |",
        "|---|" + "---|" * len(KINDS),
    ]
    for name, row in result["encoders"].items():
        by_kind = row["latency_p50_ms_by_kind"]
        lines.append(f"| {name} | " + " | ".join(f"{by_kind[k]:.2f}" for k in KINDS) + " |")
    lines.append("")
    for baseline in (TORCH_SERVED, TORCH_ONE):
        slow, fast = result["encoders"][baseline], result["encoders"][ONNX]
        ratio = slow["latency_ms"]["p50"] / fast["latency_ms"]["p50"]
        slow_kinds, fast_kinds = slow["latency_p50_ms_by_kind"], fast["latency_p50_ms_by_kind"]
        by_kind = ", ".join(f"{k} {slow_kinds[k] / fast_kinds[k]:.2f}x" for k in KINDS)
        lines.append(
            f"ONNX fp32 per-query speed-up (p50) over {baseline}: {ratio:.2f}x ({by_kind})"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--queries", type=int, default=1500, help="at least 1,000")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--no-int8", action="store_true", help="skip the int8 variant")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if args.queries < 1000:
        parser.error("--queries must be at least 1,000")
    queries = distinct_queries(args.queries + WARMUP)
    result = run(queries[WARMUP:], queries[:WARMUP], args.threads, not args.no_int8)
    print(report(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
