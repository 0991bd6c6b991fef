"""The demo corpus published as a small static website, the way the sources aimi follows publish:
one HTML article page per written record (canonical link, ``article:published_time``, author,
the text as ``<p>`` paragraphs inside ``<article>``, and the navigation, sidebar, comments and
footer that extraction must drop), a feed per kind in each flavour (RSS 2.0 with teasers, Atom,
JSON Feed), the podcast episodes as an RSS feed with ``podcast:transcript`` (WebVTT, one JSON)
and an audio enclosure that must never be requested, a sitemap index whose sitemaps carry
``lastmod``, robots.txt (a ``Disallow`` and a ``Sitemap`` line) and a home page that links its
feeds with ``<link rel="alternate">``.

``publish_site`` writes the site into a folder (with ``site.json``, each path's content type and
modification time), ``SiteServer`` serves such a folder on loopback with ETag and Last-Modified
(304 to a conditional GET) and logs every request, and ``write_inbox_files`` writes what an
operator would drop into the inbox for the same items (the same page file, or the transcript as
WebVTT, each with a sidecar naming its kind), so a fetch of the site can be compared with an
ingest of the files. Deterministic for a corpus, a base URL and a selection; stdlib only.
"""

from __future__ import annotations

import email.utils
import hashlib
import html
import json
import re
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape as xml_escape
from xml.sax.saxutils import quoteattr

from demo.generator import DemoCorpus, title_slug

MANIFEST = "site.json"
SITE_NAME = "The Demo Wire"
# the order items are picked in (``select_records``) and feeds listed on the home page: the
# first alternate link is the one a home page's discovery follows
KINDS = ("news", "essay", "memo", "article", "social", "paper", "podcast")
SECTIONS = {
    "news": "news",
    "essay": "essays",
    "memo": "memos",
    "article": "articles",
    "social": "posts",
    "paper": "papers",
}
RSS, ATOM, JSON_FEED = "application/rss+xml", "application/atom+xml", "application/feed+json"
# each written kind's feed: path and flavour
FEEDS: dict[str, tuple[str, str]] = {
    "news": ("/feeds/news.xml", RSS),
    "essay": ("/feeds/essays.atom", ATOM),
    "memo": ("/feeds/memos.json", JSON_FEED),
    "article": ("/feeds/articles.xml", RSS),
    "social": ("/feeds/posts.json", JSON_FEED),
    "paper": ("/feeds/papers.atom", ATOM),
}
PODCAST_FEED = "/podcasts/feed.xml"
SITEMAP_INDEX = "/sitemap.xml"
DISALLOWED_PREFIX = "/drafts/"
TEASER_CHARS = 160
HTML_TYPE = "text/html; charset=utf-8"
_CONTENT_TYPES = {
    ".html": HTML_TYPE,
    ".xml": "application/xml",
    ".atom": ATOM,
    ".json": "application/json",
    ".vtt": "text/vtt",
    ".mp3": "audio/mpeg",
    ".txt": "text/plain; charset=utf-8",
}
_TURN = re.compile(
    r"^(?P<speaker>[^\n():]{1,80}?) \((?P<stamp>\d{1,2}:\d{2}:\d{2})\): (?P<text>.*)$"
)


class SiteError(ValueError):
    """A site folder that cannot be served (no ``site.json``), or a record that cannot be
    published."""


@dataclass(frozen=True)
class SiteItem:
    """One published record and where the fetcher finds its text."""

    record: dict[str, Any]
    key: str  # file stem, unique in the site
    path: str  # the page, or the transcript, a fetch reads
    audio: str | None = None  # a podcast's enclosure, which must never be requested

    @property
    def kind(self) -> str:
        return str(self.record["kind"])


@dataclass(frozen=True)
class Site:
    """What ``publish_site`` wrote."""

    root: Path
    base_url: str
    items: list[SiteItem]
    files: dict[str, str]  # site path -> content type
    feeds: dict[str, str]  # kind -> absolute feed URL (podcast included)
    sitemaps: dict[str, str]  # kind -> absolute sitemap URL
    draft: str | None  # a page the papers' sitemap lists but robots.txt disallows

    def url(self, path: str) -> str:
        return self.base_url + path

    @property
    def home(self) -> str:
        return self.url("/")

    @property
    def sitemap_index(self) -> str:
        return self.url(SITEMAP_INDEX)

    def by_kind(self, kind: str) -> list[SiteItem]:
        return [item for item in self.items if item.kind == kind]


