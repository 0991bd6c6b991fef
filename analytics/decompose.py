"""Decomposition of a signal's text into units (docs/design.md §5), by two deterministic extractors.

``LexicalDecomposer`` (``lexical-1``) is the first extractor: one central statement (``thesis``
for an analysis, ``synopsis`` for an event) and atomic ``claim`` sentences; sources ingested
before 2026-04-28 keep it. ``EmbeddingDecomposer`` (``embed-5``) is the current one: the central
statement by embedding centrality among the sentences that stand on their own
(``analytics.standalone``; a leading discourse marker is dropped; an event's is its lead when
that stands alone as a report's first sentence, else the first that does), in transcripts among the
guests' sentences rather than the host's questions and framing, 3 to 6 MMR-chosen arguments
for analyses long enough to carry them, and atomic claims. Both hand their drafts to the
verifier (``analytics.verify``).
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections import Counter
from datetime import UTC, datetime
from typing import Protocol

import numpy as np
import numpy.typing as npt

from analytics.claims import MAX_CLAIM_WORDS, MIN_CLAIM_WORDS, atomic_spans, claim_weight
from analytics.claims import is_factual as is_factual_claim
from analytics.embedding import Embedder, FloatMatrix
from analytics.standalone import is_question, leans_on_context, without_marker
from analytics.text import (
    SNIPPET_MAX_CHARS,
    Sentence,
    normalize_ws,
    snippet,
    split_document,
    split_sentences,
)
from analytics.transcripts import speaker_labels
from analytics.urls import stable_id
from analytics.verify import (
    Rejection,
    Snippet,
    UnitDraft,
    is_boilerplate,
    rejection_counts,
    verify_units,
)

__all__ = [
    "CURRENT_EXTRACTION_VERSION",
    "EXTRACTION_CUTOVER",
    "EXTRACTION_VERSION",
    "Decomposer",
    "EmbeddingDecomposer",
    "LexicalDecomposer",
    "Rejection",
    "Snippet",
    "UnitDraft",
    "argument_count",
    "classify_content_type",
    "decomposer_for",
    "is_boilerplate",
    "rejection_counts",
    "unit_id_for",
    "verify_units",
]

EXTRACTION_VERSION = "lexical-1"
# embed-3: central statements that stand on their own, and in transcripts the guests'
# sentences rather than the host's questions and framing; embed-4: in long documents, the
# strict standalone reading and the point bias, and the host found by words as well as
# questions; embed-5: an event's lead is its synopsis when a pronoun in it follows the name it
# stands for
CURRENT_EXTRACTION_VERSION = "embed-5"
# Spec §2.3: sources ingested from this instant on get the current extraction.
EXTRACTION_CUTOVER = datetime(2026, 4, 28, tzinfo=UTC)

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


class Decomposer(Protocol):
    """What each deterministic extractor provides, one document at a time. The LLM decomposer
    (``analytics.llm_units``) asks for many documents at once, so ``extract_units`` drives it."""

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


def decomposer_for(
    ingested_at: datetime | None, *, current: Decomposer, earlier: Decomposer | None = None
) -> Decomposer:
    """The extractor a source gets: the current one from the cutover on, the earlier before.

    ``ingested_at`` is when the source was first ingested; ``None`` (not known) gets the
    current extractor. Naive times are read as UTC.
    """
    if ingested_at is None:
        return current
    moment = ingested_at if ingested_at.tzinfo else ingested_at.replace(tzinfo=UTC)
    return current if moment >= EXTRACTION_CUTOVER else (earlier or LexicalDecomposer())


# --- the current extractor -----------------------------------------------------------------

# Early-position prior on centrality: the last sentence loses this share of its score against
# the first. Authors tend to state the point early, but a body sentence that restates the whole
# essay should still win over a scene-setting opener, so the prior stays mild.
POSITION_PRIOR = 0.15
# MMR trade-off between relevance to the central statement and redundancy with what is chosen.
MMR_LAMBDA = 0.7
# An argument's seed must be at least this close to the central statement (MiniLM cosine): same-
# topic sentences score 0.25 and up, asides and sponsor reads below; we never pad with them.
ARGUMENT_MIN_RELEVANCE = 0.2
# A sentence joins a seed's argument when it is at least this close to the seed. A paragraph
# usually develops one point (the spec reads an argument as a paragraph), so a sentence of the
# seed's paragraph gets a bonus: paragraph-mates join from a raw 0.25, where MiniLM puts most
# sentences of one paragraph, and others only from 0.45, the range of close restatements.
GROUP_MIN_SIMILARITY = 0.45
SAME_PARAGRAPH_BONUS = 0.2
MAX_SENTENCES_PER_ARGUMENT = 3
# Eligible sentences besides the central one needed before an analysis gets arguments, and how
# many more sentences buy one more argument (8 -> 3 arguments ... 23+ -> 6).
MIN_SENTENCES_FOR_ARGUMENTS = 8
SENTENCES_PER_EXTRA_ARGUMENT = 5
MIN_ARGUMENTS = 3
MAX_ARGUMENTS = 6
MAX_CLAIMS_PER_SIGNAL = 12
MIN_STATEMENT_WORDS = 5
MAX_STATEMENT_WORDS = 80
# Framing by a host or an author ("Today we're talking about ...") names the topic without
# taking a position; it is never the central statement.
_META = re.compile(
    r"^\W*(?:welcome\b|thanks? (?:you )?for|today,? (?:we|i)(?:'re| are| will|'ll)?|"
    r"in this (?:episode|post|essay|article|piece|issue|video)|this week,? (?:we|i)|"
    r"(?:my|our) guest|joining (?:me|us)|let'?s (?:get (?:into|started)|dive|jump|talk)|"
    r"before we (?:get|begin|start|dive))"
    # sponsor reads anywhere in the sentence
    r"|\b(?:brought to you by|sponsored by|(?:our|today'?s) sponsors?\b|promo code)",
    re.I,
)
# Long documents (a podcast segment, a long essay) have this many eligible sentences or more:
# their central statement comes from the strict standalone pool (at least MIN_STRICT_POOL
# sentences, else the usual one) and its score adds ``_point_bias`` to the centrality.
LONG_FORM_MIN_SENTENCES = 20
MIN_STRICT_POOL = 3
# ``_point_bias`` in units of MiniLM centrality (a segment's close candidates differ by 0.02-0.05):
# per general or evaluative cue (at most 3), per narrative cue (at most 3), per share of filler
# words, for a sentence shorter than SHORT_POINT_WORDS, and for talk about the talk
GENERAL_WEIGHT = 0.02
NARRATIVE_WEIGHT = 0.04
FILLER_WEIGHT = 0.5
SHORT_POINT_WORDS = 12
SHORT_POINT_PENALTY = 0.05
META_PENALTY = 0.05
_GENERAL = re.compile(
    r"\b(?:is|are|isn['’]t|aren['’]t|should|shouldn['’]t|must|need to|needs to|have to|has to|"
    r"will|won['’]t|can|can['’]t|cannot|always|never|every|everyone|most|best|biggest|hardest|"
    r"key|important|matters?|the way to|the reason|the problem|the mistake|the goal)\b",
    re.I,
)
_NARRATIVE = re.compile(
    r"\b(?:was|were|had|did|went|said|told|asked|got|came|took|saw|thought|knew|felt|became|"
    r"began|started|decided|called|remember|ago|back then|at the time|that day|first time|"
    r"one day|wanted|tried|ended up|happened)\b"
    r"|\b(?:i|we|he|she|they)\s+(?:\w+ly\s+)?\w+ed\b",
    re.I,
)
# talk about the talk: "the thing we should talk about is…", "I often think about…"
_TALK_ABOUT_TALK = re.compile(
    r"\b(?:talk(?:ing)? about|think(?:ing)? about|the thing (?:that )?(?:i|we)|what i would|"
    r"i would say|i'?d say|i guess|my guess|i feel like|to be honest|in my head|for myself)\b",
    re.I,
)
_FILLER = re.compile(
    r"\b(?:like|kind of|sort of|you know|i mean|um|uh|just|really|actually|basically|"
    r"literally|stuff|whatever|pretty much|a little bit|gonna|wanna|yeah|okay)\b",
    re.I,
)
# a speaker other than the main one is a host (an interviewer) when their sentences are
# questions at least this often, or when they say less than this share of the main speaker's words
HOST_MIN_QUESTION_SHARE = 0.10
GUEST_MIN_WORD_SHARE = 0.40
_TERMINAL = re.compile(r"[.!?…][\"'”’)\]]*$")
_DANGLING = re.compile(r"[:,;(\[—–-]$")
_GAP = re.compile(r"\[(?:inaudible|crosstalk|unintelligible|indiscernible)\b", re.I)


def _is_fragment(sentence: Sentence) -> bool:
    """A title, a label, a dangling clause, a run-on's tail or a transcript line the
    transcriber could not make out ("[inaudible 00:43:45]") rather than a statement."""
    text = sentence.text
    if _DANGLING.search(text) or _GAP.search(text):
        return True
    first = text[:1]
    if first.islower() and not text[1:2].isupper():  # "and then..." but not "iPhone"
        return True
    letters = sum(map(str.isalpha, text))
    if letters < 0.5 * len(text.replace(" ", "")):
        return True
    return not _TERMINAL.search(text) and not sentence.list_item and len(text.split()) < 8


def _is_statement(sentence: Sentence) -> bool:
    """Eligible as a central statement or an argument sentence."""
    words = len(sentence.text.split())
    return (
        MIN_STATEMENT_WORDS <= words <= MAX_STATEMENT_WORDS
        and not is_question(sentence.text)
        and not is_boilerplate(sentence.text)
        and not _is_fragment(sentence)
        and not _META.search(sentence.text)
    )


def _fallback_central(sentences: list[Sentence]) -> Sentence | None:
    """For a text without a full statement (a one-line post): its longest plain sentence, or,
    when it only asks (a post that is one question), its longest question — what the source
    says is the question, and a signal without a central statement could not be served."""
    usable = [s for s in sentences if len(s.text.split()) >= 3 and not is_boilerplate(s.text)]
    plain = [s for s in usable if not is_question(s.text)]
    pool = plain or usable
    return max(pool, key=lambda s: len(s.text)) if pool else None


def _draft(role: str, text: str, start: int, argument_id: str | None = None) -> UnitDraft:
    cut, truncated = snippet(text, SNIPPET_MAX_CHARS)
    return UnitDraft(role, text, start, start + len(text), (Snippet(cut, truncated),), argument_id)


def argument_count(eligible_besides_central: int) -> int:
    """How many arguments an analysis with this many eligible sentences carries (0 or 3-6)."""
    if eligible_besides_central < MIN_SENTENCES_FOR_ARGUMENTS:
        return 0
    extra = (eligible_besides_central - MIN_SENTENCES_FOR_ARGUMENTS) // SENTENCES_PER_EXTRA_ARGUMENT
    return min(MAX_ARGUMENTS, MIN_ARGUMENTS + extra)


def _speakers(text: str, sentences: list[Sentence]) -> list[str | None]:
    """Each sentence's speaker in a transcript (the last turn label before it), else None."""
    labels = speaker_labels(text)
    if not labels:
        return [None] * len(sentences)
    starts = [start for start, _ in labels]
    found: list[str | None] = []
    for sentence in sentences:
        at = bisect_right(starts, sentence.start) - 1
        found.append(labels[at][1] if at >= 0 else None)
    return found


