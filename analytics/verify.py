"""The verifier: the gate every proposed unit passes before it can be served (DESIGN §5).

It owns what an extractor hands over (``UnitDraft`` with its evidence ``Snippet``s) and the
rules that refuse a draft. Every extractor, the lexical one, the embedding one and a later
LLM-backed one, goes through the same rules.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

from analytics.embedding import Embedder
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

MIN_UNIT_WORDS = 3
# An abstractive unit is supported when its MiniLM cosine to the passage its evidence locates is
# at least this. Measured on news and essay passages: faithful paraphrases score 0.66-0.9 (a
# loose summary of two sentences 0.5-0.6), other statements on the same topic 0.44-0.52, unrelated
# ones below 0.2. 0.6 admits close paraphrases and refuses topical drift; a gate should err on
# refusing. Cosine cannot see a changed figure ("$57 billion" vs "$60 billion"), so the numbers
# of an abstractive unit must also occur in the passage; nor a reversed direction with shared
# words (one "grew faster" counter-claim scored 0.67), which is why our own extractors stay
# extractive and this path is for abstractive (LLM) extractors only.
SUPPORT_MIN_COSINE = 0.6
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


def is_boilerplate(text: str) -> bool:
    """A call to action, or a short sentence that is page furniture rather than content."""
    if _CALL_TO_ACTION.search(text):
        return True
    return bool(_FURNITURE.search(text)) and len(text.split()) <= _FURNITURE_MAX_WORDS


def verify_units(
    units: list[UnitDraft], source_text: str, embed: Embedder | None = None
) -> tuple[list[UnitDraft], list[Rejection]]:
    """The gate: ``(accepted, rejected)``, each in the order the units came in.

    Rules, checked in this order, the first that fails names the rejection:
    ``no_evidence`` (no snippet); ``empty_snippet``; ``snippet_too_long`` (over 50 characters);
    ``snippet_not_verbatim`` (not in the source, whitespace-normalized); ``too_short`` (under
    three words); ``boilerplate``; ``unsupported`` (the unit is not supported by the passage its
    evidence locates: the unit text occurs in the source and contains a snippet, or, given
    ``embed``, an abstractive unit is close enough in meaning to the located passage and
    repeats none of its numbers wrongly); ``orphan_argument`` (an argument without an
    ``argument_id``, or in a list whose thesis did not pass).
    """
    source = normalize_ws(source_text)
    verdicts: list[str | None] = []
    abstractive: list[int] = []
    for index, unit in enumerate(units):
        rule = _failed_surface_rule(unit, source)
        if rule is None and not _extractively_supported(unit, source):
            rule = "unsupported"
            abstractive.append(index)
        verdicts.append(rule)
    if embed is not None and abstractive:
        passages = _Passages(source_text)
        for index, supported in zip(
            abstractive,
            _semantically_supported([units[i] for i in abstractive], passages, embed),
            strict=True,
        ):
            if supported:
                verdicts[index] = None
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


class _Passages:
    """Finds the passage a snippet locates: the source sentences from it onward."""

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


def _semantically_supported(
    units: list[UnitDraft], passages: _Passages, embed: Embedder
) -> list[bool]:
    located = [passages.locate(unit) for unit in units]
    # one call for every unit and passage of the source
    vectors = embed([u.text for u in units] + located)
    unit_vectors, passage_vectors = vectors[: len(units)], vectors[len(units) :]
    cosines = np.einsum("ij,ij->i", unit_vectors, passage_vectors)
    results = []
    for unit, passage, cosine in zip(units, located, cosines, strict=True):
        numbers_found = all(n in passage for n in _NUMBER.findall(unit.text))
        results.append(bool(passage) and numbers_found and float(cosine) >= SUPPORT_MIN_COSINE)
    return results
