"""Does a sentence stand on its own? A central statement is what an analyst reads first, without
the text around it: it must be a declarative, self-contained sentence.

``leans_on_context`` names why a sentence does not (``question``, ``short``,
``discourse_marker``, ``pronoun``), or returns None; ``without_marker`` drops a leading
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
    return rest[:1].upper() + rest[1:]


def leans_on_context(text: str) -> str | None:
    """Why ``text`` cannot stand alone, or None. Checked in order: ``question``, ``short``
    (fewer than 6 words), ``discourse_marker`` (opens with one), ``pronoun`` (opens with a
    word whose referent is in an earlier sentence)."""
    if is_question(text):
        return "question"
    if len(text.split()) < MIN_STANDALONE_WORDS:
        return "short"
    if _MARKER.match(text):
        return "discourse_marker"
    first = _FIRST_WORD.match(text)
    if first is not None and first.group(1).lower().replace("’", "'") in _ANAPHORS:
        return "pronoun"
    return None
