"""Markdown/text with YAML front matter (``.md``, ``.markdown``): the front matter gives the
fields, the body is the text. A body of timestamped speaker turns (``Name (hh:mm:ss):``) is a
podcast transcript and is normalized like every other transcript."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from analytics.transcripts import looks_like_transcript, parse_turns
from warehouse.adapters.base import (
    RAW_PREVIEW_CHARS,
    RawRecord,
    apply_aliases,
    decode_utf8,
    error_record,
    jsonable,
)
from warehouse.adapters.sidecar import load_sidecar
from warehouse.adapters.transcripts import TranscriptError, podcast_fields

MARKDOWN_SUFFIXES = (".md", ".markdown")


def split_front_matter(text: str) -> tuple[dict[str, Any], str, str | None]:
    """``(front matter, body, error)`` of a Markdown document that opens with ``---``."""
    if not text.startswith("---"):
        return {}, text, "the file does not open with a YAML front matter block (---)"
    lines = text.splitlines(keepends=True)
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            head = "".join(lines[1:index])
            body = "".join(lines[index + 1 :])
            try:
                meta = yaml.safe_load(head) or {}
            except yaml.YAMLError as exc:
                return {}, body, f"front matter is not valid YAML: {exc}"
            if not isinstance(meta, dict):
                return {}, body, "front matter must be a YAML mapping of field: value"
            return jsonable(meta), body, None
    return {}, text, "the front matter block is not closed by a line of ---"


def read_markdown(path: Path) -> Iterator[RawRecord]:
    """One record per document; a sidecar's fields override the front matter's."""
    blob = path.read_bytes()
    size = len(blob)
    text, problem = decode_utf8(blob)
    if text is None:
        yield error_record(path, 1, problem or "unreadable", size=size)
        return
    meta, body, error = split_front_matter(text)
    if error:
        yield error_record(path, 1, error, raw=text, size=size)
        return
    sidecar = load_sidecar(path)
    if sidecar.error:
        yield error_record(path, 1, sidecar.error, raw=text, size=size)
        return
    fields = {**sidecar.defaults, **apply_aliases(meta), **sidecar.fields}
    preview = text[:RAW_PREVIEW_CHARS]

    if "segments" in fields:
        yield RawRecord(str(path), 1, fields, preview, size)
        return
    podcast = fields.get("kind", "podcast") == "podcast"
    if podcast and looks_like_transcript(body):
        try:
            record = podcast_fields(parse_turns(body), fields)
        except TranscriptError as exc:
            yield error_record(path, 1, exc.message, raw=text, size=size)
            return
        yield RawRecord(str(path), 1, record, preview, size)
        return
    if "chapters" in fields and podcast:
        yield error_record(
            path,
            1,
            "'chapters' are given but the body has no timestamped speaker turns "
            "('Name (hh:mm:ss):' labels) to cut at them",
            raw=text,
            size=size,
        )
        return
    yield RawRecord(str(path), 1, {**fields, "text": body.strip()}, preview, size)
