"""The verifier on abstractive units: precision and recall on labelled (unit, passage) pairs.

Usage: .venv/bin/python -m bench.analytics.quality.units_support ../shared/data [--pairs F]
    [--json F]

``units_support_pairs.json`` references 35 passages of the shared corpora (AINews 2025 memos and
podcast transcripts) by offsets, and holds for each a handful of unit texts written for it and
labelled ``supported`` (faithful paraphrases and summaries) or ``unsupported`` (a statement on
the same topic the passage does not make, a changed number, a swapped or added name, a reversed
claim). Each unit is handed to the verifier as an LLM would hand it over: with one evidence
snippet, the passage's first (at most) 50 characters, in the passage's whole source text.

A positive is a unit the verifier accepts. Printed as Markdown (docs/quality.md): the whole
verifier at candidate thresholds of the MiniLM cosine (precision: accepted units that are
supported; recall: supported units accepted), each rule alone (how often it refuses, and how
often rightly), the pass rate per kind of unit at the shipped threshold, the cosines per kind,
and a check that ``verify_units`` decides exactly as this breakdown does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analytics.linking import Linker
from analytics.polarity import reversal_cues
from analytics.text import snippet
from analytics.verify import (
    SUPPORT_MIN_COSINE,
    EvidencePassages,
    NameFinder,
    Snippet,
    UnitDraft,
    names_missing,
    numbers_missing,
    support_cosines,
    verify_units,
)
from warehouse.embeddings import load_minilm
from warehouse.registry import load_registry, registry_path

PAIRS = Path(__file__).resolve().parent / "units_support_pairs.json"
CANDIDATES = (0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)
BEFORE_MIN_COSINE = 0.6
KINDS = ("paraphrase", "summary", "topical", "number", "entity", "reversed")


@dataclass(frozen=True)
class Pair:
    passage_id: str
    split: str  # "dev": chose the rules and the threshold; "held_out": only measured
    kind: str
    supported: bool
    draft: UnitDraft
    source: str


@dataclass(frozen=True)
class Scored:
    pair: Pair
    cosine: float
    number_missing: bool
    name_missing_shape: bool  # names by their shape only
    name_missing: bool  # names by shape and registry mentions (as the build runs it)
    reversed: bool  # a negation or an opposite the passage does not have
    number_missing_before: bool  # the number check before issue 17: a substring of the passage


_TOKEN = re.compile(r"\S+|\s+")


def unit_text(parts: list[str | list[int]], passage: str) -> str:
    """A unit put back together: its own words (strings) and the passage's tokens ``[i, j)``
    (runs of non-space or space characters) it shares, which the pairs file stores as indices
    so that it holds no corpus text."""
    tokens = _TOKEN.findall(passage)
    return "".join(p if isinstance(p, str) else "".join(tokens[p[0] : p[1]]) for p in parts)


def load_pairs(shared: Path, path: Path) -> list[Pair]:
    """The labelled pairs, each unit as a draft with its evidence snippet in its source text.
    Stops when a passage is not what was labelled (the corpus changed)."""
    spec = json.loads(path.read_text(encoding="utf-8"))
    records: dict[str, dict[str, str]] = {}
    pairs: list[Pair] = []
    for passage in spec["passages"]:
        corpus = shared / passage["corpus"]
        if passage["record"] is None:
            source = corpus.read_text(encoding="utf-8")
        else:
            if passage["corpus"] not in records:
                lines = corpus.read_text(encoding="utf-8").splitlines()
                records[passage["corpus"]] = {
                    r["url"]: r["text"] for r in map(json.loads, lines) if r.get("text")
                }
            source = records[passage["corpus"]][passage["record"]]
        start, end = passage["start"], passage["end"]
        text = source[start:end]
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[: len(passage["sha256"])]
        if digest != passage["sha256"]:
            raise SystemExit(f"passage {passage['id']} changed in {corpus}: re-label it")
        cut, truncated = snippet(text)
        if source.find(cut) != start:
            raise SystemExit(f"passage {passage['id']}: its snippet first occurs elsewhere")
        for unit in passage["units"]:
            draft = UnitDraft(
                "claim",
                unit_text(unit["text"], text),
                start,
                end,
                (Snippet(cut, truncated),),
                argument_id=None,
            )
            supported = unit["label"] == "supported"
            pairs.append(
                Pair(passage["id"], passage["split"], unit["kind"], supported, draft, source)
            )
    return pairs


def score(pairs: list[Pair], registry: NameFinder) -> list[Scored]:
    located = [EvidencePassages(p.source).locate(p.draft) for p in pairs]
    cosines = support_cosines([p.draft.text for p in pairs], located, load_minilm())
    return [
        Scored(
            pair,
            float(cosine),
            bool(numbers_missing(pair.draft.text, passage)),
            bool(names_missing(pair.draft.text, passage)),
            bool(names_missing(pair.draft.text, passage, registry)),
            bool(reversal_cues(pair.draft.text, passage)),
            any(n not in passage for n in re.findall(r"\d(?:[\d.,]*\d)?", pair.draft.text)),
        )
        for pair, passage, cosine in zip(pairs, located, cosines, strict=True)
    ]


def accepts(
    item: Scored, threshold: float, *, registry: bool = True, polarity: bool = True
) -> bool:
    """The verifier's decision on an abstractive unit, rule by rule (``registry``: names also
    as registry mentions; ``polarity``: with ``contradicts_evidence``)."""
    names = item.name_missing if registry else item.name_missing_shape
    reversed_ = item.reversed and polarity
    return not item.number_missing and not names and not reversed_ and item.cosine >= threshold


def precision_recall(decisions: list[tuple[bool, bool]]) -> tuple[float, float, int]:
    """(precision, recall, accepted) of accept decisions over (accepted, supported) pairs."""
    accepted = [supported for accept, supported in decisions if accept]
    relevant = sum(supported for _, supported in decisions)
    precision = sum(accepted) / len(accepted) if accepted else 1.0
    recall = sum(accepted) / relevant if relevant else 1.0
    return precision, recall, len(accepted)


def f_half(precision: float, recall: float) -> float:
    """F0.5: precision counts twice as much as recall (a gate should err on refusing)."""
    return 1.25 * precision * recall / (0.25 * precision + recall) if precision + recall else 0.0


def threshold_table(scored: list[Scored]) -> tuple[list[str], float]:
    """The verifier at each candidate threshold on ``scored`` (the dev split), and the one with
    the highest F0.5."""
    lines = [
        "| cosine ≥ | accepted | precision | recall | F0.5 | without `contradicts_evidence` | "
        "names by shape only |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    best, best_f = CANDIDATES[0], -1.0
    for threshold in CANDIDATES:
        p, r, n = precision_recall([(accepts(s, threshold), s.pair.supported) for s in scored])
        p_shape, r_shape, _ = precision_recall(
            [(accepts(s, threshold, registry=False), s.pair.supported) for s in scored]
        )
        p_plain, r_plain, _ = precision_recall(
            [(accepts(s, threshold, polarity=False), s.pair.supported) for s in scored]
        )
        f = f_half(p, r)
        if f > best_f:
            best, best_f = threshold, f
        mark = "**" if threshold == SUPPORT_MIN_COSINE else ""
        lines.append(
            f"| {mark}{threshold:.2f}{mark} | {n} | {p:.3f} | {r:.3f} | {f:.3f} | "
            f"{p_plain:.3f} / {r_plain:.3f} | {p_shape:.3f} / {r_shape:.3f} |"
        )
    return lines, best


def accepted_before(item: Scored) -> bool:
    """The verifier before issue 17: numbers as substrings of the passage, cosine ≥ 0.6."""
    return not item.number_missing_before and item.cosine >= BEFORE_MIN_COSINE


def split_table(scored: list[Scored]) -> list[str]:
    """The verifier before issue 17 and as shipped, on each split."""
    lines = [
        "| split | pairs | supported | before: accepted | precision | recall | "
        "shipped: accepted | precision | recall |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for split in ("dev", "held_out", "all"):
        items = [s for s in scored if split in ("all", s.pair.split)]
        pb, rb, nb = precision_recall([(accepted_before(s), s.pair.supported) for s in items])
        p, r, n = precision_recall(
            [(accepts(s, SUPPORT_MIN_COSINE), s.pair.supported) for s in items]
        )
        supported = sum(s.pair.supported for s in items)
        lines.append(
            f"| {split} | {len(items)} | {supported} | {nb} | {pb:.3f} | {rb:.3f} | {n} | "
            f"{p:.3f} | {r:.3f} |"
        )
    return lines


def rule_table(scored: list[Scored]) -> list[str]:
    """Each rule alone, as a detector of unsupported units."""
    unsupported = [s for s in scored if not s.pair.supported]
    target = {
        "number_not_in_evidence": "number",
        "entity_not_in_evidence": "entity",
        "entity_not_in_evidence (names by shape only)": "entity",
        "contradicts_evidence": "reversed",
        f"unsupported (cosine < {SUPPORT_MIN_COSINE})": "topical",
    }
    fires = {
        "number_not_in_evidence": lambda s: s.number_missing,
        "entity_not_in_evidence": lambda s: s.name_missing,
        "entity_not_in_evidence (names by shape only)": lambda s: s.name_missing_shape,
        "contradicts_evidence": lambda s: s.reversed,
        f"unsupported (cosine < {SUPPORT_MIN_COSINE})": lambda s: s.cosine < SUPPORT_MIN_COSINE,
    }
    lines = [
        "| rule | refuses | of them unsupported (precision) | unsupported refused (recall) | "
        "its kind refused | supported refused |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for rule, fired in fires.items():
        hits = [s for s in scored if fired(s)]
        right = sum(not s.pair.supported for s in hits)
        kind = [s for s in unsupported if s.pair.kind == target[rule]]
        wrong = [s for s in scored if s.pair.supported and fired(s)]
        lines.append(
            f"| `{rule}` | {len(hits)} | {right / len(hits) if hits else 1.0:.3f} | "
            f"{right}/{len(unsupported)} = {right / len(unsupported):.3f} | "
            f"{target[rule]}: {sum(fired(s) for s in kind)}/{len(kind)} | "
            f"{len(wrong)} |"
        )
    return lines


def kind_table(scored: list[Scored]) -> list[str]:
    lines = [
        "| kind | label | pairs | accepted before | accepted (dev / held out) | "
        "cosine min / median / max |",
        "|---|---|---:|---:|---:|---|",
    ]
    for kind in KINDS:
        items = [s for s in scored if s.pair.kind == kind]
        if not items:
            continue
        cosines = [s.cosine for s in items]
        label = "supported" if items[0].pair.supported else "unsupported"
        passed = [
            sum(accepts(s, SUPPORT_MIN_COSINE) for s in items if s.pair.split == split)
            for split in ("dev", "held_out")
        ]
        before = sum(accepted_before(s) for s in items)
        lines.append(
            f"| {kind} | {label} | {len(items)} | {before} | {passed[0]} / {passed[1]} | "
            f"{min(cosines):.2f} / "
            f"{statistics.median(cosines):.2f} / {max(cosines):.2f} |"
        )
    return lines


def errors(scored: list[Scored]) -> list[str]:
    """The pairs the verifier gets wrong at the shipped threshold, for reading."""
    lines = []
    for s in scored:
        if accepts(s, SUPPORT_MIN_COSINE) != s.pair.supported:
            verdict = "accepted" if s.pair.supported is False else "refused"
            why = (
                "number"
                if s.number_missing
                else "name"
                if s.name_missing
                else "reversal"
                if s.reversed
                else f"cosine {s.cosine:.2f}"
            )
            lines.append(
                f"- {s.pair.passage_id} {s.pair.kind}, {verdict} ({why}): {s.pair.draft.text}"
            )
    return lines


def check_against_verifier(scored: list[Scored], registry: NameFinder) -> int:
    """Pairs where ``verify_units`` decides otherwise than the rules above (should be 0)."""
    embed = load_minilm()
    differ = 0
    for s in scored:
        accepted, _ = verify_units([s.pair.draft], s.pair.source, embed, registry)
        differ += bool(accepted) != accepts(s, SUPPORT_MIN_COSINE)
    return differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("shared", type=Path, help="../shared/data")
    parser.add_argument("--pairs", type=Path, default=PAIRS)
    parser.add_argument("--json", type=Path, help="write every pair's scores here")
    args = parser.parse_args()
    pairs = load_pairs(args.shared, args.pairs)
    registry = Linker(load_registry(registry_path()))
    scored = score(pairs, registry)
    counts = Counter(("supported" if p.supported else "unsupported", p.kind) for p in pairs)
    passages = len({p.passage_id for p in pairs})
    held_out = len({p.passage_id for p in pairs if p.split == "held_out"})
    supported = sum(p.supported for p in pairs)
    out: list[str] = [
        f"{len(pairs)} pairs on {passages} passages ({held_out} held out): {supported} supported, "
        f"{len(pairs) - supported} unsupported ("
        + ", ".join(f"{kind} {n}" for (_, kind), n in sorted(counts.items()))
        + ")",
        "",
    ]
    table, best = threshold_table([s for s in scored if s.pair.split == "dev"])
    out += ["Dev split, every rule, by threshold:", "", *table, ""]
    out += [f"Highest F0.5 on dev: cosine ≥ {best:.2f}; shipped: {SUPPORT_MIN_COSINE}.", ""]
    out += [*split_table(scored), ""]
    out += [*rule_table(scored), ""]
    out += [*kind_table(scored), ""]
    out += ["Errors at the shipped threshold:", "", *errors(scored), ""]
    differ = check_against_verifier(scored, registry)
    out.append(f"verify_units decides otherwise than this breakdown on {differ} pairs.")
    print("\n".join(out))  # noqa: T201
    if args.json:
        rows: list[dict[str, Any]] = [
            {
                "passage": s.pair.passage_id,
                "split": s.pair.split,
                "kind": s.pair.kind,
                "supported": s.pair.supported,
                "cosine": round(s.cosine, 4),
                "number_missing": s.number_missing,
                "name_missing": s.name_missing,
                "name_missing_shape": s.name_missing_shape,
                "reversed": s.reversed,
            }
            for s in scored
        ]
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
