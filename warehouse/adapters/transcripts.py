"""Podcast transcripts: WebVTT (``.vtt``) and SRT (``.srt``) cues become speaker turns in the
normalized ``Name (hh:mm:ss): text`` format; a chapters list (sidecar or front matter) turns the
turns into ``segments``. Metadata for cue files comes from a sidecar."""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analytics.transcripts import Turn, format_turns
from analytics.transcripts import parse_timestamp as stamp_seconds
from warehouse.adapters.base import RAW_PREVIEW_CHARS, RawRecord, decode_utf8, error_record
from warehouse.adapters.sidecar import load_sidecar, sidecar_hint

VTT_SUFFIXES = (".vtt",)
SRT_SUFFIXES = (".srt",)

UNKNOWN_SPEAKER = "Speaker"
# A chapter list without a known duration ends this long after the last turn starts.
TAIL_SECONDS = 60

_VTT_TIME = re.compile(r"^(?:(\d+):)?([0-5]\d):([0-5]\d)\.(\d{3})$")
_SRT_TIME = re.compile(r"^(\d{1,3}):([0-5]?\d):([0-5]?\d)[,.](\d{1,3})$")
_CHAPTER_STAMP = re.compile(r"^(?:\d{1,3}:)?\d{1,2}:\d{2}(?:[.,]\d+)?$")
_VOICE = re.compile(r"<v(?:\.[^\s>]*)?(?:[ \t]+([^>]*))?>", re.I)
_TAG = re.compile(r"<[^>]*>")
_ASS_OVERRIDE = re.compile(r"\{\\[^}]*\}")  # e.g. {\an8}, which some SRT exporters write
# "ALICE:", "Dr. Lin Meyer:", ">> HOST:" - at most four words, each starting upper-case, so that
# "Result: we won" style prose is not misread as a speaker.
_NAME_PREFIX = re.compile(
    r"^(?:>>\s*|-\s*)?"
    r"(?P<name>[A-Z][\w.'’-]*(?:[ \t][A-Z][\w.'’-]*){0,3})[ \t]*:[ \t]+(?P<rest>\S.*)$",
    re.S,
)
_NOT_A_SPEAKER = re.compile(r"[()\n:]")


class TranscriptError(ValueError):
    """A transcript that cannot be read; ``line`` points at the offending line (1-based)."""

    def __init__(self, message: str, line: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass(frozen=True)
class Cue:
    start_ms: int
    end_ms: int
    speaker: str | None
    text: str


@dataclass(frozen=True)
class Chapter:
    start_s: int
    title: str


# --- cue files ---------------------------------------------------------------------------------


def _blocks(text: str) -> Iterator[tuple[int, list[str]]]:
    """Runs of non-blank lines with the 1-based line number of their first line."""
    block: list[str] = []
    start = 0
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            if not block:
                start = number
            block.append(line.rstrip())
        elif block:
            yield start, block
            block = []
    if block:
        yield start, block


def _milliseconds(match: re.Match[str]) -> int:
    hours, minutes, seconds, fraction = match.groups()
    return (int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds)) * 1000 + int(
        fraction.ljust(3, "0")
    )


def _timing(line: str, number: int, pattern: re.Pattern[str], expected: str) -> tuple[int, int]:
    parts = line.split("-->")
    start_text = parts[0].strip()
    # WebVTT cue settings (position, align...) may follow the end time
    end_fields = parts[1].split() if len(parts) == 2 else []
    start = pattern.match(start_text)
    end = pattern.match(end_fields[0]) if end_fields else None
    if start is None or end is None:
        raise TranscriptError(
            f"line {number}: {line.strip()!r} is not a valid cue timing; expected {expected}",
            number,
        )
    start_ms, end_ms = _milliseconds(start), _milliseconds(end)
    if end_ms < start_ms:
        raise TranscriptError(
            f"line {number}: the cue ends before it starts ({line.strip()})", number
        )
    return start_ms, end_ms


def _clean(text: str) -> str:
    text = _ASS_OVERRIDE.sub("", _TAG.sub("", text))
    return re.sub(r"\s+", " ", html.unescape(text)).strip()


def _speaker_name(name: str) -> str:
    # the normalized label cannot hold parentheses, colons or line breaks
    cleaned = re.sub(r"\s+", " ", _NOT_A_SPEAKER.sub(" ", html.unescape(name))).strip()
    return cleaned[:80].strip() or UNKNOWN_SPEAKER


def _name_prefix(text: str) -> tuple[str | None, str]:
    match = _NAME_PREFIX.match(text)
    if match is None:
        return None, text
    return _speaker_name(match.group("name")), match.group("rest")


