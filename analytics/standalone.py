"""Does a sentence stand on its own? A central statement is what an analyst reads first, without
the text around it: it must be a declarative, self-contained sentence.

``leans_on_context`` names why a sentence does not (``question``, ``short``,
``discourse_marker``, ``pronoun``, ``back_reference``, ``quoted_or_trailing``, ``anecdote``), or
returns None; ``without_marker`` drops a leading
discourse marker ("So, the bottleneck is power." → "The bottleneck is power."), so a good
sentence that opens with one can still be used while its evidence snippet stays verbatim. The
same rule measures the extractor (``bench/analytics/quality/units_context.py``) and selects
its statements (``analytics.decompose``).
"""

from __future__ import annotations

import re

MIN_STANDALONE_WORDS = 6
# conversational openers that tie a sentence to what came before
DISCOURSE_MARKERS = (
    "so",
    "and",
    "but",
    "well",
    "yeah",
    "yes",
    "yep",
    "oh",
    "okay",
    "ok",
    "right",
    "um",
    "uh",
    "like",
    "also",
    "or",
    "because",
    "plus",
    "anyway",
    "again",
    "look",
    "now",
    "then",
    "actually",
    "honestly",
    "basically",
    "exactly",
    "absolutely",
    "sure",
    "i mean",
    "you know",
    "of course",
    "and so",
    "but then",
    "by the way",
    "on one side",
    "on the other side",
    "on the other hand",
    "obviously",
    "let's",
    "let us",
    "at the same time",
    "on the flip side",
    "in other words",
)
# markers that lean on context but cannot be dropped: "Let's not have panels." is not "Not have
# panels."
_KEPT_MARKERS = re.compile(r"^\W*let(?:['’]s| us)\b", re.IGNORECASE)
# words whose referent is in an earlier sentence when they open one ("It scales.", "This is why
# …", "They said …"); "there" (existential) and first and second person are not
_ANAPHORS = frozenset(
    "it it's its this that that's these those they they're them their he he's she she's his her "
    "such which".split()
)
_MARKER = re.compile(
    r"^\W*(?:"
    + "|".join(re.escape(m) for m in sorted(DISCOURSE_MARKERS, key=len, reverse=True))
    + r")(?![\w'’-])[\s,.;:!—–-]*",
    re.IGNORECASE,
)
_FIRST_WORD = re.compile(r"^\W*([A-Za-z]+(?:['’][a-z]+)?)")
# a demonstrative or personal pronoun standing for something said before, anywhere: "that's
# where…", "this is why…", "they were…"; or a demonstrative pointing back at a noun ("this
# aspect", "those tools"; "this year" and other times are not; "that" is left out: it is far
# more often a conjunction, "I think that engineers…")
_BACK_REFERENCE = re.compile(
    r"\b(?:it|this|that|these|those|they|he|she)(?:['’]s|['’]re|\s+(?:is|was|are|were|will|"
    r"would|can|could|means|meant|has|had|does|did|seems|makes|made|gets|got|goes|went|"
    r"happens|happened)\b)",
    re.IGNORECASE,
)
_POINTING = re.compile(
    r"\b(?:this|these|those)\s+(?!(?:year|week|month|quarter|time|morning|decade|cycle|era|"
    r"century|season|summer|winter|spring|fall|autumn|day|point in time)s?\b)([a-z]+)\b"
    r"(?!\s+(?:is|was|are|were)\b)",
    re.IGNORECASE,
)


def _points_back(text: str) -> bool:
    """A demonstrative whose noun the sentence has not named before it ("this aspect"; not
    "short-lived chips … the revenue those chips generate")."""
    for match in _POINTING.finditer(text):
        noun = match.group(1).lower().rstrip("s")
        if noun not in text[: match.start()].lower():
            return True
    return False


