"""Text primitives shared by decomposition and verification: sentences, snippets, normalization.

Two sentence splitters live here. ``split_sentences`` is the one the first extractor
(``lexical-1``) was built on and stays as it is, so earlier extractions reproduce exactly.
``split_document`` is the structure-aware splitter of the current extractor: it knows paragraphs,
Markdown headings and list items, transcript turn labels, URLs and run-on sentences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from analytics.transcripts import TURN_LABEL

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
    paragraph: int = 0  # index of the block of text it belongs to (``split_document`` only)
    list_item: bool = False  # the sentence is (the start of) a bullet or numbered item


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


# --- the structure-aware splitter of the current extractor ------------------------------------

# A sentence is cut into pieces when longer than this (a spoken run-on, a pasted table row);
# a piece is never shorter than the minimum unless the text offers no better cut.
MAX_SENTENCE_CHARS = 360
_MIN_PIECE_CHARS = 60
# A line this short that is followed by a line opening with a capital is a line of its own
# (a title, a byline, a one-line post), not a hard-wrapped piece of prose.
_SHORT_LINE_CHARS = 40

_HEADING = re.compile(r"[ \t]{0,3}#{1,6}(?:[ \t]|$)")
_RULE = re.compile(r"[ \t]*(?:[-*_=~][ \t]*){3,}$")
_LIST_MARKER = re.compile(r"[ \t]*(?:[-*+•‣◦▪●–]|\(?\d{1,3}[.)])[ \t]+(?=\S)")
# URLs end before trailing punctuation, so "see openai.com/blog. Then" still ends a sentence.
_URL = re.compile(
    r"(?:https?://|www\.)[^\s<>\"]*[^\s<>\".,;:!?)\]'’”]|"
    r"\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|io|ai|dev|co|gov|edu)/[^\s<>\"]*[^\s<>\".,;:!?)\]'’”]"
)
_TERMINATOR = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s)")
_OPENERS = "\"'“‘([«"
# Run-on cut points, strongest first: the text after the match starts the next piece.
_RUN_ON_CUTS = (
    re.compile(r"[;:]\s+"),
    re.compile(r"\s+[—–-]\s+"),
    re.compile(r",\s+(?=(?:and|but|so|while|because|which|whereas|although|or)\s)"),
    re.compile(r",\s+"),
    re.compile(r"\s+(?=(?:and|but|so|because)\s)"),
    re.compile(r"\s+"),
)


def split_document(text: str) -> list[Sentence]:
    """Sentences of a document with exact offsets (``text[s.start:s.end] == s.text``).

    Headings and horizontal rules are not sentences; bullet markers and transcript turn labels
    are not part of the sentence they open; a blank line, a heading or a turn starts a new
    paragraph; URLs, decimals, initials and abbreviations such as ``e.g.`` or ``vs.`` do not end
    a sentence; a run-on sentence longer than ``MAX_SENTENCE_CHARS`` is cut at its clause
    boundaries.
    """
    out: list[Sentence] = []
    for block in _blocks(text):
        for start, end in _sentence_spans(text, block.start, block.end):
            for piece_start, piece_end in _run_on_pieces(text, start, end):
                raw = text[piece_start:piece_end]
                label = TURN_LABEL.match(raw)
                if label:  # a turn that begins inside a paragraph ("... done. Ann (00:02): So")
                    piece_start += label.end()
                    raw = text[piece_start:piece_end]
                stripped = raw.strip()
                if not stripped:
                    continue
                begin = piece_start + len(raw) - len(raw.lstrip())
                out.append(
                    Sentence(
                        stripped,
                        begin,
                        begin + len(stripped),
                        paragraph=block.paragraph,
                        list_item=block.list_item and start == block.start,
                    )
                )
    return out


@dataclass(frozen=True)
class _Block:
    start: int
    end: int
    paragraph: int
    list_item: bool


def _blocks(text: str) -> list[_Block]:
    """Runs of lines that belong together: a paragraph, a list item, one transcript turn."""
    blocks: list[_Block] = []
    paragraph = 0
    current: list[int] | None = None  # [start, end] of the open block
    list_item = False
    last_line = ""
    offset = 0

    def close() -> None:
        nonlocal current
        if current is not None and text[current[0] : current[1]].strip():
            blocks.append(_Block(current[0], current[1], paragraph, list_item))
        current = None

    for line in text.splitlines(keepends=True):
        line_start = offset
        offset += len(line)
        body = line.rstrip("\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
        line_end = line_start + len(body)
        if not body.strip():
            if current is not None:
                close()
                paragraph += 1
            continue
        if _HEADING.match(body) or _RULE.match(body):
            close()
            paragraph += 1
            last_line = ""
            continue
        label = TURN_LABEL.match(body)
        marker = _LIST_MARKER.match(body)
        if label:
            close()
            paragraph += 1
            current, list_item = [line_start + label.end(), line_end], False
        elif marker:
            close()
            current, list_item = [line_start + marker.end(), line_end], True
        elif current is not None and not _starts_own_line(last_line, body):
            current[1] = line_end  # a soft wrap: the sentence goes on
        else:
            close()
            current, list_item = [line_start, line_end], False
        last_line = body
    close()
    return blocks


def _starts_own_line(previous: str, line: str) -> bool:
    first = line.lstrip()[:1]
    return len(previous.strip()) < _SHORT_LINE_CHARS and (
        first.isupper() or first.isdigit() or first in _OPENERS
    )


def _sentence_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    urls = [(m.start(), m.end()) for m in _URL.finditer(text, start, end)]
    spans: list[tuple[int, int]] = []
    begin = start
    for match in _TERMINATOR.finditer(text, start, end):
        stop = match.end()
        if any(u_start <= match.start() < u_end for u_start, u_end in urls):
            continue
        following = _next_visible(text, stop, end)
        if following is None:
            break
        if not (following.isupper() or following.isdigit() or following in _OPENERS):
            continue
        if match.group(0) == "." and _ends_with_abbreviation(text[begin : match.start() + 1]):
            continue
        spans.append((begin, stop))
        begin = stop
    spans.append((begin, end))
    return spans


def _next_visible(text: str, position: int, end: int) -> str | None:
    while position < end and text[position].isspace():
        position += 1
    return text[position] if position < end else None


def _run_on_pieces(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Cut a sentence longer than ``MAX_SENTENCE_CHARS`` at its strongest clause boundaries."""
    pieces: list[tuple[int, int]] = []
    while end - start > MAX_SENTENCE_CHARS:
        cut = _best_cut(text, start + _MIN_PIECE_CHARS, start + MAX_SENTENCE_CHARS)
        if cut is None:
            break  # one enormous token: leave it whole rather than cut inside a word
        pieces.append((start, cut[0]))
        start = cut[1]
    pieces.append((start, end))
    return pieces


def _best_cut(text: str, low: int, high: int) -> tuple[int, int] | None:
    """The last cut point of the strongest kind in ``[low, high)``: (piece end, next start)."""
    for pattern in _RUN_ON_CUTS:
        found = None
        for match in pattern.finditer(text, low, high):
            found = match
        if found is not None:
            # the comma or semicolon that closes a clause stays with it; a dash goes
            keep = 1 if text[found.start()] in ",;:" else 0
            return found.start() + keep, found.end()
    return None
