"""The demo corpus as a website (``demo.site``): a selection holds every kind, the site is the
same bytes every time, its feeds, sitemaps and transcripts are what the fetcher's parsers read,
and the inbox files are the served pages (podcasts: their transcript as WebVTT)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from demo import generate_demo_corpus
from demo.generator import DemoCorpus
from demo.site import (
    KINDS,
    MANIFEST,
    publish_site,
    select_records,
    transcript_json,
    transcript_vtt,
    write_inbox_files,
)
from fetch.documents import json_transcript_to_vtt, parse_feed, parse_sitemap
from warehouse.adapters.transcripts import merge_cues, parse_vtt

BASE = "http://site.test:8080"


@pytest.fixture(scope="module")
def corpus() -> DemoCorpus:
    return generate_demo_corpus()


def test_a_small_selection_holds_every_kind(corpus: DemoCorpus) -> None:
    chosen = select_records(corpus, 9)
    assert len(chosen) == 9
    assert {r["kind"] for r in chosen} == set(KINDS)
    assert chosen == sorted(chosen, key=lambda r: (r["published_at"], r["url"]))
    # the Markdown documents are records too
    assert len(select_records(corpus)) == len(corpus.records) + len(corpus.markdown_documents)


def test_the_site_is_deterministic(tmp_path: Path, corpus: DemoCorpus) -> None:
    records = select_records(corpus, 20)
    publish_site(records, tmp_path / "a", BASE)
    publish_site(records, tmp_path / "b", BASE)
    files_a = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*"))
    assert files_a == sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*"))
    for name in files_a:
        if (tmp_path / "a" / name).is_file():
            assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_feeds_sitemaps_and_transcripts_read_back(tmp_path: Path, corpus: DemoCorpus) -> None:
    site = publish_site(select_records(corpus, 21), tmp_path, BASE)
    manifest = json.loads((tmp_path / MANIFEST).read_text(encoding="utf-8"))
    assert set(manifest) == set(site.files)
    for kind, url in site.feeds.items():
        body = (tmp_path / url.removeprefix(BASE + "/")).read_bytes()
        feed = parse_feed(body, url)
        items = site.by_kind(kind)
        assert sorted(e.url for e in feed.entries) == sorted(
            (str(i.record["url"]) if kind == "podcast" else BASE + i.path) for i in items
        )
        # teasers: every page is fetched, no entry is taken as the whole text
        assert all(e.record is None for e in feed.entries)
        assert feed.podcast == (kind == "podcast")
        if kind == "podcast":
            assert all(e.audio and e.transcripts for e in feed.entries)
    index = parse_sitemap((tmp_path / "sitemap.xml").read_bytes(), site.sitemap_index)
    assert sorted(index.sitemaps) == sorted(site.sitemaps.values())
    papers = parse_sitemap(
        (tmp_path / site.sitemaps["paper"].removeprefix(BASE + "/")).read_bytes(),
        site.sitemaps["paper"],
    )
    assert site.draft in [p.url for p in papers.pages]
    assert all(p.marker for p in papers.pages if p.url != site.draft)  # lastmod
    robots = (tmp_path / "robots.txt").read_text(encoding="utf-8")
    assert "Disallow: /drafts/" in robots and f"Sitemap: {site.sitemap_index}" in robots


def test_a_json_transcript_says_what_the_vtt_says(corpus: DemoCorpus) -> None:
    episode = next(r for r in corpus.records if r["kind"] == "podcast")
    from_json = merge_cues(parse_vtt(json_transcript_to_vtt(transcript_json(episode).encode())))
    assert from_json == merge_cues(parse_vtt(transcript_vtt(episode)))
    spoken = sum(len(s["text"].splitlines()) for s in episode["segments"])
    assert len(parse_vtt(transcript_vtt(episode))) == spoken


def test_inbox_files_are_what_the_site_serves(tmp_path: Path, corpus: DemoCorpus) -> None:
    site = publish_site(select_records(corpus, 8), tmp_path / "site", BASE)
    written = write_inbox_files(site, tmp_path / "inbox")
    assert len(written) == 8
    for path, item in zip(written, site.items, strict=True):
        sidecar = json.loads(path.with_name(path.name + ".meta.json").read_text(encoding="utf-8"))
        assert sidecar["kind"] == item.kind
        if item.kind == "podcast":
            assert path.read_text(encoding="utf-8") == transcript_vtt(item.record)
            assert sidecar["url"] == item.record["url"]
        else:
            assert path.read_bytes() == (site.root / item.path.lstrip("/")).read_bytes()
