"""Keyset paging over a loaded snapshot against a brute-force reference, for every filter
combination and every cursor position."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import pytest

from readmodel.cursor import PublishedKey
from readmodel.store import LoadedSnapshot, SignalQuery
from tests.serving.conftest import Corpus
from warehouse.paths import DataDir
from warehouse.snapshot import open_current

Row = tuple[int, str, str]  # (published_us, signal_id, content_type)


@pytest.fixture(scope="module")
def loaded(shared_root: Path) -> LoadedSnapshot:
    opened = open_current(DataDir(shared_root))
    assert opened is not None
    return LoadedSnapshot.from_opened(opened)


def _us(moment: datetime) -> int:
    return (moment - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)


def reference(rows: list[Row], query: SignalQuery) -> list[str]:
    ordered = sorted(rows, key=lambda r: (r[0], r[1]), reverse=True)
    out = []
    for published_us, signal_id, content_type in ordered:
        if query.after is not None and (published_us, signal_id) >= (
            query.after.published_us,
            query.after.signal_id,
        ):
            continue
        if query.content_type is not None and content_type != query.content_type:
            continue
        if query.published_from_us is not None and published_us < query.published_from_us:
            continue
        if query.published_before_us is not None and published_us >= query.published_before_us:
            continue
        out.append(signal_id)
    return out


def test_pages_match_the_reference(loaded: LoadedSnapshot, corpus: Corpus) -> None:
    frame = corpus.served
    rows: list[Row] = [
        (_us(p), s, c)
        for p, s, c in zip(
            frame["published_at"], frame["signal_id"], frame["content_type"], strict=True
        )
    ]
    stamps = sorted({r[0] for r in rows})
    bounds = [None, stamps[0], stamps[5], stamps[5] + 1, stamps[-1], stamps[-1] + 1]
    # Cursor keys both on rows and between them (a row that vanished in a newer snapshot).
    afters = (
        [None]
        + [PublishedKey(r[0], r[1]) for r in rows]
        + [PublishedKey(r[0], r[1] + "~") for r in rows[:5]]
        + [PublishedKey(r[0], "") for r in rows[:5]]
    )
    checked = 0
    for content_type in (None, "analysis", "event", "unknown"):
        for lower in bounds:
            for upper in bounds:
                for after in afters:
                    query = SignalQuery(content_type, lower, upper, after)
                    expected = reference(rows, query)
                    for limit in (1, 4, 50):
                        page = loaded.published_page(query, limit)
                        got = [card_id(card) for card in page.cards]
                        assert got == expected[:limit], (query, limit)
                        assert page.has_more == (len(expected) > limit)
                        if page.has_more:
                            assert page.last == PublishedKey(
                                next(r[0] for r in rows if r[1] == got[-1]), got[-1]
                            )
                        else:
                            assert page.last is None
                        checked += 1
    assert checked > 1000


def card_id(card: bytes) -> str:
    signal_id = orjson.loads(card)["signal_id"]
    assert isinstance(signal_id, str)
    return signal_id


def test_loaded_snapshot_describes_its_manifest(loaded: LoadedSnapshot, corpus: Corpus) -> None:
    assert len(loaded) == corpus.served.height
    assert set(loaded.details) == set(corpus.served["signal_id"])
    assert loaded.as_of.tzinfo is not None
