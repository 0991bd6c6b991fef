"""Story clustering quality (issue 31): B-cubed precision, recall and F1 of a clustering of the
AINews social posts against the editors' grouping (one cluster per newsletter ``issue`` and
``section``; posts of sections named like "Top tweets" are left out of the measure, as the issue
says), per development year.

Usage:
    .venv/bin/python -m bench.stories.quality --warehouse /tmp/ainews-full/warehouse \
        [--title-text /tmp/stories/title_text.npz] [--grid] \
        [--params 1,0.55,0.95,0.3[,SPAN]] [--params term_weight=0,attach_term_weight=0] \
        [--json F]

The warehouse is a data dir's ``warehouse/`` after ``aimi build`` of both AINews years
(bench/README.md, "Data"). The labels come from ``sources.extra`` (ingest keeps the records'
extra fields there); the clustering under test never reads them. Measured:

- all singletons;
- the naive baseline: MiniLM over title and text (``--title-text``, written by
  ``embed_cache.py``), each day's social posts by average linkage, at every cut of a grid (the
  best one per year, and the one best on 2024 applied to 2025);
- the shipped method (``analytics.stories.cluster_signals`` with ``BenchParams()``), over all
  signals of both years as the asset runs it; with ``--grid`` its parameter grid on 2024
  (the development year the parameters are chosen on) and the chosen point on 2025.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import re
import time
from collections import Counter
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from analytics.stories import average_linkage, signal_vectors
from analytics.stories import entity_sets as signal_entity_sets
from bench.stories.variants import BenchParams, cluster

TOP_SECTION = re.compile(r"top tweets", re.IGNORECASE)
CHOICE_YEAR = 2024


def bcubed(gold: list[str], predicted: list[Any]) -> tuple[float, float, float]:
    """B-cubed precision, recall and F1 of ``predicted`` labels against ``gold`` labels."""
    n = len(gold)
    if n == 0:
        return 0.0, 0.0, 0.0
    pair = Counter(zip(gold, predicted, strict=True))
    gold_size = Counter(gold)
    pred_size = Counter(predicted)
    precision = sum(pair[(g, p)] / pred_size[p] for g, p in zip(gold, predicted, strict=True)) / n
    recall = sum(pair[(g, p)] / gold_size[g] for g, p in zip(gold, predicted, strict=True)) / n
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def load(warehouse: Path) -> dict[str, Any]:
    signals = pl.read_parquet(warehouse / "signals.parquet")
    sources = pl.read_parquet(warehouse / "sources.parquet").select("source_id", "extra")
    units = pl.read_parquet(warehouse / "units.parquet").select("unit_id", "signal_id")
    embeddings = pl.read_parquet(warehouse / "unit_embeddings.parquet")
    units = units.join(embeddings, on="unit_id", how="inner")
    entity_sets = signal_entity_sets(pl.read_parquet(warehouse / "signal_entities.parquet"))
    # the labels: evaluation only
    extra = {
        sid: json.loads(raw) if raw else {}
        for sid, raw in signals.select("signal_id", "source_id")
        .join(sources, on="source_id", how="left")
        .select("signal_id", "extra")
        .iter_rows()
    }
    vectors = signal_vectors(
        signals["signal_id"].to_list(),
        units["signal_id"].to_list(),
        units["vector"].to_numpy().astype(np.float32),
    )
    return {"signals": signals, "vectors": vectors, "entities": entity_sets, "extra": extra}


def gold_items(data: dict[str, Any]) -> dict[int, list[tuple[str, str]]]:
    """Per year, (signal_id, gold label) of the social posts the measure counts."""
    out: dict[int, list[tuple[str, str]]] = {}
    social = data["signals"].filter(pl.col("kind") == "social")
    for sid, published in social.select("signal_id", "published_at").iter_rows():
        extra = data["extra"][sid]
        section, issue = extra.get("section"), extra.get("issue")
        if not section or not issue or TOP_SECTION.search(section):
            continue
        out.setdefault(published.year, []).append((sid, f"{issue}\x1f{section}"))
    return out


def score(
    items: dict[int, list[tuple[str, str]]], labels: dict[str, Any]
) -> dict[int, tuple[float, float, float]]:
    return {
        year: bcubed([g for _, g in pairs], [labels[s] for s, _ in pairs])
        for year, pairs in sorted(items.items())
    }


def baseline_labels(signals: pl.DataFrame, vectors: np.ndarray, cut: float) -> dict[str, Any]:
    """Each day's social posts by average linkage on the title+text cosine."""
    labels: dict[str, Any] = {}
    days = signals.with_row_index("_row").with_columns(pl.col("published_at").dt.date().alias("d"))
    for (day,), group in days.group_by("d", maintain_order=True):
        rows = group["_row"].to_list()
        block = vectors[rows]
        for sid, lab in zip(group["signal_id"], average_linkage(block @ block.T, cut), strict=True):
            labels[sid] = (day, lab)
    return labels


def method_labels(data: dict[str, Any], params: BenchParams) -> dict[str, Any]:
    signals = data["signals"]
    labels = cluster(signals, data["vectors"], data["entities"], params)
    return dict(zip(signals["signal_id"].to_list(), labels, strict=True))