def _hosts(sentences: list[Sentence], speakers: list[str | None]) -> set[str]:
    """The interviewers of a transcript. The guest talks most: the speaker with the most words
    is never a host; any other is one when their sentences are questions at least
    ``HOST_MIN_QUESTION_SHARE`` of the time, or when they say less than
    ``GUEST_MIN_WORD_SHARE`` of what the main speaker says (a host's long set-up holds few
    questions, and a guest who talks at length rarely asks). A monologue has no host."""
    said: Counter[str] = Counter()
    words: Counter[str] = Counter()
    asked: Counter[str] = Counter()
    for sentence, speaker in zip(sentences, speakers, strict=True):
        if speaker is not None:
            said[speaker] += 1
            words[speaker] += len(sentence.text.split())
            asked[speaker] += is_question(sentence.text)
    if len(said) < 2:
        return set()
    main = max(words, key=lambda speaker: (words[speaker], speaker))
    return {
        speaker
        for speaker in said
        if speaker != main
        and (
            asked[speaker] / said[speaker] >= HOST_MIN_QUESTION_SHARE
            or words[speaker] < GUEST_MIN_WORD_SHARE * words[main]
        )
    }


def stands_alone(sentence: Sentence, *, strict: bool = False, lead: bool = False) -> bool:
    """Readable without the text around it, once a leading discourse marker is dropped
    (``strict``: by the long-form reading of ``analytics.standalone.leans_on_context``;
    ``lead``: by its reading for a report's first sentence)."""
    return leans_on_context(without_marker(sentence.text), strict=strict, lead=lead) is None


