"""Source readers: files in, raw records (with file and line) or read errors out.

Each adapter yields ``RawRecord`` items; validation happens afterwards, in one place
(``analytics.records``). JSONL and Markdown with YAML front matter are read here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

import yaml

JSONL_SUFFIXES = (".jsonl", ".ndjson")
MARKDOWN_SUFFIXES = (".md", ".markdown")
SUPPORTED_SUFFIXES = JSONL_SUFFIXES + MARKDOWN_SUFFIXES

# Front-matter keys some tools use for the fields of the ingest format.
_FRONT_MATTER_ALIASES = {
    "published_at": ("date", "publish_date", "published"),
    "url": ("link", "source_url", "canonical_url", "youtube_url"),
}


@dataclass(frozen=True)
class RawRecord:
    """One record as read, before validation; ``error`` is set when it could not even be read."""

    file: str
    line: int
    data: Any
    raw: str
    size: int  # bytes consumed from the file, for progress
    error: str | None = None


class UnsupportedFileError(ValueError):
    """No adapter reads this kind of file."""


def discover(paths: list[Path]) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Expand folders into the files an adapter reads; report what cannot be read and why."""
    found: list[Path] = []
    problems: list[tuple[Path, str]] = []
    for path in paths:
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                hidden = any(part.startswith(".") for part in child.relative_to(path).parts)
                if child.is_file() and child.suffix.lower() in SUPPORTED_SUFFIXES and not hidden:
                    found.append(child)
        elif path.is_file():
            if path.suffix.lower() in SUPPORTED_SUFFIXES:
                found.append(path)
            else:
                supported = ", ".join(SUPPORTED_SUFFIXES)
                problems.append(
                    (
                        path,
                        f"no adapter reads {path.suffix or 'extensionless'} "
                        f"files (supported: {supported})",
                    )
                )
        else:
            problems.append((path, "no such file or folder"))
    return found, problems


def read_file(path: Path) -> Iterator[RawRecord]:
    suffix = path.suffix.lower()
    if suffix in JSONL_SUFFIXES:
        yield from read_jsonl(path)
    elif suffix in MARKDOWN_SUFFIXES:
        yield read_markdown(path)
    else:
        raise UnsupportedFileError(f"no adapter reads {suffix} files")


def read_jsonl(path: Path) -> Iterator[RawRecord]:
    """One record per non-blank line; a line that is not JSON is reported, the rest goes on."""
    with path.open("rb") as fh:
        for number, raw_line in enumerate(fh, start=1):
            size = len(raw_line)
            try:
                line = raw_line.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield RawRecord(str(path), number, None, "", size, f"not UTF-8 text: {exc}")
                continue
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                yield RawRecord(
                    str(path),
                    number,
                    None,
                    line.rstrip("\n"),
                    size,
                    f"invalid JSON: {exc.msg} at column {exc.colno}",
                )
                continue
            yield RawRecord(str(path), number, data, line.rstrip("\n"), size)


def _jsonable(value: Any) -> Any:
    # YAML turns unquoted dates into date objects; records carry strings.
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


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
            return _jsonable(meta), body, None
    return {}, text, "the front matter block is not closed by a line of ---"


def read_markdown(path: Path) -> RawRecord:
    """A Markdown/text document: YAML front matter gives the fields, the body is ``text``."""
    blob = path.read_bytes()
    try:
        text = blob.decode("utf-8")
    except UnicodeDecodeError as exc:
        return RawRecord(str(path), 1, None, "", len(blob), f"not UTF-8 text: {exc}")
    meta, body, error = split_front_matter(text)
    if error:
        return RawRecord(str(path), 1, None, text[:2000], len(blob), error)
    for field, aliases in _FRONT_MATTER_ALIASES.items():
        if field not in meta:
            for alias in aliases:
                if alias in meta:
                    meta[field] = meta.pop(alias)
                    break
    record = {**meta, "text": body.strip()} if "segments" not in meta else meta
    return RawRecord(str(path), 1, record, text[:2000], len(blob))
