"""The verifier: the gate every proposed unit passes before it can be served (docs/design.md §5).

It owns what an extractor hands over (``UnitDraft`` with its evidence ``Snippet``s) and the
rules that refuse a draft. Every extractor, the lexical one, the embedding one and the
LLM-backed one (``analytics.llm_units``), goes through the same rules.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from analytics.discovery import GENERIC_ACRONYMS, PERIOD_WORDS, ROLE_WORDS, STOPWORDS
from analytics.embedding import Embedder, FloatMatrix
from analytics.linking import Mention, normalize_text
from analytics.polarity import reversal_cues
from analytics.text import SNIPPET_MAX_CHARS, Sentence, normalize_ws, split_document

# Calls to action open a sentence; page furniture (legal links, e-mail chrome) fills a short one.
_CALL_TO_ACTION = re.compile(
    r"^\W*(subscribe|sign up|click here|follow us|read more|share this|advertisement|"
    r"listen now|watch now|download the app)\b",
    re.I,
)
_FURNITURE = re.compile(
    r"\b(all rights reserved|cookie (policy|settings)|unsubscribe|view (this email )?in "
    r"(your )?browser|privacy policy|terms of (service|use))\b",
    re.I,
)
_FURNITURE_MAX_WORDS = 12
_NUMBER = re.compile(r"\d(?:[\d.,]*\d)?")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
# a word, a product code or a hyphenated name ("DeepSeek-R1-0528", "Llama.cpp", "AI's")
_TOKEN = re.compile(r"[^\W_]\w*(?:[-.'’][^\W_]+)*")
_POSSESSIVE = re.compile(r"['’]s$", re.I)
_SENTENCE_OPENING = re.compile(r"(?:^|[.!?:;]\s|\n)[\s\"'“‘(\[*-]*$")
# Capitalized words that name no one: function words, months and weekdays, generic acronyms
# ("CEO", "GPU"), job titles and periods ("Chief", "Q3").
_NOT_NAMES = STOPWORDS | GENERIC_ACRONYMS | ROLE_WORDS | PERIOD_WORDS

MIN_UNIT_WORDS = 3
# An abstractive unit is supported when its MiniLM cosine to the passage its evidence locates is
# at least this: the highest F0.5 (precision counts twice) over 0.40-0.90 on 196 labelled (unit,
# passage) pairs from the shared corpora, every rule applied
# (bench/analytics/quality/units_support.py, docs/journal/2026-11-25.md "Units: the verifier on
# abstractive units"). There, statements on the passage's topic that it does not make scored up
# to 0.77 and faithful paraphrases from 0.60 (median 0.87): 0.8 refuses all of the former and
# about a fifth of the latter; a gate errs on refusing.
# Cosine cannot see a changed figure, a swapped name or a reversed claim (they score like
# paraphrases), hence the rules before it.
SUPPORT_MIN_COSINE = 0.8
# The located passage: the source sentences overlapping the snippet and the unit's length after
# it, so the passage is about as long as the unit (a longer one dilutes the cosine).
_PASSAGE_REACH = 1

RULES = (
    "no_evidence",
    "empty_snippet",
    "snippet_too_long",
    "snippet_not_verbatim",
    "too_short",
    "boilerplate",
    "number_not_in_evidence",
    "entity_not_in_evidence",
    "contradicts_evidence",
    "unsupported",
    "orphan_argument",
)
CENTRAL_ROLES = frozenset({"thesis", "synopsis"})


@dataclass(frozen=True)
class Snippet:
    text: str
    truncated: bool


@dataclass(frozen=True)
class UnitDraft:
    """A unit as an extractor proposes it, before the verifier has seen it."""

    role: str
    text: str
    start_char: int
    end_char: int
    evidence: tuple[Snippet, ...]
    argument_id: str | None = None


@dataclass(frozen=True)
class Rejection:
    unit: UnitDraft
    rule: str


class NameFinder(Protocol):
    """Finds the entity mentions of a text (``analytics.linking.Linker`` over the registry)."""

    def find_mentions(self, text: str) -> list[Mention]: ...


def is_boilerplate(text: str) -> bool:
    """A call to action, or a short sentence that is page furniture rather than content."""
    if _CALL_TO_ACTION.search(text):
        return True
    return bool(_FURNITURE.search(text)) and len(text.split()) <= _FURNITURE_MAX_WORDS


def verify_units(
    units: list[UnitDraft],
    source_text: str,
    embed: Embedder | None = None,
    names: NameFinder | None = None,
) -> tuple[list[UnitDraft], list[Rejection]]:
    """The gate: ``(accepted, rejected)``, each in the order the units came in.

    Rules, checked in this order, the first that fails names the rejection:
    ``no_evidence`` (no snippet); ``empty_snippet``; ``snippet_too_long`` (over 50 characters);
    ``snippet_not_verbatim`` (not in the source, whitespace-normalized); ``too_short`` (under
    three words); ``boilerplate``. A unit whose text occurs in the source and contains one of
    its snippets is extractive and has passed. Any other unit is abstractive and is checked
    against the passage its evidence locates: ``number_not_in_evidence`` (a number of the unit
    is not in the passage); ``entity_not_in_evidence`` (a name in the unit is not in the
    passage, see ``names_missing``); ``contradicts_evidence`` (the unit adds a negation or uses
    the opposite of a word of the passage, ``analytics.polarity``); ``unsupported`` (MiniLM
    cosine to the passage below
    ``SUPPORT_MIN_COSINE``, or no ``embed`` to measure it). Last, ``orphan_argument`` (an
    argument without an ``argument_id``, or in a list whose thesis did not pass).
    """
    source = normalize_ws(source_text)
    verdicts: list[str | None] = []
    abstractive: list[int] = []
    for index, unit in enumerate(units):
        rule = _failed_surface_rule(unit, source)
        if rule is None and not _extractively_supported(unit, source):
            abstractive.append(index)
        verdicts.append(rule)
    if abstractive:
        checked = _abstractive_verdicts(
            [units[i] for i in abstractive], EvidencePassages(source_text), embed, names
        )
        for index, rule in zip(abstractive, checked, strict=True):
            verdicts[index] = rule
    has_thesis = any(
        rule is None and unit.role == "thesis" for unit, rule in zip(units, verdicts, strict=True)
    )
    accepted: list[UnitDraft] = []
    rejected: list[Rejection] = []
    for unit, rule in zip(units, verdicts, strict=True):
        if rule is None and unit.role == "argument" and (not unit.argument_id or not has_thesis):
            rule = "orphan_argument"
        if rule is None:
            accepted.append(unit)
        else:
            rejected.append(Rejection(unit, rule))
    return accepted, rejected


def rejection_counts(rejections: list[Rejection]) -> dict[str, int]:
    """How many drafts each rule refused, every rule present (zero when it never fired)."""
    counts = Counter(r.rule for r in rejections)
    return {rule: counts.get(rule, 0) for rule in RULES}


def numbers_missing(text: str, passage: str) -> list[str]:
    """The numbers of ``text`` that ``passage`` does not contain, as whole numbers ("5" is not
    in "57"; "3500" is "3,500")."""
    found = _numbers(passage)
    return [n for n in _NUMBER.findall(text) if _THOUSANDS.sub("", n) not in found]


def names_missing(text: str, passage: str, names: NameFinder | None = None) -> list[str]:
    """The names in ``text`` that ``passage`` does not contain.

    A name is a registry mention (with ``names``), or a word shaped like a name: one with a
    digit or an inner capital anywhere ("GPT-4o", "OpenAI", "AMD"), or a capitalized word
    inside a sentence ("Blackwell"), but no function word, month, generic acronym or job title
    ("The", "CEO", "Chief"). A sentence's first word counts only by its shape or as a registry
    mention: "Sales rose" must not need "Sales" in the passage. A name is present when the
    passage writes it (any case, as a whole word) or, for a registry mention, names the same
    entity by another alias.
    """
    plain = normalize_text(text)
    lowered = normalize_text(passage).lower()
    missing: list[str] = []
    covered: list[tuple[int, int]] = []
    if names is not None:
        present = {m.entity_id for m in names.find_mentions(passage)}
        for mention in names.find_mentions(text):
            covered.append((mention.start, mention.end))
            if mention.entity_id not in present and not _writes(lowered, mention.surface):
                missing.append(mention.surface)
    for match in _TOKEN.finditer(plain):
        if any(a < match.end() and match.start() < b for a, b in covered):
            continue
        word = _POSSESSIVE.sub("", match.group())
        opens = bool(_SENTENCE_OPENING.search(plain[: match.start()]))
        if _is_name(word, opens_sentence=opens) and not _writes(lowered, word):
            missing.append(word)
    return missing


class EvidencePassages:
    """Finds the passage a unit's evidence locates: the source sentences from each snippet on."""

    def __init__(self, source_text: str) -> None:
        self.source = source_text
        self._sentences: list[Sentence] | None = None

    def sentences(self) -> list[Sentence]:
        if self._sentences is None:
            self._sentences = split_document(self.source)
        return self._sentences

    def locate(self, unit: UnitDraft) -> str:
        reach = max(len(unit.text) * _PASSAGE_REACH, SNIPPET_MAX_CHARS)
        windows: list[tuple[int, int]] = []
        for item in unit.evidence:
            pattern = r"\s+".join(re.escape(word) for word in item.text.split())
            found = re.search(pattern, self.source)
            if found is not None:
                windows.append((found.start(), found.start() + reach))
        chosen = [
            s.text for s in self.sentences() if any(a < s.end and s.start < b for a, b in windows)
        ]
        if chosen:
            return " ".join(chosen)
        return " ".join(normalize_ws(self.source[a:b]) for a, b in windows)