def corpus_records(corpus: DemoCorpus) -> list[dict[str, Any]]:
    """Every record of the corpus, the Markdown documents as records too, in publication
    order."""
    records = [dict(r) for r in corpus.records]
    for _, document in corpus.markdown_documents:
        head, _, body = document.removeprefix("---\n").partition("\n---\n")
        meta = {
            key: json.loads(value)
            for key, _, value in (line.partition(": ") for line in head.splitlines())
        }
        records.append({**meta, "text": body.strip()})
    return sorted(records, key=lambda r: (r["published_at"], r["url"]))


def select_records(corpus: DemoCorpus, count: int | None = None) -> list[dict[str, Any]]:
    """``count`` records (all when ``None``), taken a kind at a time in ``KINDS`` order, so a
    small selection still holds every kind; the earliest of each kind first."""
    records = corpus_records(corpus)
    if count is None:
        return records
    by_kind = {kind: [r for r in records if r["kind"] == kind] for kind in KINDS}
    chosen: list[dict[str, Any]] = []
    position = 0
    while len(chosen) < count and any(len(rs) > position for rs in by_kind.values()):
        for kind in KINDS:
            if len(chosen) < count and position < len(by_kind[kind]):
                chosen.append(by_kind[kind][position])
        position += 1
    return sorted(chosen, key=lambda r: (r["published_at"], r["url"]))


# --- formatting helpers --------------------------------------------------------------------------


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _when(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _rfc822(moment: datetime) -> str:
    return email.utils.format_datetime(moment, usegmt=True)


def _key(record: dict[str, Any]) -> str:
    digest = hashlib.sha256(str(record["url"]).encode("utf-8")).hexdigest()[:8]
    return f"{title_slug(str(record['title']), 60)}-{digest}"


def teaser(text: str, limit: int = TEASER_CHARS) -> str:
    """The start of ``text`` cut at a word, ending with an ellipsis: what a feed that wants
    the click carries (the fetcher then reads the page)."""
    flat = re.sub(r"\s+", " ", text).strip()
    cut = flat[:limit].rsplit(" ", 1)[0] if len(flat) > limit else flat
    return cut.rstrip(" ,;:.") + " \u2026"


def _paragraphs(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]


def parse_turns(segments: Sequence[dict[str, Any]]) -> list[tuple[str, int, int, str]]:
    """A podcast record's turns as ``(speaker, start_s, end_s, text)``; a turn ends where the
    next begins, the last at its segment's end."""
    turns: list[tuple[str, int, str]] = []
    ends: list[int] = []
    for segment in segments:
        for line in str(segment["text"]).splitlines():
            match = _TURN.match(line.strip())
            if match is None:
                raise SiteError(f"not a transcript turn: {line[:80]!r}")
            h, m, s = (int(x) for x in match.group("stamp").split(":"))
            turns.append((match.group("speaker"), h * 3600 + m * 60 + s, match.group("text")))
            ends.append(int(segment["end_s"]))
    return [
        (speaker, start, turns[i + 1][1] if i + 1 < len(turns) else ends[i], text)
        for i, (speaker, start, text) in enumerate(turns)
    ]


def _vtt_time(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}.000"


def transcript_vtt(record: dict[str, Any]) -> str:
    """A podcast record's transcript as WebVTT, one cue per turn with its ``<v>`` voice."""
    lines = ["WEBVTT", "", f"NOTE {record['title']}", ""]
    for number, (speaker, start, end, text) in enumerate(parse_turns(record["segments"]), 1):
        lines += [
            str(number),
            f"{_vtt_time(start)} --> {_vtt_time(max(start, end))}",
            f"<v {speaker}>{_esc(text)}",
            "",
        ]
    return "\n".join(lines)


def transcript_json(record: dict[str, Any]) -> str:
    """A podcast record's transcript in the Podcasting 2.0 JSON format."""
    segments = [
        {"speaker": speaker, "startTime": start, "endTime": max(start, end), "body": text}
        for speaker, start, end, text in parse_turns(record["segments"])
    ]
    return json.dumps({"version": "1.0.0", "segments": segments}, ensure_ascii=False, indent=1)


# --- pages ---------------------------------------------------------------------------------------

_NAV = (
    ("/", "Home"),
    ("/news/", "News"),
    ("/essays/", "Essays"),
    ("/memos/", "Memos"),
    ("/papers/", "Research"),
    ("/podcasts/", "Podcasts"),
    ("/search?q=", "Search"),
    ("/subscribe", "Subscribe"),
)
_COMMENTERS = ("datacenter_dan", "Priya S.", "margin_call", "J. Okafor", "quietquant")
_COMMENTS = (
    "Great piece, but I think the capex numbers are understated. The Q3 filings told a "
    "different story if you read the footnotes.",
    "Does anyone have a link to the underlying survey? Would love to see the methodology.",
    "This matches what we see on the ground at our company. Procurement cycles are getting "
    "longer, not shorter.",
    "Respectfully disagree. The second-order effects on power pricing are the real story here "
    "and the article barely mentions them.",
    "Bookmarked. Sharing this with my team on Monday.",
)


def _head(title: str, extra: str, base_url: str) -> str:
    feeds = "".join(
        f'<link rel="alternate" type="{kind}" title="{_esc(SITE_NAME)} {section}" '
        f'href="{base_url}{path}">\n'
        for section, (path, kind) in ((k, FEEDS[k]) for k in FEEDS)
    )
    feeds += (
        f'<link rel="alternate" type="{RSS}" title="{_esc(SITE_NAME)} podcasts" '
        f'href="{base_url}{PODCAST_FEED}">\n'
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_esc(title)}</title>\n{extra}{feeds}"
        '<link rel="stylesheet" href="/static/site.css">\n'
        "<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}"
        "gtag('js',new Date());gtag('config','G-DEMO0000');</script>\n</head>\n"
    )