def _candidates(text: str) -> tuple[list[Sentence], list[int], list[int]]:
    """The document's sentences, the indices eligible as statements (in a transcript, the
    guests' when they have any: a host's questions, intros and segues are not the point), and
    those of them that stand alone (the central statement's pool when it is not empty; in a
    long document, those that stand alone by the strict reading when there are enough)."""
    sentences = split_document(text)
    eligible = [i for i, s in enumerate(sentences) if _is_statement(s)]
    speakers = _speakers(text, sentences)
    hosts = _hosts(sentences, speakers)
    if hosts:
        guests = [i for i in eligible if speakers[i] not in hosts]
        eligible = guests or eligible
    standalone = [i for i in eligible if stands_alone(sentences[i])]
    if len(eligible) >= LONG_FORM_MIN_SENTENCES:
        strict = [i for i in standalone if stands_alone(sentences[i], strict=True)]
        if len(strict) >= MIN_STRICT_POOL:
            standalone = strict
    return sentences, eligible, standalone


def _point_bias(text: str) -> float:
    """How much more (or less) like a segment's point than its centrality alone says: a general
    or evaluative claim ("teams should…", "the hardest part is…") over a story's step ("I was",
    "we went"), a hedged or filler-laden fragment, or a supporting detail."""
    words = max(len(_WORD.findall(text)), 1)
    general = min(len(_GENERAL.findall(text)), 3)
    narrative = min(len(_NARRATIVE.findall(text)), 3)
    filler = len(_FILLER.findall(text)) / words
    bias = GENERAL_WEIGHT * general - NARRATIVE_WEIGHT * narrative - FILLER_WEIGHT * filler
    if _TALK_ABOUT_TALK.search(text):
        bias -= META_PENALTY
    if words < SHORT_POINT_WORDS:
        bias -= SHORT_POINT_PENALTY
    return bias