def parse_vtt(text: str) -> list[Cue]:
    """WebVTT cues in file order; NOTE, STYLE and REGION blocks are skipped.

    ``<v Name>`` voice spans give the speaker (a cue may hold several); otherwise a leading
    ``NAME:`` does; otherwise the speaker is unknown (``None``).
    """
    blocks = list(_blocks(text))
    if not blocks or not blocks[0][1][0].startswith("WEBVTT"):
        raise TranscriptError("not a WebVTT file: the first line must be WEBVTT")
    header_line, header = blocks[0]
    timed = [i for i, line in enumerate(header) if "-->" in line]
    if timed:
        # a cue written right under the header, without the blank line the format asks for
        blocks[0] = (header_line + timed[0], header[timed[0] :])
    else:
        blocks = blocks[1:]
    cues: list[Cue] = []
    for start_line, lines in blocks:
        head = lines[0].split(maxsplit=1)[0] if lines[0].split() else ""
        if head in ("NOTE", "STYLE", "REGION"):
            continue
        if "-->" in lines[0]:
            at = 0
        elif len(lines) > 1 and "-->" in lines[1]:
            at = 1  # the first line is a cue identifier
        else:
            raise TranscriptError(
                f"line {start_line}: a block with no cue timing ({lines[0].strip()!r}); "
                "every cue needs a line 'hh:mm:ss.mmm --> hh:mm:ss.mmm'",
                start_line,
            )
        start_ms, end_ms = _timing(
            lines[at], start_line + at, _VTT_TIME, "hh:mm:ss.mmm --> hh:mm:ss.mmm (hours optional)"
        )
        payload = "\n".join(lines[at + 1 :])
        pieces = _VOICE.split(payload)
        # pieces: text before any voice tag, then (voice annotation, its text) pairs
        spans: list[tuple[str | None, str]] = [(None, pieces[0])]
        for index in range(1, len(pieces), 2):
            spans.append((pieces[index] or "", pieces[index + 1]))
        for voice, raw in spans:
            said = _clean(raw)
            if not said:
                continue
            if voice is not None and voice.strip():
                cues.append(Cue(start_ms, end_ms, _speaker_name(voice), said))
            else:
                speaker, said = _name_prefix(said)
                cues.append(Cue(start_ms, end_ms, speaker, said))
    return cues


def parse_srt(text: str) -> list[Cue]:
    """SRT cues in file order; a leading ``NAME:`` names the speaker, else the cue continues
    the previous cue's speaker (subtitles label only the change of speaker)."""
    cues: list[Cue] = []
    speaker: str | None = None
    for start_line, lines in _blocks(text):
        if "-->" in lines[0]:
            at = 0
        elif len(lines) > 1 and "-->" in lines[1]:
            at = 1  # the cue number
        else:
            raise TranscriptError(
                f"line {start_line}: a block with no cue timing ({lines[0].strip()!r}); "
                "every cue needs a number and a line 'hh:mm:ss,mmm --> hh:mm:ss,mmm'",
                start_line,
            )
        start_ms, end_ms = _timing(
            lines[at], start_line + at, _SRT_TIME, "hh:mm:ss,mmm --> hh:mm:ss,mmm"
        )
        said = _clean(" ".join(lines[at + 1 :]))
        if not said:
            continue
        named, said = _name_prefix(said)
        speaker = named or speaker
        cues.append(Cue(start_ms, end_ms, speaker, said))
    return cues