def _masthead() -> str:
    links = "".join(f'<li><a href="{href}">{label}</a></li>' for href, label in _NAV)
    return (
        '<div class="cookie-banner" role="dialog"><p>We use cookies to measure readership and '
        'improve the site. By continuing you accept our <a href="/privacy">cookie policy</a>.'
        '</p><button type="button">Accept</button><button type="button">Settings</button></div>\n'
        f'<header class="masthead"><a class="logo" href="/">{_esc(SITE_NAME)}</a>\n'
        f'<nav class="primary" aria-label="Sections"><ul>{links}</ul></nav>\n'
        '<form class="search" action="/search" method="get"><input name="q" '
        'placeholder="Search the archive"><button>Go</button></form></header>\n'
    )


def _footer() -> str:
    return (
        '<footer class="site-footer"><nav aria-label="Company"><ul>'
        '<li><a href="/about">About us</a></li><li><a href="/careers">Careers</a></li>'
        '<li><a href="/advertise">Advertise</a></li><li><a href="/privacy">Privacy policy</a>'
        '</li><li><a href="/terms">Terms of use</a></li><li><a href="/contact">Contact</a></li>'
        "</ul></nav>\n<p>&copy; 2026 The Demo Wire Media Group. All rights reserved. "
        "Reproduction without permission is prohibited.</p>\n"
        '<p class="newsletter">Get the morning briefing in your inbox. <a href="/subscribe">'
        "Sign up free</a>.</p></footer>\n"
    )


def _sidebar(related: Sequence[SiteItem]) -> str:
    links = "".join(
        f'<li><a href="{item.path}">{_esc(str(item.record["title"]))}</a></li>' for item in related
    )
    return (
        '<aside class="sidebar"><section class="most-read"><h2>Most read</h2>'
        f"<ol>{links}</ol></section>\n"
        '<section class="promo"><h2>Subscribe</h2><p>Unlimited access to analysis, data and '
        "the archive for $9 a month. Cancel any time.</p>"
        '<a class="button" href="/subscribe">Start your trial</a></section>\n'
        '<div class="ad" data-slot="sidebar-300x250">Advertisement</div></aside>\n'
    )


