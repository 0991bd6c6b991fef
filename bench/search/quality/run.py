"""Search quality: the lexical leg, the dense leg and hybrid fusion of ``retrieval.engine``, scored
on a known-item set and on hand-judged topical queries.

Usage: .venv/bin/python -m bench.search.quality.run [DATA_DIR] [--per-query]
       .venv/bin/python -m bench.search.quality.run [DATA_DIR] --draw-sample
       .venv/bin/python -m bench.search.quality.run [DATA_DIR] --pool QUERY_ID|all

DATA_DIR defaults to /tmp/ainews-full; its current snapshot is searched with the API defaults
(limit 10, diversity cap 2, no filters, no recency boost). Prints Markdown for docs/quality.md
and exits non-zero when ``judgments.json`` names unit or signal ids the snapshot does not serve.

- Known-item: a seeded sample of served signals whose title has at least four words; the query
  is the title, the relevant units are all units of that signal (binary gains). The drawn ids
  are stored in ``judgments.json``; ``--draw-sample`` redraws them from the seed and rewrites
  that entry.
- Topical: hand-written queries; the top ``pool_depth`` units of each system were pooled and
  graded 0/1/2 by hand (ids and grades only: the corpus may not be redistributed).
  ``--pool`` prints the pooled units not yet graded, with their text, for judging.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from analytics.copies import copy_of
from retrieval.engine import SearchIndex, SearchRequest
from retrieval.engine import Variant as Ranking
from warehouse.embeddings import load_minilm
from warehouse.paths import DataDir
from warehouse.snapshot import OpenedSnapshot, open_current

JUDGMENTS = Path(__file__).resolve().parent / "judgments.json"
DEFAULT_DATA_DIR = "/tmp/ainews-full"
K = 10
DIVERSITY_CAP = 2  # the API default
BOOTSTRAP_RESAMPLES = 10_000
LABELS = {"hit": "hit rate", "recall": "recall", "ndcg": "nDCG"}
# The legs of retrieval.engine: "lexical" is BM25 over the unit text and its signal's title (a
# second field); "title" is the title-match leg and "source" the source legs (issue 30), part of
# what hybrid fuses.
SYSTEMS: dict[str, tuple[str, ...]] = {
    "lexical": ("lexical",),
    "dense": ("dense",),
    "hybrid": ("lexical", "dense", "title", "source"),
}


@dataclass(frozen=True)
class KnownItemSpec:
    seed: int
    size: int
    min_title_words: int
    signal_ids: list[str]


@dataclass(frozen=True)
class TopicalQuery:
    query_id: str
    query: str
    grades: dict[str, int]  # unit id -> 0, 1 or 2


@dataclass(frozen=True)
class Judgments:
    raw: dict[str, Any]
    pool_depth: int
    known_item: KnownItemSpec
    topical: list[TopicalQuery]


@dataclass(frozen=True)
class Scores:
    hit: float
    recall: float
    ndcg: float


def load_judgments(path: Path) -> Judgments:
    raw = json.loads(path.read_text(encoding="utf-8"))
    known = raw["known_item"]
    return Judgments(
        raw=raw,
        pool_depth=int(raw["pool_depth"]),
        known_item=KnownItemSpec(
            seed=int(known["seed"]),
            size=int(known["size"]),
            min_title_words=int(known["min_title_words"]),
            signal_ids=list(known["signal_ids"]),
        ),
        topical=[
            TopicalQuery(q["id"], q["query"], {u: int(g) for u, g in q["grades"].items()})
            for q in raw["topical"]
        ],
    )


def draw_known_items(
    signals: pl.DataFrame, served_signal_ids: Iterable[str], spec: KnownItemSpec
) -> list[str]:
    """``spec.size`` signal ids, drawn with ``spec.seed`` from the served signals (those with
    search units) whose title has at least ``spec.min_title_words`` words."""
    served = set(served_signal_ids)
    candidates = sorted(
        signal_id
        for signal_id, title in signals.select("signal_id", "title").iter_rows()
        if signal_id in served and len(title.split()) >= spec.min_title_words
    )
    return sorted(random.Random(spec.seed).sample(candidates, spec.size))


# -- metrics -------------------------------------------------------------------------------


def dcg(gains: Sequence[float]) -> float:
    return sum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains, start=1))


def ndcg_at(ranked: Sequence[str], gain_of: dict[str, float], k: int = K) -> float:
    """Graded nDCG@k; the ideal ranking is every judged gain, best first."""
    ideal = dcg(sorted(gain_of.values(), reverse=True)[:k])
    if ideal == 0:
        return 0.0
    return dcg([gain_of.get(unit_id, 0.0) for unit_id in ranked[:k]]) / ideal


def recall_at(ranked: Sequence[str], relevant: set[str], k: int = K) -> float:
    """Relevant units in the top k over min(k, relevant count)."""
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranked[:k])) / min(k, len(relevant))


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


# -- searching -----------------------------------------------------------------------------


class Runner:
    """The snapshot's search index and the query encoder, with one search per system."""

    def __init__(self, opened: OpenedSnapshot) -> None:
        self.index = SearchIndex(opened, opened.manifest.as_of)
        self.embed = load_minilm()

    def ranked(self, queries: Sequence[str], limit: int = K) -> dict[str, list[list[str]]]:
        """Per system, per query: unit ids in rank order (at most ``limit``)."""
        vectors = self.embed(list(queries))
        out: dict[str, list[list[str]]] = {}
        for system, legs in SYSTEMS.items():
            out[system] = [
                [
                    self.index.unit_ids[hit.row]
                    for hit in self.index.search(
                        SearchRequest(
                            query_vector=vector,
                            query_text=query,
                            limit=limit,
                            diversity_cap=DIVERSITY_CAP,
                        ),
                        Ranking(legs=legs),
                    )
                ]
                for query, vector in zip(queries, vectors, strict=True)
            ]
        return out


