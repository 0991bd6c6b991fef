"""Whole-source search (issue 30), measured: what a reader types when they remember *part* of a
post — its exact title, the first half of the title, 60 % of the title's content words, six
consecutive words from the middle of its text, and those six with one inside left out (a word
the reader forgot) — against the executor with and without the source legs, at several floors,
and against two peers over the same sources, in one run.
The known-item and topical sets of ``run.py`` are scored in the same run.

Usage: .venv/bin/python -m bench.search.quality.sources [DATA_DIR] [--draw] [--cache DIR]
       [--floors 1.5:1.5,1.7:1.5,2:2] [--per-query FILE] [--embed-only]

MiniLM over the queries and the sources is cached in ``--cache`` (about half an hour for 11k
AINews sources on a busy 2-core machine; ``--embed-only`` does just that).

DATA_DIR (default /tmp/ainews-full) must hold a current snapshot and the warehouse ``signals``
table it was built from (each signal's complete text: the snapshot serves units, not texts).

- Sets (``partial_queries.json``, ids and recipes only: the corpus may not be redistributed):
  two disjoint seeded samples of served signals, ``choose`` (the floors are chosen on it) and
  ``held-out`` (looked at after the choice). Eligible: a title of ≥ 4 words with ≥ 3 content
  words, unique among the served titles (case-folded), and a text of ≥ 24 words. ``--draw``
  redraws both from their seeds and rewrites the ids. Every query is rebuilt from the
  snapshot's title and the warehouse's text by the recipes below (``queries``).
- Relevant: the signal. Our systems hit when any of its units is in the top 10 (the API
  defaults: limit 10, diversity cap 2, copies collapsed); the peers when the signal is.
- Systems: ``today`` the executor before the source legs (unit BM25 with the title field,
  MiniLM over units, title match); ``shipped`` the executor with its defaults; ``source T/P``
  with the source legs at title floor T and passage floor P (``retrieval.engine.CONTAINED_FLOORS``
  ships one pair) and the verbatim rule off unless named (``retrieval.engine.VERBATIM_RANK``);
  ``source legs alone`` those legs (and the verbatim rule) by themselves; ``BM25/source``
  plain BM25 over "title + text" per signal in tantivy (one field, the index's ``en_stem``
  analyzer, the query's terms OR-ed, stop words dropped); ``BM25+MiniLM/source`` that and
  MiniLM cosine over "title. text" per signal, fused by RRF (k = 60, depth 100).
- Intervals: 95 % percentile bootstrap (10,000 resamples, seeded) of each mean, and of the
  paired difference to ``BM25/source`` on the partial sets.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import polars as pl

from analytics.copies import copy_of
from analytics.schema import SIGNALS
from bench.search.quality.run import (
    DIVERSITY_CAP,
    JUDGMENTS,
    K,
    Scores,
    TopicalQuery,
    _max_by,
    load_judgments,
    mean,
    ndcg_at,
    paired_interval,
    recall_at,
    topical_scores,
    unjudged_in_top,
)
from retrieval.engine import RRF_K, VERBATIM_SLOP, SearchIndex, SearchRequest
from retrieval.engine import Variant as Ranking
from retrieval.index import query_analyzer, query_terms
from warehouse.embeddings import load_minilm
from warehouse.paths import DataDir
from warehouse.snapshot import open_current
from warehouse.tables import read_table

PARTIAL = Path(__file__).resolve().parent / "partial_queries.json"
DEFAULT_DATA_DIR = "/tmp/ainews-full"
DEFAULT_CACHE = "/tmp/aimi-sources-bench"
DEPTH = 100


class Setting(NamedTuple):
    """The source legs of one system: title and passage floors, optionally each leg's floor when
    it found exactly one signal (title, passage) or the rank a lifted unit scores at least, and
    the verbatim rule's rank (None: off) and slop."""

    floors: tuple[float, float]
    unique: tuple[float, float] | None = None
    lift_rank: int | None = None
    verbatim: int | None = None
    slop: int = VERBATIM_SLOP


