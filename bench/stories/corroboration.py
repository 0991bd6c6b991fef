"""Corroboration precision (issue 31): hand-judged claim pairs that the method links, on the
AINews 2024 + 2025 build.

Usage:
    # the pairs to judge, with their texts, printed (never committed: corpus text)
    .venv/bin/python -m bench.stories.corroboration --warehouse DIR/warehouse \
        --draw --year 2024 --per-band 8 --contested 8 --seed 1
    .venv/bin/python -m bench.stories.corroboration --warehouse DIR/warehouse --draw \
        --year 2025 --uniform 60 --min-sim 0.75 --seed 2 --exclude F
    # precision of the judged pairs under the shipped parameters, per year, Wilson 95 %
    .venv/bin/python -m bench.stories.corroboration --warehouse DIR/warehouse \
        --judged bench/stories/corroboration_judged.json

``--draw`` links the claims at the floor ``--floor`` (below the shipped threshold, so the
threshold can be chosen from judged pairs) and samples up to ``--per-band`` unordered pairs per
similarity band of the year's pairs (the year of the earlier claim), contested pairs always
included up to ``--contested``. The judged file holds unit ids, the verdict and a short reason
only; ``--judged`` recomputes each pair's similarity and relation from the warehouse, so it
fails loudly when a judged pair is no longer linked at the floor.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from analytics.corroboration import (
    CONTESTS,
    CorroborationParams,
    claim_inputs,
    claim_links,
    numbers_agree,
)

BANDS = (0.70, 0.75, 0.80, 0.85, 0.90, 1.01)
AS_OF = datetime(2026, 1, 1, tzinfo=UTC)


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 0.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def linked_pairs(warehouse: Path, floor: float) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(claims, unordered links at the floor) with the earlier claim's year."""
    claims, vectors = claim_inputs(
        pl.read_parquet(warehouse / "signals.parquet"),
        pl.read_parquet(warehouse / "units.parquet"),
        pl.read_parquet(warehouse / "unit_entities.parquet"),
        pl.read_parquet(warehouse / "unit_embeddings.parquet"),
        AS_OF,
    )
    started = time.process_time()
    links = claim_links(claims, vectors, replace(CorroborationParams(), similarity=floor))
    cpu = time.process_time() - started
    print(f"{claims.height} claims, {links.height} links at {floor} ({cpu:.2f} s CPU)")
    at = claims.select("unit_id", "published_at")
    pairs = (
        links.filter(pl.col("unit_id") < pl.col("other_unit_id"))
        .join(at, on="unit_id")
        .join(
            at.rename({"unit_id": "other_unit_id", "published_at": "other_at"}), on="other_unit_id"
        )
        .with_columns(
            pl.min_horizontal("published_at", "other_at").dt.year().alias("year"),
        )
    )
    return claims, pairs


def draw(args: argparse.Namespace) -> None:
    claims, pairs = linked_pairs(args.warehouse, args.floor)
    seen: set[tuple[str, str]] = set()
    if args.exclude and args.exclude.exists():
        for pair in json.loads(args.exclude.read_text())["pairs"]:
            seen.add((pair["unit_a"], pair["unit_b"]))
    pairs = pairs.filter(pl.col("year") == args.year)
    rng = random.Random(args.seed)
    text = dict(zip(claims["unit_id"], claims["text"], strict=True))
    voice = dict(zip(claims["unit_id"], claims["voice"], strict=True))
    chosen: list[dict[str, Any]] = []
    contested = list(
        pairs.filter(
            (pl.col("relation") == CONTESTS) & (pl.col("similarity") >= args.min_sim)
        ).iter_rows(named=True)
    )
    rng.shuffle(contested)
    chosen += [r for r in contested if (r["unit_id"], r["other_unit_id"]) not in seen][
        : args.contested
    ]
    fresh = [
        r
        for r in pairs.filter(
            (pl.col("relation") != CONTESTS)
            & pl.col("similarity").is_between(args.min_sim, args.max_sim, closed="left")
        ).iter_rows(named=True)
        if (r["unit_id"], r["other_unit_id"]) not in seen
    ]
    if args.uniform:
        # the population of links at the threshold, each equally likely: what precision is of
        rng.shuffle(fresh)
        chosen += fresh[: args.uniform]
    else:
        for lo, hi in itertools.pairwise(BANDS):
            band = [r for r in fresh if lo <= r["similarity"] < hi]
            rng.shuffle(band)
            chosen += band[: args.per_band]
    for r in chosen:
        a, b = r["unit_id"], r["other_unit_id"]
        print(f"\n{a} {b} sim={r['similarity']:.3f} {r['relation']} cues={list(r['cues'])}")
        print(f"  A [{voice[a]}] {text[a]}")
        print(f"  B [{voice[b]}] {text[b]}")


