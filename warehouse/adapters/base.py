"""What every adapter shares: the ``RawRecord`` it yields, and small helpers for decoding files,
normalizing dates and field aliases, and building error records a person can act on."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

RAW_PREVIEW_CHARS = 2_000

# Keys some tools use for the fields of the ingest format (front matter, sidecars).
FIELD_ALIASES = {
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


def error_record(path: Path, line: int, reason: str, *, raw: str = "", size: int = 0) -> RawRecord:
    """A record that could not be read: ``reason`` says what is wrong and how to fix it."""
    return RawRecord(str(path), line, None, raw[:RAW_PREVIEW_CHARS], size, reason)


def decode_utf8(blob: bytes) -> tuple[str | None, str | None]:
    """``(text, error)``: UTF-8 (a byte-order mark is dropped) with universal newlines."""
    try:
        text = blob.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 text: {exc}; re-save the file as UTF-8"
    return text.replace("\r\n", "\n").replace("\r", "\n"), None


def jsonable(value: Any) -> Any:
    """YAML turns unquoted dates into date objects; records carry strings."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    return value


def apply_aliases(fields: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``fields`` with the first alias present renamed to its ingest-format name."""
    result = dict(fields)
    for name, aliases in FIELD_ALIASES.items():
        if name not in result:
            for alias in aliases:
                if alias in result:
                    result[name] = result.pop(alias)
                    break
    return result


def split_sizes(total: int, parts: int) -> list[int]:
    """``total`` bytes spread over ``parts`` records so progress adds up to the file size."""
    if parts <= 0:
        return []
    share, rest = divmod(total, parts)
    return [share + (1 if i < rest else 0) for i in range(parts)]
