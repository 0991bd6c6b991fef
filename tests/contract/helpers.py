"""What the contract tests share: paging through a list the way §4.11 tells a client to, holding
error bodies to §7, and the calendar of the trend window (§2.5, §8)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx2 as httpx  # what starlette.testclient returns
from fastapi.testclient import TestClient

from tests.contract import spec

Json = dict[str, Any]

REQUEST_ID_HEADER = "X-Request-Id"
# One request per data endpoint of §4 (valid apart from the key).
DATA_ENDPOINTS = (
    "/v1/search?q=chips",
    "/v1/signals",
    "/v1/signals/some-signal",
    "/v1/entities",
    "/v1/entities/trending?mode=hot",
    "/v1/entities/some-entity",
    "/v1/themes",
    "/v1/themes/value_chain/Applications",
)


def error_of(response: httpx.Response, status: int) -> Json:
    """The error object of a §7 error response, after checking the whole body against the
    spec's error object and its ``request_id`` against the ``X-Request-Id`` header."""
    assert response.status_code == status, (response.status_code, response.text)
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert isinstance(body, dict) and set(body) == {"error"}, body
    error: Json = body["error"]
    assert not spec.ERROR.problems(error), spec.ERROR.problems(error)
    assert error["status"] == status
    assert error["request_id"], "every error body carries request_id (docs/design.md §9)"
    assert error["request_id"] == response.headers[REQUEST_ID_HEADER]
    if status == 503:  # §7: "503 ... (carries retry_after)", mirrored by Retry-After
        assert spec.is_int(error.get("retry_after")) and error["retry_after"] > 0
        assert response.headers["Retry-After"] == str(error["retry_after"])
    return error


def validation_errors(response: httpx.Response, loc: tuple[str | int, ...]) -> list[Json]:
    """The items of a §7 422 body ``{detail: [{loc, msg, type, input?, ctx?}]}``; one of them
    must point at ``loc``."""
    assert response.status_code == 422, (response.status_code, response.text)
    assert response.headers[REQUEST_ID_HEADER]
    body = response.json()
    assert isinstance(body, dict) and set(body) == {"detail"}, body
    detail: list[Json] = body["detail"]
    assert isinstance(detail, list) and detail
    for item in detail:
        assert isinstance(item, dict)
        assert {"loc", "msg", "type"} <= set(item) <= spec.VALIDATION_ITEM_KEYS, item
        assert isinstance(item["loc"], list) and item["loc"]
        assert all(isinstance(p, str) or spec.is_int(p) for p in item["loc"]), item
        assert spec.is_nonempty_str(item["msg"]) and spec.is_nonempty_str(item["type"]), item
    assert any(tuple(item["loc"]) == loc for item in detail), (loc, detail)
    return detail


def assert_shape(shape: spec.Shape, obj: Any) -> None:
    problems = shape.problems(obj)
    assert not problems, problems


@dataclass
class Walk:
    """A client paging through one list (§4.11): the first request without a cursor, then each
    ``next_cursor`` passed back as ``cursor`` until ``has_more`` is false. ``feed`` applies the
    change feed's rules (§4.3): its ``next_cursor`` is a resume point, kept on the last page."""

    client: TestClient
    path: str
    key: str
    params: Json
    limit: int
    feed: bool = False
    cursor: str | None = None
    done: bool = False
    pages: int = 0
    items: list[Json] = field(default_factory=list)

    def step(self) -> list[Json]:
        assert not self.done
        query: Json = {**self.params, "limit": self.limit}
        if self.cursor is not None:
            query["cursor"] = self.cursor
        response = self.client.get(self.path, params=query)
        assert response.status_code == 200, response.text
        body = response.json()
        assert set(body) == {self.key, "has_more", "next_cursor"}, list(body)
        page, has_more, next_cursor = body[self.key], body["has_more"], body["next_cursor"]
        assert isinstance(page, list) and len(page) <= self.limit
        assert isinstance(has_more, bool)
        assert next_cursor is None or spec.is_nonempty_str(next_cursor)
        if has_more:
            assert page and next_cursor is not None, "has_more needs a next_cursor"
        elif self.feed:
            # the resume point comes even on the last page; null only when nothing changed
            assert (next_cursor is None) == (not page), (len(page), next_cursor)
        else:
            assert next_cursor is None, "next_cursor is null once has_more is false"
        self.items += page
        self.pages += 1
        if next_cursor is not None:
            self.cursor = next_cursor  # a null feed cursor means: keep the one you had
        self.done = not has_more
        return page

    def finish(self, max_pages: int = 5_000) -> list[Json]:
        while not self.done:
            assert self.pages < max_pages, "paging did not end"
            self.step()
        return self.items


def walk(
    client: TestClient, path: str, key: str, *, limit: int, feed: bool = False, **params: Any
) -> list[Json]:
    """Every item of a list, paged through."""
    return Walk(client, path, key, params, limit, feed=feed).finish()


def signal_ids(cards: Iterable[Json]) -> list[str]:
    return [card["signal_id"] for card in cards]


def entity_ids(entities: Iterable[Json]) -> list[str]:
    return [entity["entity_id"] for entity in entities]


def parse_time(value: str) -> datetime:
    moment = datetime.fromisoformat(value)
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def trend_weeks(as_of: datetime) -> list[datetime]:
    """Starts of the 12 complete Monday–Sunday weeks the trend window covers, oldest first:
    the week holding ``as_of`` is in progress and excluded (§2.5, §8)."""
    day = as_of.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    in_progress = day - timedelta(days=day.weekday())
    return [in_progress - timedelta(weeks=k) for k in range(spec.TREND_WEEKS, 0, -1)]


def week_index(published_at: str, weeks: list[datetime]) -> int | None:
    """Which of ``weeks`` a timestamp falls in (0 = oldest), None outside the window."""
    moment = parse_time(published_at)
    for index, start in enumerate(weeks):
        if start <= moment < start + timedelta(weeks=1):
            return index
    return None