def _central_draft(role: str, sentence: Sentence) -> UnitDraft:
    """The central statement of ``sentence``: without a leading discourse marker ("So, the
    bottleneck is power." → "The bottleneck is power."); its evidence stays verbatim."""
    text = without_marker(sentence.text)
    if text is sentence.text:
        return _draft(role, sentence.text, sentence.start)
    cut = len(sentence.text) - len(text)
    verbatim = sentence.text[cut:]
    snippet_text, truncated = snippet(verbatim, SNIPPET_MAX_CHARS)
    start = sentence.start + cut
    return UnitDraft(role, text, start, start + len(text), (Snippet(snippet_text, truncated),))


class EmbeddingDecomposer:
    """The current extractor: embedding centrality, MMR arguments, atomic claims.

    Deterministic for a given embedder: the same text gives the same drafts. Each document's
    eligible sentences are embedded in one call, and only when a choice depends on them.
    """

    version = CURRENT_EXTRACTION_VERSION

    def __init__(self, embed: Embedder, *, max_claims: int = MAX_CLAIMS_PER_SIGNAL) -> None:
        self.embed = embed
        self.max_claims = max_claims

    def texts_to_embed(self, content_type: str, text: str) -> list[str]:
        """The texts ``decompose`` will pass to ``embed`` for this document (often none), so a
        caller can embed many documents' sentences in one batched pass beforehand."""
        sentences, eligible, _ = _candidates(text)
        if content_type == "event" or len(eligible) <= 2:
            return []
        return [sentences[i].text for i in eligible]

    def decompose(self, content_type: str, text: str) -> list[UnitDraft]:
        sentences, eligible, standalone = _candidates(text)
        if not sentences:
            return []
        role = "synopsis" if content_type == "event" else "thesis"
        vectors: FloatMatrix | None = None
        # keep in step with texts_to_embed: the same condition decides whether to embed
        if not eligible:
            fallback = _fallback_central(sentences)
            central = sentences.index(fallback) if fallback is not None else None
        elif content_type == "event" or len(eligible) <= 2:
            # the lead, or the first sentence that stands alone; too little text to weigh
            # centrality. A report's lead has nothing before it to lean on: a pronoun after the
            # name it stands for ("AEP Ohio said it has signed…") does not pass it over.
            lead = (
                content_type == "event"
                and eligible[0] == 0
                and stands_alone(sentences[0], lead=True)
            )
            central = 0 if lead else (standalone or eligible)[0]
        else:
            vectors = self.embed([sentences[i].text for i in eligible])
            allowed = [eligible.index(i) for i in standalone] or None
            bias = None
            if len(eligible) >= LONG_FORM_MIN_SENTENCES:
                bias = np.array(
                    [_point_bias(without_marker(sentences[i].text)) for i in eligible],
                    dtype=np.float32,
                )
            central = eligible[_most_central_row(vectors, allowed, bias)]
        units: list[UnitDraft] = []
        used: set[int] = set()
        if central is not None:
            units.append(_central_draft(role, sentences[central]))
            used.add(central)
        if content_type != "event" and vectors is not None and central is not None:
            groups = _arguments(sentences, eligible, vectors, eligible.index(central))
            for number, group in enumerate(groups, start=1):
                for index in group:
                    s = sentences[index]
                    units.append(_draft("argument", s.text, s.start, f"a{number}"))
                    used.add(index)
        units.extend(self._claims(sentences, used))
        return units

    def _claims(self, sentences: list[Sentence], used: set[int]) -> list[UnitDraft]:
        """Atomic factual clauses of the unused sentences: the weightiest, in document order."""
        found: list[tuple[int, int, UnitDraft]] = []  # (weight, start, draft)
        for index, sentence in enumerate(sentences):
            if index in used or is_question(sentence.text) or is_boilerplate(sentence.text):
                continue
            if _is_fragment(sentence) and not sentence.list_item:
                continue
            for a, b in atomic_spans(sentence.text):
                clause = sentence.text[a:b]
                words = len(clause.split())
                if not MIN_CLAIM_WORDS <= words <= MAX_CLAIM_WORDS or not is_factual_claim(clause):
                    continue
                draft = _draft("claim", clause, sentence.start + a)
                found.append((claim_weight(clause), draft.start_char, draft))
        kept = sorted(found, key=lambda f: (-f[0], f[1]))[: self.max_claims]
        return [draft for _, _, draft in sorted(kept, key=lambda f: f[1])]