def _comments(key: str) -> str:
    # how many and whose: fixed by the page's key, so the site is the same every time
    seed = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16)
    count = 2 + seed % 3
    blocks = []
    for i in range(count):
        who = _COMMENTERS[(seed + i) % len(_COMMENTERS)]
        said = _COMMENTS[(seed // 7 + i) % len(_COMMENTS)]
        blocks.append(
            f'<div class="comment" id="c{i + 1}"><p class="comment-author">{_esc(who)} '
            f'<span class="comment-time">{i + 2} hours ago</span></p><p>{_esc(said)}</p>'
            '<a class="reply" href="#respond">Reply</a></div>'
        )
    return (
        f'<section id="comments" class="comments"><h2>{count} comments</h2>'
        + "".join(blocks)
        + '<form id="respond"><textarea name="comment" placeholder="Join the discussion">'
        "</textarea><button>Post comment</button></form></section>\n"
    )


def article_page(item: SiteItem, related: Sequence[SiteItem], base_url: str) -> str:
    """The HTML page of a written record: its metadata in the head, its paragraphs in
    ``<article>``, boilerplate around."""
    record = item.record
    title, author = str(record["title"]), str(record.get("author") or "")
    published = _when(str(record["published_at"]))
    meta = (
        f'<link rel="canonical" href="{_esc(str(record["url"]))}">\n'
        f'<meta property="og:type" content="article">\n'
        f'<meta property="og:title" content="{_esc(title)}">\n'
        f'<meta property="og:site_name" content="{_esc(SITE_NAME)}">\n'
        f'<meta property="article:published_time" content="{_iso(published)}">\n'
        f'<meta property="article:section" content="{SECTIONS[item.kind]}">\n'
        + (f'<meta name="author" content="{_esc(author)}">\n' if author else "")
        + f'<meta name="description" content="{_esc(teaser(str(record["text"])))}">\n'
    )
    body = "".join(f"<p>{_esc(p)}</p>\n" for p in _paragraphs(str(record["text"])))
    byline = (
        f'<a rel="author" href="/authors/{title_slug(author, 60)}">{_esc(author)}</a>'
        if author
        else ""
    )
    return (
        _head(f"{title} | {SITE_NAME}", meta, base_url)
        + f'<body class="article {SECTIONS[item.kind]}">\n'
        + _masthead()
        + '<div class="layout"><main>\n'
        + '<nav class="breadcrumbs"><a href="/">Home</a> &rsaquo; '
        + f'<a href="/{SECTIONS[item.kind]}/">{SECTIONS[item.kind].title()}</a></nav>\n'
        + f'<header class="article-header"><h1>{_esc(title)}</h1>\n'
        + f'<p class="byline">{byline} <time datetime="{_iso(published)}">'
        + f"{published:%B %d, %Y}</time></p></header>\n"
        + "<article>\n"
        + body
        + "</article>\n"
        + '<div class="share"><span>Share</span> <a href="/share/x">X</a> '
        + '<a href="/share/linkedin">LinkedIn</a> <a href="/share/email">Email</a></div>\n'
        + _comments(item.key)
        + "</main>\n"
        + _sidebar(related)
        + "</div>\n"
        + _footer()
        + "</body>\n</html>\n"
    )


def _draft_page(base_url: str) -> str:
    meta = '<meta name="robots" content="noindex">\n'
    return (
        _head(f"Draft: embargoed preprint | {SITE_NAME}", meta, base_url)
        + "<body><article><h1>Embargoed preprint</h1><p>Not for publication before the "
        "embargo lifts. This draft must never be fetched by a crawler that obeys robots.txt."
        "</p></article></body></html>\n"
    )


def home_page(items: Sequence[SiteItem], base_url: str) -> str:
    latest = sorted(
        (i for i in items if i.kind != "podcast"),
        key=lambda i: str(i.record["published_at"]),
        reverse=True,
    )[:30]
    links = "".join(
        f'<li><a href="{item.path}">{_esc(str(item.record["title"]))}</a> '
        f'<span class="kind">{item.kind}</span></li>\n'
        for item in latest
    )
    return (
        _head(
            SITE_NAME,
            '<meta name="description" content="AI economy news and analysis">\n',
            base_url,
        )
        + '<body class="home">\n'
        + _masthead()
        + f'<main><h1>Latest</h1><ul class="river">\n{links}</ul>'
        + f'<p><a href="{DISALLOWED_PREFIX}">Drafts (staff only)</a></p></main>\n'
        + _footer()
        + "</body>\n</html>\n"
    )


# --- feeds and sitemaps --------------------------------------------------------------------------


def _newest_first(items: Iterable[SiteItem]) -> list[SiteItem]:
    return sorted(items, key=lambda i: (str(i.record["published_at"]), i.key), reverse=True)


def rss_feed(kind: str, items: Sequence[SiteItem], base_url: str) -> str:
    entries = []
    for item in _newest_first(items):
        record = item.record
        author = str(record.get("author") or "")
        entries.append(
            "<item>\n"
            f"<title>{xml_escape(str(record['title']))}</title>\n"
            f"<link>{xml_escape(base_url + item.path)}</link>\n"
            f'<guid isPermaLink="false">{xml_escape(str(record["url"]))}</guid>\n'
            f"<pubDate>{_rfc822(_when(str(record['published_at'])))}</pubDate>\n"
            + (f"<dc:creator>{xml_escape(author)}</dc:creator>\n" if author else "")
            + f"<description>{xml_escape(teaser(str(record['text'])))}</description>\n"
            "</item>\n"
        )
    updated = max((_when(str(i.record["published_at"])) for i in items), default=_EPOCH)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" '
        'xmlns:atom="http://www.w3.org/2005/Atom">\n<channel>\n'
        f"<title>{xml_escape(SITE_NAME)}: {SECTIONS[kind]}</title>\n"
        f"<link>{xml_escape(base_url)}/</link>\n"
        f'<atom:link href="{xml_escape(base_url + FEEDS[kind][0])}" rel="self" type="{RSS}"/>\n'
        "<description>AI economy news and analysis</description>\n<language>en</language>\n"
        f"<lastBuildDate>{_rfc822(updated)}</lastBuildDate>\n"
        + "".join(entries)
        + "</channel>\n</rss>\n"
    )


def atom_feed(kind: str, items: Sequence[SiteItem], base_url: str) -> str:
    entries = []
    for item in _newest_first(items):
        record = item.record
        author = str(record.get("author") or "")
        published = _iso(_when(str(record["published_at"])))
        entries.append(
            "<entry>\n"
            f"<title>{xml_escape(str(record['title']))}</title>\n"
            f'<link rel="alternate" type="text/html" href={quoteattr(base_url + item.path)}/>\n'
            f"<id>{xml_escape(str(record['url']))}</id>\n"
            f"<published>{published}</published>\n<updated>{published}</updated>\n"
            + (f"<author><name>{xml_escape(author)}</name></author>\n" if author else "")
            + f"<summary>{xml_escape(teaser(str(record['text'])))}</summary>\n"
            "</entry>\n"
        )
    updated = max((_when(str(i.record["published_at"])) for i in items), default=_EPOCH)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n'
        f"<title>{xml_escape(SITE_NAME)}: {SECTIONS[kind]}</title>\n"
        f'<link rel="alternate" href={quoteattr(base_url + "/")}/>\n'
        f'<link rel="self" href={quoteattr(base_url + FEEDS[kind][0])}/>\n'
        f"<id>{xml_escape(base_url + FEEDS[kind][0])}</id>\n<updated>{_iso(updated)}</updated>\n"
        + "".join(entries)
        + "</feed>\n"
    )