def support_cosines(texts: Sequence[str], passages: Sequence[str], embed: Embedder) -> FloatMatrix:
    """MiniLM cosine of each text to its passage, in one call for all of them."""
    vectors = embed([*texts, *passages])
    cosines: FloatMatrix = np.einsum("ij,ij->i", vectors[: len(texts)], vectors[len(texts) :])
    return cosines


def _numbers(text: str) -> set[str]:
    return {_THOUSANDS.sub("", n) for n in _NUMBER.findall(text)}


def _is_name(word: str, *, opens_sentence: bool) -> bool:
    if len(word) < 2 or word[0].isdigit() or word.lower() in _NOT_NAMES:
        return False
    if any(ch.isdigit() for ch in word) or any(ch.isupper() for ch in word[1:]):
        return True
    return word[0].isupper() and not opens_sentence


def _writes(lowered_passage: str, name: str) -> bool:
    """``name`` occurs in the (lower-cased) passage as a whole word, separators aside."""
    words = normalize_text(name).lower().replace("-", " ").split()
    pattern = r"(?<!\w)" + r"[\s-]+".join(re.escape(w) for w in words) + r"(?!\w)"
    return bool(words) and re.search(pattern, lowered_passage) is not None


def _failed_surface_rule(unit: UnitDraft, normalized_source: str) -> str | None:
    if not unit.evidence:
        return "no_evidence"
    for item in unit.evidence:
        if not item.text.strip():
            return "empty_snippet"
        if len(item.text) > SNIPPET_MAX_CHARS:
            return "snippet_too_long"
        if normalize_ws(item.text) not in normalized_source:
            return "snippet_not_verbatim"
    if len(unit.text.split()) < MIN_UNIT_WORDS:
        return "too_short"
    if is_boilerplate(unit.text):
        return "boilerplate"
    return None


