"""``aimi sources add|list|remove`` and ``aimi fetch`` against a real loopback site: discovery
from a home page, a sitemap and a feed; the refusals (exit 2) and failed items (exit 3)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app
from fetch.sources import load_sources
from tests.fetch.conftest import article, rss
from tests.fetch.server import Site, site_fixture
from warehouse.paths import DataDir

WHEN = "Mon, 30 Nov 2026 10:00:00 GMT"


@pytest.fixture
def site() -> Iterator[Site]:
    yield from site_fixture()


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DataDir:
    monkeypatch.setenv("AIMI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AIMI_FETCH_ALLOW_PRIVATE", "1")
    monkeypatch.setenv("AIMI_FETCH_DELAY_S", "0.02")
    monkeypatch.setenv("AIMI_FETCH_RETRIES", "0")
    return DataDir(tmp_path / "data")


def aimi(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def _home(site: Site) -> None:
    site.page(
        "/",
        '<html><head><link rel="alternate" type="application/rss+xml" href="/feed.xml">'
        "</head><body>Home</body></html>",
    )
    items = [("First", "/a.html", WHEN), ("Second", "/missing.html", WHEN)]
    site.page("/feed.xml", rss(site, items), "application/rss+xml")
    site.page("/a.html", article(site, "First", "/a.html"))


def test_add_from_a_home_page_fetch_list_remove(site: Site, env: DataDir) -> None:
    _home(site)
    code, out = aimi("sources", "add", site.url("/"), "--name", "blog", "--kind", "news")
    assert code == 0, out
    assert f"feed {site.url('/feed.xml')}" in out
    (source,) = load_sources(env).sources
    assert (source.feed, source.kind) == (site.url("/feed.xml"), "news")

    code, out = aimi("fetch")
    assert code == 3, out  # one item failed: printed with its URL and reason
    assert f"{site.url('/missing.html')} HTTP 404" in out
    assert "1 new" in out

    code, out = aimi("sources", "list")
    assert code == 0 and "blog" in out and "news" in out
    code, out = aimi("fetch")
    assert code == 0 and "nothing is due" in out
    code, out = aimi("fetch", "blog")  # named: fetched now, due or not
    assert code == 0, out

    code, out = aimi("sources", "remove", "blog")
    assert code == 0 and "its signals stay" in out
    assert load_sources(env).sources == []
    assert (env.warehouse / "sources.parquet").is_file()


@pytest.mark.usefixtures("env")
def test_refusals_exit_2(site: Site) -> None:
    _home(site)
    site.page("/plain", "<html><body>No feed here</body></html>")
    code, out = aimi("sources", "add", site.url("/plain"))
    assert code == 2 and "no feed found" in out
    code, out = aimi("sources", "add", site.url("/nowhere"))
    assert code == 2 and "HTTP 404" in out
    code, out = aimi("sources", "add", "http://127.0.0.1:9/feed.xml")
    assert code == 2 and "cannot be fetched" in out
    assert aimi("sources", "add", site.url("/"), "--name", "blog")[0] == 0
    code, out = aimi("sources", "add", site.url("/feed.xml"), "--name", "blog")
    assert code == 2 and "exists already" in out
    code, out = aimi("sources", "add", site.url("/"), "--kind", "blog")
    assert code == 2 and "--kind 'blog'" in out
    code, out = aimi("fetch", "nope")
    assert code == 2 and "no source named nope" in out


def test_add_a_sitemap_and_backfill_from_robots(site: Site, env: DataDir) -> None:
    _home(site)
    urlset = (
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{site.url('/a.html')}</loc><lastmod>2026-11-30</lastmod></url></urlset>"
    )
    site.page("/pages.xml", urlset, "application/xml")
    site.page("/robots.txt", f"User-agent: *\nSitemap: {site.url('/pages.xml')}\n", "text/plain")
    code, out = aimi("sources", "add", site.url("/pages.xml"), "--name", "sm")
    assert code == 0, out
    code, out = aimi("sources", "add", site.url("/"), "--name", "full", "--backfill")
    assert code == 0, out
    sources = {s.name: s for s in load_sources(env).sources}
    assert sources["sm"].feed is None and sources["sm"].sitemaps == (site.url("/pages.xml"),)
    assert sources["full"].sitemaps == (site.url("/pages.xml"),) and sources["full"].backfill


def test_ingest_replays_the_archive(
    site: Site, env: DataDir, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _home(site)
    assert aimi("sources", "add", site.url("/"), "--name", "blog")[0] == 0
    aimi("fetch")
    site.close()
    monkeypatch.setenv("AIMI_DATA_DIR", str(tmp_path / "replayed"))
    code, out = aimi("ingest", "--warc", str(env.root / "fetch" / "archive"))
    assert code == 0, out
    assert "1 archived item(s) written" in out and "1 new" in out
    code, out = aimi("ingest")
    assert code == 2 and "give files or folders" in out
