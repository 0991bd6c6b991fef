"""Decomposition quality and throughput on real text: AINews memos and podcast episodes.

Usage: .venv/bin/python -m bench.analytics.quality.units ../shared/data [--episodes 10]
    [--sample 20]
Prints Markdown for docs/quality.md. Reads ../shared in place; writes only to a temp dir.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

import polars as pl

from analytics.schema import SOURCES
from analytics.segment import TopicSegment, segment_transcript
from analytics.signals import extract_units, signals_from_sources
from analytics.verify import RULES
from warehouse.embeddings import load_minilm
from warehouse.ingest import ingest_paths
from warehouse.paths import DataDir
from warehouse.tables import read_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("shared", type=Path)
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--sample", type=int, default=20)
    args = parser.parse_args()
    embed = load_minilm()
    with tempfile.TemporaryDirectory() as tmp:
        data = DataDir(Path(tmp))
        memos = Path(tmp) / "memos.jsonl"
        with (args.shared / "ainews" / "ainews-2025.jsonl").open() as fh:
            lines = [line for line in fh if json.loads(line)["kind"] == "memo"]
        memos.write_text("".join(lines))
        episodes = sorted((args.shared / "podcasts").glob("*.md"))
        # distinct episodes: some files of the set repeat another file's video URL
        chosen, urls = [], set()
        for path in episodes:
            url = path.read_text().split("youtube_url:", 1)[1].split("\n", 1)[0].strip()
            if url not in urls:
                urls.add(url)
                chosen.append(path)
            if len(chosen) == args.episodes:
                break
        ingest_paths(data, [memos, *chosen], progress=False)
        sources = read_table(data, "sources", SOURCES)

        started = time.perf_counter()

        def segment(text: str, duration: int | None) -> list[TopicSegment]:
            return segment_transcript(text, embed, duration_s=duration)

        signals = signals_from_sources(sources, segment=segment)
        segmenting = time.perf_counter() - started
        started = time.perf_counter()
        extraction = extract_units(signals, embed=embed)
        decomposing = time.perf_counter() - started

    units, rejections = extraction.units, extraction.rejections
    kinds = signals.select("signal_id", "kind")
    print(
        f"Signals: {signals.height} ({sources.filter(pl.col('kind') == 'memo').height} memos; "
        f"{len(chosen)} episodes → {signals.filter(pl.col('kind') == 'podcast').height} "
        "segment signals)\n"
    )
    print(
        "| kind | signals | thesis/synopsis | arguments (units) | arguments (groups) "
        "| claims | units/signal |"
    )
    print("|---|---|---|---|---|---|---|")
    joined = units.join(kinds, on="signal_id")
    for kind in ("memo", "podcast"):
        part = joined.filter(pl.col("kind") == kind)
        n = kinds.filter(pl.col("kind") == kind).height
        central = part.filter(pl.col("role").is_in(["thesis", "synopsis"])).height
        arguments = part.filter(pl.col("role") == "argument")
        groups = arguments.select("signal_id", "argument_id").unique().height
        claims = part.filter(pl.col("role") == "claim").height
        print(
            f"| {kind} | {n} | {central / n:.2f} | {arguments.height / n:.2f} | "
            f"{groups / n:.2f} | {claims / n:.2f} | {part.height / n:.2f} |"
        )
    with_args = (
        joined.filter(pl.col("role") == "argument")
        .group_by("signal_id")
        .agg(pl.col("argument_id").n_unique().alias("groups"))
    )
    print(
        f"\nArgument groups per analysis that has arguments: "
        f"{with_args['groups'].value_counts().sort('groups').rows()}\n"
    )
    proposed = units.height + rejections.height
    print(
        f"Units proposed {proposed}, verified {units.height} "
        f"({units.height / max(proposed, 1):.1%}), rejected {rejections.height}.\n"
    )
    print("| rule | rejected |\n|---|---|")
    for rule in RULES:
        print(f"| `{rule}` | {rejections.filter(pl.col('rule') == rule).height} |")
    print(
        f"\nThroughput (2 cores, MiniLM on CPU): topic segmentation {segmenting:.1f} s for "
        f"{len(chosen)} episodes ({segmenting / len(chosen):.1f} s each); decomposition + "
        f"verification {decomposing:.1f} s for {signals.height} signals = "
        f"{signals.height / decomposing:.1f} signals/s.\n"
    )
    rng = random.Random(20261121)
    sample = units.join(signals.select("signal_id", "title"), on="signal_id")
    rows = sample.rows(named=True)
    print(f"{args.sample} random verified units (seed 20261121):\n")
    for row in rng.sample(rows, args.sample):
        snippets = "; ".join(
            f'"{e["text"]}"' + (" …" if e["truncated"] else "") for e in row["evidence"]
        )
        text = row["text"] if len(row["text"]) <= 300 else row["text"][:297] + "..."
        arg = f" `{row['argument_id']}`" if row["argument_id"] else ""
        print(f"- **{row['role']}**{arg} — _{row['title'][:80]}_: {text}  \n  evidence: {snippets}")


if __name__ == "__main__":
    main()