def _most_central_row(
    vectors: FloatMatrix,
    allowed: list[int] | None = None,
    bias: npt.NDArray[np.float32] | None = None,
) -> int:
    """Row closest to the document's mean direction, with a mild early-position prior; among
    the ``allowed`` rows when given (the mean is still every row's); ``bias`` is added to each
    row's score (long documents: ``_point_bias``)."""
    mean = vectors.mean(axis=0)
    norm = float(np.linalg.norm(mean)) or 1.0
    centrality = vectors @ (mean / norm)
    n = len(vectors)
    prior = 1.0 - POSITION_PRIOR * np.arange(n, dtype=np.float32) / max(n - 1, 1)
    score = centrality * prior
    if bias is not None:
        score = score + bias
    if allowed:
        return max(allowed, key=lambda row: (float(score[row]), -row))
    return int(np.argmax(score))


def _arguments(
    sentences: list[Sentence], eligible: list[int], vectors: FloatMatrix, central_row: int
) -> list[list[int]]:
    """Groups of sentence indices, one per argument, ordered by their first sentence.

    Seeds are chosen by MMR (relevant to the central statement, unlike what is already
    chosen, the central statement included); each seed then takes up to two of its nearest
    unchosen neighbours, same-paragraph ones preferred.
    """
    rows = [r for r in range(len(eligible)) if r != central_row]
    wanted = argument_count(len(rows))
    if not wanted:
        return []
    similarity = vectors @ vectors.T
    relevance = similarity[central_row]
    candidates = [r for r in rows if relevance[r] >= ARGUMENT_MIN_RELEVANCE]
    if len(candidates) < MIN_ARGUMENTS:
        return []  # too little on-topic support to make real arguments of
    chosen = [central_row]
    seeds: list[int] = []
    for _ in range(min(wanted, len(candidates))):
        best, best_score = -1, -math.inf
        for r in candidates:
            if r in seeds:
                continue
            redundancy = max(float(similarity[r, c]) for c in chosen)
            score = MMR_LAMBDA * float(relevance[r]) - (1 - MMR_LAMBDA) * redundancy
            if score > best_score:  # strict: ties go to the earlier sentence
                best, best_score = r, score
        seeds.append(best)
        chosen.append(best)
    groups = {seed: [seed] for seed in seeds}
    pairs = []
    for r in candidates:
        if r in groups:
            continue
        for order, seed in enumerate(seeds):
            score = float(similarity[seed, r])
            if sentences[eligible[seed]].paragraph == sentences[eligible[r]].paragraph:
                score += SAME_PARAGRAPH_BONUS
            if score >= GROUP_MIN_SIMILARITY:
                pairs.append((-score, order, r, seed))
    taken: set[int] = set()
    for _, _, r, seed in sorted(pairs):
        if r in taken or len(groups[seed]) >= MAX_SENTENCES_PER_ARGUMENT:
            continue
        groups[seed].append(r)
        taken.add(r)
    ordered = sorted(sorted(eligible[r] for r in group) for group in groups.values())
    return ordered