def _extractively_supported(unit: UnitDraft, normalized_source: str) -> bool:
    """The unit text is in the source and its evidence points into that text.

    A snippet that is part of the unit text lies inside every occurrence of it, so the passage
    the evidence locates is the unit itself.
    """
    text = normalize_ws(unit.text)
    # a statement that drops a leading discourse marker starts with a capital the source
    # wrote in lower case ("So, the bottleneck…" → "The bottleneck…")
    in_source = text in normalized_source or (text[:1].lower() + text[1:] in normalized_source)
    return in_source and any(
        normalize_ws(item.text) in text or normalize_ws(item.text) in text[:1].lower() + text[1:]
        for item in unit.evidence
    )


def _abstractive_verdicts(
    units: list[UnitDraft],
    passages: EvidencePassages,
    embed: Embedder | None,
    names: NameFinder | None,
) -> list[str | None]:
    """The rule each abstractive unit fails against its located passage, or None."""
    located = [passages.locate(unit) for unit in units]
    verdicts: list[str | None] = []
    for unit, passage in zip(units, located, strict=True):
        if numbers_missing(unit.text, passage):
            verdicts.append("number_not_in_evidence")
        elif names_missing(unit.text, passage, names):
            verdicts.append("entity_not_in_evidence")
        elif reversal_cues(unit.text, passage):
            verdicts.append("contradicts_evidence")
        else:
            verdicts.append(None)
    pending = [i for i, rule in enumerate(verdicts) if rule is None]
    if embed is None:
        # nothing can tell a paraphrase from drift: refuse
        return [rule or "unsupported" for rule in verdicts]
    if pending:
        cosines = support_cosines(
            [units[i].text for i in pending], [located[i] for i in pending], embed
        )
        for i, cosine in zip(pending, cosines, strict=True):
            if not located[i] or float(cosine) < SUPPORT_MIN_COSINE:
                verdicts[i] = "unsupported"
    return verdicts
