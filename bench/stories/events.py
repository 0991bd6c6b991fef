"""Stories against event-level judgments (issue 31): hand-judged pairs of AINews social posts,
"the same event or development" or not, and what they say about the shipped clustering and the
naive baseline.

Usage:
    # draw the sample (seeded) and print both posts of each pair to judge (never committed:
    # corpus text); writes a skeleton of the judged file to --out, outside the repository
    .venv/bin/python -m bench.stories.events --warehouse DIR/warehouse \
        --title-text F --draw --out /tmp/pairs.json
    # a later round: only one year's pairs, never a pair judged already
    .venv/bin/python -m bench.stories.events --warehouse DIR/warehouse --title-text F \
        --draw --year 2024 --exclude bench/stories/event_pairs_judged.json --seed S \
        --sizes 60,15,25 --out /tmp/round.json
    # (--sizes 0,0,0,60: the terms stratum only)
    # precision, recall and F1 per year, 95 % bootstrap intervals, from the committed
    # judgments; --grid also scores a parameter grid and chooses on 2024 (about 8 min);
    # --variants chooses a span cap, then a precision variant on top of it, on 2024; --terms
    # the shared-term and entity-specificity variants against the parameters shipped before
    # them (TERMS_BASE), then a second family on top of their choice; --burst the burstiness
    # variants of the term weights against the shipped parameters; --hard-calls-no scores
    # with the pairs whose note ends in "(close)" (a hard call) taken as not one event
    .venv/bin/python -m bench.stories.events --warehouse DIR/warehouse --title-text F \
        [--judged bench/stories/event_pairs_judged.json] [--grid] [--variants] [--terms] \
        [--burst] [--hard-calls-no] [--json OUT]

The warehouse is the AINews 2024 + 2025 build (bench/README.md, "Data"); ``F`` comes from
``embed_cache.py``. The pairs: unordered pairs of served social posts (both methods cluster
them). Five disjoint strata, each sampled uniformly over its pairs:

- ``method``: pairs ``analytics.stories`` puts in one story with ``DRAWN`` (the parameters
  shipped when the sample was drawn), clustering every served signal as the asset does;
- ``baseline``: pairs the naive baseline (MiniLM over title + text, each day's social posts by
  average linkage, cut ``BASELINE_CUT``: its best on 2024 in ``quality.py``) groups and the
  method does not;
- ``candidate``: pairs neither groups that are plausible: published at most one UTC day apart,
  title + text cosine at least ``CANDIDATE_FLOOR``.
- ``terms`` (session 17; 80 judged pairs of 2024, 40 of 2025): pairs some point of
  ``TERM_VARIANTS`` groups (shared-term and entity-specificity variants of ``TERMS_BASE``)
  that are in none of the three above.
- ``split`` (issue 45): pairs the shipped inputs group (roundups split into their items,
  ``analytics.stories.story_items``; a post split into items is grouped with every post one
  of its items is grouped with) that are in none of the four above.

"shipped" is the clustering over the shipped inputs; "before" the same parameters over whole
signals (issue 31's method).

The judged pool is the union of the strata. Any clustering is scored on it (the shipped one,
the baseline, a grid point): each stratum splits into the pairs it groups and the rest, and
each part's judged pairs (a uniform sub-sample) estimate its yes share. Precision = estimated
yes pairs among its grouped pairs in the pool / those pairs; recall = its estimated yes pairs /
all estimated yes pairs of the pool (so recall is over plausible candidates, not over every
pair of posts). Grouped pairs outside the pool were never judged: they are counted
(``outside``) and left out of the precision. A year's figures take the pairs whose earlier post
is of that year. Each stratum is cut by that year for the estimate (a later round of judgments
drew from one year only, so each year's part weighs its own judged pairs). Intervals: 95 %
percentile bootstrap, resampling the judged pairs within each stratum's year (seed fixed). A
judged pair whose signal ids are no longer served is reported (GONE) and left out.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import time
from collections.abc import Sequence
from dataclasses import asdict, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from analytics.stories import average_linkage, story_inputs, story_items
from analytics.stories import entity_sets as signal_entity_sets
from bench.stories.variants import BenchParams, cluster

AS_OF = datetime(2026, 1, 1, tzinfo=UTC)
BASELINE_CUT = 0.45
CANDIDATE_FLOOR = 0.5
STRATA = ("method", "baseline", "candidate", "terms", "split")
# the shipped parameters when the sample was drawn (2026-11-28): the strata are defined by them,
# whatever is shipped now (every field spelled out: no later default may change them)
DRAWN = BenchParams(
    window_days=3,
    link=0.5,
    attach=0.85,
    entity_weight=0.3,
    span_days=None,
    linkage="average",
    attach_needs_entity=False,
    pair_gate=None,
    attach_per_doubling=0.0,
    term_gate=None,
    term_weight=0.0,
    term_days=30,
    attach_term_gate=None,
    attach_term_weight=0.0,
    entity_idf=False,
)
# the shipped parameters when the ``terms`` stratum was drawn (2026-12-01, session 17): the
# term variants (``TERM_VARIANTS``) change them, and their pairs outside the other strata are
# that stratum
TERMS_BASE = replace(DRAWN, span_days=4)
CHOICE_YEAR = 2024
YEARS = (2024, 2025)
# the grid searched on CHOICE_YEAR (--grid): window, link cut, attach bar, entity weight
GRID = {
    "window_days": (1, 3),
    "link": (0.5, 0.55, 0.6, 0.65, 0.7),
    "attach": (0.85, 0.9, 0.95, 2.0),
    "entity_weight": (0.0, 0.3),
}
# a grid point is eligible when at most this share of its pairs lies outside the judged pool
MAX_OUTSIDE = 0.05
# at most this share of the judged pairs may fall in no stratum of a rebuild
MAX_STRAYED = 0.02
JUDGED = Path(__file__).with_name("event_pairs_judged.json")

Pair = tuple[str, str]


def strata_of(pools: dict[str, set[Pair]]) -> list[str]:
    """The strata of ``pools`` (keys starting with ``_`` are other pair sets)."""
    return [n for n in pools if not n.startswith("_")]


def yearly(
    data: dict[str, Any], judged: list[dict[str, Any]], pools: dict[str, set[Pair]]
) -> tuple[list[dict[str, Any]], dict[str, set[Pair]]]:
    """Each stratum cut by the year of a pair's earlier post (``method/2024``, ...), the judged
    pairs relabelled to match. A later round of judgments drew from one year's part of a
    stratum only, so a stratum's judged pairs are a uniform sample of each year's part, not of
    the whole: the estimate over both years weights each part by its own judged pairs."""
    day = dict(zip(data["ids"], data["days"], strict=True))

    def year(pair: Pair) -> int:
        return int(min(day[pair[0]], day[pair[1]]).year)

    split: dict[str, set[Pair]] = {n: p for n, p in pools.items() if n.startswith("_")}
    for name in strata_of(pools):
        for pair in pools[name]:
            split.setdefault(f"{name}/{year(pair)}", set()).add(pair)
    rows = [{**r, "stratum": f"{r['stratum']}/{year((r['a'], r['b']))}"} for r in judged]
    return rows, split


def load(warehouse: Path, title_text: Path) -> dict[str, Any]:
    """The stories' inputs as the asset reads them, the served social posts (the pairs' posts),
    their title + text vectors and the baseline's labels."""
    signals = pl.read_parquet(warehouse / "signals.parquet")
    units = pl.read_parquet(warehouse / "units.parquet")
    embeddings = pl.read_parquet(warehouse / "unit_embeddings.parquet")
    served, vectors = story_inputs(signals, units, embeddings, AS_OF)
    signal_entities = pl.read_parquet(warehouse / "signal_entities.parquet")
    entity_sets = signal_entity_sets(signal_entities)
    # the shipped inputs since issue 45: roundups split into their items
    items, item_vectors = story_items(
        served,
        vectors,
        units,
        embeddings,
        pl.read_parquet(warehouse / "unit_entities.parquet"),
        signal_entities,
    )
    social = served.filter(pl.col("kind") == "social").sort("published_at", "signal_id")
    cache = np.load(title_text)
    order = {s: i for i, s in enumerate(cache["signal_id"].tolist())}
    ids = social["signal_id"].to_list()
    text_vectors = cache["vector"][[order[s] for s in ids]].astype(np.float32)
    days = social["published_at"].dt.date().to_list()
    baseline: dict[str, Any] = {}
    day_rows: dict[Any, list[int]] = {}
    for row, day in enumerate(days):
        day_rows.setdefault(day, []).append(row)
    for day, rows in day_rows.items():
        block = text_vectors[rows]
        for row, lab in zip(rows, average_linkage(block @ block.T, BASELINE_CUT), strict=True):
            baseline[ids[row]] = (day, lab)
    print(f"{served.height} served signals, {len(ids)} of them social posts")
    return {
        "served": served,
        "signal_vectors": vectors,
        "items": items,
        "item_vectors": item_vectors,
        "entities": entity_sets,
        "social": social,
        "ids": ids,
        "days": days,
        "vectors": text_vectors,
        "baseline": baseline,
    }


