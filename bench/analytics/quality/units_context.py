"""Central statements that lean on missing context: the share of signals whose thesis or
synopsis cannot stand alone (``analytics.standalone.leans_on_context``: a question, fewer than 6
words, a leading discourse marker, a leading pronoun whose referent is earlier), by kind of
source, on the shared podcasts and on the generated demo corpus; and the same share by the
stricter long-form reading (``strict=True``: "the same", "in that case", a third person not
named, a list announced and not given, a story's set-up). An event's central statement that is
its first sentence is read as a report's lead (``lead=True``), as the extractor reads it.

Usage: .venv/bin/python -m bench.analytics.quality.units_context ../shared/data [--episodes 55]
    [--examples 8] [--json F] [--sample F [--exclude JUDGED.json --seed N]]

The podcasts (distinct episodes: some files repeat another's video URL) are ingested, segmented
into topic segments and decomposed as a build does; the demo corpus is decomposed as generated.
Prints Markdown for docs/quality.md. ``--sample F`` writes, for hand-judging, every podcast
segment's central statement with its segment's text (first 4,000 characters; JSON lines,
seed-shuffled). With ``--exclude``, the sample leaves out the segments judged in that file
(every round) and is shuffled with ``--seed`` from the sorted signal ids: a held-out sample.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import polars as pl

from analytics.schema import SOURCES
from analytics.segment import TopicSegment, segment_transcript
from analytics.signals import extract_units, signals_from_sources
from analytics.standalone import leans_on_context
from analytics.text import split_document
from demo import generate_demo_corpus
from demo.files import write_demo_corpus
from warehouse.embeddings import load_minilm
from warehouse.ingest import ingest_paths
from warehouse.paths import DataDir
from warehouse.tables import read_table

CENTRAL = ("thesis", "synopsis")
LONG_FORM = ("podcast", "essay", "paper", "memo", "article")


def distinct_episodes(folder: Path, limit: int) -> list[Path]:
    chosen, urls = [], set()
    for path in sorted(folder.glob("*.md")):
        url = path.read_text(encoding="utf-8").split("youtube_url:", 1)[1].split("\n", 1)[0]
        if url.strip() not in urls:
            urls.add(url.strip())
            chosen.append(path)
        if len(chosen) == limit:
            break
    return chosen


def centrals(data: DataDir, embed: Any) -> pl.DataFrame:
    """Every signal of the data dir's sources with its central statement (null when none)."""
    sources = read_table(data, "sources", SOURCES)

    def segment(text: str, duration: int | None) -> list[TopicSegment]:
        return segment_transcript(text, embed, duration_s=duration)

    signals = signals_from_sources(sources, segment=segment)
    units = extract_units(signals, embed=embed).units
    central = units.filter(pl.col("role").is_in(CENTRAL)).select("signal_id", "text", "start_char")
    return with_lead(
        signals.select("signal_id", "kind", "content_type", "title", "text").join(
            central.rename({"text": "central"}), on="signal_id", how="left"
        )
    )


