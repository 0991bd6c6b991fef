"""Text primitives shared by decomposition and verification: sentences, snippets, normalization."""

from __future__ import annotations

import re
from dataclasses import dataclass

SNIPPET_MAX_CHARS = 50

_WHITESPACE = re.compile(r"\s+")
# A sentence ends at . ! ? (optionally followed by a closing quote or bracket) before whitespace
# and an opening capital, digit, quote or bracket; or at a paragraph break.
_BOUNDARY = re.compile(r"(?<=[.!?])([\"'”’)\]]*)\s+(?=[\"'“‘(\[]?[A-Z0-9])|\n\s*\n")
_ABBREVIATIONS = frozenset(
    (
        "mr mrs ms dr prof sr jr st vs etc inc ltd corp co e.g i.e u.s u.k u.n no fig approx jan "
        "feb mar apr jun jul aug sep sept oct nov dec est ca al"
    ).split()
)
_SPEAKER_TURN = re.compile(r"^\s*[A-Z][\w.'’ -]{0,60}\(\d{1,2}:\d{2}(?::\d{2})?\):\s*", re.M)


@dataclass(frozen=True)
class Sentence:
    text: str
    start: int  # character offsets into the original text
    end: int


def normalize_ws(text: str) -> str:
    """Collapse runs of whitespace to one space and trim."""
    return _WHITESPACE.sub(" ", text).strip()


def _ends_with_abbreviation(chunk: str) -> bool:
    words = chunk.rstrip().split()
    if not words:
        return False
    last = words[-1].rstrip(".").lower().lstrip("(\"'“")
    # single capital initials ("J. R. R. Tolkien") also do not end sentences
    return last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha())


def split_sentences(text: str) -> list[Sentence]:
    """Sentences with their offsets; abbreviations, initials and decimals do not split."""
    sentences: list[Sentence] = []
    start = 0
    pending_start: int | None = None
    for match in _BOUNDARY.finditer(text):
        end = match.start() + len(match.group(1) or "")
        chunk = text[start:end]
        if "\n" not in match.group(0) and _ends_with_abbreviation(chunk):
            if pending_start is None:
                pending_start = start
            start = match.end()
            continue
        s = pending_start if pending_start is not None else start
        _append(sentences, text, s, end)
        pending_start = None
        start = match.end()
    s = pending_start if pending_start is not None else start
    _append(sentences, text, s, len(text))
    return sentences


def _append(out: list[Sentence], text: str, start: int, end: int) -> None:
    raw = text[start:end]
    # Speaker labels of transcripts ("Jane Doe (00:01:02):") are not part of what was said.
    label = _SPEAKER_TURN.match(raw)
    if label:
        start += label.end()
        raw = text[start:end]
    stripped_left = len(raw) - len(raw.lstrip())
    stripped = raw.strip()
    if stripped:
        begin = start + stripped_left
        out.append(Sentence(stripped, begin, begin + len(stripped)))


def snippet(text: str, max_chars: int = SNIPPET_MAX_CHARS) -> tuple[str, bool]:
    """A verbatim locator of at most ``max_chars`` characters from the start of ``text``.

    Cut at a word boundary when one exists in the second half of the window; returns the
    snippet and whether it is shorter than the text (``truncated``).
    """
    text = text.strip()
    if len(text) <= max_chars:
        return text, False
    window = text[:max_chars]
    cut = window.rfind(" ")
    if cut >= max_chars // 2:
        window = window[:cut]
    return window.rstrip(), True


def word_count(text: str) -> int:
    return len(text.split())
