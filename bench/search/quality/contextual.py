"""Contextual indexing, measured: what to index for a unit besides its own text, chosen on the
known-item and topical sets of ``run.py`` (docs/design.md §8: what is indexed may carry the signal's
context; what is returned is the unit as served).

Usage: .venv/bin/python -m bench.search.quality.contextual [DATA_DIR] [--cache DIR]

Builds the candidate indexes beside the snapshot (in ``--cache``, default
``/tmp/aimi-contextual``; embeddings are cached there), then scores every variant with the API
defaults (limit 10, diversity cap 2, copies collapsed) on

- the known-item sets: social posts' titles (≥ 4 words) drawn with two seeds, one to choose by
  and one held out, and the signal-title sample of ``judgments.json``;
- the topical set of ``judgments.json`` (grades are per text: a copy of a graded unit carries
  its grade).

Legs (each a ranked list of unit rows, depth 100, fused by RRF k = 60):
  lex        BM25 over the unit text (the lexical leg before contextual indexing)
  dense      cosine of MiniLM(unit text) (the dense leg, unchanged)
  lex+t{w}   BM25 over the unit text and the signal title as a second field, title boosted w
  ctx        cosine of MiniLM("title. unit text")
  sig        one signal-level leg: RRF of BM25 and cosine over the signals' titles, each
             signal's units taking its rank
  title match  signals whose title and the query share ≥ 80 % of each one's terms (tm: title
             vectors' cosine ≥ a threshold instead), each signal's units taking its rank
Prints a Markdown table per set and paired bootstrap intervals against the executor before
contextual indexing; "as served" is the executor as it now is.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from analytics.copies import copy_of, normalized_text
from bench.search.quality.run import (
    JUDGMENTS,
    K,
    dcg,
    load_judgments,
    mean,
    ndcg_at,
    paired_interval,
)
from retrieval.engine import RRF_K, SearchFilters, SearchIndex, SearchRequest, query_terms
from warehouse.embeddings import load_minilm
from warehouse.paths import DataDir
from warehouse.snapshot import open_current

DEPTH = 100
CAP = 2
KNOWN_ITEM_SIZE = 300
SEEDS = {"choose": 20261125, "held-out": 20261126}

Ranked = list[int]


class Context:
    """The snapshot's rows with their signal context, and every index a leg needs."""

    def __init__(self, data_dir: str, cache: Path) -> None:
        import tantivy

        opened = open_current(DataDir.from_env(data_dir))
        if opened is None:
            sys.exit(f"{data_dir} has no snapshot")
        self.opened = opened
        self.index = SearchIndex(opened, opened.manifest.as_of)
        # the shipped index's own lexical leg has the title field since issue 15: "lex" here is
        # the unit text alone, as before; "as served" below is the whole executor
        self.served = SearchIndex(opened, opened.manifest.as_of)
        self.index.title_field = False
        frame = opened.read_table("search_units")
        if "copy_of" not in frame.columns:
            frame = frame.with_columns(copy_of(frame))
        signals = opened.read_table("signals").select("signal_id", "title")
        frame = frame.join(signals, on="signal_id", how="left", maintain_order="left")
        self.frame = frame
        self.keys = frame.select(normalized_text(pl.col("text"))).to_series().to_list()
        self.signal_ids: list[str] = frame["signal_id"].to_list()
        self.titles: list[str] = frame["title"].to_list()
        ordered = frame.select("signal_id", "title").unique("signal_id", maintain_order=True)
        self.sig_ids: list[str] = ordered["signal_id"].to_list()
        self.sig_titles: list[str] = ordered["title"].to_list()
        sig_code = {s: i for i, s in enumerate(self.sig_ids)}
        self.rows_of_sig: list[list[int]] = [[] for _ in self.sig_ids]
        for row, s in enumerate(self.signal_ids):
            self.rows_of_sig[sig_code[s]].append(row)
        self.title_terms: list[frozenset[str]] | None = None
        cache.mkdir(parents=True, exist_ok=True)
        tag = opened.snapshot_id
        embed = load_minilm()
        self.ctx_vectors = _cached(
            cache / f"{tag}-ctx.npy",
            lambda: embed(
                [f"{t}. {x}" for t, x in zip(self.titles, frame["text"], strict=True)],
                progress=True,
            ),
        )
        self.title_vectors = _cached(
            cache / f"{tag}-titles.npy", lambda: embed(self.sig_titles, progress=True)
        )
        # lexical: unit text + title as two fields; signal titles alone
        schema = tantivy.SchemaBuilder()
        schema.add_unsigned_field("row", stored=False, indexed=False, fast=True)
        schema.add_text_field("text", stored=False, tokenizer_name="en_stem")
        schema.add_text_field("title", stored=False, tokenizer_name="en_stem")
        self.unit_schema = schema.build()
        self.unit_lex = _tantivy(
            cache / f"{tag}-units",
            self.unit_schema,
            ({"text": x, "title": t} for x, t in zip(frame["text"], self.titles, strict=True)),
        )
        schema = tantivy.SchemaBuilder()
        schema.add_unsigned_field("row", stored=False, indexed=False, fast=True)
        schema.add_text_field("title", stored=False, tokenizer_name="en_stem")
        self.sig_schema = schema.build()
        self.sig_lex = _tantivy(
            cache / f"{tag}-signals", self.sig_schema, ({"title": t} for t in self.sig_titles)
        )

    # -- legs ------------------------------------------------------------------------------

    def lex(self, query: str) -> Ranked:
        return self.index.lexical_leg(query, SearchFilters(), DEPTH)

    def dense(self, vector: np.ndarray) -> Ranked:
        return self.index.dense_leg(vector, None, DEPTH)[0]

    def ctx(self, vector: np.ndarray) -> Ranked:
        scores = self.ctx_vectors @ vector
        return [int(r) for r in np.argsort(-scores, kind="stable")[:DEPTH]]

    def lex_title(self, query: str, weight: float) -> Ranked:
        import tantivy

        terms = query_terms(query)
        if not terms:
            return []
        clauses = []
        for term in terms:
            clauses.append(
                (tantivy.Occur.Should, tantivy.Query.term_query(self.unit_schema, "text", term))
            )
            title = tantivy.Query.term_query(self.unit_schema, "title", term)
            clauses.append((tantivy.Occur.Should, tantivy.Query.boost_query(title, weight)))
        return _ranked(self.unit_lex, tantivy.Query.boolean_query(clauses), DEPTH)

    def sig(self, query: str, vector: np.ndarray) -> Ranked:
        """Signals by RRF of title BM25 and title cosine; each signal's units at its rank, as
        one flat list (a unit's rank is its signal's)."""
        import tantivy

        terms = query_terms(query)
        fused: dict[int, float] = {}
        if terms:
            union = tantivy.Query.boolean_query(
                [
                    (tantivy.Occur.Should, tantivy.Query.term_query(self.sig_schema, "title", t))
                    for t in terms
                ]
            )
            for rank, s in enumerate(_ranked(self.sig_lex, union, DEPTH), start=1):
                fused[s] = fused.get(s, 0.0) + 1 / (RRF_K + rank)
        scores = self.title_vectors @ vector
        for rank, s in enumerate(np.argsort(-scores, kind="stable")[:DEPTH].tolist(), start=1):
            fused[s] = fused.get(s, 0.0) + 1 / (RRF_K + rank)
        order = sorted(fused, key=lambda s: (-fused[s], s))[:DEPTH]
        return [row for s in order for row in self.rows_of_sig[s]]

    def title_match(self, vector: np.ndarray, threshold: float) -> dict[int, int]:
        """Signals whose title's cosine with the query is at least ``threshold``, best first;
        each signal's units take its rank. Empty for most topical queries."""
        scores = self.title_vectors @ vector
        matched = np.flatnonzero(scores >= threshold)
        order = matched[np.lexsort((matched, -scores[matched]))][:DEPTH]
        return {
            row: rank
            for rank, s in enumerate(order.tolist(), start=1)
            for row in self.rows_of_sig[s]
        }

    def title_overlap(self, query: str, share: float) -> dict[int, int]:
        """Signals whose title and the query share at least ``share`` of each one's terms (the
        index's analyzer, stop words dropped), best overlap first; units at their signal's
        rank. A lexical stand-in for ``title_match``."""
        terms = set(query_terms(query))
        if not terms:
            return {}
        if self.title_terms is None:
            self.title_terms = [frozenset(query_terms(t)) for t in self.sig_titles]
        found = []
        for s, title in enumerate(self.title_terms):
            common = len(terms & title)
            if common and common >= share * len(terms) and common >= share * len(title):
                found.append((-common / max(len(terms), len(title)), s))
        found.sort()
        return {
            row: rank
            for rank, (_o, s) in enumerate(found[:DEPTH], start=1)
            for row in self.rows_of_sig[s]
        }

    def sig_ranks(self, query: str, vector: np.ndarray) -> dict[int, int]:
        """The ``sig`` leg as row → rank (shared by a signal's units)."""
        ranks: dict[int, int] = {}
        rank = 0
        last_signal = None
        for row in self.sig(query, vector):
            signal = self.signal_ids[row]
            if signal != last_signal:
                rank += 1
                last_signal = signal
            ranks[row] = rank
        return ranks

    # -- fusion ----------------------------------------------------------------------------

    def finish(self, scores: dict[int, float]) -> list[str]:
        """Top 10 under the API defaults: ties by unit id, copies collapsed, cap 2 per signal."""
        ids = self.index.unit_ids
        order = sorted(scores, key=lambda r: (-scores[r], ids[r]))
        shown: set[str] = set()
        per_signal: dict[str, int] = {}
        out: list[str] = []
        for row in order:
            key = self.keys[row]
            if key in shown:
                continue
            shown.add(key)
            first = int(self.index.copies(row)[0])
            signal = self.signal_ids[first]
            if per_signal.get(signal, 0) >= CAP:
                continue
            per_signal[signal] = per_signal.get(signal, 0) + 1
            out.append(ids[first])
            if len(out) == K:
                break
        return out