# a system: its legs and its source-leg setting (None: the executor's defaults, as shipped)
Variant = tuple[tuple[str, ...], Setting | None]
RESAMPLES = 10_000
KINDS = {
    "exact": "the exact title",
    "half": "the first half of the title",
    "content60": "60 % of the title's content words",
    "middle6": "six consecutive words from the middle of the text",
    "gapped": "those six words with one inside left out",
}
MIN_TITLE_WORDS = 4
MIN_CONTENT_WORDS = 3
MIN_TEXT_WORDS = 24


# -- the sets ------------------------------------------------------------------------------


def content_words(title: str) -> list[str]:
    """The title's words (split on white space) that are not stop words to the index."""
    analyzer = query_analyzer(stop_words=True)
    return [word for word in title.split() if analyzer.analyze(word)]


def queries(signal_id: str, title: str, text: str, seed: int) -> dict[str, str]:
    """The four queries for one signal, by recipe (deterministic given the seed)."""
    words = title.split()
    content = content_words(title)
    take = math.ceil(0.6 * len(content))
    chosen = sorted(random.Random(f"{seed}:{signal_id}").sample(range(len(content)), take))
    body = text.split()
    middle = len(body) // 2
    line = body[middle - 3 : middle + 3]
    # a reader who forgets a word: never the first or the last (that would leave a run of five)
    gap = random.Random(f"{seed}:{signal_id}:gap").randrange(1, 5)
    return {
        "exact": title,
        "half": " ".join(words[: len(words) // 2]),
        "content60": " ".join(content[i] for i in chosen),
        "middle6": " ".join(line),
        "gapped": " ".join(line[:gap] + line[gap + 1 :]),
    }


def eligible(served: pl.DataFrame) -> list[str]:
    """Signal ids whose title and text make every query kind meaningful."""
    folded = served["title"].str.to_lowercase()
    unique = set(served.filter(folded.is_unique())["signal_id"].to_list())
    return sorted(
        signal_id
        for signal_id, title, text in served.select("signal_id", "title", "text").iter_rows()
        if signal_id in unique
        and len(title.split()) >= MIN_TITLE_WORDS
        and len(content_words(title)) >= MIN_CONTENT_WORDS
        and len(text.split()) >= MIN_TEXT_WORDS
    )


def draw(spec: dict[str, Any], candidates: list[str]) -> dict[str, list[str]]:
    """Two disjoint samples: ``choose`` then ``held-out``, each drawn with its own seed."""
    pool = list(candidates)
    out = {}
    for name in ("choose", "held-out"):
        chosen = sorted(random.Random(spec["sets"][name]["seed"]).sample(pool, spec["size"]))
        out[name] = chosen
        pool = [c for c in pool if c not in set(chosen)]
    return out


# -- peers ---------------------------------------------------------------------------------


class Peers:
    """Plain BM25 over "title + text" per signal (tantivy), and that fused with MiniLM over
    "title. text" per signal (RRF): the two systems a plain document index would be."""

    def __init__(self, served: pl.DataFrame, cache: Path, tag: str, *, dense: bool) -> None:
        import tantivy

        self.signal_ids: list[str] = served["signal_id"].to_list()
        builder = tantivy.SchemaBuilder()
        builder.add_unsigned_field("doc", stored=False, indexed=False, fast=True)
        builder.add_text_field("body", stored=False, tokenizer_name="en_stem")
        self.schema = builder.build()
        folder = cache / f"{tag}-bm25"
        if not folder.is_dir():
            folder.mkdir(parents=True)
            index = tantivy.Index(self.schema, path=str(folder), reuse=False)
            writer = index.writer(heap_size=128_000_000, num_threads=1)
            for doc, (title, text) in enumerate(served.select("title", "text").iter_rows()):
                document = tantivy.Document()
                document.add_unsigned("doc", doc)
                document.add_text("body", f"{title}\n{text}")
                writer.add_document(document)
            writer.commit()
            writer.wait_merging_threads()
        self.index = tantivy.Index.open(str(folder))
        self.searcher = self.index.searcher()
        self.vectors = (
            None
            if not dense
            else _cached(
                cache / f"{tag}-sources.npy",
                lambda: load_minilm()(
                    [f"{t}. {x}" for t, x in served.select("title", "text").iter_rows()],
                    progress=True,
                ).astype(np.float32),
            )
        )

    def bm25(self, query: str, depth: int = DEPTH) -> list[str]:
        import tantivy

        terms = query_terms(query)
        if not terms:
            return []
        union = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Should, tantivy.Query.term_query(self.schema, "body", t))
                for t in terms
            ]
        )
        hits = self.searcher.search(union, depth, count=False).hits
        docs = self.searcher.fast_field_values("doc", [a for _s, a in hits])
        return [self.signal_ids[d] for d in docs if isinstance(d, int)]

    def hybrid(self, query: str, vector: np.ndarray, depth: int = DEPTH) -> list[str]:
        assert self.vectors is not None
        scores: dict[str, float] = {}
        sims = self.vectors @ vector
        top = np.argsort(-sims, kind="stable")[:depth]
        dense = [self.signal_ids[int(i)] for i in top]
        for ranked in (self.bm25(query, depth), dense):
            for rank, signal_id in enumerate(ranked, start=1):
                scores[signal_id] = scores.get(signal_id, 0.0) + 1.0 / (RRF_K + rank)
        return sorted(scores, key=lambda s: (-scores[s], s))


