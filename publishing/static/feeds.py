"""Atom feeds (RFC 4287) in the static tree, published with every snapshot: one for the whole
service, one per entity with a page, per theme and per trending mode. Each entry is a signal:
its central statement, its verified units with their verbatim snippets, and the source link.
A feed follows the change feed: its entries are the signals changed last (new, or updated since
they were first published), the latest change first, so an update reaches a feed reader as it
reaches a webhook.

A feed's bytes depend only on its signals: entry ids are the signal ids (``urn:aimi:signal:…``),
an entry's ``updated`` is when the signal last changed (the change feed's ``changed_at``) and a
feed's ``updated`` the newest of its entries', so a feed whose signals did not change is the same
file in the next snapshot (linked, like the pages) and a reader sees nothing new.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote
from xml.sax.saxutils import escape, quoteattr

from analytics.records import parse_timestamp

FEED_ENTRIES = 20  # the signals changed last, in each feed
ATOM_TYPE = "application/atom+xml"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_CENTRAL_ROLES = ("thesis", "synopsis")


def feed_id_part(value: str) -> str:
    """``value`` (a theme label, an entity or story id) inside a feed's ``urn:`` id. An Atom id
    is an IRI (RFC 4287 §4.2.6), which holds no space: those and other characters outside
    the IRI syntax are percent-encoded; a value without them is unchanged."""
    return quote(value, safe="!$'()*+,;=:@/~")


@dataclass(frozen=True)
class Feed:
    """One feed: where it is written (site-relative), its id and title, and the site page it
    belongs to (site-relative; the feed links it as ``alternate``)."""

    path: str
    feed_id: str
    title: str
    subtitle: str
    page: str


def _time(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _relative(from_path: str, to_path: str) -> str:
    """``to_path`` as seen from the file at ``from_path`` (both site-relative)."""
    return "../" * from_path.count("/") + to_path


def entry_html(signal: Mapping[str, Any]) -> str:
    """The entry's content: the central statement, then every verified unit with its snippets,
    then the source link; HTML, escaped once more by the feed's XML."""
    units = signal["units"]
    central = next((u for u in units if u["role"] in _CENTRAL_ROLES), None)
    parts: list[str] = []
    if central is not None:
        parts.append(f"<p><strong>{escape(central['text'])}</strong></p>")
    items = []
    for unit in units:
        snippets = "; ".join(
            f"“{escape(s['text'])}{'…' if s.get('truncated') else ''}”"
            for s in unit["evidence_preview"]["snippets"]
        )
        items.append(
            f"<li>{escape(unit['role'])}: {escape(unit['text'])}"
            + (f" <em>Evidence: {snippets}</em>" if snippets else "")
            + "</li>"
        )
    if items:
        parts.append("<ul>" + "".join(items) + "</ul>")
    parts.append(f'<p><a href="{escape(signal["url"], {chr(34): "&quot;"})}">Source</a></p>')
    return "".join(parts)


def render_feed(
    feed: Feed,
    signals: Iterable[Mapping[str, Any]],
    changed_at: Mapping[str, datetime],
    signal_page: Mapping[str, str],
) -> bytes:
    """The Atom document of ``feed`` over ``signals`` (signal details, latest change first);
    ``changed_at`` and ``signal_page`` give each signal's last change and its site page."""
    entries: list[str] = []
    newest = _EPOCH
    for signal in signals:
        signal_id = signal["signal_id"]
        updated = changed_at.get(signal_id) or parse_timestamp(signal["published_at"])
        newest = max(newest, updated)
        categories = "".join(
            f"<category term={quoteattr(label)} scheme={quoteattr('urn:aimi:theme:' + axis)}/>"
            for axis, labels in signal["themes"].items()
            for label in labels
        )
        page = signal_page.get(signal_id)
        related = (
            f'<link rel="related" type="text/html" href={quoteattr(_relative(feed.path, page))}/>'
            if page
            else ""
        )
        entries.append(
            "<entry>"
            f"<id>urn:aimi:signal:{escape(signal_id)}</id>"
            f"<title>{escape(signal['title'])}</title>"
            f"<updated>{_time(updated)}</updated>"
            f"<published>{_time(parse_timestamp(signal['published_at']))}</published>"
            f"<author><name>{escape(signal['domain'])}</name></author>"
            f'<link rel="alternate" type="text/html" href={quoteattr(signal["url"])}/>'
            f"{related}{categories}"
            f'<content type="html">{escape(entry_html(signal))}</content>'
            "</entry>"
        )
    self_href = feed.path.rsplit("/", 1)[-1]
    page_href = _relative(feed.path, feed.page)
    head = (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom">'
        f"<id>{escape(feed.feed_id)}</id>"
        f"<title>{escape(feed.title)}</title>"
        f"<subtitle>{escape(feed.subtitle)}</subtitle>"
        f"<updated>{_time(newest)}</updated>"
        "<author><name>aimi</name></author>"
        "<generator>aimi</generator>"
        f'<link rel="self" type="{ATOM_TYPE}" href={quoteattr(self_href)}/>'
        f'<link rel="alternate" type="text/html" href={quoteattr(page_href)}/>'
    )
    return (head + "".join(entries) + "</feed>\n").encode()