def method_pairs(data: dict[str, Any], params: BenchParams) -> set[Pair]:
    """The social-post pairs ``analytics.stories`` puts in one story with ``params``, clustering
    every served signal as the ``stories`` asset does (once per ``params`` in a run)."""
    memo: dict[BenchParams, set[Pair]] = data.setdefault("_pairs", {})
    if params in memo:
        return memo[params]
    started = time.process_time()
    served = data["served"]
    labels = cluster(served, data["signal_vectors"], data["entities"], params)
    cpu = time.process_time() - started
    print(f"clustered {served.height} signals with {params} in {cpu:.2f} s CPU")
    labelled = dict(zip(served["signal_id"].to_list(), labels, strict=True))
    memo[params] = grouped_pairs(data["ids"], labelled)
    return memo[params]


def split_pairs(data: dict[str, Any], params: BenchParams) -> set[Pair]:
    """The social-post pairs the shipped inputs (roundups split into their items, issue 45) put
    in one story with ``params``: a post split into items is grouped with every post one of its
    items is grouped with."""
    memo: dict[BenchParams, set[Pair]] = data.setdefault("_split_pairs", {})
    if params in memo:
        return memo[params]
    items = data["items"]
    entities = {i: frozenset(e) for i, e in items.select("item_id", "entity_ids").iter_rows()}
    started = time.process_time()
    labels = cluster(
        items.with_columns(pl.col("item_id").alias("signal_id")),
        data["item_vectors"],
        entities,
        params,
    )
    cpu = time.process_time() - started
    print(f"clustered {items.height} story inputs (roundups split) in {cpu:.2f} s CPU")
    social = set(data["ids"])
    groups: dict[int, set[str]] = {}
    for signal_id, label in zip(items["signal_id"].to_list(), labels, strict=True):
        if signal_id in social:
            groups.setdefault(label, set()).add(signal_id)
    out: set[Pair] = set()
    for members in groups.values():
        ordered = sorted(members)
        for i, a in enumerate(ordered):
            out.update((a, b) for b in ordered[i + 1 :])
    memo[params] = out
    return out


