"""The build's MiniLM passes on each encoder: seconds, vector agreement and identical outcomes.

Usage: .venv/bin/python -m bench.build.speed.passes --data-dir DIR [--signals N] [--rounds 2]
[--threads T] [--json F]

Reads a built data dir's ``sources``, ``signals`` and ``units`` and runs every embedding pass of
a cold build as its asset does — topic segmentation (``signals_from_sources`` with the
segmenter), decomposition (``extract_units``, every signal on the current extractor), theme
tagging (``tag_themes``) and unit embeddings — once on the torch encoder (``warehouse.embeddings``,
what built snapshots before issue 33) and once on the build's ONNX encoder
(``warehouse.build_encoder``: fp32, length-sorted batches, ``--threads`` intra-op threads, each
distinct text embedded once per round, passes in build order), the
two taking turns pass by pass and round by round (A, B, A, B) so the machine's load hits both
alike. ``--signals`` keeps the first N signals (by id) and their sources and units.

Reported per pass: best seconds of each encoder, the texts embedded, every vector's agreement
(max |Δ| over all coordinates, min cosine), and whether the pass's outcome is identical
(segment boundaries, units, theme labels; unit vectors within 1e-5), with the differing rows
when not; the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from analytics.embedding import FloatMatrix
from analytics.schema import SIGNALS, SOURCES, UNITS
from analytics.segment import segment_transcript
from analytics.signals import extract_units, signals_from_sources
from analytics.themes import tag_themes
from warehouse.build_encoder import MemoEncoder, available_cores
from warehouse.embeddings import MiniLM
from warehouse.onnx_encoder import OnnxEncoder, export_onnx, onnx_model_path
from warehouse.paths import DataDir
from warehouse.settings import load_settings
from warehouse.tables import read_table
from warehouse.themes import load_theme_taxonomy

TORCH, ONNX = "torch", "onnx-fp32"
PASSES = ("segmentation", "decomposition", "theme tagging", "unit embeddings")
VECTOR_TOLERANCE = 1e-5


@dataclass
class Recorder:
    """An Embedder that keeps every call's vectors (for the agreement figures)."""

    encode: Callable[[Sequence[str]], FloatMatrix]
    calls: list[FloatMatrix] = field(default_factory=list)

    def __call__(self, texts: Sequence[str]) -> FloatMatrix:
        vectors = self.encode(texts)
        self.calls.append(vectors)
        return vectors

    def texts(self) -> int:
        return sum(len(v) for v in self.calls)


def run_pass(name: str, embed: Recorder, frames: dict[str, pl.DataFrame]) -> Any:
    """The pass ``name`` as its asset runs it on a cold build; returns its outcome."""
    if name == "segmentation":
        return signals_from_sources(
            frames["sources"],
            as_of=None,
            segment=lambda text, duration_s: segment_transcript(text, embed, duration_s=duration_s),
        )
    if name == "decomposition":
        extraction = extract_units(frames["signals"], embed=embed, force=True)
        return extraction.units.sort("unit_id"), extraction.rejections.sort(
            "signal_id", "text", nulls_last=True
        )
    if name == "theme tagging":
        return tag_themes(frames["signals"], embed, load_theme_taxonomy())
    if name == "unit embeddings":
        return embed(frames["units"]["text"].to_list())
    raise ValueError(name)


def same_outcome(name: str, a: Any, b: Any) -> tuple[bool, str]:
    """Whether two outcomes of pass ``name`` are identical, and what differs when not."""
    if name == "unit embeddings":
        worst = float(np.abs(a - b).max()) if len(a) else 0.0
        return worst <= VECTOR_TOLERANCE, f"max |Δ| {worst:.2e}"
    frames = a if isinstance(a, tuple) else (a,)
    others = b if isinstance(b, tuple) else (b,)
    diffs = []
    for left, right in zip(frames, others, strict=True):
        if not left.equals(right):
            only_a = left.join(right, on=left.columns, how="anti", nulls_equal=True)
            only_b = right.join(left, on=left.columns, how="anti", nulls_equal=True)
            diffs.append(f"{only_a.height} rows only on torch, {only_b.height} only on onnx")
    info = []
    if name == "segmentation":
        info.append(f"{a.filter(pl.col('segment_start_s').is_not_null()).height} topic segments")
    return not diffs, "; ".join(diffs + info)


