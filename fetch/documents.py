"""What a fetched document says: a feed's entries (RSS 2.0, Atom, JSON Feed; podcast transcripts
through ``podcast:transcript``), a sitemap's pages, or a home page's links to its feeds."""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import xml.etree.ElementTree as ET
import zlib
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urljoin as _urljoin

import feedparser  # type: ignore[import-untyped]  # ships neither types nor a py.typed marker

from analytics.records import RecordError, iso_utc, parse_timestamp
from warehouse.adapters.feeds import entry_author, entry_fields, entry_published, entry_text
from warehouse.adapters.html import fragment_to_text

PODCAST_NS = "https://podcastindex.org/namespace/1.0"
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
FEED_LINK_TYPES = (
    "application/rss+xml",
    "application/atom+xml",
    "application/feed+json",
    "application/json",
)
# a transcript in the first format a file adapter reads (WebVTT, SRT), then JSON, then a page
TRANSCRIPT_PREFERENCE = (
    "text/vtt",
    "application/x-subrip",
    "application/srt",
    "text/srt",
    "application/json",
    "text/html",
    "text/plain",
)
# an entry whose text is at least this long, and does not end like a teaser, is taken whole
WHOLE_TEXT_CHARS = 1_500
_TEASER_END = re.compile(
    r"(\u2026|\.\.\.|\[\u2026\]|\[\.\.\.\]|read more\W*|continue reading\W*|read the rest\W*)$",
    re.I,
)


class DocumentError(ValueError):
    """A fetched document that is not what it should be (no feed, a broken sitemap)."""


_MEDIA_SUFFIX = re.compile(r"\.(mp3|m4a|m4b|aac|ogg|oga|opus|wav|flac|mp4|m4v|mov|webm)$", re.I)


def is_media(url: str) -> bool:
    """An audio or video file by its path's suffix (the fetcher never requests one)."""
    return bool(_MEDIA_SUFFIX.search(url.split("?", 1)[0].split("#", 1)[0]))


def urljoin(base: str, link: str) -> str:
    """``link`` made absolute against ``base``; ``DocumentError`` for a link no URL parser
    reads (``http://[::1``), so one bad link fails its item, not the run."""
    try:
        return _urljoin(base, link)
    except ValueError as exc:
        raise DocumentError(f"the link {link!r} is not a URL ({exc})") from None


@dataclass(frozen=True)
class Transcript:
    url: str
    type: str


@dataclass(frozen=True)
class Entry:
    """One item a feed or sitemap lists."""

    url: str
    # moves when the item changes: the entry's updated or published date and a digest of what
    # the feed says of it, or a sitemap's lastmod
    marker: str
    title: str | None = None
    # the record when the entry carries its whole text (no page to fetch)
    record: dict[str, Any] | None = None
    # what the page may lack: the entry's title, date and author
    defaults: dict[str, Any] = field(default_factory=dict)
    transcripts: tuple[Transcript, ...] = ()
    audio: bool = False


@dataclass(frozen=True)
class Feed:
    title: str
    entries: list[Entry]
    podcast: bool


def looks_like_sitemap(body: bytes) -> bool:
    head = body[:2048]
    if body[:2] == b"\x1f\x8b":  # only the head is unpacked: it is all that is looked at
        with contextlib.suppress(zlib.error):
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(body, 2048)
    text = head.decode("utf-8", errors="replace")
    return bool(re.search(r"<(?:\w+:)?(urlset|sitemapindex)\b", text))


# a gzipped sitemap is unpacked to at most this much (the protocol caps a sitemap at 50 MB
# uncompressed): a small file that unpacks to gigabytes is refused, not read
MAX_UNPACKED_BYTES = 50_000_000


def _ungzip(body: bytes, limit: int = MAX_UNPACKED_BYTES) -> bytes:
    """``body`` unpacked when it is gzip, at most ``limit`` bytes; ``DocumentError`` when it
    unpacks to more."""
    if body[:2] != b"\x1f\x8b":
        return body
    unpacker = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = unpacker.decompress(body, limit + 1)
    except zlib.error:
        return body
    if len(out) > limit:
        raise DocumentError(f"the gzipped document unpacks to over {limit:,} bytes")
    return out


