"""Does a sentence stand on its own? A central statement is what an analyst reads first, without
the text around it: it must be a declarative, self-contained sentence.

``leans_on_context`` names why a sentence does not (``question``, ``short``,
``discourse_marker``, ``pronoun``, ``back_reference``, ``quoted_or_trailing``, ``anecdote``), or
returns None; ``without_marker`` drops a leading
discourse marker ("So, the bottleneck is power." → "The bottleneck is power."), so a good
sentence that opens with one can still be used while its evidence snippet stays verbatim. The
same rule measures the extractor (``bench/units_context.py``) and selects its statements
(``analytics.decompose``).
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
)
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
_EARLY_PRONOUN = re.compile(r"^(?:\W*\S+){0,4}?\W*\b(?:they|them|it)\b(?!['’]s\s)", re.IGNORECASE)
# reported speech: what someone said, quoted, is rarely the point a speaker makes
_QUOTED = re.compile(r"[\"“”]")
# a first-person story: "I called…", "I remember…", "We tried…"
_ANECDOTE = re.compile(
    r"^\W*(?:i|we)\s+(?:\w+ly\s+)?(?:called|said|told|remember|felt|was|were|went|had|tried|"
    r"thought|asked|got|did|started|decided|met|saw|used to)\b",
    re.IGNORECASE,
)


def is_question(text: str) -> bool:
    return text.rstrip().rstrip("\"'”’)]").endswith("?")


def without_marker(text: str) -> str:
    """``text`` without its leading discourse markers (repeated: "And so, well, …"), the first
    letter upper-cased; ``text`` itself when it has none or nothing would be left."""
    rest = text
    while (match := _MARKER.match(rest)) is not None and match.end() < len(rest):
        if match.end() == 0:
            break
        rest = rest[match.end() :]
    if rest is text or not rest.strip():
        return text
    if rest[1:2].isupper():  # "iPhone", "eBay": a brand keeps its lower-case first letter
        return rest
    return rest[:1].upper() + rest[1:]


def leans_on_context(text: str) -> str | None:
    """Why ``text`` cannot stand alone, or None. Checked in order: ``question``, ``short``
    (fewer than 6 words), ``discourse_marker`` (opens with one), ``pronoun`` (opens with a
    word whose referent is in an earlier sentence), ``back_reference`` (a pronoun standing for
    something said before, or a demonstrative pointing back at a noun, anywhere: "that's
    where…", "this aspect"), ``quoted_or_trailing`` (quoted speech, or trailing off),
    ``anecdote`` (a first-person story: "I called…", "We tried…")."""
    if is_question(text):
        return "question"
    if len(text.split()) < MIN_STANDALONE_WORDS:
        return "short"
    if _MARKER.match(text):
        return "discourse_marker"
    first = _FIRST_WORD.match(text)
    if first is not None and first.group(1).lower().replace("’", "'") in _ANAPHORS:
        return "pronoun"
    if (
        _BACK_REFERENCE.search(text)
        or _points_back(text)
        or _DEICTIC.search(text)
        or _EARLY_PRONOUN.match(text)
    ):
        return "back_reference"
    if _QUOTED.search(text) or "..." in text or "…" in text:
        return "quoted_or_trailing"
    if _ANECDOTE.match(text):
        return "anecdote"
    return None