def _cached(path: Path, make: Callable[[], np.ndarray]) -> np.ndarray:
    if path.is_file():
        return np.load(path)
    vectors = np.asarray(make(), dtype=np.float32)
    np.save(path, vectors)
    return vectors


def _tantivy(path: Path, schema: Any, docs: Any) -> Any:
    import tantivy

    if path.is_dir():
        return tantivy.Index.open(str(path))
    path.mkdir(parents=True)
    index = tantivy.Index(schema, path=str(path))
    writer = index.writer(heap_size=256_000_000, num_threads=1)
    for row, fields in enumerate(docs):
        doc = tantivy.Document()
        doc.add_unsigned("row", row)
        for name, value in fields.items():
            doc.add_text(name, value)
        writer.add_document(doc)
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return index


def _ranked(index: Any, query: Any, depth: int) -> Ranked:
    searcher = index.searcher()
    hits = searcher.search(query, depth, count=False).hits
    if not hits:
        return []
    return [int(r) for r in searcher.fast_field_values("row", [a for _s, a in hits])]


def rrf(*legs: Ranked | dict[int, int]) -> dict[int, float]:
    scores: dict[int, float] = {}
    for leg in legs:
        pairs = leg.items() if isinstance(leg, dict) else enumerate(leg, start=1)
        for a, b in pairs:
            row, rank = (a, b) if isinstance(leg, dict) else (b, a)
            scores[row] = scores.get(row, 0.0) + 1.0 / (RRF_K + rank)
    return scores