# -- our executor --------------------------------------------------------------------------


def setting(text: str) -> Setting:
    """``title:passage``, then optionally ``one-title:one-passage`` or ``rank``, then
    optionally ``vK`` or ``vK~S`` (the verbatim rule at rank K, with slop S)."""
    parts = text.split(":")
    verbatim, slop = None, VERBATIM_SLOP
    if parts[-1].startswith("v"):
        rank, _tilde, given = parts.pop()[1:].partition("~")
        verbatim, slop = int(rank), int(given or VERBATIM_SLOP)
    values = [float(part) for part in parts]
    if len(values) not in (2, 3, 4):
        raise ValueError(f"not a source-leg setting: {text!r}")
    return Setting(
        (values[0], values[1]),
        unique=(values[2], values[3]) if len(values) == 4 else None,
        lift_rank=int(values[2]) if len(values) == 3 else None,
        verbatim=verbatim,
        slop=slop,
    )


def variant_name(chosen: Setting) -> str:
    """A setting's name in the tables: title/passage floors, then the rules it adds."""
    name = f"source {chosen.floors[0]:g}/{chosen.floors[1]:g}"
    if chosen.unique is not None:
        name += f" (one signal: {chosen.unique[0]:g}/{chosen.unique[1]:g})"
    if chosen.lift_rank is not None:
        name += f" (at least rank {chosen.lift_rank})"
    if chosen.verbatim is not None:
        name += f" (verbatim at rank {chosen.verbatim}, slop {chosen.slop})"
    return name


def variants(settings: Sequence[Setting]) -> dict[str, Variant]:
    out: dict[str, Variant] = {
        "today": (("lexical", "dense", "title"), None),
        "shipped": (("lexical", "dense", "title", "source"), None),
    }
    for chosen in settings:
        out[variant_name(chosen)] = (("lexical", "dense", "title", "source"), chosen)
    out["source legs alone"] = (("source",), None)
    return out


