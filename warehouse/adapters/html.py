"""HTML articles (``.html``, ``.htm``) read from disk: trafilatura extracts the main text (no
navigation, sidebars or footers) and the metadata; a sidecar supplies what the page lacks.
Also turns HTML fragments (feed entries) into plain text with their paragraphs kept."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import trafilatura

from analytics.records import iso_utc
from warehouse.adapters.base import (
    RAW_PREVIEW_CHARS,
    RawRecord,
    error_record,
)
from warehouse.adapters.sidecar import load_sidecar, sidecar_hint

HTML_SUFFIXES = (".html", ".htm")

# htmldate's defaults would drop dates after today's wall clock and scan free text for anything
# date-like; a page's own metadata is what we trust, and a missing date is asked for instead.
_DATE_PARAMS: dict[str, Any] = {
    "extensive_search": False,
    "original_date": True,
    "outputformat": "%Y-%m-%dT%H:%M:%S%z",
    "max_date": "2999-12-31",
    # a date in the URL (/2026/03/30/…) only when the page's metadata has none: the metadata
    # carries the time of day, the URL only the day
    "deferred_url_extractor": True,
}

_BLOCK_TAGS = frozenset(
    "address article aside blockquote br dd div dl dt figcaption figure footer h1 h2 h3 h4 h5 h6 "
    "header hr li main nav ol p pre section table td th tr ul".split()
)
_SKIPPED_TAGS = frozenset({"script", "style", "template", "noscript"})


class _TextCollector(HTMLParser):
    """Text of an HTML fragment; block elements end paragraphs."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.paragraphs: list[str] = []
        self._current: list[str] = []
        self._skipping = 0

    def _close(self) -> None:
        text = re.sub(r"\s+", " ", "".join(self._current)).strip()
        if text:
            self.paragraphs.append(text)
        self._current = []

    # the signature is HTMLParser's; attributes carry no text
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:  # noqa: ARG002
        if tag in _SKIPPED_TAGS:
            self._skipping += 1
        elif tag in _BLOCK_TAGS:
            self._close()

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED_TAGS:
            self._skipping = max(0, self._skipping - 1)
        elif tag in _BLOCK_TAGS:
            self._close()

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self._current.append(data)

    def text(self) -> str:
        self._close()
        return "\n\n".join(self.paragraphs)


def fragment_to_text(fragment: str) -> str:
    """Plain text of an HTML fragment, one blank line between paragraphs and list items."""
    collector = _TextCollector()
    collector.feed(fragment)
    collector.close()
    return collector.text()


def _absolute_url(value: object) -> str | None:
    if isinstance(value, str) and re.match(r"^https?://[^\s/]+", value.strip()):
        return value.strip()
    return None


def _iso_date(value: object) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    # htmldate leaves %z empty when the page gives no offset; such times are taken as UTC
    for fmt in ("%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d"):
        try:
            return iso_utc(datetime.strptime(value.strip(), fmt), precision="microseconds")
        except ValueError:
            continue
    return None


def _paragraphs(text: str, title: str | None) -> str:
    lines = [re.sub(r"\s+", " ", line).strip() for line in text.split("\n")]
    lines = [line for line in lines if line]
    # trafilatura keeps the headline as the first line; the record has it as its title
    if lines and title and lines[0].casefold() == title.strip().casefold():
        lines = lines[1:]
    return "\n\n".join(lines)


def read_html(path: Path) -> Iterator[RawRecord]:
    """One ``article`` (unless the sidecar says otherwise) per page."""
    blob = path.read_bytes()
    size = len(blob)
    preview = blob[:RAW_PREVIEW_CHARS].decode("utf-8", errors="replace")
    sidecar = load_sidecar(path)
    if sidecar.error:
        yield error_record(path, 1, sidecar.error, raw=preview, size=size)
        return
    try:
        document = trafilatura.bare_extraction(
            blob,
            with_metadata=True,
            include_comments=False,
            include_tables=True,
            # precision over recall: without it, a page whose main text is short (a social
            # post) falls back to the whole body, cookie banner and byline included
            favor_precision=True,
            date_extraction_params=_DATE_PARAMS,
        )
    # lxml and trafilatura raise many types on hostile markup; any of them means "unreadable
    # page", and one bad file must not stop the batch.
    except Exception as exc:
        yield error_record(
            path,
            1,
            f"the HTML could not be parsed ({type(exc).__name__}: {exc})",
            raw=preview,
            size=size,
        )
        return
    if document is None or isinstance(document, dict) or not (document.text or "").strip():
        yield error_record(
            path,
            1,
            "no main text found in the page (is it a full article page, not a listing or an "
            "empty shell rendered by JavaScript?)",
            raw=preview,
            size=size,
        )
        return

    title = (document.title or "").strip() or None
    data: dict[str, Any] = {
        "kind": "article",
        "title": title,
        "url": _absolute_url(document.url),
        "published_at": _iso_date(document.date),
        "author": (document.author or "").strip() or None,
        "text": _paragraphs(document.text or "", title),
    }
    if document.sitename:
        data["sitename"] = document.sitename
    if document.description:
        data["description"] = document.description
    present = {k: v for k, v in data.items() if v is not None}
    data = {
        k: v for k, v in {**sidecar.defaults, **present, **sidecar.fields}.items() if v is not None
    }

    missing = {
        "url": 'URL (no <link rel="canonical"> or og:url in the page)',
        "published_at": "publication date (none in the page's metadata)",
        "title": "title",
    }
    lacking = [name for name in missing if not data.get(name)]
    if lacking:
        yield error_record(
            path,
            1,
            f"the page gives no {' and no '.join(missing[name] for name in lacking)}; "
            f"{sidecar_hint(path)} ({', '.join(f'{name}: …' for name in lacking)})",
            raw=preview,
            size=size,
        )
        return
    yield RawRecord(str(path), 1, data, preview, size)