def json_feed(kind: str, items: Sequence[SiteItem], base_url: str) -> str:
    entries = []
    for item in _newest_first(items):
        record = item.record
        entry: dict[str, Any] = {
            "id": str(record["url"]),
            "url": base_url + item.path,
            "title": str(record["title"]),
            "summary": teaser(str(record["text"])),
            "content_text": teaser(str(record["text"])),
            "date_published": _iso(_when(str(record["published_at"]))),
        }
        if record.get("author"):
            entry["authors"] = [{"name": str(record["author"])}]
        entries.append(entry)
    document = {
        "version": "https://jsonfeed.org/version/1.1",
        "title": f"{SITE_NAME}: {SECTIONS[kind]}",
        "home_page_url": base_url + "/",
        "feed_url": base_url + FEEDS[kind][0],
        "items": entries,
    }
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"


def podcast_feed(items: Sequence[SiteItem], base_url: str) -> str:
    entries = []
    for item in _newest_first(items):
        record = item.record
        transcript_type = "application/json" if item.path.endswith(".json") else "text/vtt"
        duration = max(int(s["end_s"]) for s in record["segments"])
        entries.append(
            "<item>\n"
            f"<title>{xml_escape(str(record['title']))}</title>\n"
            f"<link>{xml_escape(str(record['url']))}</link>\n"
            f'<guid isPermaLink="true">{xml_escape(str(record["url"]))}</guid>\n'
            f"<pubDate>{_rfc822(_when(str(record['published_at'])))}</pubDate>\n"
            f"<itunes:author>{xml_escape(str(record['author']))}</itunes:author>\n"
            f"<itunes:duration>{duration}</itunes:duration>\n"
            f"<description>{xml_escape(teaser(str(record['segments'][0]['text'])))}</description>\n"
            f'<enclosure url={quoteattr(base_url + str(item.audio))} length="{duration * 16000}" '
            'type="audio/mpeg"/>\n'
            f'<podcast:transcript url={quoteattr(base_url + item.path)} type="{transcript_type}" '
            'language="en"/>\n'
            "</item>\n"
        )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" '
        'xmlns:podcast="https://podcastindex.org/namespace/1.0">\n<channel>\n'
        f"<title>{xml_escape(SITE_NAME)} podcasts</title>\n"
        f"<link>{xml_escape(base_url)}/podcasts/</link>\n"
        "<description>Conversations about the AI economy</description>\n"
        '<language>en</language>\n<itunes:category text="Business"/>\n'
        f"<itunes:author>{xml_escape(SITE_NAME)}</itunes:author>\n"
        + "".join(entries)
        + "</channel>\n</rss>\n"
    )