def grouped_pairs(ids: list[str], labels: dict[str, Any]) -> set[Pair]:
    """Unordered pairs (smaller id first) of ``ids`` that share a label."""
    groups: dict[Any, list[str]] = {}
    for sid in ids:
        groups.setdefault(labels[sid], []).append(sid)
    out: set[Pair] = set()
    for members in groups.values():
        members.sort()
        for i, a in enumerate(members):
            out.update((a, b) for b in members[i + 1 :])
    return out


def candidate_pairs(data: dict[str, Any]) -> set[Pair]:
    """Pairs at most one UTC day apart with a title + text cosine of at least the floor."""
    ids, days, vectors = data["ids"], data["days"], data["vectors"]
    ordinal = np.asarray([d.toordinal() for d in days])
    out: set[Pair] = set()
    for day in np.unique(ordinal):
        here = np.flatnonzero(ordinal == day)
        near = np.flatnonzero((ordinal == day) | (ordinal == day + 1))
        cos = vectors[here] @ vectors[near].T
        for i, j in zip(*np.nonzero(cos >= CANDIDATE_FLOOR), strict=True):
            a, b = ids[here[i]], ids[near[j]]
            if a != b:
                out.add((min(a, b), max(a, b)))
    return out


def strata(data: dict[str, Any]) -> dict[str, set[Pair]]:
    """The five disjoint strata the sample was drawn from, with ``DRAWN``, the baseline's
    pairs (``_baseline_all``) and the drawn method's (``_drawn``). ``terms``: the pairs some
    point of ``TERM_VARIANTS`` (on ``TERMS_BASE``) groups that are in none of the other three
    (80 judged pairs of its 2024 part, 40 of its 2025 part). ``split`` (issue 45): the pairs the
    shipped inputs, roundups split into their items, group that are in none of the other four."""
    method = method_pairs(data, DRAWN)
    baseline = grouped_pairs(data["ids"], data["baseline"])
    candidates = candidate_pairs(data)
    known = method | baseline | candidates
    terms: set[Pair] = set()
    for variant in TERM_VARIANTS:
        terms |= method_pairs(data, replace(TERMS_BASE, **variant)) - known
    return {
        "method": method,
        "baseline": baseline - method,
        "candidate": candidates - method - baseline,
        "terms": terms,
        "split": split_pairs(data, BenchParams()) - known - terms,
        "_baseline_all": baseline,
        "_drawn": method,
    }


def draw(
    data: dict[str, Any],
    sizes: dict[str, int],
    seed: int,
    out: Path,
    year: int | None = None,
    exclude: Path | None = None,
) -> None:
    """Draw ``sizes`` pairs uniformly from each stratum (only pairs whose earlier post is of
    ``year`` when given; never a pair already in ``exclude``'s judgments), print both posts of
    each in shuffled order without its stratum (so it is judged blind to what groups it), and
    write the skeleton to fill in."""
    pools = strata(data)
    rng = random.Random(seed)
    day = dict(zip(data["ids"], data["days"], strict=True))
    seen: set[Pair] = set()
    if exclude is not None:
        seen = {
            (min(r["a"], r["b"]), max(r["a"], r["b"]))
            for r in json.loads(exclude.read_text())["pairs"]
        }
    text = {
        sid: (t, x, p)
        for sid, t, x, p in data["social"]
        .select("signal_id", "title", "text", "published_at")
        .iter_rows()
    }
    rows = []
    for name in STRATA:
        pool = sorted(
            p for p in pools[name] - seen if year is None or min(day[p[0]], day[p[1]]).year == year
        )
        print(f"stratum {name}: {len(pool)} pairs, drawing {min(sizes[name], len(pool))}")
        for a, b in rng.sample(pool, min(sizes[name], len(pool))):
            rows.append({"a": a, "b": b, "sample": name, "same_event": None, "note": ""})
    rng.shuffle(rows)
    for k, row in enumerate(rows):
        print(f"\n=== {k} {row['a']} {row['b']}")
        for sid in (row["a"], row["b"]):
            title, body, published = text[sid]
            print(f"- {published:%Y-%m-%d %H:%M} {title!r}: {body[:700]!r}")
    out.write_text(json.dumps(rows, indent=1))


