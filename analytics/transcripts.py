"""Transcript turns: ``Name (hh:mm:ss): text``, the one format every transcript adapter emits and
podcast segmentation reads."""

from __future__ import annotations

import re
from dataclasses import dataclass

# A speaker label with a timestamp: ``Name (hh:mm:ss):``. Sentence splitting strips the same
# label (analytics.text), so both read it from here.
_SPEAKER = r"[^\n():]{1,80}?"
_STAMP = r"(?:\d{1,2}:)?\d{1,2}:\d{2}"
TURN_LABEL = re.compile(rf"[ \t]*{_SPEAKER}[ \t]*\({_STAMP}(?:[.,]\d+)?\)[ \t]*:[ \t]*")
# The label alone on its line or followed by what was said.
_LABEL = re.compile(
    rf"^[ \t]*(?P<speaker>{_SPEAKER})[ \t]*\((?P<stamp>{_STAMP})(?:[.,]\d+)?\)"
    r"[ \t]*:[ \t]*(?P<rest>.*)$",
    re.M,
)


@dataclass(frozen=True)
class Turn:
    speaker: str
    start_s: int
    text: str


def parse_timestamp(stamp: str) -> int:
    """``hh:mm:ss`` or ``mm:ss`` (fractions ignored) as whole seconds."""
    parts = [int(p) for p in stamp.split(".")[0].split(",")[0].split(":")]
    seconds = 0
    for part in parts:
        seconds = seconds * 60 + part
    return seconds


def format_timestamp(seconds: int) -> str:
    hours, rest = divmod(int(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}"


def speaker_labels(text: str) -> list[tuple[int, str]]:
    """Where each turn label starts in ``text``, and whose it is, in order."""
    return [(m.start(), m.group("speaker").strip()) for m in _LABEL.finditer(text)]


def parse_turns(text: str) -> list[Turn]:
    """Every labelled turn in order; text between two labels belongs to the first.

    Text before the first label (a title, a heading) is not a turn and is dropped.
    """
    matches = list(_LABEL.finditer(text))
    turns: list[Turn] = []
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        body = (match.group("rest") + "\n" + text[match.end() : end]).strip()
        body = re.sub(r"\s*\n\s*", " ", body)
        if body:
            turns.append(
                Turn(match.group("speaker").strip(), parse_timestamp(match.group("stamp")), body)
            )
    return turns


def format_turns(turns: list[Turn]) -> str:
    """The normalized transcript: one ``Name (hh:mm:ss): text`` paragraph per turn."""
    return "\n\n".join(
        f"{turn.speaker} ({format_timestamp(turn.start_s)}): {turn.text}" for turn in turns
    )


def looks_like_transcript(text: str, *, min_turns: int = 3) -> bool:
    """At least ``min_turns`` timestamped speaker labels."""
    return sum(1 for _ in zip(range(min_turns), _LABEL.finditer(text), strict=False)) >= min_turns