def report(args: argparse.Namespace) -> None:
    judged = json.loads(args.judged.read_text())["pairs"]
    claims, pairs = linked_pairs(args.warehouse, args.floor)
    text = dict(zip(claims["unit_id"], claims["text"], strict=True))
    found = {(r["unit_id"], r["other_unit_id"]): r for r in pairs.iter_rows(named=True)}
    shipped = CorroborationParams().similarity
    rows: list[dict[str, Any]] = []
    for pair in judged:
        key = (pair["unit_a"], pair["unit_b"])
        if key not in found:
            raise SystemExit(f"judged pair {key} is not linked at the floor {args.floor}")
        link = found[key]
        assert numbers_agree(text[key[0]], text[key[1]])
        rows.append(
            {
                "split": pair["split"],
                "year": link["year"],
                "similarity": link["similarity"],
                "relation": link["relation"],
                "verdict": pair["verdict"],
            }
        )
    frame = pl.DataFrame(rows)
    print("\nper band (all judged pairs, corroborating links):")
    for lo, hi in zip(BANDS, BANDS[1:], strict=False):
        band = frame.filter(
            (pl.col("relation") != CONTESTS)
            & pl.col("similarity").is_between(lo, hi, closed="left")
        )
        for year in (2024, 2025):
            part = band.filter(pl.col("year") == year)
            if part.height:
                same = int((part["verdict"] == "same").sum())
                print(f"  [{lo:.2f}, {min(hi, 1.0):.2f}) {year}: {same}/{part.height}")
    linked = frame.filter(pl.col("similarity") >= shipped)
    for title, sample in (
        ("uniform samples (splits check and judge)", linked.filter(pl.col("split") != "choose")),
        ("every judged pair", linked),
    ):
        print(f"\nshipped threshold {shipped}, {title}:")
        for name, part in (
            ("2024", sample.filter(pl.col("year") == 2024)),
            ("2025", sample.filter(pl.col("year") == 2025)),
            ("both", sample),
        ):
            corr = part.filter(pl.col("relation") != CONTESTS)
            same = int((corr["verdict"] == "same").sum())
            lo, hi = wilson(same, corr.height)
            share = same / max(corr.height, 1)
            cont = part.filter(pl.col("relation") == CONTESTS)
            real = int((cont["verdict"] == "contradiction").sum())
            print(
                f"  {name}: corroborates {same}/{corr.height} = {share:.3f} "
                f"(95 % {lo:.3f}–{hi:.3f}); contests {real}/{cont.height} real"
            )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--warehouse", type=Path, required=True, help="a data dir's warehouse/")
    parser.add_argument(
        "--floor", type=float, default=0.7, help="similarity the pairs are linked at"
    )
    parser.add_argument("--draw", action="store_true", help="print a sample of pairs to judge")
    parser.add_argument("--year", type=int, default=2024)
    parser.add_argument("--per-band", type=int, default=10)
    parser.add_argument("--contested", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--min-sim", type=float, default=0.7, help="draw pairs at least this similar"
    )
    parser.add_argument("--max-sim", type=float, default=1.01, help="and less similar than this")
    parser.add_argument("--uniform", type=int, default=0, help="draw this many pairs uniformly")
    parser.add_argument(
        "--exclude", type=Path, help="a judged file whose pairs are not drawn again"
    )
    parser.add_argument("--judged", type=Path, help="report the precision of this judged file")
    args = parser.parse_args()
    if args.draw:
        draw(args)
    elif args.judged:
        report(args)
    else:
        parser.error("--draw or --judged")


if __name__ == "__main__":
    main()