Cell = tuple[str, bool]  # (stratum, grouped by the clustering under test)


def cells(
    judged: list[dict[str, Any]], pools: dict[str, set[Pair]], grouped: set[Pair]
) -> tuple[dict[Cell, int], list[tuple[Cell, bool]]]:
    """Each stratum split into the pairs ``grouped`` holds and the rest: the cells' sizes, and
    each judged pair's cell and verdict (a uniform sub-sample of a uniform sample is uniform)."""
    sizes: dict[Cell, int] = {}
    for name in strata_of(pools):
        together = len(pools[name] & grouped)
        sizes[(name, True)] = together
        sizes[(name, False)] = len(pools[name]) - together
    rows = [((r["stratum"], (r["a"], r["b"]) in grouped), bool(r["same_event"])) for r in judged]
    return sizes, rows


def from_cells(sizes: dict[Cell, int], rows: list[tuple[Cell, bool]]) -> dict[str, float]:
    """Precision and recall: each cell's size times its judged pairs' yes share; a cell with
    pairs but no judged pair is ``unknown`` and left out of both (``unknown_grouped``: those of
    the clustering's own pairs)."""
    judged: dict[Cell, list[int]] = {}
    for cell, yes in rows:
        counts = judged.setdefault(cell, [0, 0])
        counts[0] += 1
        counts[1] += yes
    yes_grouped = yes_total = 0.0
    inside = unknown = unknown_grouped = 0
    for cell, size in sizes.items():
        if not size:
            continue
        if cell not in judged:
            unknown += size
            unknown_grouped += size if cell[1] else 0
            continue
        n, hits = judged[cell]
        expected = size * hits / n
        yes_total += expected
        if cell[1]:
            yes_grouped += expected
            inside += size
    return {
        "precision": yes_grouped / inside if inside else 0.0,
        "recall": yes_grouped / yes_total if yes_total else 0.0,
        "unknown": float(unknown),
        "unknown_grouped": float(unknown_grouped),
    }


def estimate(
    judged: list[dict[str, Any]], pools: dict[str, set[Pair]], grouped: set[Pair]
) -> dict[str, float]:
    """Precision and recall of a clustering whose same-story pairs are ``grouped``, from the
    judged pairs (``cells``). ``outside``: its pairs in no stratum (never judged, so left out of
    its precision)."""
    sizes, rows = cells(judged, pools, grouped)
    everywhere = set().union(*(pools[n] for n in strata_of(pools)))
    return {
        **from_cells(sizes, rows),
        "pairs": float(len(grouped)),
        "outside": float(len(grouped - everywhere)),
    }


def resamples(judged: list[dict[str, Any]], rounds: int) -> list[list[int]]:
    """Bootstrap resamples (indices into ``judged``) within each stratum, seed fixed."""
    rng = random.Random(20261128)
    names = sorted({r["stratum"] for r in judged})
    by = {n: [i for i, r in enumerate(judged) if r["stratum"] == n] for n in names}
    return [[i for n in names for i in rng.choices(by[n], k=len(by[n]))] for _ in range(rounds)]


def f1(figures: dict[str, float]) -> float:
    p, r = figures["precision"], figures["recall"]
    return 2 * p * r / (p + r) if p + r else 0.0


def interval(values: list[float]) -> tuple[float, float]:
    low, high = np.percentile(values, [2.5, 97.5])
    return round(float(low), 3), round(float(high), 3)


def by_year(
    data: dict[str, Any],
    judged: list[dict[str, Any]],
    pools: dict[str, set[Pair]],
    methods: dict[str, set[Pair]],
    year: int | None,
) -> tuple[list[dict[str, Any]], dict[str, set[Pair]], dict[str, set[Pair]]]:
    """The judged pairs, strata and grouped pairs whose earlier post is of ``year`` (all when
    None)."""
    if year is None:
        return judged, pools, methods
    day = dict(zip(data["ids"], data["days"], strict=True))

    def keep(pair: Pair) -> bool:
        return bool(min(day[pair[0]], day[pair[1]]).year == year)

    return (
        [r for r in judged if keep((r["a"], r["b"]))],
        {name: {p for p in pool if keep(p)} for name, pool in pools.items()},
        {name: {p for p in pairs if keep(p)} for name, pairs in methods.items()},
    )