def merge_cues(cues: list[Cue]) -> list[Turn]:
    """Consecutive cues of one speaker become one turn starting at the first cue's start."""
    turns: list[Turn] = []
    for cue in cues:
        speaker = cue.speaker or UNKNOWN_SPEAKER
        if turns and turns[-1].speaker == speaker:
            last = turns[-1]
            turns[-1] = Turn(speaker, last.start_s, f"{last.text} {cue.text}")
        else:
            turns.append(Turn(speaker, cue.start_ms // 1000, cue.text))
    return turns


# --- chapters and the podcast record -------------------------------------------------------------


def _whole_seconds(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and value >= 0:
        return value
    if isinstance(value, float) and value >= 0 and value.is_integer():
        return int(value)
    if isinstance(value, str) and _CHAPTER_STAMP.match(value.strip()):
        return stamp_seconds(value.strip())
    return None


def parse_chapters(value: object) -> list[Chapter]:
    """``[{start_s: int, title: str}]`` (or ``start: "hh:mm:ss"``), in order of start."""
    if not isinstance(value, list) or not value:
        raise TranscriptError(
            "'chapters' must be a non-empty list of {start_s: seconds, title: text} "
            "(or start: 'hh:mm:ss')"
        )
    chapters: list[Chapter] = []
    for index, item in enumerate(value):
        where = f"chapters[{index}]"
        if not isinstance(item, dict):
            raise TranscriptError(f"{where} must be a mapping with start_s and title")
        raw_start = item.get("start_s", item.get("start"))
        start = _whole_seconds(raw_start)
        if start is None:
            raise TranscriptError(
                f"{where}: start {raw_start!r} is not whole seconds (start_s: 754) "
                "or a timestamp (start: '00:12:34')"
            )
        title = item.get("title", item.get("chapter"))
        if not isinstance(title, str) or not title.strip():
            raise TranscriptError(f"{where} needs a non-empty 'title'")
        chapters.append(Chapter(start, title.strip()))
    chapters.sort(key=lambda c: c.start_s)
    for before, after in zip(chapters, chapters[1:], strict=False):
        if before.start_s == after.start_s:
            raise TranscriptError(
                f"chapters {before.title!r} and {after.title!r} both start at {before.start_s}s"
            )
    return chapters


def segments_from_turns(
    turns: list[Turn], chapters: list[Chapter], *, end_s: int | None
) -> list[dict[str, Any]]:
    """Cut the turns at chapter starts: one ``{start_s, end_s, chapter, text}`` per chapter
    that holds speech. A chapter ends where the next begins; the last at ``end_s`` (the
    duration) or ``TAIL_SECONDS`` after the last turn starts. Turns before the first chapter
    (a cold open) belong to the first chapter, which then starts at the first turn."""
    if not turns:
        raise TranscriptError("the transcript has no speaker turn with text to cut at chapters")
    last_turn = max(turn.start_s for turn in turns)
    first_turn = min(turn.start_s for turn in turns)
    final_end = end_s if end_s is not None and end_s > last_turn else last_turn + TAIL_SECONDS
    segments: list[dict[str, Any]] = []
    for index, chapter in enumerate(chapters):
        start = chapter.start_s if index else min(chapter.start_s, first_turn)
        end = chapters[index + 1].start_s if index + 1 < len(chapters) else final_end
        inside = [
            t
            for t in turns
            if (t.start_s >= chapter.start_s or index == 0)
            and (index + 1 == len(chapters) or t.start_s < end)
        ]
        if inside and end > start:
            segments.append(
                {
                    "start_s": start,
                    "end_s": end,
                    "chapter": chapter.title,
                    "text": format_turns(inside),
                }
            )
    if not segments:
        raise TranscriptError("no speaker turn falls inside any chapter; check the chapter starts")
    return segments


def podcast_fields(
    turns: list[Turn], fields: dict[str, Any], *, media_end_s: int | None = None
) -> dict[str, Any]:
    """The record for a transcript: ``fields`` (front matter, sidecar) plus ``text`` in the
    normalized turn format, or ``segments`` when ``fields`` has ``chapters``."""
    data = dict(fields)
    data.setdefault("kind", "podcast")
    data.pop("text", None)
    for name in ("duration_s", "duration_seconds"):
        if name in data:
            value = data.pop(name)
            # exports write 4956.0; sub-second precision means nothing for a span end
            if isinstance(value, float) and math.isfinite(value):
                value = round(value)
            seconds = _whole_seconds(value)
            if seconds is None:
                data[name] = value  # not seconds: kept as it was, an extra field like any other
            else:
                data["duration_s"] = seconds
            break
    if not turns:
        raise TranscriptError("the speaker labels ('Name (hh:mm:ss):') are followed by no text")
    chapters = data.pop("chapters", None)
    if chapters is None:
        data["text"] = format_turns(turns)
        return data
    duration = data.get("duration_s")
    end_s = duration if isinstance(duration, int) else media_end_s
    data["segments"] = segments_from_turns(turns, parse_chapters(chapters), end_s=end_s)
    return data


def read_cue_file(path: Path) -> Iterator[RawRecord]:
    """One podcast record from a ``.vtt`` or ``.srt`` file and its sidecar."""
    blob = path.read_bytes()
    text, problem = decode_utf8(blob)
    if text is None:
        yield error_record(path, 1, problem or "unreadable", size=len(blob))
        return
    sidecar = load_sidecar(path)
    if sidecar.error:
        yield error_record(path, 1, sidecar.error, raw=text, size=len(blob))
        return
    is_vtt = path.suffix.lower() in VTT_SUFFIXES
    try:
        cues = parse_vtt(text) if is_vtt else parse_srt(text)
        if not cues:
            raise TranscriptError("the file holds no cues with text")
        turns = merge_cues(cues)
        data = podcast_fields(
            turns,
            {**sidecar.defaults, **sidecar.fields},
            media_end_s=-(-max(c.end_ms for c in cues) // 1000),
        )
    except TranscriptError as exc:
        yield error_record(path, exc.line, exc.message, raw=text, size=len(blob))
        return
    missing = [name for name in ("title", "url", "published_at") if not data.get(name)]
    if missing:
        fmt = "WebVTT" if is_vtt else "SRT"
        yield error_record(
            path,
            1,
            f"{fmt} files carry no {', '.join(missing)}; {sidecar_hint(path)} "
            "(title:, url:, published_at:, optionally author: and chapters:)",
            raw=text,
            size=len(blob),
        )
        return
    yield RawRecord(str(path), 1, data, text[:RAW_PREVIEW_CHARS], len(blob))