def with_lead(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` (``content_type``, ``text``, the central statement's ``start_char``) with
    ``lead``: the statement is an event's first sentence, which the extractor reads as a
    report's lead (``leans_on_context(lead=True)``), and so does this measure."""
    firsts = [
        sentences[0].end if (sentences := split_document(text or "")) else -1
        for text in frame["text"].to_list()
    ]
    return frame.with_columns(
        (
            (pl.col("content_type") == "event")
            & pl.col("start_char").is_not_null()
            & (pl.col("start_char") < pl.Series(firsts, dtype=pl.Int64))
        ).alias("lead")
    )


def report(name: str, frame: pl.DataFrame, examples: int, rng: random.Random) -> dict[str, Any]:
    rows = frame.filter(pl.col("central").is_not_null())
    pairs = list(zip(rows["central"].to_list(), rows["lead"].to_list(), strict=True))
    rows = rows.with_columns(
        pl.Series("why", [leans_on_context(t, lead=lead) for t, lead in pairs], pl.String),
        pl.Series(
            "strict", [leans_on_context(t, strict=True, lead=lead) for t, lead in pairs], pl.String
        ),
    )
    out: dict[str, Any] = {"corpus": name, "kinds": {}}
    print(f"\n### {name}\n")
    print(
        "| kind | signals with a central statement | lean on context | share | by reason "
        "| strict reading: lean | share |"
    )
    print("|---|---:|---:|---:|---|---:|---:|")
    for kind in [*sorted(rows["kind"].unique().to_list()), "all"]:
        part = rows if kind == "all" else rows.filter(pl.col("kind") == kind)
        leaning = part.filter(pl.col("why").is_not_null())
        strict = part.filter(pl.col("strict").is_not_null()).height
        reasons = Counter(leaning["why"].to_list())
        out["kinds"][kind] = {
            "signals": part.height,
            "leaning": leaning.height,
            "share": leaning.height / part.height if part.height else 0.0,
            "reasons": dict(reasons),
            "leaning_strict": strict,
            "share_strict": strict / part.height if part.height else 0.0,
        }
        by = ", ".join(f"{r} {n}" for r, n in reasons.most_common())
        print(
            f"| {kind} | {part.height} | {leaning.height} | "
            f"{leaning.height / max(part.height, 1):.3f} | {by} | {strict} | "
            f"{strict / max(part.height, 1):.3f} |"
        )
    shown = rows.filter(pl.col("why").is_not_null()).rows(named=True)
    if shown and examples:
        print(f"\nExamples ({min(examples, len(shown))} of {len(shown)}, seeded):\n")
        for row in rng.sample(shown, min(examples, len(shown))):
            print(f"- [{row['kind']}, {row['why']}] {row['central']}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("shared", type=Path)
    parser.add_argument("--episodes", type=int, default=55)
    parser.add_argument("--examples", type=int, default=8)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--sample", type=Path, help="write podcast segments for hand-judging")
    parser.add_argument(
        "--exclude", type=Path, help="judged JSON whose segments --sample leaves out (held out)"
    )
    parser.add_argument("--seed", type=int, default=20261127, help="shuffle seed with --exclude")
    args = parser.parse_args()
    embed = load_minilm()
    rng = random.Random(20261125)
    results = []
    with tempfile.TemporaryDirectory(prefix="aimi-units-context-") as tmp:
        podcasts = DataDir(Path(tmp) / "podcasts")
        episodes = distinct_episodes(args.shared / "podcasts", args.episodes)
        ingest_paths(podcasts, episodes, progress=False)
        shared = centrals(podcasts, embed)
        demo = DataDir(Path(tmp) / "demo")
        write_demo_corpus(generate_demo_corpus(), demo.inbox / "demo")
        ingest_paths(demo, [demo.inbox / "demo"], progress=False)
        generated = centrals(demo, embed)
    print(f"{len(episodes)} distinct episodes → {shared.height} podcast segments")
    results.append(report("Shared podcasts", shared, args.examples, rng))
    results.append(report("Demo corpus", generated, args.examples, rng))
    long_form = generated.filter(pl.col("kind").is_in(LONG_FORM))
    results.append(report("Demo corpus, long-form only", long_form, 0, rng))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    if args.sample:
        rows = shared.filter(pl.col("central").is_not_null()).rows(named=True)
        if args.exclude:
            judged = json.loads(args.exclude.read_text(encoding="utf-8"))
            seen = {j["signal_id"] for r in judged["rounds"] for j in r["judgments"]}
            rows = sorted(
                (r for r in rows if r["signal_id"] not in seen), key=lambda r: r["signal_id"]
            )
            random.Random(args.seed).shuffle(rows)
        else:
            rng.shuffle(rows)
        with args.sample.open("w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(
                    json.dumps(
                        {
                            "signal_id": row["signal_id"],
                            "title": row["title"],
                            "central": row["central"],
                            "segment": row["text"][:4000],
                        },
                        ensure_ascii=False,
                    )
                    + "\n"
                )


if __name__ == "__main__":
    main()
