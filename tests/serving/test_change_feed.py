"""``GET /v1/signals?sort=changed`` (docs/api.md §4.3): oldest change first, a resume cursor on the
last page, null only when nothing changed, reprocessed signals reappear once, sort and cursor
consistent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from readmodel.store import SnapshotStore
from serving.app import create_app
from tests.serving.conftest import DEV_KEY, RECORDS, Corpus, build_tables, make_settings, publish


def read_feed(
    client: TestClient, cursor: str | None, limit: int = 7
) -> tuple[list[str], str | None]:
    """Everything after ``cursor``: the ids in order and the resume cursor to keep."""
    ids: list[str] = []
    resume = cursor
    while True:
        params: dict[str, Any] = {"sort": "changed", "limit": limit}
        if resume:
            params["cursor"] = resume
        body = client.get("/v1/signals", params=params).json()
        ids += [card["signal_id"] for card in body["signals"]]
        if body["signals"]:
            assert body["next_cursor"], "a non-empty page always carries a resume cursor"
        else:
            assert body["next_cursor"] is None and not body["has_more"]
            return ids, resume
        resume = body["next_cursor"]
        if not body["has_more"]:
            return ids, resume


def refresh(client: TestClient) -> None:
    store = client.app.state.store  # type: ignore[attr-defined]
    assert isinstance(store, SnapshotStore)
    store.refresh()


def test_feed_lists_every_signal_once_oldest_first_then_resumes(
    fresh_client: TestClient, corpus: Corpus
) -> None:
    ids, resume = read_feed(fresh_client, None)
    served = corpus.served.sort("published_at", "signal_id")["signal_id"].to_list()
    assert ids == served, "a first publish numbers signals oldest published first"
    assert resume is not None

    # polling again from the resume point: nothing new, and the cursor to keep stays the same
    again, same = read_feed(fresh_client, resume)
    assert again == [] and same == resume


def test_unchanged_republish_adds_nothing_and_an_edit_adds_exactly_one(
    fresh_root: Path, fresh_client: TestClient
) -> None:
    _, resume = read_feed(fresh_client, None)
    publish(fresh_root, build_tables(RECORDS))  # the same records again
    refresh(fresh_client)
    assert read_feed(fresh_client, resume)[0] == []

    edited = [dict(r) for r in RECORDS]
    edited[3]["text"] = edited[3]["text"] + " The company also said margins fell 2 percent in 2025."
    publish(fresh_root, build_tables(edited))
    refresh(fresh_client)
    changed, newer = read_feed(fresh_client, resume)
    assert len(changed) == 1
    detail = fresh_client.get(f"/v1/signals/{changed[0]}").json()
    assert detail["title"] == edited[3]["title"]
    # reappears once: after it, the feed is quiet again
    assert read_feed(fresh_client, newer)[0] == []
    # and a reader starting from scratch sees every signal exactly once, the edited one last
    everything, _ = read_feed(fresh_client, None)
    assert len(everything) == len(set(everything)) == len(RECORDS)
    assert everything[-1] == changed[0]


def test_new_signals_appear_after_the_resume_point(
    fresh_root: Path, fresh_client: TestClient, corpus: Corpus
) -> None:
    _, resume = read_feed(fresh_client, None)
    publish(fresh_root, corpus.extended)
    refresh(fresh_client)
    added, _ = read_feed(fresh_client, resume)
    expected = set(corpus.extended["signals"]["signal_id"]) - set(corpus.served["signal_id"])
    assert set(added) == expected and len(added) == len(expected)


def test_feed_filters_apply(fresh_client: TestClient, corpus: Corpus) -> None:
    body = fresh_client.get(
        "/v1/signals", params={"sort": "changed", "content_type": "event", "limit": 50}
    ).json()
    events = corpus.served.filter(corpus.served["content_type"] == "event")
    assert {c["signal_id"] for c in body["signals"]} == set(events["signal_id"])
    assert all(c["content_type"] == "event" for c in body["signals"])
    assert body["next_cursor"] and not body["has_more"]


def test_cursor_and_sort_must_match(fresh_client: TestClient) -> None:
    published = fresh_client.get("/v1/signals", params={"limit": 2}).json()["next_cursor"]
    changed = fresh_client.get("/v1/signals", params={"sort": "changed", "limit": 2}).json()[
        "next_cursor"
    ]
    for sort, cursor in (("changed", published), ("published", changed)):
        response = fresh_client.get("/v1/signals", params={"sort": sort, "cursor": cursor})
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["code"] == "invalid_parameters" and error["field"] == "cursor"
        assert "keep the endpoint and sort the same" in error["message"]


def test_feed_survives_a_restart(fresh_root: Path, fresh_client: TestClient) -> None:
    _, resume = read_feed(fresh_client, None)
    with TestClient(
        create_app(make_settings(fresh_root)), headers={"X-API-Key": DEV_KEY}
    ) as restarted:
        assert read_feed(restarted, resume)[0] == []
