"""The source list: validation on load (each error names its entry and field), atomic edits
under a lock, and the fetch interval."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from fetch.sources import (
    Source,
    SourceListError,
    add_source,
    load_sources,
    parse_every,
    parse_source_list,
    remove_source,
    sources_path,
)
from warehouse.paths import DataDir


def _source(name: str = "blog") -> Source:
    return Source(name=name, url="https://example.com/", feed="https://example.com/feed.xml")


def test_add_list_remove_round_trip(data: DataDir) -> None:
    add_source(data, _source("blog"))
    add_source(data, _source("other"))
    loaded = load_sources(data)
    assert loaded.names() == ["blog", "other"]
    assert loaded.sources[0].added is not None
    assert sources_path(data).read_text().startswith("# The sources aimi follows")
    remove_source(data, "blog")
    assert load_sources(data).names() == ["other"]


def test_duplicate_and_unknown_names_are_refused(data: DataDir) -> None:
    add_source(data, _source())
    with pytest.raises(SourceListError, match="exists already"):
        add_source(data, _source())
    with pytest.raises(SourceListError, match="no source named 'nope'"):
        remove_source(data, "nope")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("sources: [{url: 'https://a.b/', feed: 'https://a.b/f'}]", "name is required"),
        (
            "sources: [{name: Bad Name, url: 'https://a.b/', feed: 'https://a.b/f'}]",
            "not a source name",
        ),
        (
            "sources: [{name: a, url: 'ftp://a.b/', feed: 'https://a.b/f'}]",
            "url: 'ftp://a.b/' is not an http",
        ),
        (
            "sources: [{name: a, url: 'https://a.b/', feed: 'https://a.b/f', kind: blog}]",
            "kind 'blog'",
        ),
        (
            "sources: [{name: a, url: 'https://a.b/', feed: 'https://a.b/f', every: 2x}]",
            "fetch interval",
        ),
        ("sources: [{name: a, url: 'https://a.b/'}]", "give a feed, sitemaps, or both"),
        (
            "sources: [{name: a, url: 'https://a.b/', feed: 'https://a.b/f', colour: red}]",
            "unknown field",
        ),
        (
            "sources: [{name: a, url: 'https://a.b/', feed: 'https://a.b/f'},"
            " {name: a, url: 'https://a.b/', feed: 'https://a.b/g'}]",
            "used twice",
        ),
        ("sources: [oops", "not valid YAML"),
    ],
)
def test_invalid_lists_name_the_entry_and_field(text: str, message: str) -> None:
    with pytest.raises(SourceListError, match=message):
        parse_source_list(text)


def test_a_hand_edited_file_is_read(data: DataDir) -> None:
    data.root.mkdir(parents=True)
    sources_path(data).write_text(
        "sources:\n  - name: pod\n    url: https://pod.example/\n    feed: https://pod.example/rss\n"
        "    kind: podcast\n    every: 6h\n"
    )
    (source,) = load_sources(data).sources
    assert (source.kind, source.interval, source.backfill) == ("podcast", timedelta(hours=6), False)


def test_intervals() -> None:
    assert parse_every("30m") == timedelta(minutes=30)
    assert parse_every("1w") == timedelta(weeks=1)
    for bad in ("0d", "1y", "", "d"):
        with pytest.raises(SourceListError):
            parse_every(bad)


def test_concurrent_adds_lose_nothing(data: DataDir) -> None:
    threads = [threading.Thread(target=add_source, args=(data, _source(f"s{i}"))) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(load_sources(data).names()) == [f"s{i}" for i in range(8)]
