"""Fixtures for the fetcher's tests: a real loopback site, an empty data dir, settings that allow
loopback with a short politeness delay, and builders for pages and feeds."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from xml.sax.saxutils import escape

import pytest

from fetch.run import FetchReport, FetchRun
from fetch.sources import Source
from tests.fetch.server import Site, site_fixture
from warehouse.paths import DataDir
from warehouse.settings import Settings

PARAGRAPHS = (
    "Nvidia said on Monday that it has begun shipping its next generation of data-center "
    "accelerators to three large cloud providers, ahead of the schedule it gave investors.",
    "The company expects revenue from the new line to exceed ten billion dollars in the first "
    "year, according to its chief financial officer, who spoke at a conference in New York.",
    "Analysts said supply of high-bandwidth memory remains the main constraint on how fast "
    "the chips can be delivered, and that prices for older parts are falling.",
)


@pytest.fixture
def site() -> Iterator[Site]:
    yield from site_fixture()


@pytest.fixture
def data(tmp_path: Path) -> DataDir:
    return DataDir(tmp_path / "data")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        fetch_allow_private=True,
        fetch_delay_s=0.05,
        fetch_timeout_s=2.0,
        fetch_max_bytes=2_000_000,
    )


def run(data: DataDir, settings: Settings, *sources: Source, ingest: bool = True) -> FetchReport:
    return FetchRun(data, settings=settings, progress=False).run(list(sources), ingest=ingest)


def article(
    site: Site, title: str, path: str, *, when: str = "2026-11-30T10:00:00Z", extra: str = ""
) -> str:
    """An article page with boilerplate around its text; returns its HTML."""
    body = "".join(f"<p>{escape(p)}</p>" for p in PARAGRAPHS) + extra
    return (
        f"<html><head><title>{escape(title)}</title>"
        f'<link rel="canonical" href="{site.url(path)}">'
        f'<meta property="article:published_time" content="{when}">'
        '<meta name="author" content="Ann Writer"></head><body>'
        "<nav><a href='/'>Home</a> | <a href='/about'>About</a></nav>"
        f"<article><h1>{escape(title)}</h1>{body}</article>"
        "<aside>Subscribe to our newsletter for more</aside>"
        "<footer>Copyright the blog. All rights reserved.</footer></body></html>"
    )


def rss(
    site: Site, items: list[tuple[str, str, str]], *, extra_ns: str = "", more: str = ""
) -> str:
    """An RSS 2.0 feed of ``(title, path, pubDate)`` items with teaser descriptions."""
    entries = "".join(
        f"<item><title>{escape(t)}</title><link>{site.url(p)}</link><guid>{site.url(p)}</guid>"
        f"<pubDate>{d}</pubDate><description>A short teaser...</description>{more}</item>"
        for t, p, d in items
    )
    return (
        f'<?xml version="1.0"?><rss version="2.0"{extra_ns}><channel><title>Test blog</title>'
        f"<link>{site.base}/</link>{entries}</channel></rss>"
    )


def atom(site: Site, items: list[tuple[str, str, str]], *, full: bool = False) -> str:
    text = "".join(f"&lt;p&gt;{escape(p)}&lt;/p&gt;" for p in PARAGRAPHS * 4)
    entries = "".join(
        f"<entry><title>{escape(t)}</title><link href='{site.url(p)}'/><id>{site.url(p)}</id>"
        f"<updated>{d}</updated><author><name>Ann Writer</name></author>"
        + (f"<content type='html'>{text}</content>" if full else "<summary>Teaser…</summary>")
        + "</entry>"
        for t, p, d in items
    )
    return (
        '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Atom blog</title>'
        f"<id>{site.base}/</id><updated>2026-11-30T10:00:00Z</updated>{entries}</feed>"
    )


def json_feed(site: Site, items: list[tuple[str, str, str]]) -> str:
    return json.dumps(
        {
            "version": "https://jsonfeed.org/version/1.1",
            "title": "JSON blog",
            "items": [
                {
                    "id": p,
                    "url": site.url(p),
                    "title": t,
                    "date_published": d,
                    "summary": "Teaser",
                    "authors": [{"name": "Ann Writer"}],
                }
                for t, p, d in items
            ],
        }
    )
