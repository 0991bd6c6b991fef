"""Atom feeds follow the change feed (issue 46): a signal updated after it was published comes
back to the top of every feed it is in, its ``updated`` moved, as its webhook sends it; and every
feed id is an IRI."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from analytics.profiles import entity_keys
from analytics.schema import SIGNAL_ENTITIES
from analytics.significance import with_raw_p_values
from analytics.trends import Clock, trend_metrics
from publishing.static.feeds import feed_id_part
from publishing.static.reuse import SiteWriter
from publishing.static.site import SiteData, write_feeds
from readmodel.store import LoadedSnapshot
from tests.serving.conftest import AS_OF, RECORDS, Corpus, build_tables, publish
from warehouse.paths import DataDir
from warehouse.snapshot import open_current

# what RFC 3987 leaves out of an IRI: spaces, controls, and <>"{}|\^`
_NOT_IRI = re.compile(r"[\s<>\"{}|\\^`]")


def _with_trends(tables: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """The corpus's tables with the (empty) trend tables a site is built with."""
    trends = with_raw_p_values(
        trend_metrics(
            entity_keys(SIGNAL_ENTITIES.to_frame()), tables["signals"], Clock(AS_OF), kind="entity"
        )
    )
    return {**tables, "entity_trends": trends, "theme_trends": trends}


@pytest.fixture
def site_root(tmp_path: Path, corpus: Corpus) -> Path:
    root = tmp_path / "data"
    publish(root, _with_trends(corpus.tables))
    return root


def _feeds(root: Path, out: Path) -> dict[str, Any]:
    import feedparser

    opened = open_current(DataDir(root), verify=False)
    assert opened is not None
    write_feeds(SiteData(LoadedSnapshot.from_opened(opened), opened), SiteWriter(out, None))
    return {
        path.relative_to(out).as_posix(): feedparser.parse(path.read_bytes())
        for path in out.rglob("*.atom")
    }


def _entry_ids(feed: Any) -> list[str]:
    return [entry.id.removeprefix("urn:aimi:signal:") for entry in feed.entries]


def test_an_updated_signal_comes_back_to_the_top_of_its_feeds(
    site_root: Path, corpus: Corpus, tmp_path: Path
) -> None:
    signals = corpus.tables["signals"]
    oldest = signals.sort("published_at").row(0, named=True)
    assert oldest["title"] == RECORDS[0]["title"]  # the oldest record is the first
    before = _feeds(site_root, tmp_path / "before")
    assert _entry_ids(before["feeds/all.atom"])[0] != oldest["signal_id"]
    records = [
        {**record, "title": record["title"] + " (updated)"} if record is RECORDS[0] else record
        for record in RECORDS
    ]
    publish(site_root, _with_trends(build_tables(records)))
    after = _feeds(site_root, tmp_path / "after")
    everything = after["feeds/all.atom"]
    first = everything.entries[0]
    assert _entry_ids(everything)[0] == oldest["signal_id"]
    assert first.title.endswith("(updated)")
    assert first.updated > first.published  # `updated` moved with the change
    assert everything.feed.updated == first.updated
    holding = [
        name
        for name, feed in after.items()
        if name != "feeds/all.atom" and oldest["signal_id"] in _entry_ids(feed)
    ]
    for name in holding:
        assert _entry_ids(after[name])[0] == oldest["signal_id"], name


def test_every_feed_id_is_an_iri(site_root: Path, tmp_path: Path) -> None:
    feeds = _feeds(site_root, tmp_path / "site")
    theme_ids = [feed.feed.id for name, feed in feeds.items() if name.startswith("feeds/themes/")]
    assert len(theme_ids) == 12
    for feed in feeds.values():
        assert feed.feed.id.startswith("urn:aimi:feed:")
        assert not _NOT_IRI.search(feed.feed.id), feed.feed.id
    assert "urn:aimi:feed:theme:market_force:Capital%20%26%20Investment" in theme_ids
    assert feed_id_part("ent:openai") == "ent:openai"  # an id without such characters stays
