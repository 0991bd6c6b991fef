"""Discovery quality on AINews: precision (is a real named entity), type accuracy and family
attachment of the names discovery proposes, against the hand-labelled sample
``bench/entities/quality/discovery_labels.json`` (528 names: everything the discovery of 2026-11-24
proposed on both years, before cleaning and typing), and the precision of each candidate
acceptance bar.

Usage: .venv/bin/python -m bench.entities.quality.discovery ../shared/data [--json F]

The signals are the AINews source records as discovery sees them (body text, the registrable
domain of the URL, the publication day), read in place from ``../shared/data/ainews``; the
registry is the project's (``AIMI_REGISTRY`` or ``registry/entities.yaml``). Discovery runs as
the ``entity_mentions`` step (a multi-asset) runs it. A proposed name is judged when the
labelled sample holds it (the sample was drawn from discovery's output before cleaning, so a
cleaned output is judged almost entirely; unjudged names are counted and listed). Precision =
proposed names labelled entities / judged proposed names; type accuracy = proposed entities
whose type equals the label / judged proposed entities; family: of the labelled entities with a
family whose name resolves to a registry entry, the share discovery attached to that entry's
family. Recall against the sample = labelled entities still proposed / labelled entities.
Prints Markdown."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import polars as pl

from analytics.discovery import discover, rejection
from analytics.entities import Entity
from analytics.linking import EntityIndex, Linker
from analytics.urls import registrable_domain
from warehouse.given_names import load_given_names
from warehouse.registry import load_registry, registry_path

LABELS = Path(__file__).with_name("discovery_labels.json")
# acceptance bars to compare: (min signals, min distinct days, min domains)
BARS = [(2, 1, 2), (2, 2, 2), (3, 2, 2), (3, 3, 2), (4, 2, 2), (5, 3, 2), (3, 2, 3)]


def ainews_signals(shared: Path) -> pl.DataFrame:
    rows = []
    for path in sorted((shared / "ainews").glob("ainews-*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
            record = json.loads(line)
            rows.append(
                {
                    "signal_id": f"{path.stem}:{number}",
                    "text": record.get("text") or "",
                    "domain": registrable_domain(record.get("url") or ""),
                    "published_at": record["published_at"],
                }
            )
    frame = pl.DataFrame(rows)
    return frame.with_columns(
        pl.col("published_at").str.to_datetime(time_zone="UTC", time_unit="us")
    )


def judge(found: list[Entity], labels: dict[str, dict[str, Any]]) -> dict[str, Any]:
    judged = [e for e in found if e.name in labels]
    entities = [e for e in judged if labels[e.name]["entity"]]
    typed = [e for e in entities if e.type == labels[e.name]["type"]]
    return {
        "proposed": len(found),
        "judged": len(judged),
        "precision": len(entities) / len(judged) if judged else 0.0,
        "type_accuracy": len(typed) / len(entities) if entities else 0.0,
        "entities": len(entities),
        "recall_of_sample": len(entities) / sum(1 for v in labels.values() if v["entity"]),
        "confusions": Counter(
            (labels[e.name]["type"], e.type) for e in entities if e not in typed
        ).most_common(12),
        "false": sorted(e.name for e in judged if not labels[e.name]["entity"]),
        "unjudged": sorted(e.name for e in found if e.name not in labels),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("shared_data", type=Path)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if not (args.shared_data / "ainews").is_dir():
        sys.exit(f"{args.shared_data}/ainews not found")
    labels = {n["name"]: n for n in json.loads(LABELS.read_text(encoding="utf-8"))["names"]}
    signals = ainews_signals(args.shared_data)
    registry = load_registry(registry_path())
    index = EntityIndex(registry)
    discovered = discover(signals, Linker(registry), given_names=load_given_names(), index=index)
    found = discovered.candidates
    result = judge(found, labels)
    # short forms: names taken as a known entity or a longer candidate written short
    names = {e.entity_id: e.name for e in registry}
    result["short_forms"] = {
        "of_registry_entities": {
            names[entity_id]: forms for entity_id, forms in discovered.aliases.items()
        },
        "of_candidates": {e.name: [a.text for a in e.aliases] for e in found if e.aliases},
    }

    # family: labelled entities whose family name the registry resolves
    expected = {
        name: index.resolve(v["family"])
        for name, v in labels.items()
        if v["entity"] and v["family"] and index.resolve(v["family"]) is not None
    }
    proposed = {e.name: e for e in found}
    attached = [
        name
        for name, entry in expected.items()
        if name in proposed
        and entry is not None
        and proposed[name].family in {entry.entity_id, entry.family}
    ]
    in_output = [name for name in expected if name in proposed]
    result["family"] = {"expected_in_output": len(in_output), "attached": len(attached)}

    # the cleaning rules alone, on the whole sample
    cleaned = Counter(rejection(name) for name in labels)
    wrongly_cleaned = sorted(n for n, v in labels.items() if rejection(n) and v["entity"])
    result["cleaning"] = {
        "rejected": {k: v for k, v in cleaned.items() if k},
        "of_which_entities": wrongly_cleaned,
    }

    bars = []
    for signals_min, days_min, domains_min in BARS:
        accepted = [
            e
            for e in found
            if int(e.extra["signals"]) >= signals_min
            and int(e.extra["days"]) >= days_min
            and int(e.extra["domains"]) >= domains_min
        ]
        judged = judge(accepted, labels)
        bars.append(
            {
                "bar": f"≥ {signals_min} signals, ≥ {days_min} days, ≥ {domains_min} domains",
                "accepted": len(accepted),
                "judged": judged["judged"],
                "precision": judged["precision"],
                "type_accuracy": judged["type_accuracy"],
            }
        )
    result["bars"] = bars
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, default=str) + "\n", encoding="utf-8")

    print(f"proposed {result['proposed']}, judged {result['judged']}\n")
    print("| precision | type accuracy | entities kept of the sample's | families attached |")
    print("|---:|---:|---:|---:|")
    family = result["family"]
    print(
        f"| {result['precision']:.3f} | {result['type_accuracy']:.3f} | "
        f"{result['recall_of_sample']:.3f} | {family['attached']} / "
        f"{family['expected_in_output']} |"
    )
    print("\n| acceptance bar | accepted | judged | precision | type accuracy |")
    print("|---|---:|---:|---:|---:|")
    for bar in bars:
        print(
            f"| {bar['bar']} | {bar['accepted']} | {bar['judged']} | {bar['precision']:.3f} | "
            f"{bar['type_accuracy']:.3f} |"
        )
    print("\ntype confusions (label, guess):", result["confusions"])
    print("false names proposed:", result["false"])
    print("cleaning rejections:", result["cleaning"])
    print("unjudged:", result["unjudged"])
    print("short forms:", result["short_forms"])


if __name__ == "__main__":
    main()