def parse_params(spec: str) -> BenchParams:
    """``--params``: WINDOW,LINK,ATTACH,WEIGHT[,SPAN], or FIELD=VALUE pairs, on the shipped
    parameters."""
    fields = spec.split(",")
    if all("=" in f for f in fields):
        shipped = asdict(BenchParams())
        changes: dict[str, Any] = {}
        for field in fields:
            key, raw = field.split("=", 1)
            if key not in shipped:
                raise SystemExit(f"--params: no BenchParams field {key!r}")
            kind = type(shipped[key])
            value: Any = None if raw == "None" else raw
            if value is not None and kind is not type(None):
                value = raw.lower() == "true" if kind is bool else kind(raw)
            elif value is not None:
                value = float(raw) if "." in raw else int(raw)
            changes[key] = value
        return replace(BenchParams(), **changes)
    days, cut, bar, bonus = (float(x) for x in fields[:4])
    span = fields[4] if len(fields) > 4 else str(BenchParams().span_days)
    return replace(
        BenchParams(),
        window_days=int(days),
        link=cut,
        attach=bar,
        entity_weight=bonus,
        span_days=None if span == "None" else int(span),
    )


def fmt(result: dict[int, tuple[float, float, float]]) -> str:
    return " | ".join(f"{y}: P {p:.3f} R {r:.3f} F1 {f:.3f}" for y, (p, r, f) in result.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--warehouse", type=Path, required=True)
    parser.add_argument("--title-text", type=Path)
    parser.add_argument("--grid", action="store_true")
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--params",
        action="append",
        default=[],
        metavar="WINDOW,LINK,ATTACH,WEIGHT[,SPAN] or FIELD=VALUE,...",
        help="also score the method at these parameters (repeatable; SPAN a number of days "
        "or None, the shipped span when left out; the fields not given keep their shipped "
        "values, so FIELD=VALUE sets any BenchParams field, None for none)",
    )
    args = parser.parse_args()
    data = load(args.warehouse)
    items = gold_items(data)
    report: dict[str, Any] = {
        "items": {y: len(v) for y, v in items.items()},
        "gold_clusters": {y: len({g for _, g in v}) for y, v in items.items()},
    }
    print("items per year:", report["items"], "gold clusters:", report["gold_clusters"])
    singles = {s: s for pairs in items.values() for s, _ in pairs}
    report["singletons"] = score(items, singles)
    print("all singletons       ", fmt(report["singletons"]))

    if args.title_text:
        cache = np.load(args.title_text)
        order = {s: i for i, s in enumerate(cache["signal_id"].tolist())}
        social = data["signals"].filter(pl.col("kind") == "social")
        vectors = cache["vector"][[order[s] for s in social["signal_id"].to_list()]]
        sweep = {}
        for cut in np.round(np.arange(0.30, 0.91, 0.05), 2):
            sweep[float(cut)] = score(items, baseline_labels(social, vectors, float(cut)))
        best_dev = max(sweep, key=lambda c: sweep[c][CHOICE_YEAR][2])
        report["baseline_sweep"] = sweep
        report["baseline_cut_on_2024"] = best_dev
        print(f"baseline, cut {best_dev} (best on {CHOICE_YEAR}) ", fmt(sweep[best_dev]))
        for year in items:
            best = max(sweep, key=functools.partial(lambda y, c: sweep[c][y][2], year))
            print(f"baseline, best cut for {year}: {best}: F1 {sweep[best][year][2]:.3f}")

    if args.grid:
        grid = []
        # the window is not searched: the labels group one day's posts, so they cannot tell
        # what a story's growth across days is worth; it is fixed at three days (a weekend)
        for link, attach, weight, window in itertools.product(
            (0.45, 0.5, 0.55, 0.6), (0.75, 0.8, 0.85), (0.0, 0.3, 0.6), (3,)
        ):
            params = BenchParams(window_days=window, link=link, attach=attach, entity_weight=weight)
            result = score(items, method_labels(data, params))
            grid.append((asdict(params), result))
            print(asdict(params), fmt(result), flush=True)
        best_params, _ = max(grid, key=lambda g: g[1][CHOICE_YEAR][2])
        report["grid"] = grid
        report["best_on_2024"] = best_params
        print("best on 2024:", best_params)

    started = time.perf_counter()
    shipped = method_labels(data, BenchParams())
    seconds = time.perf_counter() - started
    report["shipped"] = {"params": asdict(BenchParams()), "scores": score(items, shipped)}
    print("shipped", asdict(BenchParams()), fmt(report["shipped"]["scores"]))
    print(f"clustering {data['signals'].height} signals: {seconds:.2f} s")
    # the same without cross-day growth, for the record
    same_day = replace(BenchParams(), attach=2.0)
    print("shipped, one day only ", fmt(score(items, method_labels(data, same_day))))
    for spec in args.params:
        params = parse_params(spec)
        result = score(items, method_labels(data, params))
        report.setdefault("params", []).append((asdict(params), result))
        print(asdict(params), fmt(result))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))


if __name__ == "__main__":
    main()
