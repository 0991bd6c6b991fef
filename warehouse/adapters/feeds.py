"""RSS 2.0 and Atom feeds (``.xml``, ``.rss``, ``.atom``) read from disk with feedparser: one
record per entry (``line`` = the entry's 1-based position). An entry that cannot be cited is
reported on its own and the other entries go on."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import feedparser  # type: ignore[import-untyped]  # ships neither types nor a py.typed marker

from analytics.records import iso_utc
from warehouse.adapters.base import (
    RAW_PREVIEW_CHARS,
    RawRecord,
    error_record,
    split_sizes,
)
from warehouse.adapters.html import fragment_to_text
from warehouse.adapters.sidecar import load_sidecar

FEED_SUFFIXES = (".xml", ".rss", ".atom")
# Fields that describe one entry; in a feed's sidecar they would stamp every entry alike.
_PER_ENTRY_FIELDS = ("title", "url", "published_at", "text", "segments", "chapters")
_HTML_TYPES = ("text/html", "application/xhtml+xml")


def _get(mapping: Any, key: str) -> Any:
    # plain dict access: feedparser's own lookup maps a missing `updated` to `published` with a
    # DeprecationWarning, and we want to know which of the two the entry really has
    return dict.get(mapping, key) if isinstance(mapping, dict) else None


def entry_text(entry: Any) -> str:
    candidates: list[tuple[str, str]] = []
    for content in _get(entry, "content") or []:
        candidates.append((_get(content, "type") or "text/html", _get(content, "value") or ""))
    summary = _get(entry, "summary")
    if summary:
        detail = _get(entry, "summary_detail") or {}
        candidates.append((_get(detail, "type") or "text/html", summary))
    for kind, value in sorted(candidates, key=lambda c: len(c[1]), reverse=True):
        text = fragment_to_text(value) if kind in _HTML_TYPES else _plain(value)
        if text:
            return text
    return ""


def _plain(value: str) -> str:
    paragraphs = (re.sub(r"\s+", " ", p).strip() for p in re.split(r"\n\s*\n", value))
    return "\n\n".join(p for p in paragraphs if p)


def entry_published(entry: Any) -> str | None:
    for key in ("published_parsed", "updated_parsed"):
        parsed = _get(entry, key)
        if isinstance(parsed, time.struct_time):
            # feedparser normalizes every date it understands to a UTC struct_time
            return iso_utc(datetime(*parsed[:6], tzinfo=UTC), precision="microseconds")
    return None


def entry_author(entry: Any, feed: Any) -> str | None:
    for source in (entry, feed):
        detail = _get(source, "author_detail") or {}
        name = _get(detail, "name") or _get(source, "author")
        if isinstance(name, str) and name.strip():
            return name.strip()
    return None


def _entry_problems(index: int, entry: Any, title: str, url: str, when: str | None) -> str | None:
    missing = []
    if not re.match(r"^https?://", url):
        missing.append(f"link ({url!r} is not an absolute URL)" if url else "link")
    if when is None:
        raw = _get(entry, "published") or _get(entry, "updated")
        missing.append(
            f"date ({raw!r} is not a date feedparser understands)"
            if raw
            else "date (<pubDate>, <published> or <updated>)"
        )
    if not entry_text(entry):
        missing.append("text (<content>, <content:encoded>, <description> or <summary>)")
    if not missing:
        return None
    label = f"entry {index} ({title!r})" if title else f"entry {index}"
    return (
        f"{label} has no {', no '.join(missing)}; fix the feed, or save the item as a Markdown "
        "or JSONL source record with those fields"
    )


def read_feed(path: Path) -> Iterator[RawRecord]:
    """One ``news`` record per entry (kind and author may come from the feed's sidecar)."""
    blob = path.read_bytes()
    size = len(blob)
    preview = blob[:RAW_PREVIEW_CHARS].decode("utf-8", errors="replace")
    sidecar = load_sidecar(path)
    if sidecar.error:
        yield error_record(path, 0, sidecar.error, raw=preview, size=size)
        return
    shared = dict(sidecar.fields)
    misplaced = [name for name in _PER_ENTRY_FIELDS if name in shared]
    if misplaced:
        # reported, and ignored: the entries still carry their own values
        yield error_record(
            path,
            0,
            f"sidecar {sidecar.path.name if sidecar.path else ''} sets {', '.join(misplaced)}, "
            "which every feed entry has for itself; a feed's sidecar may set kind, author and "
            "extra fields only",
            raw=preview,
        )
        shared = {k: v for k, v in shared.items() if k not in _PER_ENTRY_FIELDS}
    try:
        parsed = feedparser.parse(blob)
    # feedparser is lenient, but its sanitizer and date handlers raise odd types on hostile
    # input; any of them means "unreadable feed" for this file only
    except Exception as exc:
        yield error_record(path, 0, f"the feed could not be parsed ({exc})", raw=preview, size=size)
        return

    entries = list(_get(parsed, "entries") or [])
    if not entries:
        if _get(parsed, "bozo"):
            reason = f"not a well-formed RSS or Atom feed: {_get(parsed, 'bozo_exception')}"
        elif not _get(parsed, "version"):
            reason = "not an RSS or Atom feed (no <rss>, <feed> or <rdf:RDF> document)"
        else:
            reason = "the feed has no entries"
        yield error_record(path, 0, reason, raw=preview, size=size)
        return

    feed = _get(parsed, "feed") or {}
    fallback_author = shared.pop("author", None)
    for index, (entry, share) in enumerate(
        zip(entries, split_sizes(size, len(entries)), strict=True), start=1
    ):
        title = re.sub(r"\s+", " ", _get(entry, "title") or "").strip()
        url = (_get(entry, "link") or "").strip()
        when = entry_published(entry)
        raw = json.dumps({"title": title, "link": url, "id": _get(entry, "id")}, ensure_ascii=False)
        problem = _entry_problems(index, entry, title, url, when)
        if problem:
            yield error_record(path, index, problem, raw=raw, size=share)
            continue
        data = entry_fields(entry, feed, title=title, url=url, published_at=when)
        # the sidecar's author stands in for entries (and feeds) that name none
        if "author" not in data and fallback_author:
            data["author"] = fallback_author
        yield RawRecord(str(path), index, {**data, **shared}, raw, share)


def entry_fields(
    entry: Any, feed: Any, *, title: str, url: str, published_at: str | None
) -> dict[str, Any]:
    """The source record of one parsed feed entry (the fetcher writes the same for an entry
    that carries its whole text)."""
    data: dict[str, Any] = {
        "kind": "news",
        "title": title,
        "url": url,
        "published_at": published_at,
        "text": entry_text(entry),
    }
    author = entry_author(entry, feed)
    if author:
        data["author"] = author
    feed_title = (_get(feed, "title") or "").strip()
    if feed_title:
        data["feed"] = feed_title
    if _get(entry, "id"):
        data["guid"] = _get(entry, "id")
    tags = [t for t in (_get(tag, "term") for tag in _get(entry, "tags") or []) if t]
    if tags:
        data["tags"] = tags
    return data