def sitemap(items: Sequence[SiteItem], base_url: str, extra: Sequence[str] = ()) -> str:
    urls = [
        f"<url><loc>{xml_escape(base_url + item.path)}</loc>"
        f"<lastmod>{_iso(_when(str(item.record['published_at'])))}</lastmod></url>\n"
        for item in sorted(items, key=lambda i: (str(i.record["published_at"]), i.key))
    ]
    urls += [f"<url><loc>{xml_escape(base_url + path)}</loc></url>\n" for path in extra]
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        + "".join(urls)
        + "</urlset>\n"
    )


def sitemap_index(children: dict[str, datetime], base_url: str) -> str:
    entries = "".join(
        f"<sitemap><loc>{xml_escape(base_url + path)}</loc><lastmod>{_iso(when)}</lastmod>"
        "</sitemap>\n"
        for path, when in children.items()
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        + entries
        + "</sitemapindex>\n"
    )


def robots_txt(base_url: str) -> str:
    return (
        "User-agent: *\n"
        f"Disallow: {DISALLOWED_PREFIX}\n"
        "Disallow: /search\n\n"
        "User-agent: BadBot\nDisallow: /\n\n"
        f"Sitemap: {base_url}{SITEMAP_INDEX}\n"
    )


# --- publishing ----------------------------------------------------------------------------------

_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


def _items(records: Sequence[dict[str, Any]]) -> list[SiteItem]:
    items = []
    json_done = False
    keys: set[str] = set()
    for record in records:
        key = _key(record)
        if key in keys:
            raise SiteError(f"two records publish as {key}; their URLs must differ")
        keys.add(key)
        kind = str(record["kind"])
        if kind == "podcast":
            # the first episode offers only a JSON transcript, the others WebVTT
            suffix = ".vtt" if json_done else ".json"
            json_done = True
            items.append(
                SiteItem(
                    record,
                    key,
                    f"/podcasts/transcripts/{key}{suffix}",
                    audio=f"/podcasts/audio/{key}.mp3",
                )
            )
        elif kind in SECTIONS:
            items.append(SiteItem(record, key, f"/{SECTIONS[kind]}/{key}.html"))
        else:
            raise SiteError(f"a record of kind {kind!r} cannot be published")
    return items


