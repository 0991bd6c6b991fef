"""The demo corpus published as a website (``demo.site``) on a real loopback HTTP server, followed
with ``aimi sources add`` (a home page, feeds of each flavour, a sitemap, a podcast feed) and
fetched with ``aimi fetch``: the ``sources`` table the fetch ingests is the one an ingest of the
same items as files makes (the page files, the transcripts as WebVTT, each with its sidecar),
row for row; the extraction gives back the records' own titles and texts; the audio enclosures
and the disallowed draft are never requested, no two requests reach the site at once, and a
second fetch costs 304s only and writes nothing.

``test_fetch_and_build_give_the_signals_and_units_of_the_files`` (slow) then builds both data
dirs with the demo's pinned clock and compares the built ``signals`` and ``units`` tables: ids,
kinds, titles, texts, spans, units and their evidence, everything but the ingest times.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from analytics.records import parse_timestamp
from analytics.urls import canonical_url
from cli.app import app
from demo import DEMO_AS_OF, generate_demo_corpus
from demo.site import Request, Site, SiteServer, publish_site, select_records, write_inbox_files
from warehouse.paths import DataDir
from warehouse.tables import read_stored

# two or three records of each kind: small enough for a quick build, every path taken
RECORDS = 17
ENV = {"AIMI_FETCH_ALLOW_PRIVATE": "1", "AIMI_FETCH_DELAY_S": "0.005", "COLUMNS": "200"}
# what depends on when a row was ingested or from which file, not on what it says
VOLATILE = ("origin", "first_ingested_at", "ingested_at")


@dataclass(frozen=True)
class Fetched:
    site: Site
    server: SiteServer
    fetched: DataDir  # fetched from the site
    files: DataDir  # the same items ingested as files
    first: list[Request]  # the requests of the first fetch (discovery excluded)
    second: list[Request]  # and of the second
    first_output: str
    first_exit: int
    second_output: str
    second_exit: int
    inbox_after_first: dict[str, bytes]
    inbox_after_second: dict[str, bytes]


def _aimi(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env=ENV)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def _inbox(data: DataDir) -> dict[str, bytes]:
    folder = data.inbox / "fetched"
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


@pytest.fixture(scope="module")
def fetched(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fetched]:
    root = tmp_path_factory.mktemp("e2e")
    server = SiteServer(root / "site")
    site = publish_site(
        select_records(generate_demo_corpus(), RECORDS), root / "site", server.base_url
    )
    server.start()
    try:
        data = DataDir(root / "fetched")
        home = str(data.root)
        added = [
            ("add", site.home, "--name", "demo-news", "--kind", "news"),
            ("add", site.feeds["essay"], "--name", "demo-essays", "--kind", "essay"),
            ("add", site.feeds["memo"], "--name", "demo-memos", "--kind", "memo"),
            ("add", site.feeds["social"], "--name", "demo-posts", "--kind", "social"),
            # no --kind: an article feed's items are articles by default
            ("add", site.feeds["article"], "--name", "demo-articles"),
            ("add", site.sitemaps["paper"], "--name", "demo-papers", "--kind", "paper"),
            # no --kind: an audio feed is a podcast
            ("add", site.feeds["podcast"], "--name", "demo-podcasts"),
        ]
        for args in added:
            code, output = _aimi("sources", *args, "--data-dir", home)
            assert code == 0, output
        mark = len(server.log)
        first_exit, first_output = _aimi("fetch", "--data-dir", home)
        first = server.log.since(mark)
        after_first = _inbox(data)
        mark = len(server.log)
        # every source is due again only tomorrow: name them to fetch them now
        names = [args[3] for args in added]
        second_exit, second_output = _aimi("fetch", *names, "--data-dir", home)
        second = server.log.since(mark)

        files = DataDir(root / "files")
        folder = root / "dropped"
        write_inbox_files(site, folder)
        code, output = _aimi("ingest", str(folder), "--data-dir", str(files.root))
        assert code == 0, output
        yield Fetched(
            site,
            server,
            data,
            files,
            first,
            second,
            first_output,
            first_exit,
            second_output,
            second_exit,
            after_first,
            _inbox(data),
        )
    finally:
        server.close()


def _sources(data: DataDir) -> pl.DataFrame:
    return read_stored(data, "sources").drop(VOLATILE).sort("source_id")


def test_sources_add_found_each_feed_and_the_sitemap(fetched: Fetched) -> None:
    code, output = _aimi("sources", "list", "--data-dir", str(fetched.fetched.root))
    assert code == 0
    kinds = dict(re.findall(r"^(demo-\S+)\s+(\S+)", output, re.M))
    assert kinds == {
        "demo-news": "news",
        "demo-essays": "essay",
        "demo-memos": "memo",
        "demo-posts": "social",
        "demo-articles": "article",
        "demo-papers": "paper",
        "demo-podcasts": "podcast",
    }
    listed = (fetched.fetched.root / "sources.yaml").read_text(encoding="utf-8")
    # the home page's first <link rel="alternate"> is the news feed
    assert f"feed: {fetched.site.feeds['news']}" in listed
    assert f"- {fetched.site.sitemaps['paper']}" in listed


def test_fetch_ingests_what_the_files_ingest(fetched: Fetched) -> None:
    # the one failure is the draft the papers' sitemap lists and robots.txt disallows
    assert fetched.first_exit == 3, fetched.first_output
    assert fetched.site.draft is not None
    failures = [line for line in fetched.first_output.splitlines() if line.startswith("  http")]
    assert failures == [f"  {fetched.site.draft} disallowed by the site's robots.txt"]
    assert f"{len(fetched.site.items)} new" in fetched.first_output
    by_fetch, by_files = _sources(fetched.fetched), _sources(fetched.files)
    assert by_fetch.height == by_files.height == len(fetched.site.items) == RECORDS
    assert by_fetch.equals(by_files), _first_difference(by_fetch, by_files)


def test_the_signals_say_what_the_records_say(fetched: Fetched) -> None:
    rows = {row["canonical_url"]: row for row in _sources(fetched.fetched).iter_rows(named=True)}
    records = {canonical_url(str(item.record["url"])): item.record for item in fetched.site.items}
    assert set(rows) == set(records)
    for key, record in records.items():
        row = rows[key]
        assert (row["kind"], row["title"], row["url"]) == (
            record["kind"],
            record["title"],
            record["url"],
        )
        # the page's article:published_time, to the second, even where the canonical URL holds
        # a date (/2026/03/30/…)
        assert row["published_at"] == parse_timestamp(record["published_at"])
        if record["kind"] == "podcast":
            spoken = [
                line.split("): ", 1)[1]
                for s in record["segments"]
                for line in s["text"].split("\n")
            ]
            assert all(said in row["text"] for said in spoken)
        else:
            # the main text only: no navigation, cookie banner, byline, comments or footer
            assert row["text"] == record["text"], record["url"]
            assert row["author"] is not None


def test_short_posts_come_without_boilerplate(fetched: Fetched) -> None:
    rows = {row["canonical_url"]: row for row in _sources(fetched.fetched).iter_rows(named=True)}
    posts = [i.record for i in fetched.site.items if i.kind == "social"]
    assert posts
    assert [rows[canonical_url(str(p["url"]))]["text"] for p in posts] == [p["text"] for p in posts]


def test_the_fetch_is_polite(fetched: Fetched) -> None:
    asked = [r.path for r in fetched.server.log.requests]
    assert not [path for path in asked if path.startswith("/podcasts/audio/")]
    assert not [path for path in asked if path.startswith("/drafts/")]
    assert fetched.server.log.most_in_flight == 1  # one host, one request at a time
    agents = {r.headers.get("user-agent", "") for r in fetched.server.log.requests}
    assert all(agent.startswith("aimi-fetcher/") for agent in agents), agents
    # the first fetch read every feed, the sitemap, each page and transcript once
    pages = [r.path for r in fetched.first if r.path != "/robots.txt"]
    assert len(pages) == len(set(pages))
    expected = {item.path for item in fetched.site.items} | {
        fetched.site.feeds[k].removeprefix(fetched.site.base_url)
        for k in ("news", "essay", "memo", "social", "article", "podcast")
    }
    expected.add(fetched.site.sitemaps["paper"].removeprefix(fetched.site.base_url))
    assert set(pages) == expected


def test_a_second_fetch_costs_304s_and_writes_nothing(fetched: Fetched) -> None:
    assert fetched.second_exit == 0, fetched.second_output
    conditional = [r for r in fetched.second if r.path != "/robots.txt"]
    # each feed and the sitemap asked again, conditionally, and unchanged: no page is asked
    assert len(conditional) == 7
    assert all(r.status == 304 for r in conditional), [(r.path, r.status) for r in conditional]
    assert all("if-none-match" in r.headers for r in conditional)
    assert "0 new, 0 updated" in fetched.second_output
    assert fetched.inbox_after_second == fetched.inbox_after_first
    # the inbox holds one file per item, and a sidecar beside each
    items = [name for name in fetched.inbox_after_first if not name.endswith(".meta.json")]
    assert len(items) == RECORDS


def _first_difference(left: pl.DataFrame, right: pl.DataFrame) -> str:
    if left.columns != right.columns or left.height != right.height:
        return f"shapes differ: {left.columns} {left.height} / {right.columns} {right.height}"
    for column in left.columns:
        for index, (a, b) in enumerate(zip(left[column], right[column], strict=True)):
            if a != b:
                key = left.row(index, named=True).get("source_id") or index
                return (
                    f"{column} of {key}: {json.dumps(str(a))[:300]} != {json.dumps(str(b))[:300]}"
                )
    return "equal"


@pytest.mark.slow  # two builds of 17 signals (the podcasts segmented by MiniLM)
@pytest.mark.timeout(1500)
def test_fetch_and_build_give_the_signals_and_units_of_the_files(fetched: Fetched) -> None:
    from pipelines.build import build

    tables = {}
    for data in (fetched.fetched, fetched.files):
        build(data, as_of=DEMO_AS_OF, persistent=False)
        tables[data.root.name] = {
            "signals": read_stored(data, "signals").drop("first_ingested_at").sort("signal_id"),
            "units": read_stored(data, "units").sort("unit_id"),
        }
    by_fetch, by_files = tables["fetched"], tables["files"]
    assert by_fetch["signals"].height >= RECORDS
    assert by_fetch["units"].height > by_fetch["signals"].height
    for name in ("signals", "units"):
        assert by_fetch[name].equals(by_files[name]), _first_difference(
            by_fetch[name], by_files[name]
        )
    kinds = set(by_fetch["signals"]["kind"])
    assert kinds == {"news", "essay", "memo", "social", "article", "paper", "podcast"}


@pytest.mark.slow  # spawns an extraction process (it imports trafilatura)
def test_pages_read_in_extraction_processes_ingest_the_same_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a run of more than POOLED_AFTER items reads them in other processes while it fetches
    import fetch.run
    from fetch.run import FetchRun
    from fetch.sources import Source
    from warehouse.settings import Settings

    monkeypatch.setattr(fetch.run, "POOLED_AFTER", 4)
    server = SiteServer(tmp_path / "site")
    records = [r for r in select_records(generate_demo_corpus(), 16) if r["kind"] != "podcast"]
    site = publish_site(records, tmp_path / "site", server.base_url, draft=False)
    server.start()
    tables = {}
    pooled: list[int] = []
    submit = fetch.run._Extraction.submit

    def counted(self: fetch.run._Extraction, path: Path) -> None:
        submit(self, path)
        pooled.append(len(self.futures))

    monkeypatch.setattr(fetch.run._Extraction, "submit", counted)
    try:
        for workers in (0, 1):
            data = DataDir(tmp_path / f"data-{workers}")
            settings = Settings(data_dir=data.root, fetch_allow_private=True, fetch_delay_s=0)
            run = FetchRun(data, settings=settings, progress=False, extract_workers=workers)
            index = site.sitemap_index
            report = run.run([Source(name="site", url=index, sitemaps=(index,))])
            assert report.ingest is not None and report.ingest.inserted == len(records)
            tables[workers] = _sources(data)
    finally:
        server.close()
    assert max(pooled) == len(records) - 4  # the items after the first four were read ahead
    assert tables[1].equals(tables[0]), _first_difference(tables[1], tables[0])