def _whole(entry: Any) -> bool:
    text = entry_text(entry)
    has_content = bool(dict.get(entry, "content"))
    return (
        bool(text)
        and len(text) >= (WHOLE_TEXT_CHARS // 3 if has_content else WHOLE_TEXT_CHARS)
        and not _TEASER_END.search(text.strip())
    )


def _digest(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()[:16]


def parse_feed(body: bytes, url: str) -> Feed:
    """The entries of an RSS, Atom or JSON feed; ``DocumentError`` when it is none of them."""
    stripped = body.lstrip()
    if stripped[:1] in (b"{", b"["):
        return _parse_json_feed(body, url)
    try:
        parsed = feedparser.parse(body)
    except Exception as exc:  # feedparser raises odd types on hostile input
        raise DocumentError(f"the feed could not be parsed ({exc})") from None
    if not dict.get(parsed, "version") and not dict.get(parsed, "entries"):
        raise DocumentError("not an RSS, Atom or JSON feed")
    feed = dict.get(parsed, "feed") or {}
    transcripts = _podcast_transcripts(body)
    entries: list[Entry] = []
    podcast = bool(transcripts) or "itunes" in json.dumps(dict.get(parsed, "namespaces") or {})
    for entry in dict.get(parsed, "entries") or []:
        link = (dict.get(entry, "link") or "").strip()
        if not link:
            continue
        try:
            link = urljoin(url, link)
        except DocumentError:
            continue  # no URL to fetch or cite
        title = re.sub(r"\s+", " ", dict.get(entry, "title") or "").strip() or None
        when = entry_published(entry)
        updated = dict.get(entry, "updated") or dict.get(entry, "published") or ""
        # feedparser keeps enclosures among the links (``enclosures`` is a view of them); an
        # enclosure without a type, or an entry whose link is itself a media file, is media too
        audio = is_media(link) or any(
            str(dict.get(e, "type") or "").startswith(("audio/", "video/"))
            or is_media(str(dict.get(e, "href") or ""))
            for e in dict.get(entry, "links") or []
            if dict.get(e, "rel") == "enclosure"
        )
        podcast = podcast or audio
        record = None
        if _whole(entry) and title and when:
            record = entry_fields(entry, feed, title=title, url=link, published_at=when)
        defaults = {"title": title, "published_at": when, "author": entry_author(entry, feed)}
        entries.append(
            Entry(
                url=link,
                marker=f"{updated}|{_digest(title, entry_text(entry))}",
                title=title,
                record=record,
                defaults={k: v for k, v in defaults.items() if v},
                transcripts=tuple(transcripts.get(_entry_key(entry, link), ())),
                audio=audio,
            )
        )
    return Feed((dict.get(feed, "title") or "").strip(), entries, podcast)


def _entry_key(entry: Any, link: str) -> str:
    return str(dict.get(entry, "id") or link)


def _podcast_transcripts(body: bytes) -> dict[str, list[Transcript]]:
    """``podcast:transcript`` tags by item (guid, else link), best format first."""
    if PODCAST_NS.encode() not in body:
        return {}
    try:
        root = ET.fromstring(body)
    except ET.ParseError:
        return {}
    found: dict[str, list[Transcript]] = {}
    for item in root.iter("item"):
        tags = [
            Transcript(str(t.get("url")).strip(), str(t.get("type") or "").strip().lower())
            for t in item.iter(f"{{{PODCAST_NS}}}transcript")
            if t.get("url")
        ]
        if not tags:
            continue
        tags.sort(key=lambda t: _preference(t.type))
        key = (item.findtext("guid") or item.findtext("link") or "").strip()
        found[key] = tags
        link = (item.findtext("link") or "").strip()
        if link:
            found.setdefault(link, tags)
    return found


def _preference(kind: str) -> int:
    return TRANSCRIPT_PREFERENCE.index(kind) if kind in TRANSCRIPT_PREFERENCE else 99


def _parse_json_feed(body: bytes, url: str) -> Feed:
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DocumentError(f"not a JSON Feed: {exc}") from None
    if not isinstance(data, dict) or "jsonfeed.org" not in str(data.get("version", "")):
        raise DocumentError("not a JSON Feed (no https://jsonfeed.org version)")
    feed_author = _json_author(data)
    feed_title = str(data.get("title") or "").strip()
    entries = []
    for item in data.get("items") or []:
        if not isinstance(item, dict):
            continue
        link = str(item.get("url") or item.get("external_url") or "").strip()
        if not link:
            continue
        try:
            link = urljoin(url, link)
        except DocumentError:
            continue
        title = re.sub(r"\s+", " ", str(item.get("title") or "")).strip() or None
        when = _json_date(item.get("date_published")) or _json_date(item.get("date_modified"))
        html_text = item.get("content_html")
        text = fragment_to_text(html_text) if isinstance(html_text, str) else ""
        text = text or str(item.get("content_text") or "").strip()
        author = _json_author(item) or feed_author
        record = None
        if title and when and len(text) >= WHOLE_TEXT_CHARS // 3 and not _TEASER_END.search(text):
            record = {
                "kind": "news",
                "title": title,
                "url": link,
                "published_at": when,
                "text": text,
            }
            if author:
                record["author"] = author
            if feed_title:
                record["feed"] = feed_title
            if item.get("id"):
                record["guid"] = str(item["id"])
        defaults = {"title": title, "published_at": when, "author": author}
        updated = item.get("date_modified") or item.get("date_published") or ""
        entries.append(
            Entry(
                url=link,
                marker=f"{updated}|{_digest(title, text)}",
                title=title,
                record=record,
                defaults={k: v for k, v in defaults.items() if v},
            )
        )
    return Feed(feed_title, entries, podcast=False)


def _json_author(item: dict[str, Any]) -> str | None:
    authors = item.get("authors") or ([item["author"]] if item.get("author") else [])
    if not isinstance(authors, list):
        return None
    for author in authors:
        if isinstance(author, dict) and str(author.get("name") or "").strip():
            return str(author["name"]).strip()
    return None


def _json_date(value: object) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        moment = parse_timestamp(value)
    except RecordError:
        return None
    return iso_utc(moment, precision="microseconds")


@dataclass(frozen=True)
class Sitemap:
    pages: list[Entry]
    sitemaps: list[str]  # an index's children


def parse_sitemap(body: bytes, url: str) -> Sitemap:
    """The pages (with ``lastmod``) of a sitemap, or the sitemaps of a sitemap index."""
    try:
        root = ET.fromstring(_ungzip(body))
    except ET.ParseError as exc:
        raise DocumentError(f"not a well-formed sitemap: {exc}") from None
    tag = root.tag.split("}")[-1]
    if tag not in ("urlset", "sitemapindex"):
        raise DocumentError(f"not a sitemap (the document is <{tag}>)")
    pages: list[Entry] = []
    children: list[str] = []
    for node in root:
        loc = next((c.text for c in node if c.tag.split("}")[-1] == "loc"), None)
        if not loc or not loc.strip():
            continue
        lastmod = next((c.text for c in node if c.tag.split("}")[-1] == "lastmod"), None) or ""
        try:
            target = urljoin(url, loc.strip())
        except DocumentError:
            continue
        if tag == "sitemapindex":
            children.append(target)
        else:
            # lastmod says when the page last changed, not when it was published: it moves the
            # marker, never the signal's date
            pages.append(Entry(url=target, marker=lastmod.strip()))
    return Sitemap(pages, children)


class _FeedLinks(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag != "link":
            return
        values = {k.lower(): (v or "") for k, v in attrs}
        rel = values.get("rel", "").lower().split()
        kind = values.get("type", "").lower().split(";")[0].strip()
        if "alternate" in rel and kind in FEED_LINK_TYPES and values.get("href"):
            self.links.append((values["href"], kind))


def feed_links(body: bytes, url: str) -> list[str]:
    """The feeds a page links with ``<link rel="alternate">``, in page order."""
    parser = _FeedLinks()
    try:
        parser.feed(body.decode("utf-8", errors="replace"))
        parser.close()
    except AssertionError:  # HTMLParser on hostile markup
        pass
    seen: list[str] = []
    for href, _ in parser.links:
        try:
            target = urljoin(url, href.strip())
        except DocumentError:
            continue
        if target not in seen:
            seen.append(target)
    return seen


def json_transcript_to_vtt(body: bytes) -> str:
    """A Podcasting 2.0 JSON transcript (``segments`` of speaker, startTime, endTime, body) as
    WebVTT, the format the transcript adapter reads."""
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DocumentError(f"not a JSON transcript: {exc}") from None
    segments = data.get("segments") if isinstance(data, dict) else None
    if not isinstance(segments, list) or not segments:
        raise DocumentError("a JSON transcript needs a non-empty `segments` list")
    lines = ["WEBVTT", ""]
    for segment in segments:
        if not isinstance(segment, dict) or not str(segment.get("body") or "").strip():
            continue
        try:
            start = float(segment["startTime"])
            end = float(segment.get("endTime", start))
        except (KeyError, TypeError, ValueError):
            raise DocumentError("each JSON transcript segment needs a numeric startTime") from None
        speaker = str(segment.get("speaker") or "").strip()
        text = str(segment["body"]).strip()
        lines += [
            f"{_vtt_time(start)} --> {_vtt_time(max(end, start))}",
            f"<v {speaker}>{text}" if speaker else text,
            "",
        ]
    return "\n".join(lines)


def _vtt_time(seconds: float) -> str:
    millis = round(seconds * 1000)
    hours, rest = divmod(millis, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    secs, millis = divmod(rest, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}.{millis:03d}"