class _Writer:
    """The files of a site being published, by site path: body, content type, modification."""

    def __init__(self, base_url: str, items: list[SiteItem]) -> None:
        self.base_url = base_url
        self.items = items
        self.files: dict[str, tuple[bytes, str, datetime]] = {}
        self.feeds: dict[str, str] = {}
        self.sitemaps: dict[str, str] = {}

    def put(self, path: str, text: str | bytes, content_type: str, modified: datetime) -> None:
        body = text.encode("utf-8") if isinstance(text, str) else text
        self.files[path] = (body, content_type, modified)

    def pages(self, related: int) -> None:
        pages = [i for i in self.items if i.kind != "podcast"]
        for index, item in enumerate(pages):
            # the sidebar's "most read": the next pages of the site, a different list per page
            others = [
                pages[(index + k) % len(pages)] for k in range(1, min(related, len(pages)) + 1)
            ]
            page = article_page(item, [o for o in others if o is not item], self.base_url)
            self.put(item.path, page, HTML_TYPE, _when(str(item.record["published_at"])))

    def feeds_and_sitemaps(self, draft_path: str | None) -> dict[str, datetime]:
        """A feed and a sitemap per written kind; returns the sitemaps with their lastmod."""
        children: dict[str, datetime] = {}
        for kind, (path, flavour) in FEEDS.items():
            listed = [i for i in self.items if i.kind == kind]
            if not listed:
                continue
            newest = max(_when(str(i.record["published_at"])) for i in listed)
            writer = {RSS: rss_feed, ATOM: atom_feed, JSON_FEED: json_feed}[flavour]
            self.put(path, writer(kind, listed, self.base_url), flavour, newest)
            self.feeds[kind] = self.base_url + path
            map_path = f"/sitemaps/{SECTIONS[kind]}.xml"
            extra = [draft_path] if draft_path and kind == "paper" else []
            self.put(map_path, sitemap(listed, self.base_url, extra), "application/xml", newest)
            self.sitemaps[kind] = self.base_url + map_path
            children[map_path] = newest
        return children

    def podcasts(self) -> None:
        episodes = [i for i in self.items if i.kind == "podcast"]
        if not episodes:
            return
        newest = max(_when(str(i.record["published_at"])) for i in episodes)
        self.put(PODCAST_FEED, podcast_feed(episodes, self.base_url), RSS, newest)
        self.feeds["podcast"] = self.base_url + PODCAST_FEED
        for item in episodes:
            modified = _when(str(item.record["published_at"]))
            if item.path.endswith(".json"):
                self.put(item.path, transcript_json(item.record), "application/json", modified)
            else:
                self.put(item.path, transcript_vtt(item.record), "text/vtt", modified)
            # a stand-in for the audio: it exists, so a fetcher that asks gets it (and is caught)
            audio = b"ID3\x03\x00\x00\x00" + bytes(1017)
            self.put(str(item.audio), audio, "audio/mpeg", modified)

    def write(self, root: Path) -> dict[str, str]:
        """Every file under ``root``, and ``site.json``; returns each path's content type."""
        root.mkdir(parents=True, exist_ok=True)
        manifest: dict[str, dict[str, str]] = {}
        for path, (body, content_type, modified) in sorted(self.files.items()):
            target = root / _file_of(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(body)
            manifest[path] = {"type": content_type, "modified": _iso(modified)}
        (root / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        return {path: entry["type"] for path, entry in manifest.items()}


def publish_site(
    records: Sequence[dict[str, Any]],
    root: Path,
    base_url: str,
    *,
    draft: bool = True,
    related: int = 8,
) -> Site:
    """Write ``records`` as a website into ``root`` (which should be empty), its links absolute
    under ``base_url`` (``http://127.0.0.1:8123``). ``draft`` lists a page under the disallowed
    prefix in the papers' sitemap, as a careless CMS does."""
    base_url = base_url.rstrip("/")
    items = _items(records)
    site = _Writer(base_url, items)
    site.pages(related)
    draft_path = f"{DISALLOWED_PREFIX}embargoed-preprint.html" if draft else None
    children = site.feeds_and_sitemaps(draft_path)
    site.podcasts()
    latest = max((_when(str(i.record["published_at"])) for i in items), default=_EPOCH)
    site.put(SITEMAP_INDEX, sitemap_index(children, base_url), "application/xml", latest)
    site.put("/robots.txt", robots_txt(base_url), "text/plain; charset=utf-8", _EPOCH)
    site.put("/", home_page(items, base_url), HTML_TYPE, latest)
    if draft_path:
        site.put(draft_path, _draft_page(base_url), HTML_TYPE, latest)
    files = site.write(root)
    return Site(
        root,
        base_url,
        items,
        files,
        site.feeds,
        site.sitemaps,
        base_url + draft_path if draft_path else None,
    )


def _file_of(path: str) -> str:
    return "index.html" if path == "/" else path.lstrip("/")


# --- the same items as inbox files ---------------------------------------------------------------


def write_inbox_files(site: Site, folder: Path) -> list[Path]:
    """What an operator would drop into the inbox for each item of ``site``: the page file as
    served, with a sidecar naming its kind and, as defaults for what the page lacks, what its
    feed entry says (title, URL, date, author); a podcast's transcript as WebVTT, with a sidecar
    giving its kind, title, URL, date and author (what its feed entry says)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for item in site.items:
        record = item.record
        if item.kind == "podcast":
            path = folder / f"{item.key}.vtt"
            path.write_text(transcript_vtt(record), encoding="utf-8")
            sidecar: dict[str, Any] = {
                key: record[key] for key in ("kind", "title", "url", "published_at", "author")
            }
        else:
            path = folder / f"{item.key}.html"
            path.write_bytes((site.root / _file_of(item.path)).read_bytes())
            # what the page lacks (a social post's author is a handle, which the page's
            # metadata does not give as a name), the operator writes down, as a feed entry says it
            defaults = {key: record[key] for key in ("title", "url", "published_at", "author")}
            sidecar = {"kind": item.kind, "defaults": defaults}
        side = path.with_name(path.name + ".meta.json")
        side.write_text(json.dumps(sidecar, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        written.append(path)
    return written


# --- serving -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    """One request the server answered."""

    path: str
    status: int
    headers: dict[str, str]  # as sent, lower-case names
    started: float  # time.monotonic()
    ended: float


@dataclass
class RequestLog:
    """Every request, and the most that were ever in flight at once."""

    requests: list[Request] = field(default_factory=list)
    in_flight: int = 0
    most_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def paths(self) -> list[str]:
        with self.lock:
            return [r.path for r in self.requests]

    def since(self, mark: int) -> list[Request]:
        with self.lock:
            return list(self.requests[mark:])

    def __len__(self) -> int:
        with self.lock:
            return len(self.requests)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # headers and body are two writes: with Nagle's algorithm the body waits for the client's
    # delayed ACK of the headers (40 ms on Linux) on a kept-alive connection
    disable_nagle_algorithm = True
    server: _SiteHTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  # the base's name
        pass  # the request log says what was asked

    def do_GET(self) -> None:
        log = self.server.log
        started = time.monotonic()
        with log.lock:
            log.in_flight += 1
            log.most_in_flight = max(log.most_in_flight, log.in_flight)
        status = 500
        try:
            status = self._answer()
        finally:
            with log.lock:
                log.in_flight -= 1
                log.requests.append(
                    Request(
                        self.path,
                        status,
                        {k.lower(): v for k, v in self.headers.items()},
                        started,
                        time.monotonic(),
                    )
                )

    def _answer(self) -> int:
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        entry = self.server.manifest.get(path)
        if entry is None:
            return self._send(404, b"not found\n", "text/plain; charset=utf-8", {})
        body = (self.server.root / _file_of(path)).read_bytes()
        etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
        modified = _when(entry["modified"])
        headers = {"ETag": etag, "Last-Modified": _rfc822(modified)}
        match = self.headers.get("If-None-Match")
        since = self.headers.get("If-Modified-Since")
        if match is not None:
            fresh = etag in [tag.strip() for tag in match.split(",")] or match.strip() == "*"
        elif since is not None:
            try:
                fresh = email.utils.parsedate_to_datetime(since) >= modified
            except (TypeError, ValueError):
                fresh = False
        else:
            fresh = False
        if fresh:
            return self._send(304, b"", None, headers)
        return self._send(200, body, entry["type"], headers)

    def _send(
        self, status: int, body: bytes, content_type: str | None, headers: dict[str, str]
    ) -> int:
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for name, value in headers.items():
            self.send_header(name, value)
        if status != 304:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if status != 304:
            self.wfile.write(body)
        return status


class _SiteHTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], root: Path) -> None:
        super().__init__(address, _Handler)
        self.root = root
        self.manifest: dict[str, dict[str, str]] = {}
        self.log = RequestLog()


class SiteServer:
    """A site folder served on loopback (bound at once, so its base URL is known before the
    site is written; ``start`` reads ``site.json`` and serves), logging every request."""

    def __init__(self, root: Path, port: int = 0) -> None:
        self._server = _SiteHTTPServer(("127.0.0.1", port), root)
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def log(self) -> RequestLog:
        return self._server.log

    def start(self) -> SiteServer:
        manifest = self._server.root / MANIFEST
        if not manifest.is_file():
            raise SiteError(f"{self._server.root} holds no {MANIFEST}; publish the site first")
        self._server.manifest = json.loads(manifest.read_text(encoding="utf-8"))
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="demo-site", daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
        self._server.server_close()

    def __enter__(self) -> SiteServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
