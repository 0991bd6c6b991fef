"""Mention-linking quality and throughput: CrossNER-AI dev gold spans and AINews 2025 memo labels.

Usage: .venv/bin/python bench/linking_quality.py ../shared/data [--registry registry/entities.yaml]
Prints Markdown for docs/quality.md. Reads ../shared in place and writes nothing.

Definitions
- CrossNER-AI dev: sentences rebuilt by joining the CoNLL tokens with single spaces. A mention is
  correct when its span overlaps a gold span whose type maps to the mention's type
  (``GOLD_TYPES``: organisation/university → organization, person/researcher → person, product →
  model, hardware or other, country/location → location, conference → event or other, algorithm →
  other or model, field/task/metrics/misc/programlang → other). Precision = correct mentions / all
  mentions; mentions on untagged text count as wrong. Recall = gold organisation, person,
  researcher and product spans overlapped by a mention of a matching type / all such spans. A
  second, lenient precision counts a mention on any gold span.
- AINews 2025 memos (``kind == "memo"``): the linker runs over title and text; a label of
  ``labels.companies`` (or ``labels.models``) is found when it equals the slug of the name, an
  alias or the key of a linked entity, also after dropping a trailing company word
  (``perplexity-ai`` = ``perplexity``) and with hyphens dropped (``huggingface`` =
  ``hugging-face``), since some labels are handles. Recall = found (memo, label) pairs / all
  pairs. A missed label is a *registry gap* when no registry entry slugs to it, a *not in text*
  label when an entry does but none of its surface forms occurs in the memo in any case (the
  labels are the newsletter's own tags, not all of them are in the summary), and a *linking miss*
  otherwise (a boundary, case rule or guard refused it, or a longer form won: the memo names
  ``DeepSeek-V3``, the model, not ``DeepSeek``). A second companies row also credits the developer
  (``extra["org"]``) of each linked entity, as the newsletter's tags do.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from analytics.entities import Entity
from analytics.linking import Linker

GOLD_TYPES: dict[str, frozenset[str]] = {
    "organisation": frozenset({"organization"}),
    "university": frozenset({"organization"}),
    "person": frozenset({"person"}),
    "researcher": frozenset({"person"}),
    "product": frozenset({"model", "hardware", "other"}),
    "country": frozenset({"location"}),
    "location": frozenset({"location"}),
    "conference": frozenset({"event", "other"}),
    # CrossNER tags named architectures (AlexNet, LSTM) as algorithms; we type them as models
    "algorithm": frozenset({"other", "model"}),
    **dict.fromkeys(("field", "task", "metrics", "misc", "programlang"), frozenset({"other"})),
}
RECALL_GOLD = ("organisation", "person", "researcher", "product")
COMPANY_WORDS = frozenset(
    "ai inc labs lab systems technologies technology research corp corporation co hq".split()
)
_SLUG = re.compile(r"[^a-z0-9]+")


def slug(text: str) -> str:
    return _SLUG.sub("-", text.lower()).strip("-")


def core(label: str) -> str:
    """The slug without a trailing company word: ``cerebras-systems`` → ``cerebras``."""
    parts = label.split("-")
    while len(parts) > 1 and parts[-1] in COMPANY_WORDS:
        parts.pop()
    return "-".join(parts)


@dataclass(frozen=True)
class GoldSentence:
    text: str
    spans: tuple[tuple[int, int, str], ...]  # start, end, gold type


def read_conll(path: Path) -> list[GoldSentence]:
    sentences: list[GoldSentence] = []
    tokens: list[tuple[str, str]] = []
    for line in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        if line.strip():
            word, _, tag = line.rpartition("\t") if "\t" in line else line.rpartition(" ")
            tokens.append((word, tag))
            continue
        if not tokens:
            continue
        text, spans, offset = "", [], 0
        current: list[object] | None = None  # [start, end, type]
        for word, tag in tokens:
            start = offset + (1 if text else 0)
            text = f"{text} {word}" if text else word
            offset = len(text)
            if tag.startswith("I-") and current is not None and current[2] == tag[2:]:
                current[1] = offset
                continue
            if current is not None:
                spans.append((int(str(current[0])), int(str(current[1])), str(current[2])))
                current = None
            if tag != "O":
                current = [start, offset, tag[2:]]
        if current is not None:
            spans.append((int(str(current[0])), int(str(current[1])), str(current[2])))
        sentences.append(GoldSentence(text, tuple(spans)))
        tokens = []
    return sentences


def crossner(linker: Linker, sentences: Sequence[GoldSentence]) -> list[str]:
    by_id = linker.entities
    correct = total = on_span = 0
    wrong: Counter[str] = Counter()
    per_type: Counter[tuple[str, bool]] = Counter()
    gold_hit: Counter[str] = Counter()
    gold_all: Counter[str] = Counter()
    for sentence in sentences:
        mentions = linker.find_mentions(sentence.text)
        for mention in mentions:
            kind = by_id[mention.entity_id].type
            ok = any(
                start < mention.end
                and mention.start < end
                and kind in GOLD_TYPES.get(gold, frozenset())
                for start, end, gold in sentence.spans
            )
            total += 1
            correct += ok
            on_span += any(
                start < mention.end and mention.start < end for start, end, _ in sentence.spans
            )
            per_type[(kind, ok)] += 1
            if not ok:
                wrong[f"{mention.surface} → {by_id[mention.entity_id].name} ({kind})"] += 1
        for start, end, gold in sentence.spans:
            if gold not in RECALL_GOLD:
                continue
            gold_all[gold] += 1
            gold_hit[gold] += any(
                m.start < end and start < m.end and by_id[m.entity_id].type in GOLD_TYPES[gold]
                for m in mentions
            )
    lines = [
        f"Sentences: {len(sentences)}; gold spans: {sum(len(s.spans) for s in sentences)}; "
        f"our mentions: {total}.\n",
        "| measure | value |",
        "|---|---|",
        f"| precision (mentions on a gold span of a matching type) | "
        f"{correct / max(total, 1):.3f} ({correct}/{total}) |",
    ]
    lines.append(
        f"| precision, lenient (mentions on any gold span) | "
        f"{on_span / max(total, 1):.3f} ({on_span}/{total}) |"
    )
    hits, spans = sum(gold_hit.values()), sum(gold_all.values())
    lines.append(
        f"| recall (gold organisation/person/researcher/product spans) | "
        f"{hits / max(spans, 1):.3f} ({hits}/{spans}) |"
    )
    for gold in RECALL_GOLD:
        lines.append(
            f"| recall, `{gold}` | {gold_hit[gold] / max(gold_all[gold], 1):.3f} "
            f"({gold_hit[gold]}/{gold_all[gold]}) |"
        )
    kinds = sorted({kind for kind, _ in per_type})
    lines.append(
        "\nMentions by our type (correct / all): "
        + ", ".join(
            f"{k} {per_type[(k, True)]}/{per_type[(k, True)] + per_type[(k, False)]}" for k in kinds
        )
    )
    if wrong:
        lines.append(
            "\nWrong mentions: " + "; ".join(f"`{w}` ×{n}" for w, n in wrong.most_common(15))
        )
    return lines


def variants(label: str) -> set[str]:
    """A slug, without its company word, and both run together: the labels are partly
    handles (``huggingface``, ``langchainai``, ``vllm_project``)."""
    base = slug(label)
    found = {base, core(base)}
    found |= {v.replace("-", "") for v in found}
    for word in COMPANY_WORDS:
        compact = base.replace("-", "")
        if compact.endswith(word) and len(compact) - len(word) >= 3:
            found.add(compact[: -len(word)])
    return found - {""}


def entity_slugs(entity: Entity) -> set[str]:
    forms = [entity.name, *(a.text for a in entity.aliases), entity.key.partition(":")[2]]
    return set().union(*(variants(f) for f in forms))


def memo_recall(
    linker: Linker, memos: Sequence[dict[str, object]], field: str, *, implied: bool = False
) -> tuple[list[str], Counter[str], Counter[str]]:
    """Label recall; with ``implied``, a linked entity's ``extra["org"]`` (its developer) counts
    as linked too, since the newsletter tags DeepSeek on a memo that only names DeepSeek-V3."""
    by_ref = {e.key: e for e in linker.entities.values()} | dict(linker.entities)
    registry_slugs: dict[str, list[Entity]] = {}
    for entity in linker.entities.values():
        for s in entity_slugs(entity):
            registry_slugs.setdefault(s, []).append(entity)
    found = pairs = 0
    gaps: Counter[str] = Counter()
    absent: Counter[str] = Counter()
    misses: Counter[str] = Counter()
    for memo in memos:
        labels = memo.get("labels") or {}
        wanted = labels.get(field, []) if isinstance(labels, dict) else []
        text = f"{memo.get('title') or ''}\n{memo.get('text') or ''}"
        linked: set[str] = set()
        for entity_id in linker.entity_ids(text):
            entity = linker.entities[entity_id]
            linked |= entity_slugs(entity)
            for ref in entity.extra.get("org", "").split(",") if implied else ():
                if ref.strip() in by_ref:
                    linked |= entity_slugs(by_ref[ref.strip()])
        lowered = text.lower()
        for label in wanted:
            pairs += 1
            if variants(label) & linked:
                found += 1
                continue
            candidates = [e for v in variants(label) for e in registry_slugs.get(v, [])]
            if not candidates:
                gaps[label] += 1
            elif any(a.text.lower() in lowered for e in candidates for a in e.surface_forms()):
                misses[label] += 1
            else:
                absent[label] += 1
    row = f"`labels.{field}`" + (" + developer orgs" if implied else "")
    lines = [
        f"| {row} | {found / max(pairs, 1):.3f} ({found}/{pairs}) | "
        f"{sum(gaps.values())} | {sum(absent.values())} | {sum(misses.values())} |"
    ]
    return lines, gaps, misses


def top(counter: Counter[str], n: int) -> str:
    return ", ".join(f"`{k}` ×{v}" for k, v in counter.most_common(n)) or "none"


def throughput(linker: Linker, texts: Iterable[str]) -> tuple[int, float, int]:
    chars = mentions = 0
    started = time.perf_counter()
    for text in texts:
        chars += len(text)
        mentions += len(linker.find_mentions(text))
    return chars, time.perf_counter() - started, mentions


def measure(entities: Sequence[Entity], shared: Path) -> list[str]:
    started = time.perf_counter()
    linker = Linker(entities)
    build = time.perf_counter() - started
    forms = sum(len(e.surface_forms()) for e in entities)
    lines = [
        f"Registry: {len(entities)} entities, {forms} surface forms; linker built in "
        f"{build:.2f} s.\n",
        "### CrossNER-AI dev\n",
        *crossner(linker, read_conll(shared / "crossner-ai" / "dev.txt")),
    ]
    records = [
        json.loads(line)
        for line in (shared / "ainews" / "ainews-2025.jsonl").read_text().splitlines()
    ]
    memos = [r for r in records if r.get("kind") == "memo"]
    lines += [
        f"\n### AINews 2025 memos ({len(memos)})\n",
        "| labels | recall | registry gaps | not in text | linking misses |",
        "|---|---|---|---|---|",
    ]
    notes = []
    for field in ("companies", "models"):
        rows, gaps, misses = memo_recall(linker, memos, field)
        lines += rows
        if field == "companies":
            lines += memo_recall(linker, memos, field, implied=True)[0]
        notes.append(f"\nMost frequent `{field}` registry gaps: {top(gaps, 40)}.")
        notes.append(f"\nMost frequent `{field}` linking misses: {top(misses, 15)}.")
    lines += notes
    texts = [f"{r.get('title') or ''}\n{r.get('text') or ''}" for r in records]
    chars, seconds, mentions = throughput(linker, texts)
    lines.append(
        f"\n### Throughput\n\nAll {len(texts)} AINews 2025 records (title + text, "
        f"{chars / 1e6:.2f} M characters): {seconds:.2f} s, {chars / seconds / 1e6:.2f} M "
        f"characters/s, {mentions} mentions (one process, one core)."
    )
    return lines


def main() -> None:
    from warehouse.registry import DEFAULT_REGISTRY, load_registry

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("shared", type=Path)
    parser.add_argument("--registry", type=Path, default=DEFAULT_REGISTRY)
    args = parser.parse_args()
    print("\n".join(measure(load_registry(args.registry), args.shared)))


if __name__ == "__main__":
    main()
