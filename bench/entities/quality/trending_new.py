"""Do new models reach trending's ``new`` list the weeks they are news? On AINews (both years),
for a few ``as_of`` dates: build the data dir at that date, then check every model the
newsletter first labelled (``labels.models`` of its memos) in the four weeks before ``as_of``
and labelled in at least 2 memos up to ``as_of``.

Usage: .venv/bin/python -m bench.entities.quality.trending_new DATA_DIR [--as-of 2025-03-03 ...]

``DATA_DIR`` holds the AINews corpus ingested (``aimi ingest ../shared/data/ainews/*.jsonl``);
each date is one ``aimi build --as-of`` into it (incremental: units are kept, entities and trends
are computed again). A label names an entity of the build (registry, approved or discovered)
when one of its names or aliases slugs to it (also with hyphens dropped: ``gpt4o`` =
``gpt-4o``); labels that name the same entity are one model (the newsletter tags one model with
several strings), first labelled when any of them first is; a label that names no entity is a
model of its own, and a miss. A model is *in new* when its entity, or a member of its family,
has a ``mode=new`` rank (the full list, not the first page). Also checked: no entity of the
``rising`` list is labelled ``Declining`` or ``Stable``. Prints Markdown; dates default to four
Mondays of 2025, so that W-3…W0 are exactly the four weeks before ``as_of``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import polars as pl

from analytics.entities import slugify
from analytics.schema import ENTITIES
from pipelines.build import build
from warehouse.paths import DataDir
from warehouse.tables import read_table

DATES = ("2025-03-03", "2025-06-02", "2025-09-01", "2025-12-01")
WINDOW = timedelta(days=28)


def memo_labels(shared: Path) -> list[tuple[datetime, list[str]]]:
    memos = []
    for path in sorted((shared / "ainews").glob("ainews-*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record.get("kind") == "memo":
                when = datetime.fromisoformat(record["published_at"].replace("Z", "+00:00"))
                memos.append((when, list((record.get("labels") or {}).get("models") or [])))
    return sorted(memos)


def slugs(entities: pl.DataFrame) -> dict[str, str]:
    """Every name's and alias's slug (and without hyphens) → entity id; the first claim wins."""
    found: dict[str, str] = {}
    for row in entities.sort("entity_id").iter_rows(named=True):
        for text in [row["name"], *(a["text"] for a in row["aliases"] or [])]:
            slug = slugify(text)
            for form in (slug, slug.replace("-", "")):
                found.setdefault(form, row["entity_id"])
    return found


def check(
    data: DataDir, as_of: datetime, memos: list[tuple[datetime, list[str]]]
) -> dict[str, Any]:
    entities = read_table(data, "entities", ENTITIES)
    profiles = pl.read_parquet(data.table_path("entity_profiles"))
    by_slug = slugs(entities)
    names = dict(entities.select("entity_id", "name").iter_rows())
    family = dict(entities.select("entity_id", "family").iter_rows())
    in_new = set(profiles.filter(pl.col("rank_new").is_not_null())["entity_id"])

    def model_of(label: str) -> str:
        """The entity a label names, else the label itself: the newsletter tags one model
        with several strings ("claude-4.5-sonnet", "sonnet-4.5"), and a model is first
        labelled when any of them first is."""
        return by_slug.get(label) or by_slug.get(label.replace("-", "")) or f"label:{label}"

    first: dict[str, datetime] = {}
    count: dict[str, int] = defaultdict(int)
    for when, labels in memos:
        if when >= as_of:
            break
        for model in {model_of(label) for label in labels}:
            first.setdefault(model, when)
            count[model] += 1
    fresh = sorted(
        model for model, when in first.items() if when >= as_of - WINDOW and count[model] >= 2
    )
    rows = []
    for model in fresh:
        found = not model.startswith("label:")
        members = {e for e, f in family.items() if f == model} | {model}
        rows.append(
            {
                "model": names.get(model, model),
                "entity": model if found else None,
                "in_new": found and bool(members & in_new),
            }
        )
    rising = profiles.filter(pl.col("rank_rising").is_not_null())
    contradicted = rising.filter(pl.col("direction").is_in(["Declining", "Stable"]))
    return {
        "as_of": as_of.date().isoformat(),
        "fresh_models": len(rows),
        "found": sum(1 for r in rows if r["entity"]),
        "in_new": sum(1 for r in rows if r["in_new"]),
        "new_list": len(in_new),
        "rising": rising.height,
        "rising_labelled_declining_or_stable": contradicted["name"].to_list(),
        "missed": [r["model"] for r in rows if not r["in_new"]],
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--shared", type=Path, default=Path("../shared/data"))
    parser.add_argument("--as-of", nargs="+", default=list(DATES))
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    data = DataDir(args.data_dir.resolve())
    memos = memo_labels(args.shared)
    results = []
    for day in args.as_of:
        as_of = datetime.fromisoformat(day).replace(tzinfo=UTC)
        started = time.perf_counter()
        build(data, as_of=as_of, persistent=False)
        result = check(data, as_of, memos)
        result["build_seconds"] = round(time.perf_counter() - started, 1)
        results.append(result)
        print(json.dumps({k: v for k, v in result.items() if k != "rows"}), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(
        "\n| as_of | new models labelled (≥ 2 memos) | found as entities | in `new` | share "
        "| rising items labelled Declining/Stable |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for r in results:
        share = r["in_new"] / r["fresh_models"] if r["fresh_models"] else 0.0
        print(
            f"| {r['as_of']} | {r['fresh_models']} | {r['found']} | {r['in_new']} | "
            f"{share:.2f} | {len(r['rising_labelled_declining_or_stable'])} |"
        )
    total = sum(r["fresh_models"] for r in results)
    hit = sum(r["in_new"] for r in results)
    print(f"\nall dates: {hit} / {total} = {hit / total if total else 0:.2f}")
    for r in results:
        print(f"{r['as_of']} missed: {r['missed']}")


if __name__ == "__main__":
    main()
