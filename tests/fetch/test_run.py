"""A fetch run against a real loopback site: each feed flavour, pages, transcripts, sitemaps,
conditional GET, updates, failures, and the politeness rules (each test fails when one is
broken)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from analytics.schema import SOURCES
from fetch.run import replay_archive
from fetch.sources import Source
from tests.fetch.conftest import article, atom, json_feed, rss, run
from tests.fetch.server import Answer, Seen, Site, conditional
from warehouse.paths import DataDir
from warehouse.settings import Settings
from warehouse.tables import read_table

WHEN = "Mon, 30 Nov 2026 10:00:00 GMT"


def _sources(data: DataDir) -> pl.DataFrame:
    return read_table(data, "sources", SOURCES).sort("url")


def _blog(site: Site, n: int = 3) -> Source:
    items = [(f"Story {i}", f"/posts/{i}.html", WHEN) for i in range(n)]
    site.page("/feed.xml", rss(site, items), "application/rss+xml")
    for title, path, _ in items:
        site.page(path, article(site, title, path))
    return Source(name="blog", url=site.url("/"), feed=site.url("/feed.xml"), kind="news")


def test_rss_entries_become_signals_from_their_pages(
    site: Site, data: DataDir, settings: Settings
) -> None:
    source = _blog(site)
    report = run(data, settings, source)
    assert report.failures == []
    assert [s.new for s in report.sources] == [3]
    table = _sources(data)
    assert table["title"].to_list() == ["Story 0", "Story 1", "Story 2"]
    assert set(table["kind"]) == {"news"}
    assert set(table["author"]) == {"Ann Writer"}
    text = table["text"][0]
    assert text.startswith("Nvidia said on Monday")
    assert "Copyright" not in text and "Subscribe" not in text and "About" not in text
    user_agents = {s.headers.get("user-agent") for s in site.requests()}
    assert user_agents == {settings.fetch_user_agent}


def test_atom_with_whole_text_needs_no_page(site: Site, data: DataDir, settings: Settings) -> None:
    items = [("Full entry", "/full.html", "2026-11-30T10:00:00Z")]
    site.page("/atom.xml", atom(site, items, full=True), "application/atom+xml")
    source = Source(name="atom", url=site.url("/"), feed=site.url("/atom.xml"), kind="essay")
    report = run(data, settings, source)
    assert report.failures == []
    assert "/full.html" not in site.paths()  # the entry carried the text
    table = _sources(data)
    assert table["kind"].to_list() == ["essay"]
    assert table["text"][0].startswith("Nvidia said on Monday")


def test_json_feed(site: Site, data: DataDir, settings: Settings) -> None:
    items = [("From JSON", "/j.html", "2026-11-29T08:00:00Z")]
    site.page("/feed.json", json_feed(site, items), "application/feed+json")
    site.page("/j.html", article(site, "From JSON", "/j.html"))
    source = Source(name="jf", url=site.url("/"), feed=site.url("/feed.json"))
    report = run(data, settings, source)
    assert report.failures == []
    assert _sources(data)["title"].to_list() == ["From JSON"]


def test_unchanged_source_costs_304s_and_writes_nothing(
    site: Site, data: DataDir, settings: Settings
) -> None:
    items = [("Story", "/p.html", WHEN)]
    feed = rss(site, items).encode()
    site.route("/feed.xml", conditional(feed, "application/rss+xml", '"f1"'))
    site.route(
        "/p.html", conditional(article(site, "Story", "/p.html").encode(), "text/html", '"p1"')
    )
    source = Source(name="blog", url=site.url("/"), feed=site.url("/feed.xml"))
    run(data, settings, source)
    before = site.paths().count("/p.html")
    second = run(data, settings, source)
    assert second.requests >= 1 and second.not_modified == 1
    assert site.requests("/feed.xml")[-1].status == 304
    assert site.paths().count("/p.html") == before  # the page is not fetched again
    assert second.ingest is None  # nothing written, nothing to ingest


def test_edited_page_is_fetched_again_and_its_signal_updated(
    site: Site, data: DataDir, settings: Settings
) -> None:
    source = _blog(site, 1)
    run(data, settings, source)
    # the feed says the entry was updated, the page's text changed
    site.page(
        "/feed.xml",
        rss(site, [("Story 0", "/posts/0.html", "Tue, 01 Dec 2026 10:00:00 GMT")]),
        "application/rss+xml",
    )
    edited = article(
        site, "Story 0", "/posts/0.html", extra="<p>Update: the shipments slipped a week.</p>"
    )
    site.page("/posts/0.html", edited)
    report = run(data, settings, source)
    assert [s.updated for s in report.sources] == [1]
    assert report.ingest is not None and report.ingest.updated == 1
    table = _sources(data)
    assert table.height == 1 and "slipped a week" in table["text"][0]


def test_page_fetched_again_is_asked_conditionally(
    site: Site, data: DataDir, settings: Settings
) -> None:
    site.route(
        "/p.html", conditional(article(site, "Story", "/p.html").encode(), "text/html", '"v1"')
    )
    site.page("/feed.xml", rss(site, [("Story", "/p.html", WHEN)]), "application/rss+xml")
    source = Source(name="blog", url=site.url("/"), feed=site.url("/feed.xml"))
    run(data, settings, source)
    site.page(
        "/feed.xml",
        rss(site, [("Story!", "/p.html", "Tue, 01 Dec 2026 10:00:00 GMT")]),
        "application/rss+xml",
    )
    report = run(data, settings, source)
    again = site.requests("/p.html")[-1]
    assert again.headers.get("if-none-match") == '"v1"'  # never an unconditional re-fetch
    assert again.status == 304
    assert [s.unchanged for s in report.sources] == [1]


def test_disallowed_path_is_never_fetched(site: Site, data: DataDir, settings: Settings) -> None:
    site.page("/robots.txt", "User-agent: *\nDisallow: /private/\n", "text/plain")
    items = [("Open", "/open.html", WHEN), ("Secret", "/private/s.html", WHEN)]
    site.page("/feed.xml", rss(site, items), "application/rss+xml")
    site.page("/open.html", article(site, "Open", "/open.html"))
    site.page("/private/s.html", article(site, "Secret", "/private/s.html"))
    report = run(data, settings, Source(name="b", url=site.url("/"), feed=site.url("/feed.xml")))
    assert "/private/s.html" not in site.paths()
    assert [(f.url, f.reason) for f in report.failures] == [
        (site.url("/private/s.html"), "disallowed by the site's robots.txt")
    ]
    # reported once: the next run skips it until the feed says it changed
    again = run(data, settings, Source(name="b", url=site.url("/"), feed=site.url("/feed.xml")))
    assert again.failures == []


def test_crawl_delay_and_one_request_at_a_time_per_host(
    site: Site, data: DataDir, settings: Settings
) -> None:
    site.page("/robots.txt", "User-agent: *\nCrawl-delay: 0.2\n", "text/plain")
    items = [(f"S{i}", f"/s{i}.html", WHEN) for i in range(4)]
    site.page("/feed.xml", rss(site, items), "application/rss+xml")
    for title, path, _ in items:
        site.page(path, article(site, title, path), delay_s=0.05)
    run(data, settings, Source(name="b", url=site.url("/"), feed=site.url("/feed.xml")))
    seen = sorted(site.requests(), key=lambda s: s.started)
    assert max(s.in_flight for s in seen) == 1  # never two requests at once to one host
    gaps = [b.started - a.ended for a, b in zip(seen, seen[1:], strict=False)]
    assert min(gaps) >= 0.2 - 0.01  # robots.txt's Crawl-delay, longer than AIMI_FETCH_DELAY_S


def test_503_with_retry_after_then_200(site: Site, data: DataDir, settings: Settings) -> None:
    calls: list[float] = []

    def flaky(seen: Seen) -> Answer:
        calls.append(seen.started)
        if len(calls) == 1:
            return Answer(503, b"busy", {"Retry-After": "1", "Content-Type": "text/plain"})
        return Answer(
            200, article(site, "Flaky", "/f.html").encode(), {"Content-Type": "text/html"}
        )

    site.route("/f.html", flaky)
    site.page("/feed.xml", rss(site, [("Flaky", "/f.html", WHEN)]), "application/rss+xml")
    report = run(data, settings, Source(name="b", url=site.url("/"), feed=site.url("/feed.xml")))
    assert report.failures == []
    assert len(calls) == 2 and calls[1] - calls[0] >= 0.95  # Retry-After was honoured
    assert _sources(data)["title"].to_list() == ["Flaky"]


def test_failures_are_reported_and_none_is_fatal(
    site: Site, data: DataDir, settings: Settings
) -> None:
    items = [
        ("Fine", "/ok.html", WHEN),
        ("Gone", "/gone.html", WHEN),
        ("Huge", "/huge.html", WHEN),
        ("Loop", "/loop", WHEN),
        ("Binary", "/bin.html", WHEN),
        ("Slow", "/slow.html", WHEN),
    ]
    site.page("/feed.xml", rss(site, items), "application/rss+xml")
    site.page("/ok.html", article(site, "Fine", "/ok.html"), gzip=True)
    site.page("/huge.html", b"<html>" + b"x" * 25_000_000, "text/html")
    site.route("/loop", Answer(302, b"", {"Location": "/loop"}))
    site.page("/bin.html", bytes(range(256)) * 10, "application/octet-stream")
    site.page("/slow.html", article(site, "Slow", "/slow.html"), delay_s=3.0)
    fast = settings.model_copy(update={"fetch_retries": 0})
    report = run(data, fast, Source(name="b", url=site.url("/"), feed=site.url("/feed.xml")))
    reasons = {f.url.removeprefix(site.base): f.reason for f in report.failures}
    assert set(reasons) == {"/gone.html", "/huge.html", "/loop", "/bin.html", "/slow.html"}
    assert reasons["/gone.html"] == "HTTP 404"
    assert "cap" in reasons["/huge.html"]
    assert "redirects" in reasons["/loop"]
    assert "application/octet-stream" in reasons["/bin.html"]
    assert "no answer within" in reasons["/slow.html"]
    # the gzip page made its signal, the rest of the run went on
    assert _sources(data)["title"].to_list() == ["Fine"]
    assert site.requests("/ok.html")[0].headers.get("accept-encoding", "").startswith("gzip")


def test_podcast_transcripts_are_read_and_audio_never(
    site: Site, data: DataDir, settings: Settings
) -> None:
    ns = ' xmlns:podcast="https://podcastindex.org/namespace/1.0"'
    vtt = (
        "WEBVTT\n\n00:00:01.000 --> 00:00:09.000\n<v Host>Welcome to the show about chips.\n\n"
        "00:00:10.000 --> 00:00:19.000\n<v Guest>Inference demand doubled this year.\n"
    )
    srt = (
        "1\n00:00:01,000 --> 00:00:09,000\nHOST: Today we talk about open weights.\n\n"
        "2\n00:00:10,000 --> 00:00:19,000\nGUEST: Meta released a new model this week.\n"
    )
    transcript_json = json.dumps(
        {
            "version": "1.0.0",
            "segments": [
                {
                    "speaker": "Host",
                    "startTime": 1.0,
                    "endTime": 9.0,
                    "body": "Welcome back to the show.",
                },
                {
                    "speaker": "Guest",
                    "startTime": 10.0,
                    "endTime": 18.5,
                    "body": "Chips are the story of the year.",
                },
            ],
        }
    )
    site.page("/e1.vtt", vtt, "text/vtt")
    site.page("/e2.srt", srt, "application/x-subrip")
    site.page("/e3.json", transcript_json, "application/json")
    site.page("/audio.mp3", b"ID3" + b"\0" * 1000, "audio/mpeg")

    def episode(n: int, path: str, kind: str) -> str:
        return (
            f"<item><title>Episode {n}</title><link>{site.url(f'/ep{n}')}</link><guid>ep{n}</guid>"
            f"<pubDate>{WHEN}</pubDate><description>Show notes</description>"
            f"<enclosure url='{site.url('/audio.mp3')}' type='audio/mpeg' length='1000'/>"
            f"<podcast:transcript url='{site.url(path)}' type='{kind}'/></item>"
        )

    items = (
        episode(1, "/e1.vtt", "text/vtt")
        + episode(2, "/e2.srt", "application/x-subrip")
        + episode(3, "/e3.json", "application/json")
    )
    feed = (
        f'<?xml version="1.0"?><rss version="2.0"{ns}><channel><title>Pod</title>{items}'
        "</channel></rss>"
    )
    site.page("/pod.xml", feed, "application/rss+xml")
    report = run(
        data,
        settings,
        Source(name="pod", url=site.url("/"), feed=site.url("/pod.xml"), kind="podcast"),
    )
    assert report.failures == []
    assert "/audio.mp3" not in site.paths()  # the enclosure is never downloaded
    table = _sources(data)
    assert table["kind"].to_list() == ["podcast"] * 3
    texts = dict(zip(table["title"].to_list(), table["text"].to_list(), strict=True))
    assert "Inference demand doubled" in texts["Episode 1"]
    assert "Meta released a new model" in texts["Episode 2"]
    assert "Chips are the story of the year" in texts["Episode 3"]


def test_sitemap_index_backfill(site: Site, data: DataDir, settings: Settings) -> None:
    index = (
        '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<sitemap><loc>{site.url('/sm1.xml')}</loc></sitemap>"
        f"<sitemap><loc>{site.url('/sm2.xml')}</loc></sitemap></sitemapindex>"
    )

    def urlset(paths: list[str]) -> str:
        urls = "".join(
            f"<url><loc>{site.url(p)}</loc><lastmod>2026-11-01</lastmod></url>" for p in paths
        )
        return f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'

    site.page("/sitemap.xml", index, "application/xml")
    site.page("/sm1.xml", urlset(["/old/a.html", "/old/b.html"]), "application/xml")
    site.page("/sm2.xml", urlset(["/old/c.html"]), "application/xml")
    for path in ("/old/a.html", "/old/b.html", "/old/c.html"):
        site.page(path, article(site, path.upper(), path, when="2026-10-01T00:00:00Z"))
    source = Source(name="sm", url=site.url("/"), sitemaps=(site.url("/sitemap.xml"),))
    report = run(data, settings, source)
    assert report.failures == []
    assert _sources(data).height == 3
    # lastmod unchanged: no page is requested again; moved: only that page
    run(data, settings, source)
    assert [site.paths().count(p) for p in ("/old/a.html", "/old/c.html")] == [1, 1]
    site.page(
        "/sm2.xml", urlset(["/old/c.html"]).replace("2026-11-01", "2026-12-01"), "application/xml"
    )
    again = run(data, settings, source)
    assert [site.paths().count(p) for p in ("/old/a.html", "/old/c.html")] == [1, 2]
    assert [s.unchanged for s in again.sources] == [3]  # the same bytes: nothing rewritten


def test_private_addresses_are_refused_by_default(
    site: Site, data: DataDir, settings: Settings
) -> None:
    site.page("/feed.xml", rss(site, []), "application/rss+xml")
    strict = settings.model_copy(update={"fetch_allow_private": False})
    report = run(data, strict, Source(name="b", url=site.url("/"), feed=site.url("/feed.xml")))
    assert site.paths() == []
    assert report.failures and "private or local address" in report.failures[0].reason


def test_replay_from_the_archive_makes_the_same_sources(
    site: Site, data: DataDir, settings: Settings, tmp_path: Path
) -> None:
    run(data, settings, _blog(site, 2))
    site.close()  # no network from here on
    other = DataDir(tmp_path / "other")
    files, missing = replay_archive(other, data.root / "fetch" / "archive")
    assert missing == 0 and len(files) == 2
    from warehouse.ingest import ingest_paths

    ingest_paths(other, files, progress=False)
    drop = ["origin", "first_ingested_at", "ingested_at"]
    assert _sources(other).drop(drop).equals(_sources(data).drop(drop))


def test_hostile_input_fails_its_item_never_the_run(
    site: Site, data: DataDir, settings: Settings
) -> None:
    items = [("Fine", "/ok.html", WHEN), ("Broken gzip", "/bad-gzip.html", WHEN)]
    feed = rss(site, items).replace(
        "</channel>",
        "<item><title>Bad link</title><link>http://[::1</link>"
        f"<pubDate>{WHEN}</pubDate><description>x</description></item></channel>",
    )
    site.page("/feed.xml", feed, "application/rss+xml")
    site.page("/ok.html", article(site, "Fine", "/ok.html"))
    site.route(
        "/bad-gzip.html",
        Answer(
            200,
            b"\x1f\x8bnot gzip at all",
            {"Content-Type": "text/html", "Content-Encoding": "gzip"},
        ),
    )
    report = run(data, settings, Source(name="b", url=site.url("/"), feed=site.url("/feed.xml")))
    assert _sources(data)["title"].to_list() == ["Fine"]
    assert [f.url for f in report.failures] == [site.url("/bad-gzip.html")]
    assert "cannot be decoded" in report.failures[0].reason


def test_a_trickling_body_is_cut_off(site: Site, data: DataDir, settings: Settings) -> None:
    import socket
    import threading

    # a raw server that sends its headers, then a byte every 0.3 s: each read is within the
    # timeout, the whole body is not
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]

    def serve() -> None:
        conn, _ = listener.accept()
        conn.recv(4096)
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n"
        )
        try:
            for _ in range(60):
                conn.sendall(b"x")
                threading.Event().wait(0.3)
        except OSError:
            pass
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    trickle = f"http://127.0.0.1:{port}/slow.html"
    site.page(
        "/feed.xml",
        rss(site, []).replace(
            "</channel>",
            f"<item><title>Slow</title><link>{trickle}</link><pubDate>{WHEN}</pubDate>"
            "<description>x</description></item></channel>",
        ),
        "application/rss+xml",
    )
    quick = settings.model_copy(update={"fetch_timeout_s": 1.0, "fetch_retries": 0})
    report = run(data, quick, Source(name="b", url=site.url("/"), feed=site.url("/feed.xml")))
    assert len(report.failures) == 1 and "the body took over 3 s" in report.failures[0].reason
    assert report.failures[0].transient  # tried again next run
    listener.close()


def test_an_unchanged_sitemap_index_still_reads_its_children(
    site: Site, data: DataDir, settings: Settings
) -> None:
    index = (
        '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<sitemap><loc>{site.url('/sm1.xml')}</loc></sitemap></sitemapindex>"
    ).encode()
    site.route("/sitemap.xml", conditional(index, "application/xml", '"i1"'))

    def urlset(paths: list[str]) -> str:
        urls = "".join(
            f"<url><loc>{site.url(p)}</loc><lastmod>2026-11-01</lastmod></url>" for p in paths
        )
        return f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'

    site.page("/sm1.xml", urlset(["/a.html"]), "application/xml")
    for path in ("/a.html", "/b.html"):
        site.page(path, article(site, path, path))
    source = Source(name="sm", url=site.url("/"), sitemaps=(site.url("/sitemap.xml"),))
    run(data, settings, source)
    site.page("/sm1.xml", urlset(["/a.html", "/b.html"]), "application/xml")
    run(data, settings, source)
    assert site.requests("/sitemap.xml")[-1].status == 304
    assert "/b.html" in site.paths()  # the new page of an unchanged index's child
    assert _sources(data).height == 2


def test_a_gzipped_sitemap_that_unpacks_too_far_is_refused(
    site: Site, data: DataDir, settings: Settings
) -> None:
    import gzip

    from fetch import documents

    bomb = gzip.compress(
        b'<?xml version="1.0"?><urlset>' + b" " * (documents.MAX_UNPACKED_BYTES + 10)
    )
    site.page("/sitemap.xml.gz", bomb, "application/x-gzip")
    source = Source(name="sm", url=site.url("/"), sitemaps=(site.url("/sitemap.xml.gz"),))
    report = run(data, settings, source)
    assert len(report.failures) == 1 and "unpacks to over" in report.failures[0].reason


def test_an_episode_without_transcript_is_skipped_and_its_audio_never_read(
    site: Site, data: DataDir, settings: Settings
) -> None:
    feed = (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>Pod</title>'
        f"<item><title>Ep</title><link>{site.url('/ep.mp3')}</link><pubDate>{WHEN}</pubDate>"
        f"<enclosure url='{site.url('/ep.mp3')}' length='10'/></item></channel></rss>"
    )
    site.page("/pod.xml", feed, "application/rss+xml")
    site.page("/ep.mp3", b"ID3" + b"\0" * 100, "audio/mpeg")
    report = run(data, settings, Source(name="p", url=site.url("/"), feed=site.url("/pod.xml")))
    assert "/ep.mp3" not in site.paths()
    assert len(report.failures) == 1 and "audio is never downloaded" in report.failures[0].reason


def test_an_unreadable_robots_txt_means_not_now(
    site: Site, data: DataDir, settings: Settings
) -> None:
    site.page("/robots.txt", "busy", "text/plain", status=503)
    site.page("/feed.xml", rss(site, [("S", "/s.html", WHEN)]), "application/rss+xml")
    site.page("/s.html", article(site, "S", "/s.html"))
    quick = settings.model_copy(update={"fetch_retries": 0})
    source = Source(name="b", url=site.url("/"), feed=site.url("/feed.xml"))
    report = run(data, quick, source)
    assert not [p for p in site.paths() if p != "/robots.txt"]  # nothing crawled
    assert report.failures and "not crawled" in report.failures[0].reason
    site.page("/robots.txt", "User-agent: *\nAllow: /\n", "text/plain")
    again = run(data, quick, source)  # the next run tries again
    assert again.failures == [] and _sources(data).height == 1