def as_served(c: Context, q: str, v: np.ndarray) -> dict[int, float]:
    """The executor as shipped, its fused scores before the cap (``finish`` applies it)."""
    request = SearchRequest(query_vector=v, query_text=q, limit=DEPTH, diversity_cap=DEPTH)
    return {hit.row: hit.score for hit in c.served.search(request)}


VARIANTS: dict[str, Callable[[Context, str, np.ndarray], dict[int, float]]] = {
    "before: lex + dense": lambda c, q, v: rrf(c.lex(q), c.dense(v)),
    "as served (lex+t0.5 + dense + title match)": as_served,
    "lex alone": lambda c, q, _v: rrf(c.lex(q)),
    "dense alone": lambda c, _q, v: rrf(c.dense(v)),
    "lex+t1 + dense": lambda c, q, v: rrf(c.lex_title(q, 1.0), c.dense(v)),
    "lex+t0.5 + dense": lambda c, q, v: rrf(c.lex_title(q, 0.5), c.dense(v)),
    "lex + ctx": lambda c, q, v: rrf(c.lex(q), c.ctx(v)),
    "lex+t1 + ctx": lambda c, q, v: rrf(c.lex_title(q, 1.0), c.ctx(v)),
    "lex+t0.5 + ctx": lambda c, q, v: rrf(c.lex_title(q, 0.5), c.ctx(v)),
    "lex+t1 alone": lambda c, q, _v: rrf(c.lex_title(q, 1.0)),
    "ctx alone": lambda c, _q, v: rrf(c.ctx(v)),
    "lex + dense + sig": lambda c, q, v: rrf(c.lex(q), c.dense(v), c.sig_ranks(q, v)),
    "lex + ctx + sig": lambda c, q, v: rrf(c.lex(q), c.ctx(v), c.sig_ranks(q, v)),
    "lex+t0.5 + dense + ctx": lambda c, q, v: rrf(c.lex_title(q, 0.5), c.dense(v), c.ctx(v)),
    "lex+t0.25 + dense": lambda c, q, v: rrf(c.lex_title(q, 0.25), c.dense(v)),
    "lex+t0.25 + dense + ctx": lambda c, q, v: rrf(c.lex_title(q, 0.25), c.dense(v), c.ctx(v)),
    "lex+t1 + dense + ctx": lambda c, q, v: rrf(c.lex_title(q, 1.0), c.dense(v), c.ctx(v)),
    "lex + dense + ctx": lambda c, q, v: rrf(c.lex(q), c.dense(v), c.ctx(v)),
    "lex + dense + tm0.8": lambda c, q, v: rrf(c.lex(q), c.dense(v), c.title_match(v, 0.8)),
    "lex + dense + tm0.7": lambda c, q, v: rrf(c.lex(q), c.dense(v), c.title_match(v, 0.7)),
    "lex+t0.25 + dense + tm0.8": lambda c, q, v: rrf(
        c.lex_title(q, 0.25), c.dense(v), c.title_match(v, 0.8)
    ),
    "lex+t0.5 + dense + tm0.8": lambda c, q, v: rrf(
        c.lex_title(q, 0.5), c.dense(v), c.title_match(v, 0.8)
    ),
    "lex+t0.5 + dense + to0.8": lambda c, q, v: rrf(
        c.lex_title(q, 0.5), c.dense(v), c.title_overlap(q, 0.8)
    ),
    "lex + dense + to0.8": lambda c, q, v: rrf(c.lex(q), c.dense(v), c.title_overlap(q, 0.8)),
    "lex+t0.5 + dense + ctx + tm0.8": lambda c, q, v: rrf(
        c.lex_title(q, 0.5), c.dense(v), c.ctx(v), c.title_match(v, 0.8)
    ),
}


