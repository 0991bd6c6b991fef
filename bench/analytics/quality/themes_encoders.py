"""Theme tagging on cheaper encoders: the int8 ONNX export, a shorter lead, or both, against
today's labels (fp32, 1,000 characters), with the CPU seconds of each.

Usage: nice -n 19 .venv/bin/python -m bench.analytics.quality.themes_encoders ../shared/data
       [--candidates fp32:1000,int8:1000,fp32:800,fp32:600,int8:800] [--threads 2]
       [--skip-ainews | --skip-demo] [--show-changed] [--json F]

Each candidate is ``precision:lead_chars``; the first is the reference. For each corpus — the
demo corpus (podcasts left out; its generator's market force and value-chain layer known per
signal, as in ``bench/analytics/quality/themes.py``) and AINews 2025 (``../shared/data/ainews``,
evaluation only) — every candidate scores all signals on the build's own encoder settings
(``OnnxEncoder`` over the export of that precision, ``--threads`` intra-op threads, idle threads
sleeping; fp32 in runs of one token length as the build runs it, int8 one text per run), and is
compared with the reference:

- agreement per axis: the share of signals whose label set on that axis is exactly the
  reference's, and the labels per signal;
- demo: recall of the known force / layer at the default threshold (docs/journal/2026-11-21.md,
  "Tuning the threshold");
- AINews hand-check: the 50 judged signals (``themes_handcheck.json``) whose labels
  differ from the judged ones, and the hand-check share with the candidates' own judgments
  (``themes_handcheck_candidates.json``: ids, labels, verdicts and notes only) for those;
  ``--show-changed`` prints their text to the terminal for judging (never to a file);
- CPU seconds (``time.process_time``: every thread of this process) and wall seconds of the
  scoring, texts and tokens embedded.

Prints Markdown; ``--json`` writes the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from analytics.themes import (
    AXES,
    DEFAULT_PARAMS,
    labels_from_scores,
    score_themes,
    signal_text,
)
from bench.analytics.quality.themes import (
    DEMO_FORCE_NAMES,
    HANDCHECK,
    ainews_frame,
    demo_frame,
    sample_ids,
)
from warehouse.onnx_encoder import (
    OnnxEncoder,
    Precision,
    export_onnx,
    onnx_model_path,
)
from warehouse.settings import load_settings
from warehouse.themes import load_theme_taxonomy

CANDIDATE_JUDGMENTS = HANDCHECK.with_name("themes_handcheck_candidates.json")


@dataclass(frozen=True)
class Candidate:
    precision: Precision
    lead_chars: int

    @property
    def name(self) -> str:
        return f"{self.precision}:{self.lead_chars}"

    @classmethod
    def parse(cls, text: str) -> Candidate:
        precision, lead = text.split(":")
        by_name: dict[str, Precision] = {"fp32": "fp32", "int8": "int8"}
        if precision not in by_name:
            raise SystemExit(f"precision must be fp32 or int8, not {precision!r}")
        return cls(by_name[precision], int(lead))


def encoder(precision: Precision, threads: int) -> OnnxEncoder:
    dest = onnx_model_path(load_settings().model_cache, precision)
    path = export_onnx(dest, precision=precision).path
    return OnnxEncoder(path, threads=threads, spinning=False, exact_lengths=True)


def score(
    frame: pl.DataFrame, cand: Candidate, enc: OnnxEncoder, taxonomy: Any
) -> tuple[pl.DataFrame, dict[str, float]]:
    texts = [signal_text(t, x, cand.lead_chars) for t, x in frame.select("title", "text").rows()]
    tokens = sum(len(e.ids) for e in enc._tokenizer.encode_batch(texts))
    cpu, wall = time.process_time(), time.perf_counter()
    scores = score_themes(frame, enc, taxonomy, lead_chars=cand.lead_chars)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    tags = labels_from_scores(scores, taxonomy, DEFAULT_PARAMS)
    return tags, {"cpu_s": cpu, "wall_s": wall, "texts": len(texts), "tokens": tokens}


def agreement(ref: pl.DataFrame, got: pl.DataFrame) -> dict[str, float]:
    out: dict[str, float] = {}
    for axis in AXES:
        a = [set(x) for x in ref.get_column(axis).to_list()]
        b = [set(x) for x in got.get_column(axis).to_list()]
        out[f"{axis}_agree"] = float(np.mean([x == y for x, y in zip(a, b, strict=True)]))
        out[f"{axis}_per"] = float(np.mean([len(y) for y in b]))
        out[f"{axis}_none"] = float(np.mean([not y for y in b]))
    both = [
        set(r[1]) == set(g[1]) and set(r[2]) == set(g[2])
        for r, g in zip(ref.rows(), got.rows(), strict=True)
    ]
    out["both_agree"] = float(np.mean(both))
    return out


def demo_recall(tags: pl.DataFrame, truth: dict[str, tuple[str, str]]) -> dict[str, float]:
    ids = tags.get_column("signal_id").to_list()
    force = [DEMO_FORCE_NAMES.get(truth[u][0], truth[u][0]) for u in ids]
    chain = [truth[u][1] for u in ids]
    out = {}
    for axis, known in (("market_force", force), ("value_chain", chain)):
        sets = [set(x) for x in tags.get_column(axis).to_list()]
        out[f"{axis}_recall"] = float(np.mean([k in s for k, s in zip(known, sets, strict=True)]))
    return out


def handcheck(
    ai: pl.DataFrame, tags: pl.DataFrame, rows: list[int], cand: Candidate, show: bool
) -> dict[str, Any]:
    """Changed signals against the judged labels, and the share judged right counting the
    candidates' own judgments for changed ones (unjudged changed signals are listed)."""
    judged = json.loads(HANDCHECK.read_text(encoding="utf-8"))["signals"]
    extra: dict[str, Any] = {}
    if CANDIDATE_JUDGMENTS.is_file():
        extra = json.loads(CANDIDATE_JUDGMENTS.read_text(encoding="utf-8"))["signals"]
    changed, unjudged, right, labels_right, labels_total, missing = [], [], 0, 0, 0, 0
    for i in rows:
        rec, tag = ai.row(i, named=True), tags.row(i, named=True)
        sid = rec["signal_id"]
        current = {axis: list(tag[axis]) for axis in AXES}
        entry = judged[sid]
        if current != {axis: entry["labels"][axis] for axis in AXES}:
            changed.append(sid)
            key = json.dumps(current, sort_keys=True)
            match = [
                e for e in extra.get(sid, []) if json.dumps(e["labels"], sort_keys=True) == key
            ]
            if not match:
                unjudged.append(sid)
                if show:
                    print(
                        f"\n--- {sid} ({cand.name}) judged {entry['labels']} "
                        f"(wrong {entry.get('wrong')}, missing {entry.get('missing')})\n"
                        f"    now {current}\n    {rec['title']} :: "
                        f"{rec['text'][: cand.lead_chars]}",
                        file=sys.stderr,
                    )
                continue
            entry = match[0]
        wrong = set(entry.get("wrong", []))
        total = sum(len(entry["labels"][axis]) for axis in AXES)
        labels_total += total
        labels_right += total - len(wrong)
        right += not wrong and not entry.get("missing")
        missing += bool(entry.get("missing"))
    return {
        "changed": changed,
        "unjudged": unjudged,
        "right": right,
        "labels_right": labels_right,
        "labels_total": labels_total,
        "missing": missing,
        "judged": len(rows) - len(unjudged),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("shared", type=Path)
    parser.add_argument("--candidates", default="fp32:1000,int8:1000,fp32:800,fp32:600,int8:800")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--skip-ainews", action="store_true")
    parser.add_argument("--skip-demo", action="store_true")
    parser.add_argument("--show-changed", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    cands = [Candidate.parse(c) for c in args.candidates.split(",")]
    taxonomy = load_theme_taxonomy()
    encoders = {p: encoder(p, args.threads) for p in {c.precision for c in cands}}
    print(f"load average before: {os.getloadavg()[0]:.1f}; threads {args.threads}\n")
    results: dict[str, Any] = {}
    corpora: list[tuple[str, pl.DataFrame]] = []
    truth: dict[str, tuple[str, str]] = {}
    if not args.skip_demo:
        demo, truth = demo_frame()
        corpora.append(("demo", demo))
    if not args.skip_ainews:
        corpora.append(("ainews2025", ainews_frame(args.shared)))
    for corpus, frame in corpora:
        ref: pl.DataFrame | None = None
        rows: list[int] = []
        if corpus == "ainews2025":
            rows = sample_ids(frame, 50, 2025)
        for cand in cands:
            tags, timing = score(frame, cand, encoders[cand.precision], taxonomy)
            row: dict[str, Any] = dict(timing)
            ref = tags if ref is None else ref
            row.update(agreement(ref, tags))
            if corpus == "demo":
                row.update(demo_recall(tags, truth))
            else:
                row["handcheck"] = handcheck(frame, tags, rows, cand, args.show_changed)
            results[f"{corpus}/{cand.name}"] = row
            print(f"{corpus} {cand.name}: {json.dumps(row)}", flush=True)
    print(f"\nload average after: {os.getloadavg()[0]:.1f}\n")
    for corpus, frame in corpora:
        print(f"**{corpus}** ({frame.height} signals)\n")
        head = (
            "| candidate | CPU s | wall s | tokens | VC agree | MF agree | both | VC/sig | MF/sig |"
        )
        sep = "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
        if corpus == "demo":
            head += " force recall | layer recall |"
            sep += "---:|---:|"
        else:
            head += " changed of 50 | judged right |"
            sep += "---:|---:|"
        print(head + "\n" + sep)
        for cand in cands:
            r = results[f"{corpus}/{cand.name}"]
            cells = [
                cand.name,
                f"{r['cpu_s']:.1f}",
                f"{r['wall_s']:.1f}",
                f"{r['tokens']:,}",
                f"{r['value_chain_agree']:.3f}",
                f"{r['market_force_agree']:.3f}",
                f"{r['both_agree']:.3f}",
                f"{r['value_chain_per']:.2f}",
                f"{r['market_force_per']:.2f}",
            ]
            if corpus == "demo":
                cells += [f"{r['market_force_recall']:.3f}", f"{r['value_chain_recall']:.3f}"]
            else:
                h = r["handcheck"]
                share = f"{h['right']} / {h['judged']}"
                if h["unjudged"]:
                    share += f" ({len(h['unjudged'])} unjudged)"
                cells += [str(len(h["changed"])), share]
            print("| " + " | ".join(cells) + " |")
        print()
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
