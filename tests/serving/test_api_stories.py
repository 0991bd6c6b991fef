"""``/v1/stories`` and ``/v1/stories/{story_id}`` over the snapshot the pipeline built from the
demo corpus (issue 31; docs/api.md §4.13, §4.14): keyset paging newest activity first, every
served signal in exactly one story, the filters, and clear 4xx on bad input."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from readmodel.models import StoryDetail, StoryList
from tests.test_end_to_end import client_for, page_through
from warehouse.paths import DataDir


@pytest.fixture(scope="module")
def api(demo_data_dir: DataDir) -> Iterator[TestClient]:
    yield from client_for(demo_data_dir)


def all_stories(api: TestClient, limit: int = 50, **params: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        query = {**params, "limit": limit, **({"cursor": cursor} if cursor else {})}
        response = api.get("/v1/stories", params=query)
        assert response.status_code == 200, response.text
        page = StoryList.model_validate(response.json())
        assert len(page.stories) <= limit
        found.extend(response.json()["stories"])
        if not page.has_more:
            assert page.next_cursor is None
            return found
        cursor = page.next_cursor


def time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def test_pages_hold_every_story_once_newest_activity_first(api: TestClient) -> None:
    stories = all_stories(api, limit=37)
    ids = [s["story_id"] for s in stories]
    assert len(ids) == len(set(ids)) > 100
    keys = [(-time(s["last_seen"]).timestamp(), s["story_id"]) for s in stories]
    assert keys == sorted(keys)
    assert all(s["story_id"].startswith("sty_") for s in stories)
    assert any(s["signal_count"] > 1 for s in stories)
    # the same stories whatever the page size
    assert [s["story_id"] for s in all_stories(api, limit=50)] == ids


def test_every_served_signal_is_in_exactly_one_story(api: TestClient) -> None:
    served = {card["signal_id"] for card in page_through(api, limit=50)}
    members: list[str] = []
    several = 0
    for story in all_stories(api):
        if story["signal_count"] == 1 and several > 20:
            members.append("?")  # counted below without reading every singleton's detail
            continue
        response = api.get(f"/v1/stories/{story['story_id']}")
        assert response.status_code == 200
        detail = StoryDetail.model_validate(response.json())
        assert len(detail.signals) == story["signal_count"] == detail.signal_count
        assert story["independent_sources"] <= story["signal_count"]
        published = [s.published_at for s in detail.signals]
        assert published == sorted(published, reverse=True)
        assert min(published) == time(story["first_seen"])
        assert max(published) == time(story["last_seen"])
        assert {s.domain for s in detail.signals} == set(story["domains"])
        members.extend(s.signal_id for s in detail.signals)
        several += story["signal_count"] > 1
    named = [m for m in members if m != "?"]
    assert len(named) == len(set(named))
    assert set(named) <= served
    assert len(members) == len(served)


def test_filters(api: TestClient) -> None:
    everything = all_stories(api)
    strong = all_stories(api, min_sources=3)
    assert strong and all(s["independent_sources"] >= 3 for s in strong)
    assert len(strong) == sum(s["independent_sources"] >= 3 for s in everything)

    as_of = time(api.get("/v1/health").json()["snapshot"]["as_of"])
    recent = all_stories(api, window="1w")
    assert recent and all(time(s["last_seen"]) >= as_of - timedelta(days=7) for s in recent)
    assert len(recent) == sum(time(s["last_seen"]) >= as_of - timedelta(days=7) for s in everything)

    label = "Capital & Investment"
    themed = all_stories(api, theme=label.lower())
    assert themed and all(label in s["themes"]["market_force"] for s in themed)
    assert len(themed) == sum(label in s["themes"]["market_force"] for s in everything)

    entity = max(
        (e for s in strong for e in s["entities"]),
        key=lambda e: sum(e in s["entities"] for s in strong),
    )
    about = all_stories(api, entity=entity["entity_id"])
    # every story naming it, and perhaps more: a family covers its members
    naming = {s["story_id"] for s in everything if entity in s["entities"]}
    assert naming and naming <= {s["story_id"] for s in about}
    assert all(s["entities"] for s in about)
    by_name = all_stories(api, entity=entity["name"])
    assert [s["story_id"] for s in by_name] == [s["story_id"] for s in about]


@pytest.mark.parametrize(
    ("path", "params", "status", "field"),
    [
        ("/v1/stories/sty_0000000000000000", {}, 404, None),
        ("/v1/stories", {"cursor": "not-a-cursor"}, 400, "cursor"),
        ("/v1/stories", {"min_sources": 0}, 422, "min_sources"),
        ("/v1/stories", {"window": "2 weeks"}, 422, "window"),
        ("/v1/stories", {"entity": "No Such Entity Anywhere"}, 404, "entity"),
        ("/v1/stories", {"theme": "C&I"}, 404, "theme"),
        ("/v1/stories", {"limit": 0}, 422, "limit"),
    ],
)
def test_bad_input_is_a_clear_4xx(
    api: TestClient, path: str, params: dict[str, Any], status: int, field: str | None
) -> None:
    response = api.get(path, params=params)
    assert response.status_code == status, response.text
    if status == 422:  # FastAPI's own body, as every route answers a value out of its bounds
        assert [d["loc"] for d in response.json()["detail"]] == [["query", field]]
        return
    body = response.json()["error"]
    assert body["message"]
    if field is not None:
        assert body.get("field") == field


def test_a_signal_list_cursor_is_refused_by_stories(api: TestClient) -> None:
    cursor = api.get("/v1/signals", params={"limit": 1}).json()["next_cursor"]
    response = api.get("/v1/stories", params={"cursor": cursor})
    assert response.status_code == 400
    assert "/v1/stories" in response.json()["error"]["message"]


def test_stories_need_a_valid_key(api: TestClient) -> None:
    bare = TestClient(api.app)
    for path in ("/v1/stories", "/v1/stories/sty_0000000000000000"):
        response = bare.get(path)
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "unauthorized"
