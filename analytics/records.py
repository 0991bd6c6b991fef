"""Source-record validation: a raw mapping in, a typed record or a precise, actionable error out."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any, Literal

from analytics.schema import SOURCE_KINDS
from analytics.urls import InvalidURLError, canonical_url, registrable_domain, source_id_for

MAX_TITLE_CHARS = 1_000
MAX_TEXT_CHARS = 2_000_000
_KNOWN_FIELDS = ("kind", "title", "url", "published_at", "text", "author", "segments")
_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class RecordError(ValueError):
    """A record that cannot be ingested; ``field`` names the offending field when there is one."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Segment:
    start_s: int
    end_s: int
    chapter: str
    text: str


@dataclass(frozen=True)
class SourceRecord:
    """A validated source record (docs/design.md §3), with its identity derived from the URL."""

    source_id: str
    kind: str
    title: str
    url: str
    canonical_url: str
    domain: str
    published_at: datetime
    text: str
    author: str | None = None
    segments: tuple[Segment, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def content_hash(self) -> str:
        """Changes exactly when anything that could change what is served changes."""
        payload = {
            "kind": self.kind,
            "title": self.title,
            "url": self.url,
            "published_at": self.published_at.isoformat(),
            "text": self.text,
            "author": self.author,
            "segments": [vars(s) for s in self.segments],
        }
        blob = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode("utf-8")
        return hashlib.sha256(blob).hexdigest()


def parse_timestamp(value: object) -> datetime:
    """ISO 8601 date-time (or date) as an aware UTC datetime; a value without offset is UTC."""
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        parsed = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        text = value.strip()
        if _DATE_ONLY.match(text):
            text += "T00:00:00"
        try:
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            raise RecordError(
                f"{value!r} is not an ISO 8601 date-time (expected e.g. 2025-06-01T09:30:00Z)",
                "published_at",
            ) from None
    else:
        raise RecordError(f"must be an ISO 8601 string, got {type(value).__name__}", "published_at")
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def iso_utc(moment: datetime, *, precision: Literal["seconds", "microseconds"] = "seconds") -> str:
    """An ISO 8601 instant in UTC with a ``Z``; ``parse_timestamp`` reads it back. A naive
    datetime is taken to be UTC already, an aware one is converted.

    ``"seconds"``: ``2025-06-01T09:30:00Z``, the fraction dropped, the one format the API
    serves (every served timestamp, the pre-rendered JSON, exports). ``"microseconds"``: the
    fraction a datetime carries kept (``…T09:30:00.250000Z``; none when it is zero), what a
    source adapter writes into a record, so that nothing it parsed is lost before ingest.
    """
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    if precision == "seconds":
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    return moment.isoformat() + "Z"


def _required_string(raw: dict[str, Any], name: str, limit: int) -> str:
    value = raw.get(name)
    if value is None:
        raise RecordError(f"required field {name!r} is missing", name)
    if not isinstance(value, str):
        raise RecordError(f"field {name!r} must be a string, got {type(value).__name__}", name)
    value = value.strip()
    if not value:
        raise RecordError(f"field {name!r} is empty", name)
    if len(value) > limit:
        raise RecordError(f"field {name!r} is {len(value):,} characters; at most {limit:,}", name)
    return value


def _integer_seconds(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RecordError(f"{where} must be an integer number of seconds", "segments")
    if isinstance(value, float) and not value.is_integer():
        raise RecordError(f"{where} must be whole seconds, got {value}", "segments")
    if value < 0:
        raise RecordError(f"{where} must not be negative", "segments")
    return int(value)


def _segments(raw: object) -> tuple[Segment, ...]:
    if not isinstance(raw, list) or not raw:
        raise RecordError("'segments' must be a non-empty list of {start_s, end_s, chapter, text}")
    segments = []
    for i, item in enumerate(raw):
        where = f"segments[{i}]"
        if not isinstance(item, dict):
            raise RecordError(f"{where} must be an object", "segments")
        start = _integer_seconds(item.get("start_s"), f"{where}.start_s")
        end = _integer_seconds(item.get("end_s"), f"{where}.end_s")
        if end <= start:
            raise RecordError(f"{where}: end_s ({end}) must be after start_s ({start})", "segments")
        chapter = item.get("chapter") or ""
        text = item.get("text")
        if not isinstance(chapter, str):
            raise RecordError(f"{where}.chapter must be a string", "segments")
        if not isinstance(text, str) or not text.strip():
            raise RecordError(f"{where}.text must be a non-empty string", "segments")
        segments.append(Segment(start, end, chapter.strip(), text.strip()))
    return tuple(segments)


def validate_record(raw: object) -> SourceRecord:
    """Check one raw record against the ingest format and derive its identity.

    Raises ``RecordError`` with a message a person can act on.
    """
    if not isinstance(raw, dict):
        raise RecordError(f"a record must be a JSON object, got {type(raw).__name__}")
    kind = raw.get("kind")
    if kind not in SOURCE_KINDS:
        allowed = ", ".join(SOURCE_KINDS)
        got = "missing" if kind is None else repr(kind)
        raise RecordError(f"'kind' is {got}; expected one of {allowed}", "kind")
    title = _required_string(raw, "title", MAX_TITLE_CHARS)
    url = _required_string(raw, "url", 4_000)
    try:
        canonical = canonical_url(url)
    except InvalidURLError as exc:
        raise RecordError(str(exc), "url") from None
    if "published_at" not in raw or raw["published_at"] in (None, ""):
        raise RecordError("required field 'published_at' is missing", "published_at")
    published_at = parse_timestamp(raw["published_at"])

    segments: tuple[Segment, ...] = ()
    if kind == "podcast" and raw.get("segments") is not None:
        segments = _segments(raw["segments"])
        text = "\n\n".join(s.text for s in segments)
    elif kind == "podcast" and raw.get("text") is None:
        raise RecordError("a podcast needs 'segments' (or a timestamped 'text')", "segments")
    else:
        text = _required_string(raw, "text", MAX_TEXT_CHARS)

    author = raw.get("author")
    if author is not None and not isinstance(author, str):
        raise RecordError(f"field 'author' must be a string, got {type(author).__name__}", "author")
    extra = {k: v for k, v in raw.items() if k not in _KNOWN_FIELDS}
    return SourceRecord(
        source_id=source_id_for(canonical),
        kind=kind,
        title=title,
        url=url,
        canonical_url=canonical,
        domain=registrable_domain(url),
        published_at=published_at,
        text=text,
        author=(author or "").strip() or None,
        segments=segments,
        extra=extra,
    )