def agreement(a: Recorder, b: Recorder) -> dict[str, float]:
    if [len(v) for v in a.calls] != [len(v) for v in b.calls]:  # the passes embedded apart
        return {"max_abs_diff": float("nan"), "min_cosine": float("nan")}
    if a.texts() == 0:
        return {"max_abs_diff": 0.0, "min_cosine": 1.0}
    left, right = np.vstack(a.calls), np.vstack(b.calls)
    cosine = np.einsum("ij,ij->i", left, right) / (
        np.linalg.norm(left, axis=1) * np.linalg.norm(right, axis=1)
    )
    return {
        "max_abs_diff": float(np.abs(left - right).max()),
        "min_cosine": float(cosine.min()),
    }


def load_frames(data: DataDir, limit: int | None) -> dict[str, pl.DataFrame]:
    signals = read_table(data, "signals", SIGNALS).sort("signal_id")
    if limit is not None:
        signals = signals.head(limit)
    sources = read_table(data, "sources", SOURCES)
    if limit is not None:
        sources = sources.join(signals.select("source_id").unique(), on="source_id", how="semi")
    units = read_table(data, "units", UNITS).join(
        signals.select("signal_id"), on="signal_id", how="semi"
    )
    return {"sources": sources, "signals": signals, "units": units}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--signals", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=available_cores())
    parser.add_argument("--passes", nargs="*", default=list(PASSES))
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()

    frames = load_frames(DataDir(args.data_dir), args.signals)
    dest = onnx_model_path(load_settings().model_cache, "fp32")
    torch = MiniLM()
    onnx_encoder = OnnxEncoder(export_onnx(dest).path, threads=args.threads, spinning=False)
    for encode in (torch, onnx_encoder):  # first-call costs, not timed
        encode(["warm up the encoder", "a second, somewhat longer text to warm up with"])
    load_before = os.getloadavg()
    seconds: dict[str, dict[str, float]] = {p: {} for p in args.passes}
    results: dict[str, dict[str, Any]] = {p: {} for p in args.passes}
    recorders: dict[str, dict[str, Recorder]] = {p: {} for p in args.passes}
    for round_ in range(args.rounds):
        # as a build runs them: before, torch on every text; now, one memo over the passes of
        # the round (in build order), each distinct text embedded once
        memo = MemoEncoder(onnx_encoder)
        now: dict[str, Callable[[Sequence[str]], FloatMatrix]] = {TORCH: torch, ONNX: memo}
        for name in args.passes:
            # A, B in one round, B, A in the next
            order = (TORCH, ONNX) if round_ % 2 == 0 else (ONNX, TORCH)
            for label in order:
                recorder = Recorder(now[label])
                started = time.perf_counter()
                results[name][label] = run_pass(name, recorder, frames)
                took = time.perf_counter() - started
                seconds[name][label] = min(seconds[name].get(label, float("inf")), took)
                recorders[name][label] = recorder
    load_after = os.getloadavg()

    report: dict[str, Any] = {
        "signals": frames["signals"].height,
        "sources": frames["sources"].height,
        "units": frames["units"].height,
        "threads": args.threads,
        "rounds": args.rounds,
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in load_after],
        "passes": {},
    }
    print(
        f"{report['sources']} sources, {report['signals']} signals, {report['units']} units; "
        f"best of {args.rounds} interleaved rounds; onnx threads {args.threads}; "
        f"load {report['load_before']} → {report['load_after']}\n"
    )
    print(
        "| pass | texts | torch (s) | onnx fp32 (s) | speed-up | max abs Δ | min cosine | outcome |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for name in args.passes:
        same, note = same_outcome(name, results[name][TORCH], results[name][ONNX])
        agree = agreement(recorders[name][TORCH], recorders[name][ONNX])
        t, o = seconds[name][TORCH], seconds[name][ONNX]
        report["passes"][name] = {
            "texts": recorders[name][TORCH].texts(),
            "torch_s": round(t, 3),
            "onnx_s": round(o, 3),
            **agree,
            "identical": same,
            "note": note,
        }
        print(
            f"| {name} | {recorders[name][TORCH].texts():,} | {t:.2f} | {o:.2f} | "
            f"{t / o:.2f}× | {agree['max_abs_diff']:.1e} | {agree['min_cosine']:.7f} | "
            f"{'identical' if same else 'DIFFERENT'}{f' ({note})' if note else ''} |"
        )
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
