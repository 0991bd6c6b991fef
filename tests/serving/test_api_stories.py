"""``/v1/stories`` and ``/v1/stories/{story_id}`` over the snapshot the pipeline built from the
demo corpus (issue 31; docs/api.md §4.13, §4.14): keyset paging newest activity first, every
served signal in exactly one story but a roundup, which is in the story of each of its parts
(§2.8), the filters, and clear 4xx on bad input."""

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


def story_details(api: TestClient) -> list[tuple[dict[str, Any], StoryDetail]]:
    """Every story as listed, with its detail, in list order."""
    out: list[tuple[dict[str, Any], StoryDetail]] = []
    for story in all_stories(api):
        response = api.get(f"/v1/stories/{story['story_id']}")
        assert response.status_code == 200, response.text
        out.append((story, StoryDetail.model_validate(response.json())))
    return out


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


def test_every_served_signal_is_in_one_story_and_a_roundup_in_the_story_of_each_part(
    api: TestClient,
) -> None:
    """docs/api.md §2.8: a roundup is in the story of each of its parts, and each of its units
    in at most one part (a unit of no item, such as a summary of the whole, is in none); every
    other served signal is in exactly one story."""
    served = {card["signal_id"] for card in page_through(api, limit=50)}
    listing: dict[str, list[str]] = {}  # signal id -> the stories listing it
    parted: dict[str, list[str]] = {}  # roundup id -> the stories holding a part of it
    part_units: dict[str, list[tuple[str, str]]] = {}  # roundup id -> its parts' (unit, text)
    for story, detail in story_details(api):
        assert len(detail.signals) == story["signal_count"] == detail.signal_count
        assert story["independent_sources"] <= story["signal_count"]
        published = [s.published_at for s in detail.signals]
        assert published == sorted(published, reverse=True)
        assert min(published) == time(story["first_seen"])
        assert max(published) == time(story["last_seen"])
        assert {s.domain for s in detail.signals} == set(story["domains"])
        members = [s.signal_id for s in detail.signals]
        assert len(members) == len(set(members))
        for signal_id in members:
            listing.setdefault(signal_id, []).append(detail.story_id)
        for part in detail.parts or []:
            assert part.signal_id in members and part.units
            parted.setdefault(part.signal_id, []).append(detail.story_id)
            pairs = [(u.unit_id, u.text) for u in part.units]
            part_units.setdefault(part.signal_id, []).extend(pairs)
    assert set(listing) == served
    # strict for every signal that is no roundup: one story, never a second
    assert {s: ids for s, ids in listing.items() if s not in parted and len(ids) != 1} == {}
    for signal_id, stories in parted.items():
        # a roundup: listed by exactly the stories holding a part of it, one part each
        assert sorted(listing[signal_id]) == sorted(stories), signal_id
        units = part_units[signal_id]
        assert len({u for u, _ in units}) == len(units), f"a unit of {signal_id} in two parts"
        detail = api.get(f"/v1/signals/{signal_id}").json()
        assert set(units) <= {(u["id"], u["text"]) for u in detail["units"]}


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