def known_item_scores(
    runner: Runner, titles: list[str], units_of: list[set[str]]
) -> dict[str, list[Scores]]:
    ranked = runner.ranked(titles)
    return {
        system: [
            Scores(
                hit=float(bool(relevant.intersection(ranking))),
                recall=recall_at(ranking, relevant),
                ndcg=ndcg_at(ranking, dict.fromkeys(relevant, 1.0)),
            )
            for ranking, relevant in zip(rankings, units_of, strict=True)
        ]
        for system, rankings in ranked.items()
    }


def topical_scores(
    ranked: dict[str, list[list[str]]], queries: list[TopicalQuery]
) -> dict[str, list[Scores]]:
    out: dict[str, list[Scores]] = {}
    for system, rankings in ranked.items():
        out[system] = []
        for ranking, q in zip(rankings, queries, strict=True):
            relevant = {unit_id for unit_id, grade in q.grades.items() if grade >= 1}
            gains = {unit_id: float(grade) for unit_id, grade in q.grades.items()}
            out[system].append(
                Scores(
                    hit=float(bool(relevant.intersection(ranking))),
                    recall=recall_at(ranking, relevant),
                    ndcg=ndcg_at(ranking, gains),
                )
            )
    return out


def unjudged_in_top(
    ranked: dict[str, list[list[str]]], queries: list[TopicalQuery]
) -> list[tuple[str, str, str]]:
    """(query id, system, unit id) for top-k results without a grade: the pool must cover them."""
    return [
        (q.query_id, system, unit_id)
        for system, rankings in ranked.items()
        for ranking, q in zip(rankings, queries, strict=True)
        for unit_id in ranking
        if unit_id not in q.grades
    ]


# -- output --------------------------------------------------------------------------------