# "there" pointing at a place or a topic named before ("what we've done there"), not the
# existential "there is"; and a personal pronoun early in the sentence, before it could have
# named what it stands for ("What they really need…", "I'm seeing it on…")
_DEICTIC = re.compile(
    r"(?<!^)(?<![.!?]\s)\bthere\b(?!\s*(?:is|are|was|were|['’]s|['’]re|will|would|might|may|could|"
    r"has|have|had|seems|seem|remains?)\b)",
    re.IGNORECASE,
)
_EARLY_PRONOUN = re.compile(r"^(?:\W*\S+){0,4}?\W*\b(they|them|it)\b(?!['’]s\s)", re.IGNORECASE)
# reported speech: what someone said, quoted, is rarely the point a speaker makes
_QUOTED = re.compile(r"[\"“”]")
# a first-person story: "I called…", "I remember…", "We tried…"
_ANECDOTE = re.compile(
    r"^\W*(?:i|we)\s+(?:\w+ly\s+)?(?:called|said|told|remember|felt|was|were|went|had|tried|"
    r"thought|asked|got|did|started|decided|met|saw|used to)\b",
    re.IGNORECASE,
)


# --- the stricter reading for long-form speech (``strict=True``) ----------------------------
# An expletive "it" opens a claim about the world, not a back reference: "It's hard to measure
# productivity.", "It turns out that…".
_EXPLETIVE_IT = re.compile(
    r"^\W*it(?:['’]s| is| was| will be| would be| becomes)\s+(?:(?:really|very|so|incredibly|"
    r"extremely|super|actually|also|still|often|always|not|never|much|far|way|a lot)\s+)*"
    r"(?:hard|harder|easy|easier|important|critical|crucial|key|essential|clear|obvious|true|"
    r"possible|impossible|interesting|surprising|difficult|tough|necessary|useful|helpful|"
    r"common|rare|worth|better|worse|best|dangerous|risky|tempting|natural|fair|unlikely|"
    r"likely|cheaper|expensive|valuable|fine|okay|ok)\s+(?:to|that|for|when|how|if|whether)\b"
    r"|^\W*it turns out\b",
    re.IGNORECASE,
)
# "the same" with nothing it is the same as ("the same thing happened"), not "the same X as…"
_THE_SAME = re.compile(
    r"\bthe same\b(?!\s+(?:time\b|way\s+(?:as|that)\b|(?:[\w'’-]+\s+){0,3}?as\b))",
    re.IGNORECASE,
)
# "that"/"those" after a preposition points at a noun said before ("in that case", "of that
# idea"); elsewhere "that" is usually a conjunction and is not judged
_PREP_THAT = re.compile(
    r"\b(?:of|in|on|at|for|with|about|from|into|to|like|by|through|under|behind)\s+"
    r"(?:that|those)\s+(?!(?:is|was|are|were|said|of|who|which|we|you|i|they|are|in|to)\b)"
    r"[a-z]",
    re.IGNORECASE,
)
# a third person not named in the sentence ("he told me…", "her team")
_PERSON = re.compile(r"\b(?:he|she|him|her|his|hers|himself|herself)\b", re.IGNORECASE)
_NAME = re.compile(r"(?<!^)(?<![.!?:]\s)\b[A-Z][a-z]+\b")
# deictic "here" pointing at the place in the talk ("the same moment here"), not "here is…"
_HERE = re.compile(r"(?<!^)\bhere\b(?!\s*(?:is|are|['’]s)\b)", re.IGNORECASE)
# "my own" with the noun left in the talk before ("I built my own during the flight")
_BARE_OWN = re.compile(
    r"\b(?:my|your|our|their|his|her|its) own\s*(?:[.,;:!?]|$|\b(?:during|in|at|on|for|with|"
    r"and|but|because|when|from|to|instead|now|too|as well)\b)",
    re.IGNORECASE,
)
# a list announced but not given: "there are two things I think about."
_ANNOUNCED = re.compile(
    r"\b(?:two|three|four|five|a few|a couple(?: of)?|several|a number of|some)\s+"
    r"(?:(?:big|key|main|major|important|different|other|core|simple)\s+)?"
    r"(?:things|ways|reasons|lessons|steps|pieces|parts|buckets|categories|principles|points|"
    r"ideas|tips|mistakes|factors|elements|levels|phases|stages|types|kinds|pillars|areas|"
    r"layers|questions|components|dimensions)\b",
    re.IGNORECASE,
)
# a pronoun closing a clause stands for something said before ("…doing this.", "…give it to.")
_CLOSING_PRONOUN = re.compile(r"\b(?:this|that|these|those|it|them)\s*(?:[.,;:!?)]|$)", re.I)
# "that"/"those" as the object of a verb, pointing at a thing said before ("make that product
# fit", "use those tools"), not the conjunction ("make sure that teams…")
_VERB_THAT = re.compile(
    r"\b(?:make|makes|made|use|uses|used|build|builds|built|do|does|did|take|takes|took|get|gets|"
    r"got|have|has|had|see|sees|saw|buy|sell|ship|fit|solve|fix|try|tried|call|called|put|love|"
    r"want|wanted|need|needed|hit|run|give|gave|adopt|change|all)\s+(?:that|those)\s+"
    r"(?!(?:is|was|are|were|we|you|i|they|he|she|it|the|a|an|our|their|your|people|when|if)\b)"
    r"[a-z]",
    re.I,
)
# a sentence ending on a preposition left its object in the talk before ("…giving it to.")
_DANGLING_PREPOSITION = re.compile(r"\b(?:to|for|with|about|of|on|at|from|into|by)\s*[.!]$", re.I)
# "they", "them", "their" with no plural or named thing before them in the sentence
_THEY = re.compile(r"\b(?:they|them|their|theirs|themselves)\b", re.I)
_PRIOR_WORD = re.compile(r"\b([A-Za-z][\w'’-]*)")
_NOT_PLURAL = frozenset("this is was has does its us yes less across always perhaps".split())


