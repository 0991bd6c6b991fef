"""Decomposition of a signal's text into units, and the verifier gate every unit must pass.

This is the first, lexical extractor: one central statement per signal (``thesis`` for an
analysis, ``synopsis`` for an event) and atomic ``claim`` sentences. Its output goes through
``verify_units`` like any later extractor's.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Protocol

from analytics.text import SNIPPET_MAX_CHARS, Sentence, normalize_ws, snippet, split_sentences
from analytics.urls import stable_id

EXTRACTION_VERSION = "lexical-1"

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’-]*|\d[\d.,]*")
_STOPWORDS = frozenset(
    (
        "a an the and or but if then than that this these those is are was were be been being to "
        "of in on at by for with from as into about over after before under between it its he she "
        "they them his her their we our you your i me my not no so such can could will would "
        "should may might must do does did have has had also just more most very which who whom "
        "what when where why how all any each some there here one two up out"
    ).split()
)
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


def is_boilerplate(text: str) -> bool:
    """A call to action, or a short sentence that is page furniture rather than content."""
    if _CALL_TO_ACTION.search(text):
        return True
    return bool(_FURNITURE.search(text)) and len(text.split()) <= _FURNITURE_MAX_WORDS


_FACTUAL = re.compile(
    r"\d|\$|€|£|%|\b(billion|million|percent|announced|launched|released|raised|acquired|"
    r"signed|reported|filed|opened|unveiled|cut|hired)\b",
    re.I,
)
_OPINION = re.compile(
    r"\b(i think|we think|i believe|we believe|in my view|arguably|should|must|ought|"
    r"the case for|the case against|my take|we argue|i argue|the lesson|the real question|"
    r"the point is|overrated|underrated|bet|thesis|mistake|wrong|likely|unlikely)\b",
    re.I,
)
_EVENT_CUES = re.compile(
    r"\b(announced|announces|launched|launches|released|releases|raised|raises|acquired|"
    r"acquires|signed|reported|reports|filed|files|unveiled|unveils|said on|according to|"
    r"on (monday|tuesday|wednesday|thursday|friday|saturday|sunday)|agreed|approved|"
    r"shipped|ships|closed|opens|opened|priced|partnered|partners)\b",
    re.I,
)
MIN_CENTRAL_WORDS = 5
MAX_CENTRAL_WORDS = 80
MAX_CLAIMS = 8


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


class Decomposer(Protocol):
    """What every extractor provides; an LLM-backed one plugs in here later."""

    version: str

    def decompose(self, content_type: str, text: str) -> list[UnitDraft]: ...


def classify_content_type(kind: str, title: str, text: str) -> str:
    """``event`` for factual reports, ``analysis`` for argued positions.

    News is an event and essays, memos, papers and podcasts are analyses by their nature;
    articles and social posts are classified by their wording.
    """
    if kind == "news":
        return "event"
    if kind in ("essay", "memo", "paper", "podcast"):
        return "analysis"
    sample = f"{title}. {text[:3000]}"
    opinion = len(_OPINION.findall(sample))
    event = len(_EVENT_CUES.findall(sample))
    return "event" if event > opinion else "analysis"


def unit_id_for(signal_id: str, role: str, text: str) -> str:
    """Same signal, role and (whitespace-normalized) text: same id, everywhere."""
    return stable_id("u", signal_id, role, normalize_ws(text).lower())


def _content_words(text: str) -> list[str]:
    words = (w.lower() for w in _WORD.findall(text))
    return [w for w in words if w not in _STOPWORDS and len(w) > 1]


def _evidence_for(sentence: Sentence) -> tuple[Snippet, ...]:
    text, truncated = snippet(sentence.text, SNIPPET_MAX_CHARS)
    return (Snippet(text, truncated),)


def _eligible_central(sentence: Sentence) -> bool:
    words = len(sentence.text.split())
    return (
        MIN_CENTRAL_WORDS <= words <= MAX_CENTRAL_WORDS
        and not sentence.text.rstrip().endswith("?")
        and not is_boilerplate(sentence.text)
    )


def _most_central(sentences: list[Sentence]) -> Sentence:
    """The sentence whose words best cover the document's (cosine of term counts)."""
    doc = Counter(w for s in sentences for w in _content_words(s.text))
    doc_norm = math.sqrt(sum(v * v for v in doc.values())) or 1.0
    best, best_score = sentences[0], -1.0
    for position, sentence in enumerate(sentences):
        counts = Counter(_content_words(sentence.text))
        norm = math.sqrt(sum(v * v for v in counts.values()))
        if not norm:
            continue
        cosine = sum(doc[w] * c for w, c in counts.items()) / (norm * doc_norm)
        # a mild preference for early sentences: authors state their point up front
        score = cosine * (1.0 - 0.3 * position / max(len(sentences), 1))
        if score > best_score:
            best, best_score = sentence, score
    return best


class LexicalDecomposer:
    """Central statement by lexical centrality (the lead for events), claims by factual cues."""

    version = EXTRACTION_VERSION

    def decompose(self, content_type: str, text: str) -> list[UnitDraft]:
        sentences = split_sentences(text)
        if not sentences:
            return []
        eligible = [s for s in sentences if _eligible_central(s)]
        candidates = eligible or [max(sentences, key=lambda s: len(s.text))]
        central = candidates[0] if content_type == "event" else _most_central(candidates)
        role = "synopsis" if content_type == "event" else "thesis"
        units = [UnitDraft(role, central.text, central.start, central.end, _evidence_for(central))]
        for sentence in sentences:
            if len(units) > MAX_CLAIMS:
                break
            if sentence is central or not _eligible_central(sentence):
                continue
            if _FACTUAL.search(sentence.text) and not _OPINION.search(sentence.text):
                units.append(
                    UnitDraft(
                        "claim",
                        sentence.text,
                        sentence.start,
                        sentence.end,
                        _evidence_for(sentence),
                    )
                )
        return units


def verify_units(
    units: list[UnitDraft], source_text: str
) -> tuple[list[UnitDraft], list[Rejection]]:
    """The gate: only units that pass every rule are returned as accepted.

    Rules: at least one snippet; every snippet at most 50 characters and verbatim
    (whitespace-normalized) in the source; the unit text itself found in the source
    (this extractor is extractive); at least three words; no boilerplate.
    """
    source = normalize_ws(source_text)
    accepted: list[UnitDraft] = []
    rejected: list[Rejection] = []
    for unit in units:
        rule = _failed_rule(unit, source)
        if rule is None:
            accepted.append(unit)
        else:
            rejected.append(Rejection(unit, rule))
    return accepted, rejected


def _failed_rule(unit: UnitDraft, normalized_source: str) -> str | None:
    if not unit.evidence:
        return "no_evidence"
    for item in unit.evidence:
        if not item.text.strip():
            return "empty_snippet"
        if len(item.text) > SNIPPET_MAX_CHARS:
            return "snippet_too_long"
        if normalize_ws(item.text) not in normalized_source:
            return "snippet_not_verbatim"
    if len(unit.text.split()) < 3:
        return "too_short"
    if is_boilerplate(unit.text):
        return "boilerplate"
    if normalize_ws(unit.text) not in normalized_source:
        return "unsupported"
    return None
