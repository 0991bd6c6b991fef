"""Mention-linking quality and throughput: CrossNER-AI dev gold spans and AINews memo labels
(2024 and 2025).

Usage: .venv/bin/python -m bench.entities.quality.linking ../shared/data
    [--registry registry/entities.yaml]
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
- AINews memos (``kind == "memo"`` in ``ainews/ainews-<year>.jsonl``, one table row per year and
  label field): the linker runs over title and text; a label of ``labels.companies`` (or
  ``labels.models``) is found when it equals the slug of the name, an alias or the key of a
  linked entity, also after dropping a trailing company word (``perplexity-ai`` = ``perplexity``)
  and with hyphens dropped (``huggingface`` = ``hugging-face``), since some labels are handles.
  Recall = found (memo, label) pairs / all pairs.
- *Name in text.* A (memo, label) pair has its name in the text when the memo's title or text
  (Unicode dashes, quotes and spaces read as ASCII) contains, as a whole word (not preceded or
  followed by a letter, digit or underscore) and in any case,
  (i) a surface form of a registry entry that slugs to the label as above, or
  (ii) the label's own words: its slug, also without a trailing company word when three
  characters or more remain, each also run together (``morph-labs``, ``morph``, ``morphlabs``;
  a run-together handle keeps its company word: ``openai`` is not read as ``open``), with each
  hyphen read as any run of spaces, hyphens, dots, underscores or slashes (``z-ai`` matches
  ``Z.ai``, ``lux-capital`` matches ``Lux Capital``).
  Inside a surface form, a space or hyphen likewise matches any run of spaces or hyphens, as in
  the linker. A pair found by the linker always has its name in the text. *Recall, name in
  text* = found pairs with the name in the text / pairs with the name in the text: the tags the
  newsletter adds for a company its summary never names (``openai`` on a memo that does not say
  OpenAI) are left out.
- A missed label is a *registry gap* when no registry entry slugs to it (the count of those with
  the name in the text by (ii) is given in brackets: the gaps a registry addition can close), a
  *not in text* label when an entry does but neither (i) nor (ii) holds (the labels are the
  newsletter's own tags, not all of them are in the summary), and a *linking miss* otherwise (a
  boundary, case rule or guard refused it, or a longer form won: the memo names
  ``DeepSeek-V3``, the model, not ``DeepSeek``). Recall, name in text, thus counts found pairs
  against found pairs + registry gaps in text + linking misses. A second companies row also
  credits the developer (``extra["org"]``) of each linked entity, as the newsletter's tags do;
  there a label found only through a developer and without its name in the text counts in
  neither part of the name-in-text recall.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from analytics.entities import Entity
from analytics.linking import Linker, normalize_text

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
_SEPARATOR_RUN = re.compile(r"[\s\-]+")
# "Name in text": inside a surface form a space or hyphen matches a run of either (as in the
# linker); inside a label's slug a hyphen also matches dots, underscores and slashes.
_TEXT_SEPARATOR = r"[\s\-]+"
_SLUG_SEPARATOR = r"[\s\-._/]+"


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


def _whole_word(pattern: str) -> str:
    return rf"(?<!\w){pattern}(?!\w)"


def own_words(label: str) -> set[str]:
    """The label's own words as a slug: itself and without a trailing company word (if three
    characters or more remain), each also run together (``morph-labs``, ``morph``,
    ``morphlabs``). Unlike ``variants``, no company word is cut off a run-together handle:
    ``openai`` does not give ``open``."""
    base = slug(label)
    found = {base} | ({core(base)} if len(core(base)) >= 3 else set())
    return (found | {v.replace("-", "") for v in found}) - {""}


def name_pattern(label: str, candidates: Iterable[Entity]) -> re.Pattern[str] | None:
    """Where the label's name occurs in lowered, normalized text: a surface form of an entry
    that slugs to it, or one of its own slug variants (see "Name in text" above)."""
    alternatives = {
        _TEXT_SEPARATOR.join(map(re.escape, _SEPARATOR_RUN.split(form.text.lower().strip())))
        for entity in candidates
        for form in entity.surface_forms()
        if form.text.strip()
    }
    alternatives |= {
        _SLUG_SEPARATOR.join(map(re.escape, words.split("-"))) for words in own_words(label)
    }
    if not alternatives:
        return None
    ordered = sorted(alternatives, key=lambda a: (-len(a), a))  # deterministic
    return re.compile(_whole_word("(?:" + "|".join(ordered) + ")"))


@dataclass
class LabelRecall:
    """Counts of one label field over one set of memos (see the module docstring)."""

    pairs: int = 0
    found: int = 0
    named: int = 0  # pairs with the name in the text
    found_named: int = 0
    gaps: Counter[str] = field(default_factory=Counter)
    gaps_named: Counter[str] = field(default_factory=Counter)
    absent: Counter[str] = field(default_factory=Counter)
    misses: Counter[str] = field(default_factory=Counter)

    def row(self, label: str) -> str:
        return (
            f"| {label} | {ratio(self.found, self.pairs)} | "
            f"{ratio(self.found_named, self.named)} | "
            f"{sum(self.gaps.values())} ({sum(self.gaps_named.values())}) | "
            f"{sum(self.absent.values())} | {sum(self.misses.values())} |"
        )


def ratio(part: int, whole: int) -> str:
    return f"{part / max(whole, 1):.3f} ({part}/{whole})"


def memo_recall(
    linker: Linker, memos: Sequence[dict[str, object]], field_name: str, *, implied: bool = False
) -> LabelRecall:
    """Label recall; with ``implied``, a linked entity's ``extra["org"]`` (its developer) counts
    as linked too, since the newsletter tags DeepSeek on a memo that only names DeepSeek-V3."""
    by_ref = {e.key: e for e in linker.entities.values()} | dict(linker.entities)
    registry_slugs: dict[str, list[Entity]] = {}
    for entity in linker.entities.values():
        for s in entity_slugs(entity):
            registry_slugs.setdefault(s, []).append(entity)
    patterns: dict[str, re.Pattern[str] | None] = {}
    result = LabelRecall()
    for memo in memos:
        labels = memo.get("labels") or {}
        wanted = labels.get(field_name, []) if isinstance(labels, dict) else []
        text = f"{memo.get('title') or ''}\n{memo.get('text') or ''}"
        literal: set[str] = set()
        linked: set[str] = set()
        for entity_id in linker.entity_ids(text):
            entity = linker.entities[entity_id]
            literal |= entity_slugs(entity)
            for ref in entity.extra.get("org", "").split(",") if implied else ():
                if ref.strip() in by_ref:
                    linked |= entity_slugs(by_ref[ref.strip()])
        linked |= literal
        lowered = normalize_text(text).lower()
        for label in wanted:
            candidates = list(
                {
                    e.entity_id: e for v in variants(label) for e in registry_slugs.get(v, [])
                }.values()
            )
            if label not in patterns:
                patterns[label] = name_pattern(label, candidates)
            pattern = patterns[label]
            named = bool(variants(label) & literal) or (
                pattern is not None and pattern.search(lowered) is not None
            )
            result.pairs += 1
            result.named += named
            if variants(label) & linked:
                result.found += 1
                result.found_named += named
            elif not candidates:
                result.gaps[label] += 1
                if named:
                    result.gaps_named[label] += 1
            elif named:
                result.misses[label] += 1
            else:
                result.absent[label] += 1
    return result


def top(counter: Counter[str], n: int) -> str:
    return ", ".join(f"`{k}` ×{v}" for k, v in counter.most_common(n)) or "none"


def throughput(linker: Linker, texts: Iterable[str]) -> tuple[int, float, int]:
    chars = mentions = 0
    started = time.perf_counter()
    for text in texts:
        chars += len(text)
        mentions += len(linker.find_mentions(text))
    return chars, time.perf_counter() - started, mentions


YEARS = (2024, 2025)


def read_records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


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
    records_by_year = {
        year: read_records(shared / "ainews" / f"ainews-{year}.jsonl")
        for year in YEARS
        if (shared / "ainews" / f"ainews-{year}.jsonl").exists()
    }
    memos_by_year = {
        year: [r for r in records if r.get("kind") == "memo"]
        for year, records in records_by_year.items()
    }
    counts = ", ".join(f"{year}: {len(memos)}" for year, memos in memos_by_year.items())
    lines += [
        f"\n### AINews memos ({counts})\n",
        "| year | labels | recall | recall, name in text | registry gaps (name in text) "
        "| not in text | linking misses |",
        "|---|---|---|---|---|---|---|",
    ]
    notes = []
    for year, memos in memos_by_year.items():
        for field_name in ("companies", "models"):
            result = memo_recall(linker, memos, field_name)
            lines.append(result.row(f"{year} | `labels.{field_name}`"))
            if field_name == "companies":
                implied = memo_recall(linker, memos, field_name, implied=True)
                lines.append(implied.row(f"{year} | `labels.{field_name}` + developer orgs"))
            notes.append(
                f"\n{year}: most frequent `{field_name}` registry gaps with the name in the "
                f"text: {top(result.gaps_named, 40)}."
            )
            notes.append(
                f"\n{year}: most frequent `{field_name}` registry gaps: {top(result.gaps, 40)}."
            )
            notes.append(
                f"\n{year}: most frequent `{field_name}` linking misses: {top(result.misses, 15)}."
            )
    lines += notes
    if 2025 in records_by_year:
        records = records_by_year[2025]
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