def _has_antecedent(text: str, *, opening: bool = False) -> bool:
    """A plural noun, or a capitalized word (a name) that is not the sentence's first (with
    ``opening``, the first too: a report's lead opens on its subject, "Meta said it…")."""
    for match in _PRIOR_WORD.finditer(text):
        word = match.group(1)
        named = match.start() > 0 or opening
        if named and word[:1].isupper() and word.lower() != "i":
            return True
        low = word.lower()
        if len(low) > 3 and low.endswith("s") and not low.endswith("ss") and low not in _NOT_PLURAL:
            return True
    return False


# an item of a list whose head was said before ("Second is…", "One is…", "The other thing…"),
# or the speaker answering the interviewer ("As you said…")
_LIST_ITEM = re.compile(
    r"^\W*(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|fourth|finally|lastly|last but not least|"
    r"number (?:one|two|three)|one (?:is|was|of them)|the (?:first|second|third|last|other|next) "
    r"(?:one|thing|piece|part|bit|step)|another (?:one|thing|piece|part|example))\b",
    re.I,
)
_TO_INTERVIEWER = re.compile(
    r"\b(?:as|like) (?:you|i|we) (?:said|mentioned|described|noted|pointed out)|\byou (?:just )?"
    r"(?:said|mentioned|asked)\b|\byour (?:point|question)\b",
    re.I,
)
# set-ups for a story or a thought experiment rather than a claim
_SETUP = re.compile(
    r"^\W*(?:imagine|suppose|picture|let(?:['’]s| us) say|say you|for example|for instance|"
    r"as an example|here['’]s|the (?:funny|crazy|interesting) (?:thing|part|story)|"
    r"one (?:time|day)|a (?:few|couple of) (?:years|months|weeks) (?:ago|back)|back (?:in|when)|"
    r"when i (?:was|joined|started|first)|i (?:still )?remember|i (?:once|recently)|"
    r"great question|good question|that['’]s a (?:great|good) question)\b",
    re.IGNORECASE,
)


def _strict_reason(text: str) -> str | None:
    """The long-form reasons: what a conversation's sentence needs from the talk around it."""
    if _LIST_ITEM.match(text):
        return "list_item"
    if (
        _THE_SAME.search(text)
        or _PREP_THAT.search(text)
        or _VERB_THAT.search(text)
        or _HERE.search(text)
        or _CLOSING_PRONOUN.search(text)
        or _TO_INTERVIEWER.search(text)
        or _DANGLING_PREPOSITION.search(text)
        or _BARE_OWN.search(text)
    ):
        return "back_reference"
    they = _THEY.search(text)
    if they is not None and not _has_antecedent(text[: they.start()]):
        return "back_reference"
    person = _PERSON.search(text)
    if person is not None and not _NAME.search(text[: person.start()]):
        return "back_reference"
    if _ANNOUNCED.search(text) and ":" not in text and text.count(",") < 2:
        return "announced_list"
    if _SETUP.match(text):
        return "anecdote"
    return None