def print_table(scores: dict[str, list[Scores]], columns: Sequence[str]) -> None:
    print("| system | " + " | ".join(f"{LABELS[c]}@{K}" for c in columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for system, rows in scores.items():
        cells = [f"{mean([getattr(s, c) for s in rows]):.3f}" for c in columns]
        print(f"| {system} | " + " | ".join(cells) + " |")
    print()


def paired_interval(
    diffs: Sequence[float], resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0
) -> tuple[float, float]:
    """A seeded 95% percentile-bootstrap interval for the mean of paired per-query differences."""
    values = np.asarray(diffs, dtype=np.float64)
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, len(values), size=(resamples, len(values)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def print_verdict(label: str, scores: dict[str, list[Scores]], columns: Sequence[str]) -> None:
    """Per metric: does hybrid's mean beat both legs'; per leg, hybrid's per-query wins / ties /
    losses and a bootstrap interval for the mean difference."""
    for column in columns:
        per_query = {name: [float(getattr(s, column)) for s in v] for name, v in scores.items()}
        means = {name: mean(values) for name, values in per_query.items()}
        best_leg = max(means["lexical"], means["dense"])
        verdict = "beats both legs" if means["hybrid"] > best_leg else "does NOT beat both legs"
        parts = []
        for leg in ("lexical", "dense"):
            diffs = [h - x for h, x in zip(per_query["hybrid"], per_query[leg], strict=True)]
            wins = sum(1 for d in diffs if d > 0)
            losses = sum(1 for d in diffs if d < 0)
            low, high = paired_interval(diffs)
            parts.append(
                f"vs {leg} {means['hybrid'] - means[leg]:+.3f} [95% CI {low:+.3f}, {high:+.3f}], "
                f"{wins} wins / {len(diffs) - wins - losses} ties / {losses} losses"
            )
        print(
            f"- {label}, {LABELS[column]}@{K}: hybrid {means['hybrid']:.3f} {verdict} "
            f"(lexical {means['lexical']:.3f}, dense {means['dense']:.3f}); " + "; ".join(parts)
        )


def print_known_item_swaps(spec: KnownItemSpec, scores: dict[str, list[Scores]]) -> None:
    """The signals one leg finds in its top 10 and hybrid does not (and the reverse)."""
    for leg in ("lexical", "dense"):
        lost = [
            s
            for s, h, x in zip(spec.signal_ids, scores["hybrid"], scores[leg], strict=True)
            if x.hit and not h.hit
        ]
        gained = [
            s
            for s, h, x in zip(spec.signal_ids, scores["hybrid"], scores[leg], strict=True)
            if h.hit and not x.hit
        ]
        print(f"- found by {leg} but not hybrid ({len(lost)}): {', '.join(lost) or '-'}")
        print(f"- found by hybrid but not {leg} ({len(gained)}): {', '.join(gained) or '-'}")
    print()


def print_per_query(queries: list[TopicalQuery], scores: dict[str, list[Scores]]) -> None:
    systems = " / ".join(SYSTEMS)
    print(f"| id | query | relevant | recall@{K} {systems} | nDCG@{K} {systems} |")
    print("|---|---|---:|---|---|")
    for i, q in enumerate(queries):
        relevant = sum(1 for grade in q.grades.values() if grade >= 1)
        recall = " / ".join(f"{scores[s][i].recall:.2f}" for s in SYSTEMS)
        ndcg = " / ".join(f"{scores[s][i].ndcg:.2f}" for s in SYSTEMS)
        print(f"| {q.query_id} | {q.query} | {relevant} | {recall} | {ndcg} |")
    print()


def print_pool(runner: Runner, judgments: Judgments, which: str, text_of: dict[str, str]) -> None:
    """The pooled units of the chosen queries that have no grade yet, with their text (for the
    judge's screen only: nothing here is written)."""
    chosen = [q for q in judgments.topical if which in ("all", q.query_id)]
    ranked = runner.ranked([q.query for q in chosen], limit=judgments.pool_depth)
    for i, q in enumerate(chosen):
        pooled = dict.fromkeys(u for system in SYSTEMS for u in ranked[system][i])
        todo = [u for u in pooled if u not in q.grades]
        print(f"## {q.query_id}: {q.query} ({len(todo)} to grade of {len(pooled)} pooled)")
        for unit_id in todo:
            print(f"{unit_id}\t{text_of[unit_id]}")
        print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("data_dir", nargs="?", default=DEFAULT_DATA_DIR)
    parser.add_argument("--judgments", type=Path, default=JUDGMENTS)
    parser.add_argument("--per-query", action="store_true", help="a row per topical query")
    parser.add_argument("--draw-sample", action="store_true", help="redraw the known-item ids")
    parser.add_argument("--pool", metavar="QUERY_ID", help="print ungraded pooled units")
    args = parser.parse_args()

    judgments = load_judgments(args.judgments)
    opened = open_current(DataDir.from_env(args.data_dir))
    if opened is None:
        sys.exit(f"{args.data_dir} has no published snapshot")
    units = opened.read_table("search_units").select("unit_id", "signal_id")
    signals = opened.read_table("signals").select("signal_id", "title")

    if args.draw_sample:
        drawn = draw_known_items(signals, units["signal_id"].unique(), judgments.known_item)
        judgments.raw["known_item"]["signal_ids"] = drawn
        judgments.raw["known_item"]["drawn_from_snapshot"] = opened.snapshot_id
        args.judgments.write_text(
            json.dumps(judgments.raw, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        print(f"drew {len(drawn)} known-item signals into {args.judgments}")
        return

    served_units = set(units["unit_id"].to_list())
    served_signals = set(units["signal_id"].to_list())
    missing_units = sorted(
        {(q.query_id, u) for q in judgments.topical for u in q.grades if u not in served_units}
    )
    missing_signals = [s for s in judgments.known_item.signal_ids if s not in served_signals]
    if missing_units or missing_signals:
        for query_id, unit_id in missing_units:
            print(f"{query_id}: unit {unit_id} is not in snapshot {opened.snapshot_id}")
        for signal_id in missing_signals:
            print(f"known-item: signal {signal_id} is not served by {opened.snapshot_id}")
        sys.exit(
            f"judgments reference {len(missing_units)} unit ids and {len(missing_signals)} "
            f"signal ids absent from snapshot {opened.snapshot_id}"
        )

    # a grade is the text's: the executor shows one copy per text (analytics.copies), so topical
    # rankings and grades are compared by text group, each group at its best grade
    copies = opened.read_table("search_units")
    if "copy_of" not in copies.columns:
        copies = copies.with_columns(copy_of(copies))
    group_of: dict[str, str] = dict(copies.select("unit_id", "copy_of").iter_rows())
    by_text = [
        TopicalQuery(q.query_id, q.query, _max_by(group_of, q.grades)) for q in judgments.topical
    ]

    runner = Runner(opened)
    if args.pool:
        text_of = dict(opened.read_table("search_units").select("unit_id", "text").iter_rows())
        print_pool(runner, judgments, args.pool, text_of)
        return

    spec = judgments.known_item
    title_of = dict(signals.iter_rows())
    units_by_signal: dict[str, set[str]] = {}
    for unit_id, signal_id in units.iter_rows():
        units_by_signal.setdefault(signal_id, set()).add(unit_id)
    titles = [title_of[s] for s in spec.signal_ids]
    relevant = [units_by_signal[s] for s in spec.signal_ids]
    known = known_item_scores(runner, titles, relevant)
    # the diversity cap keeps at most DIVERSITY_CAP units of one signal in any result list
    ceiling = mean([min(DIVERSITY_CAP, len(r)) / min(K, len(r)) for r in relevant])
    drawn = draw_known_items(signals, served_signals, spec)
    print(f"Snapshot {opened.snapshot_id} (as_of {opened.manifest.as_of.date()}).\n")
    print(
        f"### Known-item: {len(titles)} signal titles (seed {spec.seed}, "
        f"titles of ≥ {spec.min_title_words} words)\n"
    )
    if drawn != sorted(spec.signal_ids):
        print("(the stored ids differ from a fresh draw on this snapshot; stored ids used)\n")
    print_table(known, ("hit", "recall", "ndcg"))
    print(
        f"Units per sampled signal: mean {mean([len(r) for r in relevant]):.2f}; with the "
        f"diversity cap of {DIVERSITY_CAP}, the best attainable recall@{K} is {ceiling:.3f}.\n"
    )

    ranked = runner.ranked([q.query for q in judgments.topical])
    ranked = {
        system: [[group_of[u] for u in ranking] for ranking in rankings]
        for system, rankings in ranked.items()
    }
    topical = topical_scores(ranked, by_text)
    graded = sum(len(q.grades) for q in judgments.topical)
    print(
        f"### Topical: {len(judgments.topical)} queries, {graded} pooled units graded "
        f"(pool depth {judgments.pool_depth} per system)\n"
    )
    print_table(topical, ("recall", "ndcg"))
    unjudged = unjudged_in_top(ranked, by_text)
    if unjudged:
        print(
            f"({len(unjudged)} top-{K} results have no grade and count as 0; "
            "`--pool all` lists them for judging)\n"
        )
    print_verdict("known-item", known, ("hit", "recall", "ndcg"))
    print_verdict("topical", topical, ("recall", "ndcg"))
    print()
    if args.per_query:
        print_known_item_swaps(spec, known)
        print_per_query(by_text, topical)


def _max_by(group_of: dict[str, str], grades: dict[str, int]) -> dict[str, int]:
    """Grades per text group: the best grade any of its units got."""
    out: dict[str, int] = {}
    for unit_id, grade in grades.items():
        group = group_of[unit_id]
        out[group] = max(grade, out.get(group, 0))
    return out


if __name__ == "__main__":
    main()
