"""The demo snapshot's market-pulse site in a real browser, as a person would use it: the system
Chromium (``scripts/ensure-chromium``) driven by Playwright, over the site served from the
snapshot folder on loopback under ``/site/`` (where ``aimi serve --site`` puts it).

Each page kind renders with no console error, no failed or external request and no serious or
critical axe-core violation; a crawl from the overview reaches every entity and theme page with
no broken link; a story opens from the overview's top stories and from one of its signals' pages,
every link on it resolving; a Pagefind search for a planted demo entity finds its page, also
opened from a shared link (`search.html?q=…`).
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urljoin, urlsplit
from urllib.request import urlopen

import orjson
import pytest

from publishing.static.paths import decode_segment, encode_segment
from tests.serving.browser import needs_chromium, watched_page
from warehouse.snapshot import OpenedSnapshot

pytestmark = needs_chromium
PLANTED = "Cerebras"  # a planted demo entity (demo/planted.py), rising through the window


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """No request log in the test output."""


@pytest.fixture(scope="module")
def base(demo_snapshot: OpenedSnapshot) -> Iterator[str]:
    """The site's URL: the snapshot folder served on loopback, the site at ``/site/``."""
    handler = functools.partial(_Quiet, directory=str(demo_snapshot.path))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/site/"
    server.shutdown()
    server.server_close()
    thread.join()


def planted_page(snapshot: OpenedSnapshot) -> str:
    """The entity page of the planted entity, found by its heading."""
    for page in sorted((snapshot.path / "site" / "entities").glob("*.html")):
        if f'data-pagefind-weight="10">{PLANTED}</h1>' in page.read_text():
            return f"entities/{page.name}"
    raise AssertionError(f"no entity page for {PLANTED}")


def top_story_page(snapshot: OpenedSnapshot) -> str:
    """The page of the overview's first top story (its first link to a story)."""
    overview = (snapshot.path / "site" / "index.html").read_text()
    found = re.search(r'href="(stories/[^"]+\.html)"', overview)
    assert found, "the overview lists no top story"
    return found.group(1)


def page_kinds(snapshot: OpenedSnapshot) -> dict[str, str]:
    signal = sorted((snapshot.path / "site" / "signals").glob("*.html"))[0].name
    return {
        "overview": "index.html",
        "entity": planted_page(snapshot),
        "entities": "entities/index.html",
        "theme": f"themes/market_force/{encode_segment('Capital & Investment')}.html",
        "signal": f"signals/{signal}",
        "story": top_story_page(snapshot),
        "method": "method.html",
        "search": "search.html",
    }


def test_each_page_kind_renders_cleanly_and_accessibly(
    browser: object, base: str, demo_snapshot: OpenedSnapshot
) -> None:
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    problems: list[str] = []
    page = watched_page(browser, (base,), problems)
    page.on("response", lambda r: r.status >= 400 and problems.append(f"{r.status}: {r.url}"))
    for kind, path in page_kinds(demo_snapshot).items():
        page.goto(base + path, wait_until="load")
        assert page.locator("h1").count() == 1, kind
        violations = axe.run(page).response["violations"]
        problems += [
            f"{kind}: axe {v['id']} ({v['impact']}): {v['help']}"
            for v in violations
            if v["impact"] in ("serious", "critical")
        ]
    page.close()
    assert problems == [], problems


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        wanted = {"a": "href", "link": "href", "script": "src"}.get(tag)
        for name, value in attrs:
            if name == wanted and value:
                self.found.append(value)


def test_a_crawl_from_the_overview_reaches_every_entity_and_theme_page(
    base: str, demo_snapshot: OpenedSnapshot
) -> None:
    seen: set[str] = set()
    queue = [base + "index.html"]
    broken: list[str] = []
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
        try:
            with urlopen(url) as response:  # noqa: S310 (loopback)
                body = response.read()
        except OSError as exc:
            broken.append(f"{url}: {exc}")
            continue
        if not url.endswith(".html"):
            continue
        parser = _Links()
        parser.feed(body.decode())
        for link in parser.found:
            target = urljoin(url, link).split("#")[0]
            if urlsplit(target).netloc == urlsplit(base).netloc and target not in seen:
                queue.append(target)
    assert broken == []
    site = demo_snapshot.path / "site"
    reached = {url.removeprefix(base) for url in seen}
    pages = {p.relative_to(site).as_posix() for p in site.glob("entities/*.html")}
    pages |= {p.relative_to(site).as_posix() for p in site.glob("themes/*/*.html")}
    assert pages - reached == set()
    assert len(pages) > 100


