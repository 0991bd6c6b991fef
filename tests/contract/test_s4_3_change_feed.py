"""§4.3 the change feed, `GET /v1/signals?sort=changed`: ordered by last-changed time, oldest
change first (docs/design.md §10: `change_seq` ascending); `next_cursor` is a resume point returned
even on the last page and null only when nothing changed; every signal once, without misses or
repeats. What a publish adds to the feed is checked in test_s4_11_pagination.py."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.contract.helpers import Json, Walk, signal_ids, walk
from warehouse.snapshot import OpenedSnapshot


def feed(api: TestClient, limit: int = 50, **params: Any) -> Walk:
    walker = Walk(api, "/v1/signals", "signals", {"sort": "changed", **params}, limit, feed=True)
    walker.finish()
    return walker


@pytest.fixture(scope="module")
def full_feed(api: TestClient) -> Walk:
    return feed(api)


@pytest.fixture(scope="module")
def changes(demo_snapshot: OpenedSnapshot) -> dict[str, tuple[int, Any]]:
    """``signal_id`` → (change_seq, changed_at) as the snapshot recorded them."""
    table = demo_snapshot.read_table("signals").select("signal_id", "change_seq", "changed_at")
    return {row[0]: (row[1], row[2]) for row in table.iter_rows()}


def test_s4_3_feed_covers_every_signal_once(full_feed: Walk, cards: list[Json]) -> None:
    """§4.3 the change feed covers the signals without misses or repeats."""
    ids = signal_ids(full_feed.items)
    assert len(ids) == len(set(ids))
    assert set(ids) == set(signal_ids(cards))


def test_s4_3_feed_is_ordered_oldest_change_first(
    full_feed: Walk, changes: dict[str, tuple[int, Any]]
) -> None:
    """§4.3 `sort=changed`: ordered by last-changed time, oldest change first; docs/design.md §10:
    `change_seq` ascending."""
    recorded = [changes[s] for s in signal_ids(full_feed.items)]
    seqs = [seq for seq, _ in recorded]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    times = [changed_at for _, changed_at in recorded]
    assert times == sorted(times)


def test_s4_3_last_page_keeps_a_resume_cursor_and_polling_it_is_quiet(
    api: TestClient, full_feed: Walk
) -> None:
    """§4.3 `next_cursor` is returned even on the last page (`has_more` false); it is null
    only when nothing changed (keep the prior cursor)."""
    assert full_feed.done and full_feed.cursor is not None
    for _ in range(2):  # polling again and again from the kept cursor
        response = api.get(
            "/v1/signals", params={"sort": "changed", "cursor": full_feed.cursor, "limit": 50}
        )
        assert response.status_code == 200, response.text
        assert response.json() == {"signals": [], "has_more": False, "next_cursor": None}


@pytest.mark.parametrize("limit", [1, 17])
def test_s4_3_feed_resumes_exactly_where_a_cursor_left_off(
    api: TestClient, full_feed: Walk, limit: int
) -> None:
    """§4.3 pass `next_cursor` back to continue: no misses, no repeats, whatever the page
    size; a reader that stops and resumes later sees the same sequence."""
    first = Walk(api, "/v1/signals", "signals", {"sort": "changed"}, limit, feed=True)
    for _ in range(3):
        first.step()
    resumed = Walk(
        api, "/v1/signals", "signals", {"sort": "changed"}, 50, feed=True, cursor=first.cursor
    )
    ids = signal_ids(first.items) + signal_ids(resumed.finish())
    assert ids == signal_ids(full_feed.items)


@pytest.mark.parametrize(
    "params",
    [{"content_type": "event"}, {"theme": "Capital & Investment"}, {"keyword": "funding"}],
    ids=["content_type", "theme", "keyword"],
)
def test_s4_3_filtered_feed_keeps_the_feed_order(
    api: TestClient, full_feed: Walk, params: Json
) -> None:
    """§4.3 the list filters apply to the change feed: the matching signals, in feed order."""
    filtered = signal_ids(feed(api, limit=20, **params).items)
    matching = set(signal_ids(walk(api, "/v1/signals", "signals", limit=50, **params)))
    assert filtered and set(filtered) == matching
    assert filtered == [s for s in signal_ids(full_feed.items) if s in matching]


def test_s4_3_feed_with_nothing_matching_has_a_null_cursor(api: TestClient) -> None:
    """§4.3 `next_cursor` is null only when nothing changed."""
    response = api.get("/v1/signals", params={"sort": "changed", "keyword": "zqxjvbnmwq"})
    assert response.status_code == 200, response.text
    assert response.json() == {"signals": [], "has_more": False, "next_cursor": None}