def _refers_back(text: str, *, lead: bool) -> bool:
    """A pronoun standing for something said before (``_BACK_REFERENCE``, ``_EARLY_PRONOUN``) or
    a deictic "there"; in a ``lead``, only when nothing is named before it in the sentence (the
    first one decides: what is named before it is named before the later ones too)."""
    back = _BACK_REFERENCE.search(text)
    early = _EARLY_PRONOUN.match(text)
    there = _DEICTIC.search(text)
    starts = [m.start() for m in (back, there) if m is not None]
    starts += [early.start(1)] if early is not None else []
    if not starts:
        return False
    return not lead or not _has_antecedent(text[: min(starts)], opening=True)


def is_question(text: str) -> bool:
    return text.rstrip().rstrip("\"'”’)]").endswith("?")


def without_marker(text: str) -> str:
    """``text`` without its leading discourse markers (repeated: "And so, well, …"), the first
    letter upper-cased; ``text`` itself when it has none or nothing would be left."""
    rest = text
    while (
        (match := _MARKER.match(rest)) is not None
        and match.end() < len(rest)
        and not _KEPT_MARKERS.match(rest)
    ):
        if match.end() == 0:
            break
        rest = rest[match.end() :]
    if rest is text or not rest.strip():
        return text
    if rest[1:2].isupper():  # "iPhone", "eBay": a brand keeps its lower-case first letter
        return rest
    return rest[:1].upper() + rest[1:]


def leans_on_context(text: str, *, strict: bool = False, lead: bool = False) -> str | None:
    """Why ``text`` cannot stand alone, or None. Checked in order: ``question``, ``short``
    (fewer than 6 words), ``discourse_marker`` (opens with one), ``pronoun`` (opens with a
    word whose referent is in an earlier sentence), ``back_reference`` (a pronoun standing for
    something said before, or a demonstrative pointing back at a noun, anywhere: "that's
    where…", "this aspect"), ``quoted_or_trailing`` (quoted speech, or trailing off),
    ``anecdote`` (a first-person story: "I called…", "We tried…").

    ``strict`` is the reading for long-form speech, where a segment offers many sentences to
    choose from: an expletive "it" ("It's hard to measure productivity.") is no back
    reference, but "the same", "in that case", "here" and a third person not named in the
    sentence are (``back_reference``), so are a list announced and not given
    (``announced_list``) and the set-up of a story or an example ("I remember…", "Imagine…",
    "Great question…": ``anecdote``).

    ``lead`` is the reading for a report's first sentence, which has nothing before it to
    lean on: a pronoun or a "there" after a name or a plural noun in it stands for that ("AEP
    Ohio said it has signed…", "Glean launched a mode on Thursday that can…", "Cohere opens an
    office in Toronto and plans to hire there") and is no back reference; opening on a pronoun
    or a marker, a demonstrative pointing back ("this aspect"), or a pronoun with nothing named
    before it ("I can't believe they did it") still is."""
    if is_question(text):
        return "question"
    if len(text.split()) < MIN_STANDALONE_WORDS:
        return "short"
    if _MARKER.match(text):
        return "discourse_marker"
    expletive = strict and _EXPLETIVE_IT.match(text) is not None
    first = _FIRST_WORD.match(text)
    if (
        first is not None
        and first.group(1).lower().replace("’", "'") in _ANAPHORS
        and not expletive
    ):
        return "pronoun"
    if strict and (reason := _strict_reason(text)) is not None:
        return reason
    # an expletive opening is no back reference; what follows it still may be
    probe = _EXPLETIVE_IT.sub("", text, count=1) if expletive else text
    if _refers_back(probe, lead=lead) or _points_back(probe):
        return "back_reference"
    if _QUOTED.search(text) or "..." in text or "…" in text:
        return "quoted_or_trailing"
    if _ANECDOTE.match(text):
        return "anecdote"
    return None
