"""Whole-source search on small corpora (issue 30): the partial-query kinds of ``sources.py`` on
corpora the size of the issue's own measurement (150 social posts), where a half title names few
posts. Several disjoint seeded samples of AINews ``social`` records, each built into its own data
dir and snapshot, every eligible served signal of each queried four ways; our executor (as
shipped, and without the source legs) against plain BM25 over "title + text" per signal and
that fused with MiniLM (``sources.Peers``), with the same scoring as ``sources.py``.

Usage:
    .venv/bin/python -m bench.search.quality.small_corpora draw      # rewrite the recipes
    .venv/bin/python -m bench.search.quality.small_corpora build     # ingest + build each sample
    .venv/bin/python -m bench.search.quality.small_corpora score [--per-query FILE]

The recipes (``small_corpora.json``) hold the seeds and each sample's records as (file, line)
of ``../shared/data/ainews`` — ids, never text. A sample's records are drawn among the social
records whose title has ≥ 4 words, ≥ 3 of them content words, unique among all social titles
(case-folded), and whose text has ≥ 24 words (``sources.eligible``'s rule on the raw records);
``score`` applies ``sources.eligible`` again to what each build serves. Builds go to
``--work`` (default /tmp/aimi-small-corpora), one data dir per sample, ``as_of`` 2026-01-01.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from analytics.schema import SIGNALS
from bench.search.quality.sources import (
    DEPTH,
    KINDS,
    MIN_CONTENT_WORDS,
    MIN_TEXT_WORDS,
    MIN_TITLE_WORDS,
    Peers,
    Setting,
    Variant,
    cell,
    content_words,
    diff_cell,
    eligible,
    queries,
    ranked_units,
    setting,
    variant_name,
)
from warehouse.embeddings import load_minilm
from warehouse.paths import DataDir
from warehouse.snapshot import open_current
from warehouse.tables import read_table

RECIPES = Path(__file__).resolve().parent / "small_corpora.json"
CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "ainews"
FILES = ("ainews-2024.jsonl", "ainews-2025.jsonl")
AS_OF = "2026-01-01"
QUERY_SEED = 30  # the content60 recipe's seed, as sources.py's per set
SYSTEMS: dict[str, Variant] = {
    "ours (shipped)": (("lexical", "dense", "title", "source"), None),
    "today (no source legs)": (("lexical", "dense", "title"), None),
    "source legs alone": (("source",), None),
}
ALL_LEGS = ("lexical", "dense", "title", "source")


def _records() -> list[tuple[str, int, dict[str, Any]]]:
    out = []
    for name in FILES:
        with (CORPUS / name).open(encoding="utf-8") as handle:
            for line_number, line in enumerate(handle):
                record = json.loads(line)
                out.append((name, line_number, record))
    return out


def draw(spec: dict[str, Any]) -> None:
    social = [(f, n, r) for f, n, r in _records() if r.get("kind") == "social"]
    folded = [str(r.get("title") or "").strip().lower() for _f, _n, r in social]
    counts: dict[str, int] = {}
    for title in folded:
        counts[title] = counts.get(title, 0) + 1
    pool = [
        (f, n)
        for (f, n, r), title in zip(social, folded, strict=True)
        if counts[title] == 1
        and len(str(r["title"]).split()) >= MIN_TITLE_WORDS
        and len(content_words(str(r["title"]))) >= MIN_CONTENT_WORDS
        and len(str(r.get("text") or "").split()) >= MIN_TEXT_WORDS
    ]
    print(f"{len(social)} social records, {len(pool)} eligible")
    for sample in spec["samples"]:
        chosen = sorted(random.Random(sample["seed"]).sample(pool, spec["size"]))
        sample["records"] = [list(pair) for pair in chosen]
        taken = set(chosen)
        pool = [pair for pair in pool if pair not in taken]
    RECIPES.write_text(_dumps(spec), encoding="utf-8")
    print(f"drew {len(spec['samples'])} samples of {spec['size']} into {RECIPES}")


def _dumps(spec: dict[str, Any]) -> str:
    """The recipes as JSON, one record a line."""
    samples = ",\n".join(
        f'  {{"seed": {s["seed"]}, "records": [\n'
        + ",\n".join("    " + json.dumps(r) for r in s["records"])
        + "\n  ]}"
        for s in spec["samples"]
    )
    return (
        f'{{\n "about": {json.dumps(spec["about"])},\n "size": {spec["size"]},\n'
        f' "samples": [\n{samples}\n ]\n}}\n'
    )


def _data_dir(work: Path, seed: int) -> Path:
    return work / f"seed-{seed}" / "data"


def build(spec: dict[str, Any], work: Path) -> None:
    records = {(f, n): r for f, n, r in _records()}
    aimi = str(Path(sys.executable).parent / "aimi")
    for sample in spec["samples"]:
        data = _data_dir(work, sample["seed"])
        if (data / "snapshots" / "CURRENT").is_file():
            print(f"seed {sample['seed']}: built already ({data})")
            continue
        inbox = data.parent / "inbox"
        inbox.mkdir(parents=True, exist_ok=True)
        with (inbox / "sample.jsonl").open("w", encoding="utf-8") as handle:
            for f, n in sample["records"]:
                handle.write(json.dumps(records[(f, n)]) + "\n")
        env = {**os.environ, "AIMI_DATA_DIR": str(data)}
        started, cpu = time.perf_counter(), os.times()
        subprocess.run([aimi, "ingest", str(inbox)], env=env, check=False)
        subprocess.run([aimi, "build", "--as-of", AS_OF], env=env, check=True)
        after = os.times()
        used = after.children_user + after.children_system
        used -= cpu.children_user + cpu.children_system
        print(
            f"seed {sample['seed']}: built in {time.perf_counter() - started:.0f} s wall, "
            f"{used:.0f} s CPU",
            flush=True,
        )


def _served(data: DataDir) -> tuple[Any, pl.DataFrame, pl.DataFrame]:
    opened = open_current(data)
    if opened is None:
        sys.exit(f"{data.root} has no published snapshot: run `build` first")
    units = opened.read_table("search_units").select("unit_id", "signal_id")
    texts = read_table(data, "signals", SIGNALS).select("signal_id", "text")
    served = (
        opened.read_table("signals")
        .select("signal_id", "title")
        .filter(pl.col("signal_id").is_in(units["signal_id"].unique().implode()))
        .join(texts, on="signal_id", how="left")
        .sort("signal_id")
    )
    return opened, units, served


def score(
    spec: dict[str, Any], work: Path, per_query: Path | None, settings: list[Setting]
) -> None:
    from retrieval.engine import SearchIndex

    systems = dict(SYSTEMS)
    for chosen in settings:
        systems[variant_name(chosen)] = (ALL_LEGS, chosen)
    embed = load_minilm()
    # kind -> system -> hits over every sample, in sample order
    pooled: dict[str, dict[str, list[float]]] = {k: {} for k in KINDS}
    per_sample: list[dict[str, Any]] = []
    for sample in spec["samples"]:
        data = DataDir.from_env(str(_data_dir(work, sample["seed"])))
        opened, units, served = _served(data)
        wanted = eligible(served)
        index = SearchIndex(opened, opened.manifest.as_of)
        title_of = dict(served.select("signal_id", "title").iter_rows())
        text_of = dict(served.select("signal_id", "text").iter_rows())
        row_signal = np.asarray(units["signal_id"].to_list())
        built = {s: queries(s, title_of[s], text_of[s], QUERY_SEED) for s in wanted}
        texts = sorted({q for by_kind in built.values() for q in by_kind.values()})
        vector_of = dict(zip(texts, embed(texts), strict=True))
        cache = work / f"seed-{sample['seed']}" / "peers"
        cache.mkdir(parents=True, exist_ok=True)
        peers = Peers(served, cache, opened.snapshot_id, dense=True)
        hits: dict[str, dict[str, list[float]]] = {}
        for kind in KINDS:
            table: dict[str, list[float]] = {}
            for system, (legs, floor) in systems.items():
                table[system] = []
                for signal_id in wanted:
                    query = built[signal_id][kind]
                    rows, _ms = ranked_units(index, legs, floor, query, vector_of[query])
                    table[system].append(float(signal_id in set(row_signal[rows].tolist())))
            table["BM25/source"] = [float(s in peers.bm25(built[s][kind])[:10]) for s in wanted]
            table["BM25+MiniLM/source"] = [
                float(s in peers.hybrid(built[s][kind], vector_of[built[s][kind]], DEPTH)[:10])
                for s in wanted
            ]
            hits[kind] = table
            for system, values in table.items():
                pooled[kind].setdefault(system, []).extend(values)
        per_sample.append(
            {
                "seed": sample["seed"],
                "snapshot": opened.snapshot_id,
                "records": len(sample["records"]),
                "served": served.height,
                "queried": len(wanted),
                "signal_ids": wanted,
                "hits": hits,
            }
        )
        print(
            f"seed {sample['seed']}: {len(sample['records'])} records, {served.height} served "
            f"signals, {len(wanted)} eligible and queried; snapshot {opened.snapshot_id}",
            flush=True,
        )
    names = list(pooled["exact"])
    total = sum(s["queried"] for s in per_sample)
    print(
        f"\n#### All {len(per_sample)} samples pooled ({total} signals): hit@10 (95 % interval)\n"
    )
    _table(pooled, names)
    print("\nMinus BM25/source (paired, 95 % interval), pooled:\n")
    print("| system | " + " | ".join(KINDS.values()) + " |")
    print("|---|" + "---|" * len(KINDS))
    for system in names:
        if system != "BM25/source":
            cells = [diff_cell(pooled[k][system], pooled[k]["BM25/source"]) for k in KINDS]
            print(f"| {system} | " + " | ".join(cells) + " |")
    print("\n#### Per sample: hit@10 of ours (shipped) / BM25/source / BM25+MiniLM/source\n")
    print("| seed | queried | " + " | ".join(KINDS.values()) + " |")
    print("|---|---:|" + "---|" * len(KINDS))
    for s in per_sample:
        cells = [
            " / ".join(
                f"{np.mean(s['hits'][k][name]):.3f}"
                for name in ("ours (shipped)", "BM25/source", "BM25+MiniLM/source")
            )
            for k in KINDS
        ]
        print(f"| {s['seed']} | {s['queried']} | " + " | ".join(cells) + " |")
    if per_query:
        per_query.write_text(json.dumps(per_sample, indent=1) + "\n", encoding="utf-8")


def _table(pooled: dict[str, dict[str, list[float]]], systems: list[str]) -> None:
    print("| system | " + " | ".join(KINDS.values()) + " |")
    print("|---|" + "---|" * len(KINDS))
    for system in systems:
        print(f"| {system} | " + " | ".join(cell(pooled[k][system]) for k in KINDS) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("step", choices=["draw", "build", "score"])
    parser.add_argument("--work", type=Path, default=Path("/tmp/aimi-small-corpora"))
    parser.add_argument("--per-query", type=Path, help="score: per-query hits as JSON (no text)")
    parser.add_argument(
        "--floors",
        default="",
        help="score: other source-leg floors beside the shipped ones, as in sources.py",
    )
    args = parser.parse_args()
    spec = json.loads(RECIPES.read_text(encoding="utf-8"))
    if args.step == "draw":
        draw(spec)
    elif args.step == "build":
        build(spec, args.work)
    else:
        score(spec, args.work, args.per_query, [setting(p) for p in args.floors.split(",") if p])


if __name__ == "__main__":
    main()