def ranked_units(
    index: SearchIndex,
    legs: tuple[str, ...],
    chosen: Setting | None,
    query: str,
    vector: np.ndarray,
    limit: int = K,
) -> tuple[list[int], float]:
    """Rows of the top ``limit`` and the search's wall time in ms."""
    request = SearchRequest(
        query_vector=vector, query_text=query, limit=limit, diversity_cap=DIVERSITY_CAP
    )
    ranking = Ranking(legs=legs)
    if chosen is not None:
        ranking = replace(
            ranking,
            floors=chosen.floors,
            unique_floors=chosen.unique,
            lift_rank=chosen.lift_rank,
            verbatim_rank=chosen.verbatim,
            verbatim_slop=chosen.slop,
        )
    started = time.perf_counter()
    hits = index.search(request, ranking)
    return [hit.row for hit in hits], 1000 * (time.perf_counter() - started)


# -- statistics ----------------------------------------------------------------------------


def interval(values: Sequence[float]) -> tuple[float, float]:
    data = np.asarray(values, dtype=np.float64)
    rng = np.random.default_rng(0)
    means = data[rng.integers(0, len(data), size=(RESAMPLES, len(data)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def cell(values: Sequence[float]) -> str:
    low, high = interval(values)
    return f"{mean(values):.3f} [{low:.3f}, {high:.3f}]"


def diff_cell(ours: Sequence[float], peer: Sequence[float]) -> str:
    diffs = [a - b for a, b in zip(ours, peer, strict=True)]
    low, high = paired_interval(diffs)
    return f"{mean(diffs):+.3f} [{low:+.3f}, {high:+.3f}]"


def _cached(path: Path, make: Callable[[], np.ndarray]) -> np.ndarray:
    if path.is_file():
        loaded: np.ndarray = np.load(path)
        return loaded
    array = make()
    np.save(path, array)
    return array


# -- main ----------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("data_dir", nargs="?", default=DEFAULT_DATA_DIR)
    parser.add_argument("--draw", action="store_true", help="redraw the sets from their seeds")
    parser.add_argument("--cache", type=Path, default=Path(DEFAULT_CACHE))
    parser.add_argument(
        "--floors",
        default="1.5:1.5,1.7:1.5,2:2",
        help="source-leg settings to compare, title:passage[:one-title:one-passage] (the last "
        "two: the floors when a leg found exactly one signal; or title:passage:rank, a lifted unit "
        "scoring at least the rank-th fused score), each optionally ending :vK (the verbatim rule "
        "at rank K; without it the rule is off), comma-separated; 'today' and the executor as "
        "shipped are always measured",
    )
    parser.add_argument("--per-query", type=Path, help="write per-query hits as JSON (no text)")
    parser.add_argument(
        "--embed-only", action="store_true", help="embed the queries and sources into --cache"
    )
    parser.add_argument(
        "--no-dense-peer", action="store_true", help="leave out BM25+MiniLM over sources"
    )
    args = parser.parse_args()

    data = DataDir.from_env(args.data_dir)
    opened = open_current(data)
    if opened is None:
        sys.exit(f"{args.data_dir} has no published snapshot")
    units = opened.read_table("search_units").select("unit_id", "signal_id")
    served_ids = units["signal_id"].unique()
    texts = read_table(data, "signals", SIGNALS).select("signal_id", "text")
    served = (
        opened.read_table("signals")
        .select("signal_id", "title")
        .filter(pl.col("signal_id").is_in(served_ids.implode()))
        .join(texts, on="signal_id", how="left")
        .sort("signal_id")
    )
    if served["text"].null_count():
        sys.exit("the warehouse's signals table lacks texts of served signals: rebuild")
    spec = json.loads(PARTIAL.read_text(encoding="utf-8"))
    if args.draw:
        drawn = draw(spec, eligible(served))
        for name, ids in drawn.items():
            spec["sets"][name]["signal_ids"] = ids
        spec["drawn_from_snapshot"] = opened.snapshot_id
        PARTIAL.write_text(json.dumps(spec, indent=1, ensure_ascii=False) + "\n", "utf-8")
        print(f"drew {', '.join(f'{n}: {len(i)}' for n, i in drawn.items())} into {PARTIAL}")
        return
    missing = [
        s for part in spec["sets"].values() for s in part["signal_ids"] if s not in set(served_ids)
    ]
    if missing:
        sys.exit(f"{len(missing)} drawn signals are not served by {opened.snapshot_id}")

    args.cache.mkdir(parents=True, exist_ok=True)
    tag = opened.snapshot_id
    index = SearchIndex(opened, opened.manifest.as_of)
    embed = load_minilm()
    title_of = dict(served.select("signal_id", "title").iter_rows())
    text_of = dict(served.select("signal_id", "text").iter_rows())
    signal_of_row = units["signal_id"].to_list()
    row_signal = np.asarray(signal_of_row)

    # every query of every set, embedded once
    partial: dict[str, dict[str, list[str]]] = {}  # set -> kind -> queries
    for name, part in spec["sets"].items():
        built = [queries(s, title_of[s], text_of[s], part["seed"]) for s in part["signal_ids"]]
        partial[name] = {kind: [q[kind] for q in built] for kind in KINDS}
    judgments = load_judgments(JUDGMENTS)
    known_titles = [title_of[s] for s in judgments.known_item.signal_ids]
    topical_queries = [q.query for q in judgments.topical]
    all_queries = sorted(
        {q for by_kind in partial.values() for qs in by_kind.values() for q in qs}
        | set(known_titles)
        | set(topical_queries)
    )
    vectors = _cached(
        args.cache / f"{tag}-queries-{len(all_queries)}.npy", lambda: embed(all_queries)
    )
    vector_of = dict(zip(all_queries, vectors, strict=True))
    # MiniLM over every source: long the first time
    peers = Peers(served, args.cache, tag, dense=not args.no_dense_peer)
    if args.embed_only:
        return

    systems = variants([setting(text) for text in args.floors.split(",")])
    timings: dict[str, list[float]] = {name: [] for name in systems}
    hits: dict[str, dict[str, dict[str, list[float]]]] = {}  # set -> kind -> system -> 0/1
    for name, by_kind in partial.items():
        hits[name] = {}
        for kind, qs in by_kind.items():
            relevant = spec["sets"][name]["signal_ids"]
            table: dict[str, list[float]] = {}
            for system, (legs, floor) in systems.items():
                found = []
                for query, signal_id in zip(qs, relevant, strict=True):
                    rows, ms = ranked_units(index, legs, floor, query, vector_of[query])
                    timings[system].append(ms)
                    found.append(float(signal_id in set(row_signal[rows].tolist())))
                table[system] = found
            table["BM25/source"] = [
                float(s in peers.bm25(q)[:K]) for q, s in zip(qs, relevant, strict=True)
            ]
            if peers.vectors is not None:
                table["BM25+MiniLM/source"] = [
                    float(s in peers.hybrid(q, vector_of[q])[:K])
                    for q, s in zip(qs, relevant, strict=True)
                ]
            hits[name][kind] = table

    # -- report -----------------------------------------------------------------------------
    sizes = ", ".join(f"{n} {len(p['signal_ids'])}" for n, p in spec["sets"].items())
    print(f"Snapshot {opened.snapshot_id}; {len(served)} served signals; sets: {sizes}.\n")
    for name in partial:
        print(f"### {name}: hit@{K} (95 % bootstrap interval)\n")
        peer_names = [p for p in ("BM25/source", "BM25+MiniLM/source") if p in hits[name]["exact"]]
        names = [*systems, *peer_names]
        print("| system | " + " | ".join(KINDS.values()) + " |")
        print("|---|" + "---|" * len(KINDS))
        for system in names:
            print(
                f"| {system} | "
                + " | ".join(cell(hits[name][kind][system]) for kind in KINDS)
                + " |"
            )
        print()
        print(f"Minus BM25/source (paired, 95 % interval), {name}:\n")
        print("| system | " + " | ".join(KINDS.values()) + " |")
        print("|---|" + "---|" * len(KINDS))
        for system in names:
            if system == "BM25/source":
                continue
            print(
                f"| {system} | "
                + " | ".join(
                    diff_cell(hits[name][kind][system], hits[name][kind]["BM25/source"])
                    for kind in KINDS
                )
                + " |"
            )
        print()
    sys.stdout.flush()

    # known-item (judgments.json's signal titles) and topical, for our systems
    units_by_signal: dict[str, set[str]] = {}
    for unit_id, signal_id in units.iter_rows():
        units_by_signal.setdefault(signal_id, set()).add(unit_id)
    frame = opened.read_table("search_units")
    if "copy_of" not in frame.columns:
        frame = frame.with_columns(copy_of(frame))
    group_of: dict[str, str] = dict(frame.select("unit_id", "copy_of").iter_rows())
    # units graded on an earlier build that this one re-extracted (their text, so their id,
    # changed) are not in the snapshot: their grades are left out, and were they shown they
    # would count as ungraded (0)
    absent = [(q.query_id, u) for q in judgments.topical for u in q.grades if u not in group_of]
    by_text = [
        TopicalQuery(
            q.query_id,
            q.query,
            _max_by(group_of, {u: g for u, g in q.grades.items() if u in group_of}),
        )
        for q in judgments.topical
    ]
    known: dict[str, list[Scores]] = {}
    topical_ranked: dict[str, list[list[str]]] = {}
    # the unit legs alone too: hybrid must still beat each leg on the topical set
    with_legs: dict[str, Variant] = {
        **systems,
        "lexical": (("lexical",), None),
        "dense": (("dense",), None),
    }
    for system, (legs, floor) in with_legs.items():
        known[system] = []
        for title, signal_id in zip(known_titles, judgments.known_item.signal_ids, strict=True):
            rows, _ms = ranked_units(index, legs, floor, title, vector_of[title])
            ranking = [index.unit_ids[r] for r in rows]
            relevant = units_by_signal[signal_id]
            known[system].append(
                Scores(
                    hit=float(bool(relevant.intersection(ranking))),
                    recall=recall_at(ranking, relevant),
                    ndcg=ndcg_at(ranking, dict.fromkeys(relevant, 1.0)),
                )
            )
        topical_ranked[system] = [
            [
                group_of[index.unit_ids[r]]
                for r in ranked_units(index, legs, floor, q, vector_of[q])[0]
            ]
            for q in topical_queries
        ]
    topical = topical_scores(topical_ranked, by_text)
    unjudged = unjudged_in_top(topical_ranked, by_text)

    print(f"### Known-item ({len(known_titles)} signal titles) and topical ({len(by_text)})\n")
    graded = sum(len(q.grades) for q in judgments.topical)
    print(f"({len(absent)} of {graded} graded units are not in this snapshot; left out.)\n")
    print(
        f"| system | known-item hit@{K} | known-item nDCG@{K} | topical nDCG@{K} | "
        f"topical recall@{K} | topical minus today, nDCG@{K} | ungraded in top {K} |"
    )
    print("|---|---|---|---|---|---|---:|")
    for system in with_legs:
        ndcg = [s.ndcg for s in topical[system]]
        base = [s.ndcg for s in topical["today"]]
        ungraded = sum(1 for _q, sys_name, _u in unjudged if sys_name == system)
        print(
            f"| {system} | {cell([s.hit for s in known[system]])} | "
            f"{cell([s.ndcg for s in known[system]])} | {cell(ndcg)} | "
            f"{cell([s.recall for s in topical[system]])} | {diff_cell(ndcg, base)} | "
            f"{ungraded} |"
        )
    print()
    print("### In-process search time (ms, all partial queries): p50 / p90\n")
    for system, values in timings.items():
        q = statistics.quantiles(values, n=10)
        print(f"- {system}: {statistics.median(values):.2f} / {q[8]:.2f}")
    if args.per_query:
        args.per_query.write_text(
            json.dumps({"partial": hits, "topical_unjudged": unjudged}, indent=1), "utf-8"
        )


if __name__ == "__main__":
    main()