def known_item_sets(ctx: Context, stored: list[str]) -> dict[str, list[str]]:
    """Social posts' titles of ≥ 4 words, two seeded draws without overlap; and the stored
    signal-title sample of judgments.json."""
    served = set(ctx.signal_ids)
    raw = _source_kinds(ctx)
    candidates = sorted(
        s
        for s, t in zip(ctx.sig_ids, ctx.sig_titles, strict=True)
        if s in served and raw.get(s) == "social" and len(t.split()) >= 4
    )
    rng = random.Random(SEEDS["choose"])
    drawn = rng.sample(candidates, 2 * KNOWN_ITEM_SIZE)
    return {
        "known-item, social titles (choose)": sorted(drawn[:KNOWN_ITEM_SIZE]),
        "known-item, social titles (held out)": sorted(drawn[KNOWN_ITEM_SIZE:]),
        "known-item, judgments.json titles": stored,
    }


def _source_kinds(ctx: Context) -> dict[str, str]:
    """Signal id → source kind, from the warehouse's signals table."""
    from analytics.schema import SIGNALS
    from warehouse.tables import read_table

    data = DataDir(ctx.opened.path.parent.parent)
    table = read_table(data, "signals", SIGNALS)
    return dict(table.select("signal_id", "kind").iter_rows())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("data_dir", nargs="?", default="/tmp/ainews-full")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/aimi-contextual"))
    parser.add_argument("--variants", nargs="*", help="names of the variants to score")
    parser.add_argument(
        "--pool",
        type=Path,
        help="write the chosen variants' ungraded topical top-10 units, with their text, to "
        "this JSON file for judging (outside the repository: it holds corpus text)",
    )
    args = parser.parse_args()
    ctx = Context(args.data_dir, args.cache)
    judgments = load_judgments(JUDGMENTS)
    embed = load_minilm()
    title_of = dict(zip(ctx.sig_ids, ctx.sig_titles, strict=True))
    rows_of = dict(zip(ctx.sig_ids, ctx.rows_of_sig, strict=True))
    ids = ctx.index.unit_ids
    variants = {n: f for n, f in VARIANTS.items() if not args.variants or n in args.variants}
    baseline = "before: lex + dense"

    results: dict[str, dict[str, dict[str, list[float]]]] = {}
    for set_name, signal_ids in known_item_sets(ctx, judgments.known_item.signal_ids).items():
        queries = [title_of[s] for s in signal_ids]
        vectors = embed(queries)
        relevant = [{ids[r] for r in rows_of[s]} for s in signal_ids]
        per: dict[str, dict[str, list[float]]] = {}
        for name, variant in variants.items():
            hits, ndcgs = [], []
            for q, v, rel in zip(queries, vectors, relevant, strict=True):
                top = ctx.finish(variant(ctx, q, v))
                hits.append(float(bool(rel.intersection(top))))
                ndcgs.append(ndcg_at(top, dict.fromkeys(rel, 1.0)))
            per[name] = {"hit rate": hits, "nDCG": ndcgs}
        results[f"{set_name} ({len(signal_ids)})"] = per

    # topical: a grade belongs to a text, so every copy of a graded unit carries it
    key_of = dict(zip(ids, ctx.keys, strict=True))
    queries = [q.query for q in judgments.topical]
    vectors = embed(queries)
    per = {}
    unjudged: dict[str, int] = {}
    text_of = dict(zip(ids, ctx.frame["text"].to_list(), strict=True))
    to_grade: dict[tuple[str, str], dict[str, str]] = {}
    for name, variant in variants.items():
        recalls, ndcgs = [], []
        unjudged[name] = 0
        for q, v, tq in zip(queries, vectors, judgments.topical, strict=True):
            by_key: dict[str, int] = {}
            for unit_id, grade in tq.grades.items():
                key = key_of[unit_id]
                by_key[key] = max(grade, by_key.get(key, 0))
            top = ctx.finish(variant(ctx, q, v))
            gains = {u: float(by_key.get(key_of[u], 0)) for u in top}
            unjudged[name] += sum(1 for u in top if key_of[u] not in by_key)
            for u in top:
                if key_of[u] not in by_key:
                    to_grade.setdefault((tq.query_id, tq.query), {})[u] = text_of[u]
            ideal = dcg(sorted(by_key.values(), reverse=True)[:K])
            ndcgs.append(dcg([gains[u] for u in top]) / ideal if ideal else 0.0)
            relevant = {u for u in top if gains[u] >= 1}
            total = sum(1 for g in by_key.values() if g >= 1)
            recalls.append(len(relevant) / min(K, total) if total else 0.0)
        per[name] = {"recall": recalls, "nDCG": ndcgs}
    results[f"topical ({len(queries)})"] = per

    for set_name, per in results.items():
        metrics = list(next(iter(per.values())))
        print(f"### {set_name}\n")
        print("| variant | " + " | ".join(f"{m}@{K}" for m in metrics) + " | Δ vs before |")
        print("|---|" + "---:|" * len(metrics) + "---|")
        for name, values in per.items():
            cells = [f"{mean(values[m]):.3f}" for m in metrics]
            delta = ""
            if name != baseline and baseline in per:
                m = metrics[0]
                diffs = [a - b for a, b in zip(values[m], per[baseline][m], strict=True)]
                low, high = paired_interval(diffs)
                delta = f"{m} {mean(diffs):+.3f} [{low:+.3f}, {high:+.3f}]"
                if set_name.startswith("topical"):
                    m = "nDCG"
                    diffs = [a - b for a, b in zip(values[m], per[baseline][m], strict=True)]
                    low, high = paired_interval(diffs)
                    delta += f"; nDCG {mean(diffs):+.3f} [{low:+.3f}, {high:+.3f}]"
            print(f"| {name} | " + " | ".join(cells) + f" | {delta} |")
        print()
    print("Unjudged topical top-10 results (count as 0): " + json.dumps(unjudged))
    if args.pool:
        pooled = [
            {"id": query_id, "query": query, "units": dict(sorted(units.items()))}
            for (query_id, query), units in sorted(to_grade.items())
        ]
        args.pool.write_text(json.dumps(pooled, indent=1, ensure_ascii=False), encoding="utf-8")
        print(f"{sum(len(p['units']) for p in pooled)} ungraded units written to {args.pool}")


if __name__ == "__main__":
    main()
