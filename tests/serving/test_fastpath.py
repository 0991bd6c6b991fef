"""The fast path (``serving.fastpath``) answers exactly what the FastAPI routes answer: every
test asks the same thing of an app with it and of one without it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readmodel import service
from serving.app import create_app
from serving.fastpath import QUERY_ROUTES, query_arguments, route
from tests.serving.conftest import DEV_KEY, Corpus, make_settings, publish
from tests.test_end_to_end import client_for
from warehouse.paths import DataDir
from warehouse.settings import Quota

# Headers whose values differ from one request to the next by design.
_VARYING = {"x-request-id", "x-ratelimit-remaining-minute", "x-ratelimit-remaining-monthly"}


@pytest.fixture(scope="module")
def fast(demo_data_dir: DataDir) -> Iterator[TestClient]:
    """The demo snapshot the pipeline built, served as ``aimi serve`` serves it."""
    yield from client_for(demo_data_dir, fast_path=True)


@pytest.fixture(scope="module")
def routed(demo_data_dir: DataDir) -> Iterator[TestClient]:
    """The same snapshot with every request going through the FastAPI routes."""
    yield from client_for(demo_data_dir, fast_path=False)


def _answer(client: TestClient, path: str, **kwargs: Any) -> tuple[int, Any, dict[str, str]]:
    response = client.get(path, **kwargs)
    body = orjson.loads(response.content)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        assert body["error"].pop("request_id") == response.headers["x-request-id"]
    headers = {k: v for k, v in response.headers.items() if k not in _VARYING}
    # a reset is the end of the current minute (month): two requests a moment apart may straddle
    # it, so only its presence and form are compared
    for name in ("x-ratelimit-reset-minute", "x-ratelimit-reset-monthly"):
        if name in headers:
            assert headers[name].isdigit()
            headers[name] = "<unix seconds>"
    return response.status_code, body, headers


def _same(fast: TestClient, routed: TestClient, path: str, **kwargs: Any) -> int:
    fast_answer = _answer(fast, path, **kwargs)
    assert fast_answer == _answer(routed, path, **kwargs), path
    return fast_answer[0]


def test_route_takes_only_what_the_routes_would_match() -> None:
    assert route("/v1/entities/ent:/company/acme") == (service.entity_profile, "ent:/company/acme")
    assert route("/v1/signals/sig_1") == (service.get_signal, "sig_1")
    assert route("/v1/stories/sty_1") == (service.get_story, "sty_1")
    assert route("/v1/stories/" + "x" * 64) == (service.get_story, "x" * 64)
    for path in (
        "/v1/stories/",
        "/v1/stories/a/b",
        "/v1/stories/" + "x" * 65,  # past the route's bound: FastAPI refuses it
        "/v1/stories",
        "/v1/entities/",
        "/v1/entities/trending",
        "/v1/entities/a\nb",
        "/v1/entities/" + "x" * 501,
        "/v1/signals/",
        "/v1/signals/a/b",
        "/v1/entities",
        "/v1/search",
    ):
        assert route(path) is None, path


def test_entities_and_signals_answer_the_same(fast: TestClient, routed: TestClient) -> None:
    entities = routed.get("/v1/entities", params={"min_signals": 1, "limit": 50}).json()
    assert len(entities["entities"]) == 50
    for entity in entities["entities"]:
        for name in (entity["entity_id"], entity["name"], entity["name"].upper()):
            assert _same(fast, routed, "/v1/entities/" + quote(name, safe="")) == 200
        assert _same(fast, routed, "/v1/entities/" + entity["entity_id"]) == 200  # raw id
    signals = routed.get("/v1/signals", params={"limit": 50}).json()["signals"]
    assert len(signals) == 50
    for signal in signals:
        assert _same(fast, routed, f"/v1/signals/{signal['signal_id']}") == 200


@pytest.mark.parametrize(
    "path",
    [
        "/v1/entities/nobody-we-know",
        "/v1/entities/company:acme-ai",  # internal id: 400 with a hint
        "/v1/entities/trending/",
        "/v1/entities/%20%20",
        "/v1/entities/" + "é" * 500,
        "/v1/entities/" + "é" * 501,  # past the bound: FastAPI answers 422 either way
        "/v1/signals/no-such-signal",
        "/v1/signals/a%2Fb",
        "/v1/entities/a%0Ab",
    ],
)
def test_errors_answer_the_same(fast: TestClient, routed: TestClient, path: str) -> None:
    assert _same(fast, routed, path) >= 400


@pytest.mark.parametrize("key", [None, "", "not-a-key"])
def test_a_missing_or_wrong_key_answers_the_same(
    fast: TestClient, routed: TestClient, key: str | None
) -> None:
    headers = {"X-API-Key": key} if key is not None else {}
    for path in ("/v1/signals/anything", "/v1/entities/anything"):
        bare_fast = TestClient(fast.app, headers=headers)
        bare_routed = TestClient(routed.app, headers=headers)
        assert _same(bare_fast, bare_routed, path) == 401


def test_rate_limit_refuses_through_the_fast_path(tmp_path: Path, corpus: Corpus) -> None:
    publish(tmp_path, corpus.tables)
    settings = make_settings(tmp_path).model_copy(
        update={"rate_limit_tiers": {"dev": Quota(per_minute=2, per_month=100)}}
    )
    signal_id = corpus.served["signal_id"][0]
    with TestClient(create_app(settings), headers={"X-API-Key": DEV_KEY}) as c:
        c.app.state.clock = lambda: 1_800_000_000.0  # mid-minute: the window cannot roll over
        first, second, third = (c.get(f"/v1/signals/{signal_id}") for _ in range(3))
    assert [first.status_code, second.status_code, third.status_code] == [200, 200, 429]
    assert second.headers["x-ratelimit-remaining-minute"] == "0"
    assert third.headers["retry-after"] == str(third.json()["error"]["retry_after"])
    assert third.json()["error"]["code"] == "rate_limited"


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    tail=st.text(min_size=0, max_size=70), kind=st.sampled_from(["entities", "signals", "stories"])
)
def test_any_path_answers_the_same(
    fast: TestClient, routed: TestClient, tail: str, kind: str
) -> None:
    _same(fast, routed, f"/v1/{kind}/" + quote(tail, safe=""))


def search_arguments(query_string: bytes) -> dict[str, Any] | None:
    return query_arguments(QUERY_ROUTES["/v1/search"], query_string)


def test_search_arguments_take_only_what_the_route_reads_unchanged() -> None:
    assert search_arguments(b"q=open+weights&limit=5") == {"q": "open weights", "limit": 5}
    assert search_arguments(b"similar_to=u_1&diversity_cap=100&role=claim") == {
        "similar_to": "u_1",
        "diversity_cap": 100,
        "role": "claim",
    }
    assert search_arguments(b"q=%C3%A9t%C3%A9&content_type=event") == {
        "q": "été",
        "content_type": "event",
    }
    assert search_arguments(b"") == {}  # the service's own 400: give q or similar_to
    for query_string in (
        b"q=a&q=b",  # repeated
        b"q=a&theme=Compute",  # a parameter left to the route
        b"q=a&unknown=1",
        b"q=",  # too short: FastAPI's 400
        b"q=" + b"x" * 2001,
        b"q=a&limit=0",
        b"q=a&limit=101",
        b"q=a&limit=010",  # read as 10 by the route, but only the route reads it
        b"q=a&limit=%2B5",
        b"q=a&limit=%EF%BC%95",  # a full-width digit
        b"q=a&role=Claim",
        b"q=a&content_type=",
        b"similar_to=" + b"u" * 201,
    ):
        assert search_arguments(query_string) is None, query_string


@pytest.mark.parametrize(
    "params",
    [
        {"q": "open-weight models"},
        {"q": "GPU export controls", "limit": "25", "diversity_cap": "1"},
        {"q": "funding round", "role": "claim", "content_type": "event"},
        {"q": "inference cost", "theme": "Infrastructure"},  # through the route both ways
        {"q": "x", "limit": "010"},
        {"q": ""},
        {"q": "a", "similar_to": "b"},
        {"similar_to": "no-such-unit"},
        {},
        {"q": "a", "limit": "0"},
        {"q": "a", "role": "nonsense"},
    ],
)
def test_searches_answer_the_same(
    fast: TestClient, routed: TestClient, params: dict[str, str]
) -> None:
    _same(fast, routed, "/v1/search", params=params)


def test_similar_searches_answer_the_same(fast: TestClient, routed: TestClient) -> None:
    hits = routed.get("/v1/search", params={"q": "model release", "limit": 5}).json()["results"]
    assert hits
    for hit in hits:
        assert _same(fast, routed, "/v1/search", params={"similar_to": hit["unit"]["id"]}) == 200


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"limit": "5"},
        {"limit": "50", "sort": "changed"},
        {"content_type": "event", "window": "2w"},
        {"theme": "regulatory & legal", "limit": "3"},
        {"entity": "Cerebras"},
        {"keyword": "GPU"},
        {"published_after": "2026-09-01", "published_before": "2026-10-01T12:00:00+02:00"},
        {"cursor": ""},
        # each answered by the route (an error, or a value only it reads) and the same both ways
        {"window": "0d"},
        {"window": "7d\n"},
        {"window": "7d", "published_after": "2026-01-01"},
        {"cursor": "garbage"},
        {"limit": "51"},
        {"limit": "05"},
        {"published_after": "20260301"},
        {"keyword": ""},
        {"q": "deprecated"},
        {"sort": "nope"},
        {"entity": "nobody we know"},
        {"theme": "C&I"},
        {"limit": "5", "unknown": "1"},
    ],
)
def test_signal_lists_answer_the_same(
    fast: TestClient, routed: TestClient, params: dict[str, str]
) -> None:
    _same(fast, routed, "/v1/signals", params=params)


def test_signal_list_arguments_are_read_as_the_route_reads_them() -> None:
    signals = QUERY_ROUTES["/v1/signals"]
    assert query_arguments(signals, b"limit=5&published_after=2026-09-01") == {
        "limit": 5,
        "published_after": datetime(2026, 9, 1),  # naive, as the route reads it: UTC
    }
    for query_string in (b"q=x", b"limit=05", b"window=7d%0A", b"published_after=20260301"):
        assert query_arguments(signals, query_string) is None, query_string


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"limit": "50"},
        {"window": "7d", "min_sources": "2"},
        {"theme": "regulatory & legal", "limit": "3"},
        {"entity": "Cerebras"},
        {"min_sources": "3", "window": "8w"},
        {"cursor": ""},
        # each answered by the route (an error, or a value only it reads) and the same both ways
        {"window": "0d"},
        {"min_sources": "0"},
        {"min_sources": "x"},
        {"min_sources": "02"},
        {"cursor": "garbage"},
        {"limit": "51"},
        {"entity": "nobody we know"},
        {"theme": "C&I"},
        {"limit": "5", "sort": "changed"},
    ],
)
def test_story_lists_answer_the_same(
    fast: TestClient, routed: TestClient, params: dict[str, str]
) -> None:
    _same(fast, routed, "/v1/stories", params=params)


def test_stories_and_their_pages_answer_the_same(fast: TestClient, routed: TestClient) -> None:
    cursor: str | None = None
    for _ in range(3):
        params = {"limit": "20", **({"cursor": cursor} if cursor else {})}
        assert _same(fast, routed, "/v1/stories", params=params) == 200
        page = fast.get("/v1/stories", params=params).json()
        for story in page["stories"]:
            assert _same(fast, routed, f"/v1/stories/{story['story_id']}") == 200
        cursor = page["next_cursor"]
        assert cursor
    for path in ("/v1/stories/sty_unknown", "/v1/stories/" + "x" * 65, "/v1/stories/a%2Fb"):
        assert _same(fast, routed, path) >= 400, path


@pytest.mark.parametrize("sort", ["published", "changed"])
def test_pages_and_cursors_are_the_same_both_ways(
    fast: TestClient, routed: TestClient, sort: str
) -> None:
    cursor: str | None = None
    for _ in range(4):
        params = {"limit": "7", "sort": sort, **({"cursor": cursor} if cursor else {})}
        assert _same(fast, routed, "/v1/signals", params=params) == 200
        cursor = fast.get("/v1/signals", params=params).json()["next_cursor"]
        assert cursor