def test_a_story_opens_from_the_top_stories_and_from_its_signals_pages(
    browser: object, base: str, demo_snapshot: OpenedSnapshot
) -> None:
    problems: list[str] = []
    page = watched_page(browser, (base,), problems)
    page.on("response", lambda r: r.status >= 400 and problems.append(f"{r.status}: {r.url}"))
    page.goto(base + "index.html")
    top = page.locator("#top-stories ~ table a").first
    title = top.inner_text()
    top.click()
    page.wait_for_load_state("load")
    story_url = page.url
    assert story_url == base + top_story_page(demo_snapshot)
    assert page.locator("h1").inner_text() == title
    # every link of the story page resolves: its signals, entities, themes, JSON and feed
    hrefs = page.eval_on_selector_all(
        "a[href], link[href]", "els => els.map(e => e.href)"
    )  # absolute, as the browser resolved them
    local = sorted({href.split("#")[0] for href in hrefs if href.startswith(base)})
    assert any("/signals/" in href for href in local) and any(".atom" in href for href in local)
    for href in local:
        with urlopen(href) as response:  # noqa: S310 (loopback)
            assert response.status == 200, href
    # from one of its signals' pages back to the story: a whole member's (a roundup among its
    # signals may name another story it is in, the one holding most of its units)
    story_id = decode_segment(story_url.rsplit("/", 1)[1].removesuffix(".html"))
    (raw,) = demo_snapshot.read_table("stories").filter(story_id=story_id)["detail_json"].to_list()
    detail = orjson.loads(raw)
    roundups = {part["signal_id"] for part in detail.get("parts") or []}
    whole = [s["signal_id"] for s in detail["signals"] if s["signal_id"] not in roundups]
    assert whole, "the top story holds only roundups' parts"
    href = f"../signals/{encode_segment(whole[0])}.html"
    page.locator(f'article.signal h3 a[href="{href}"]').first.click()
    page.wait_for_load_state("load")
    assert "/signals/" in page.url
    page.locator("p.story a").click()
    page.wait_for_load_state("load")
    assert page.url == story_url
    assert page.locator("h1").inner_text() == title
    page.close()
    assert problems == [], problems


def test_pagefind_search_finds_a_planted_entity(
    browser: object, base: str, demo_snapshot: OpenedSnapshot
) -> None:
    page = browser.new_page()  # type: ignore[attr-defined]
    page.goto(base + "search.html")
    page.get_by_label("Search this snapshot").fill(PLANTED)
    results = page.locator(".pagefind-ui__result-link")
    results.first.wait_for()
    hrefs = [results.nth(i).get_attribute("href") for i in range(results.count())]
    filters = page.evaluate(
        """async () => {
            const pagefind = await import("./pagefind/pagefind.js");
            return await pagefind.filters();
        }"""
    )
    page.close()
    assert set(filters) == {"page", "entity type", "theme", "content type"}
    assert set(filters["page"]) == {"Entity", "Theme", "Signal", "Method"}
    assert set(filters["content type"]) == {"analysis", "event"}
    assert "organization" in filters["entity type"] and len(filters["theme"]) == 12
    assert (
        base.removeprefix("http://" + urlsplit(base).netloc) + planted_page(demo_snapshot) in hrefs
    ), hrefs


def test_a_shared_search_link_opens_with_its_results(
    browser: object, base: str, demo_snapshot: OpenedSnapshot
) -> None:
    page = browser.new_page()  # type: ignore[attr-defined]
    page.goto(base + "search.html?q=" + PLANTED)
    results = page.locator(".pagefind-ui__result-link")
    results.first.wait_for()
    hrefs = [results.nth(i).get_attribute("href") for i in range(results.count())]
    typed = page.get_by_label("Search this snapshot").input_value()
    # typing another query puts it in the address, ready to be shared
    page.get_by_label("Search this snapshot").fill("Groq")
    page.wait_for_function("() => new URL(location.href).searchParams.get('q') === 'Groq'")
    page.close()
    assert typed == PLANTED
    assert (
        base.removeprefix("http://" + urlsplit(base).netloc) + planted_page(demo_snapshot) in hrefs
    ), hrefs