def hard_call_no(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` with its verdict set to not one event when its note marks a hard call."""
    return {**row, "same_event": False} if row["note"].endswith("(close)") else row


def load_judged(
    data: dict[str, Any], path: Path, pools: dict[str, set[Pair]]
) -> list[dict[str, Any]]:
    """The committed judgments, each with the stratum its pair is in now; a pair whose signal
    ids are no longer served is reported and left out, and so is a pair in no stratum of this
    build (a rebuild moved a few pairs: its judgment estimates nothing here). More than
    ``MAX_STRAYED`` of the judged pairs in no stratum means the pool changed: draw again."""
    rows = json.loads(path.read_text())["pairs"]
    known = set(data["ids"])
    judged = []
    moved = gone = strayed = 0
    for r in rows:
        if r["a"] not in known or r["b"] not in known:
            gone += 1
            print(f"GONE: {r['a']} {r['b']} ({r['sample']}): a signal id is no longer served")
            continue
        pair = (min(r["a"], r["b"]), max(r["a"], r["b"]))
        stratum = next((n for n in strata_of(pools) if pair in pools[n]), None)
        if stratum == "terms" and r["sample"] != "terms":
            # a pair of an earlier round that strayed from the strata it was drawn from: the
            # terms stratum's judged pairs are a uniform sample of it only when drawn from it
            stratum = None
        if stratum is None:
            strayed += 1
            print(f"OUTSIDE: {pair} ({r['sample']}) is in no stratum of this build")
            continue
        moved += stratum != r["sample"]
        judged.append({**r, "a": pair[0], "b": pair[1], "stratum": stratum})
    if strayed > MAX_STRAYED * len(rows):
        raise SystemExit(f"{strayed} of {len(rows)} judged pairs in no stratum: draw again")
    print(
        f"judged {len(judged)} pairs, {gone} gone, {strayed} in no stratum, "
        f"{moved} not in the stratum drawn from"
    )
    return judged


def score(
    data: dict[str, Any],
    judged: list[dict[str, Any]],
    pools: dict[str, set[Pair]],
    methods: dict[str, set[Pair]],
    rounds: int,
    year: int | None = None,
) -> dict[str, Any]:
    """Point estimates and 95 % percentile bootstrap intervals for each of ``methods``."""
    judged, pools, methods = by_year(data, judged, pools, methods, year)
    print(f"{year or 'both years'}: pool { ({n: len(pools[n]) for n in strata_of(pools)}) }")
    for name in strata_of(pools):
        sub = [r for r in judged if r["stratum"] == name]
        print(f"  {name}: {sum(r['same_event'] for r in sub)}/{len(sub)} judged the same event")
    boots = resamples(judged, rounds)
    report: dict[str, Any] = {}
    for m, grouped in methods.items():
        point = estimate(judged, pools, grouped)
        sizes, rows = cells(judged, pools, grouped)
        samples = [from_cells(sizes, [rows[i] for i in b]) for b in boots]
        out: dict[str, Any] = {"pairs": int(point["pairs"]), "outside": int(point["outside"])}
        for k in ("precision", "recall"):
            out[k] = [round(point[k], 3), *interval([s[k] for s in samples])]
        out["f1"] = [round(f1(point), 3), *interval([f1(s) for s in samples])]
        report[m] = out
        print(
            f"  {m:9} P {out['precision']}  R {out['recall']}  F1 {out['f1']}"
            f"  pairs {out['pairs']}, outside the pool {out['outside']}"
        )
    return report


def paired_gain(
    judged: list[dict[str, Any]],
    pools: dict[str, set[Pair]],
    grouped: set[Pair],
    reference: set[Pair],
    boots: list[list[int]],
) -> tuple[float, float, float]:
    """Pairwise F1 of ``grouped`` minus that of ``reference``: the point estimate and a 95 %
    percentile interval over the same bootstrap resamples of the judged pairs (paired)."""
    sizes, rows = cells(judged, pools, grouped)
    ref_sizes, ref_rows = cells(judged, pools, reference)
    point = f1(from_cells(sizes, rows)) - f1(from_cells(ref_sizes, ref_rows))
    gains = [
        f1(from_cells(sizes, [rows[i] for i in b]))
        - f1(from_cells(ref_sizes, [ref_rows[i] for i in b]))
        for b in boots
    ]
    return (round(point, 3), *interval(gains))


def grid(
    data: dict[str, Any],
    judged: list[dict[str, Any]],
    pools: dict[str, set[Pair]],
    reference: set[Pair],
    rounds: int,
) -> dict[str, Any]:
    """Every point of ``GRID`` against the drawn parameters (``reference``'s pairs), chosen by
    ``choose``."""
    keys = list(GRID)
    points = [
        replace(DRAWN, **dict(zip(keys, values, strict=True)))  # type: ignore[arg-type]
        for values in itertools.product(*(GRID[k] for k in keys))
    ]
    return choose(data, judged, pools, DRAWN, reference, points, rounds)


def choose(
    data: dict[str, Any],
    judged: list[dict[str, Any]],
    pools: dict[str, set[Pair]],
    reference_params: BenchParams,
    reference: set[Pair],
    points: list[BenchParams],
    rounds: int,
) -> dict[str, Any]:
    """Each of ``points`` against ``reference`` (the pairs of ``reference_params``), per year;
    the choice, on ``CHOICE_YEAR`` only: among the points with at most ``MAX_OUTSIDE`` of their
    pairs outside the judged pool, the one whose pairwise-F1 gain has the highest lower bound
    (the gain most certain, not the largest point estimate: one year holds a few hundred
    judged pairs, and the best of many noisy estimates is mostly noise). It replaces the
    reference only when that lower bound is above 0 (``adopted``); the other year then checks
    it (``checked``: its point gain there is above 0)."""
    rows = []
    per_year = {y: by_year(data, judged, pools, {"ref": reference}, y) for y in YEARS}
    boots = {y: resamples(per_year[y][0], rounds) for y in YEARS}
    for params in points:
        pairs = method_pairs(data, params)
        row: dict[str, Any] = {"params": asdict(params)}
        for year in YEARS:
            j, p, m = by_year(data, judged, pools, {"x": pairs}, year)
            e = estimate(j, p, m["x"])
            row[str(year)] = {
                **{k: round(v, 3) for k, v in e.items()},
                "f1": round(f1(e), 3),
                "gain": paired_gain(j, p, m["x"], per_year[year][2]["ref"], boots[year]),
            }
        rows.append(row)
        print(
            changed(params, reference_params),
            " | ".join(
                f"{y}: P {row[str(y)]['precision']:.3f} R {row[str(y)]['recall']:.3f} "
                f"F1 {row[str(y)]['f1']:.3f} gain {row[str(y)]['gain']} outside "
                f"{int(row[str(y)]['outside'])}/{int(row[str(y)]['pairs'])}, in unjudged cells "
                f"{int(row[str(y)]['unknown_grouped'])}"
                for y in YEARS
            ),
            flush=True,
        )
    key = str(CHOICE_YEAR)
    eligible = [r for r in rows if r[key]["outside"] <= MAX_OUTSIDE * max(r[key]["pairs"], 1)]
    best = max(eligible, key=lambda r: (r[key]["gain"][1], r[key]["gain"][0]))
    adopted = best["params"] != asdict(reference_params) and best[key]["gain"][1] > 0
    other = str(next(y for y in YEARS if y != CHOICE_YEAR))
    checked = adopted and best[other]["gain"][0] > 0
    print(f"chosen on {CHOICE_YEAR} ({len(eligible)} of {len(rows)} points eligible):", best)
    if not adopted:
        print(f"no point's F1 gain on {CHOICE_YEAR} is above 0 at 95 %: the reference stays")
    else:
        print(f"adopted; on {other}: gain {best[other]['gain']}, checked: {checked}")
    return {"rows": rows, "chosen": best, "adopted": adopted, "checked": checked}


def changed(params: BenchParams, reference: BenchParams) -> dict[str, Any]:
    """The fields of ``params`` that differ from ``reference``'s."""
    ref = asdict(reference)
    return {k: v for k, v in asdict(params).items() if v != ref[k]} or {"(reference)": True}


# the variants chosen on CHOICE_YEAR in turn (--variants), each family against the choice
# before it: first the cap on the days a story spans (the shipped parameters otherwise), then
# changes aimed at precision on top of the chosen span
SPANS = (1, 2, 3, 4, 5, 6, 7)
PRECISION_VARIANTS: tuple[dict[str, Any], ...] = (
    {"link": 0.55},
    {"link": 0.6},
    {"attach": 0.9},
    {"attach_needs_entity": True},
    {"pair_gate": 0.6},
    {"pair_gate": 0.7},
    {"pair_gate": 0.6, "attach_needs_entity": True},
    {"linkage": "complete", "link": 0.4},
    {"linkage": "complete", "link": 0.45},
    {"linkage": "complete", "link": 0.5},
    {"linkage": "complete", "link": 0.45, "attach_needs_entity": True},
    {"attach_per_doubling": 0.02},
    {"attach_per_doubling": 0.04},
)


def family(
    name: str,
    data: dict[str, Any],
    judged: list[dict[str, Any]],
    pools: dict[str, set[Pair]],
    base: BenchParams,
    changes: Sequence[dict[str, Any]],
    rounds: int,
) -> dict[str, Any]:
    """``base`` and each of ``changes`` applied to it, against ``base``, by ``choose``."""
    print(f"{name}, against", asdict(base))
    points = [base, *(replace(base, **change) for change in changes)]
    return choose(data, judged, pools, base, method_pairs(data, base), points, rounds)


def outcome(result: dict[str, Any], base: BenchParams) -> BenchParams:
    """A family's choice when adopted, else its ``base``."""
    return BenchParams(**result["chosen"]["params"]) if result["adopted"] else base


def variants(
    data: dict[str, Any],
    judged: list[dict[str, Any]],
    pools: dict[str, set[Pair]],
    rounds: int,
) -> dict[str, Any]:
    """The span family against ``DRAWN``, then the precision family against its outcome (the
    chosen span when adopted, else ``DRAWN``), each by ``choose``."""
    spans = [replace(DRAWN, span_days=d) for d in SPANS]
    print("span family, against", asdict(DRAWN))
    span = choose(data, judged, pools, DRAWN, pools["_drawn"], spans, rounds)
    base = outcome(span, DRAWN)
    precision = family("precision family", data, judged, pools, base, PRECISION_VARIANTS, rounds)
    return {"span": span, "precision": precision}


# evidence that two posts name the same specific thing (--terms), each against TERMS_BASE:
# the IDF-weighted cosine of title + text terms added to a day's similarity (with a higher
# cut) or gating it, the same between a day's cluster and an open story, and entities weighed
# by their inverse frequency among the day's signals
# (the ``terms`` stratum is these points' pairs: a point added here changes it)
TERM_VARIANTS: tuple[dict[str, Any], ...] = (
    *({"term_weight": w, "link": c} for w in (0.5, 1.0) for c in (0.5, 0.55, 0.6, 0.65)),
    *({"term_weight": 1.0, "link": c, "term_days": 90} for c in (0.55, 0.6, 0.65)),
    {"term_weight": 1.0, "link": 0.6, "term_days": 365},
    {"term_gate": 0.05},
    {"term_gate": 0.1},
    {"attach_term_gate": 0.1},
    {"attach_term_gate": 0.2},
    {"attach_term_weight": 0.5, "attach": 0.9},
    {"attach_term_weight": 1.0, "attach": 0.95},
    {"term_weight": 1.0, "link": 0.6, "term_days": 90, "attach_term_weight": 0.5, "attach": 0.9},
    {"entity_idf": True},
    {"entity_idf": True, "entity_weight": 0.6, "link": 0.55},
)


# a second family (--terms), on top of the term family's choice when it is adopted
ON_TOP_VARIANTS: tuple[dict[str, Any], ...] = (
    {"entity_idf": True},
    {"entity_idf": True, "entity_weight": 0.6},
    {"term_days": 365},
    {"link": 0.65},
    {"attach": 0.95},
    {"attach_term_weight": 1.0, "attach": 0.95},
    {"term_weight": 1.5, "link": 0.65},
)


def term_variants(
    data: dict[str, Any],
    judged: list[dict[str, Any]],
    pools: dict[str, set[Pair]],
    rounds: int,
) -> dict[str, Any]:
    """``TERM_VARIANTS`` against ``TERMS_BASE`` (the parameters shipped when they were drawn),
    then ``ON_TOP_VARIANTS`` against the outcome (the choice when adopted), each by
    ``choose``."""
    terms = family("term family", data, judged, pools, TERMS_BASE, TERM_VARIANTS, rounds)
    top = outcome(terms, TERMS_BASE)
    on_top = family("on top", data, judged, pools, top, ON_TOP_VARIANTS, rounds)
    return {"terms": terms, "on_top": on_top}


# burstiness (--burst), against the shipped parameters: a term rare in the days before and in
# several of the day's signals names an event (``BenchParams.term_burst``), with the cut as
# shipped or moved by 0.05 (a burst factor changes the term cosines' spread); cuts 0.7 and 0.75
# were added after a first run (docs/journal/2026-12-01.md, "Stories: the 2025 `terms` pairs
# judged, and burstiness tried")
BURST_VARIANTS: tuple[dict[str, Any], ...] = (
    *({"term_burst": "times", "link": c} for c in (0.55, 0.6, 0.65, 0.7, 0.75)),
    *({"term_burst": "only", "link": c} for c in (0.55, 0.6, 0.65)),
)


def burst_variants(
    data: dict[str, Any],
    judged: list[dict[str, Any]],
    pools: dict[str, set[Pair]],
    rounds: int,
) -> dict[str, Any]:
    """``BURST_VARIANTS`` against the shipped ``BenchParams()``, by ``choose``."""
    return family("burst family", data, judged, pools, BenchParams(), BURST_VARIANTS, rounds)


def anatomy(
    data: dict[str, Any],
    judged: list[dict[str, Any]],
    pools: dict[str, set[Pair]],
    grouped: set[Pair] | None = None,
    name: str = "drawn",
) -> None:
    """Where a clustering's pairs (``grouped``; the drawn method's when None) come from: by the
    days between the two posts, its pairs and the verdicts of its judged pairs of the method
    stratum; and the share of its pairs in its largest stories."""
    day = dict(zip(data["ids"], data["days"], strict=True))

    def gap(pair: Pair) -> str:
        days = abs((day[pair[0]] - day[pair[1]]).days)
        return str(days) if days < 2 else "2+"

    pool = pools["method"] if grouped is None else grouped
    for g in ("0", "1", "2+"):
        rows = [
            r
            for r in judged
            if r["stratum"] == "method" and (r["a"], r["b"]) in pool and gap((r["a"], r["b"])) == g
        ]
        share = sum(gap(p) == g for p in pool) / len(pool)
        print(
            f"  {name}: pairs {g} days apart: {share:.2f} of its pairs, "
            f"{sum(r['same_event'] for r in rows)}/{len(rows)} judged the same event"
        )
    # a story's social posts: every pair of them is in the pool, so its smallest id's partners
    # are the whole story
    partners: dict[str, int] = {}
    for a, _ in pool:
        partners[a] = partners.get(a, 0) + 1
    firsts = {a for a, _ in pool} - {b for _, b in pool}
    largest = sorted((partners[a] + 1 for a in firsts), reverse=True)[:3]
    top = sum(n * (n - 1) // 2 for n in largest)
    print(f"  {name}: largest stories {largest} social posts, {top / len(pool):.2f} of its pairs")
    if grouped is not None:
        return
    index = {sid: i for i, sid in enumerate(data["ids"])}
    vectors = data["vectors"]
    high = [
        r
        for r in judged
        if r["stratum"] == "candidate"
        and float(vectors[index[r["a"]]] @ vectors[index[r["b"]]]) >= 0.7
    ]
    print(
        f"  candidate pairs at title + text cosine >= 0.7: "
        f"{sum(r['same_event'] for r in high)}/{len(high)} judged the same event"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--warehouse", type=Path, required=True, help="a data dir's warehouse/")
    parser.add_argument("--title-text", type=Path, required=True, help="from embed_cache.py")
    parser.add_argument("--judged", type=Path, default=JUDGED)
    parser.add_argument("--draw", action="store_true", help="draw a sample to judge")
    parser.add_argument("--out", type=Path, help="with --draw: the skeleton to fill in")
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument(
        "--sizes",
        default="150,75,150,0,0",
        help="method,baseline,candidate,terms,split (0 if left out)",
    )
    parser.add_argument("--boot", type=int, default=2000, help="bootstrap rounds")
    parser.add_argument("--grid", action="store_true", help="the parameter grid on 2024")
    parser.add_argument("--grid-boot", type=int, default=400, help="resamples per grid point")
    parser.add_argument(
        "--variants",
        action="store_true",
        help="the span cap, then the precision variants, each chosen on 2024 (about 3 min)",
    )
    parser.add_argument(
        "--terms",
        action="store_true",
        help="the shared-term and entity-specificity variants, chosen on 2024 (about 2-3 min)",
    )
    parser.add_argument(
        "--burst",
        action="store_true",
        help="the burstiness variants of the term weights, chosen on 2024 (about 1 min)",
    )
    parser.add_argument(
        "--hard-calls-no",
        action="store_true",
        help="score with every judged pair whose note ends in '(close)' taken as not one event",
    )
    parser.add_argument("--year", type=int, help="with --draw: only pairs of this year")
    parser.add_argument(
        "--exclude", type=Path, help="with --draw: never a pair judged in this file"
    )
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    data = load(args.warehouse, args.title_text)
    if args.draw:
        if args.out is None:
            parser.error("--draw needs --out")
        given = [int(x) for x in args.sizes.split(",")]
        if len(given) > len(STRATA):
            parser.error(f"--sizes: at most {len(STRATA)} values")
        sizes = dict.fromkeys(STRATA, 0) | dict(zip(STRATA, given, strict=False))
        draw(data, sizes, args.seed, args.out, args.year, args.exclude)
        return
    pools = strata(data)
    judged = load_judged(data, args.judged, pools)
    if args.hard_calls_no:
        judged = [hard_call_no(r) for r in judged]
    # shipped: roundups split (issue 45); before: the same clustering over whole signals
    methods = {
        "shipped": split_pairs(data, BenchParams()),
        "before": method_pairs(data, BenchParams()),
        "baseline": pools["_baseline_all"],
        "drawn": pools["method"],
    }
    anatomy(data, judged, pools)
    if "drawn" in methods:
        anatomy(data, judged, pools, methods["shipped"], "shipped")
    judged, pools = yearly(data, judged, pools)
    report: dict[str, Any] = {}
    for year in (*YEARS, None):
        key = str(year or "both")
        report[key] = score(data, judged, pools, methods, args.boot, year)
        # the shipped method's F1 against the baseline's (and the drawn parameters', and those
        # shipped before the term bonus), paired
        j, p, m = by_year(data, judged, pools, methods, year)
        boots = resamples(j, args.boot)
        for other in ("baseline", "drawn", "before"):
            if other in m:
                gain = paired_gain(j, p, m["shipped"], m[other], boots)
                report[key][f"shipped_minus_{other}"] = gain
                print(f"  shipped F1 minus {other}'s: {gain}")
    if args.grid:
        report["grid"] = grid(data, judged, pools, pools["_drawn"], args.grid_boot)
    if args.variants:
        report["variants"] = variants(data, judged, pools, args.grid_boot)
    if args.terms:
        report["terms"] = term_variants(data, judged, pools, args.grid_boot)
    if args.burst:
        report["burst"] = burst_variants(data, judged, pools, args.grid_boot)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
