"""§7 Errors: each status of the table, with the error object `{error: {code, message, status,
field, request_id, retry_after?, reset?}}` (all but 422) and `request_id` equal to the
`X-Request-Id` header; 422 keeps `{detail: [{loc, msg, type, input?, ctx?}]}`. The codes and the
400 cases are docs/design.md §9's. 401 is walked endpoint by endpoint in test_s5_auth.py; 429 (its
body, `Retry-After`, `retry_after`, `reset`) in tests/serving/test_ratelimit.py."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from urllib.parse import quote

import httpx2 as httpx  # what starlette.testclient returns
import polars as pl
import pytest
from fastapi.testclient import TestClient

from serving.app import create_app
from tests.contract import spec
from tests.contract.conftest import API_KEY
from tests.contract.helpers import DATA_ENDPOINTS, Json, error_of, iso, validation_errors
from tests.serving.conftest import make_settings
from warehouse.snapshot import OpenedSnapshot


def invalid(response: httpx.Response, fields: set[str]) -> Json:
    """A 400 `invalid_parameters` whose `field` names one of ``fields``."""
    error = error_of(response, 400)
    assert error["code"] == "invalid_parameters"
    assert error["field"] in fields, error
    return error


@pytest.mark.parametrize(
    "path", ["/v1/health", "/v1/signals?limit=1", "/v1/themes", "/openapi.json"]
)
def test_s7_every_response_carries_a_request_id(api: TestClient, path: str) -> None:
    """§7 `request_id`: correlation id, also sent in `X-Request-Id`; docs/design.md §9: every
    response carries `X-Request-Id` (successes too), fresh per request."""
    first, second = api.get(path), api.get(path)
    assert first.status_code == second.status_code == 200
    assert first.headers["X-Request-Id"] and second.headers["X-Request-Id"]
    assert first.headers["X-Request-Id"] != second.headers["X-Request-Id"]


# -- 400 ------------------------------------------------------------------------------------


@pytest.mark.parametrize("both", [False, True], ids=["neither", "both"])
def test_s7_400_search_takes_exactly_one_of_q_and_similar_to(
    api: TestClient, a_unit: Json, both: bool
) -> None:
    """§4.2 exactly one of `q` / `similar_to` is required; docs/design.md §9: both or neither →
    400."""
    params = {"q": "chips", "similar_to": a_unit["id"]} if both else {"limit": 5}
    invalid(api.get("/v1/search", params=params), {"q", "similar_to"})


# (path, the parameters the request needs besides those under test)
LISTS = [("/v1/search", {"q": "chips"}), ("/v1/signals", {})]


@pytest.mark.parametrize(("path", "base"), LISTS, ids=["search", "signals"])
def test_s7_400_window_with_published_after(api: TestClient, path: str, base: Json) -> None:
    """§4.2 `window` cannot be combined with `published_after`; docs/design.md §9 → 400."""
    params = {**base, "window": "7d", "published_after": "2026-10-01"}
    response = api.get(path, params=params)
    invalid(response, {"window", "published_after"})


@pytest.mark.parametrize(("path", "base"), LISTS, ids=["search", "signals"])
def test_s7_400_published_after_later_than_published_before(
    api: TestClient, as_of: datetime, path: str, base: Json
) -> None:
    """docs/design.md §9: `published_after` later than `published_before` → 400 (also when the lower
    bound comes from `window`)."""
    late = {**base, "published_after": "2026-09-02", "published_before": "2026-09-01"}
    invalid(api.get(path, params=late), {"published_after", "published_before"})
    before = iso(as_of - timedelta(days=30))
    windowed = api.get(path, params={**base, "window": "7d", "published_before": before})
    invalid(windowed, {"window", "published_before"})


@pytest.mark.parametrize(
    "cursor",
    ["not-a-cursor", "e30", "eyJ2IjoxfQ", "%%%", "x" * 600],
    ids=["text", "empty-object", "no-position", "symbols", "long"],
)
@pytest.mark.parametrize(
    ("path", "sort"),
    [("/v1/signals", "published"), ("/v1/signals", "changed"), ("/v1/entities", "trend")],
    ids=["signals", "feed", "entities"],
)
def test_s7_400_bad_cursor(api: TestClient, path: str, sort: str, cursor: str) -> None:
    """docs/design.md §9: a bad cursor → 400, `field` `cursor` (§4.11 cursors are opaque)."""
    invalid(api.get(path, params={"sort": sort, "cursor": cursor}), {"cursor"})


def _cursor(api: TestClient, path: str, **params: str) -> str:
    body = api.get(path, params={**params, "limit": 2}).json()
    cursor = body["next_cursor"]
    assert isinstance(cursor, str)
    return cursor


@pytest.mark.parametrize(
    ("issued_by", "used_on"),
    [
        (("/v1/signals", "published"), ("/v1/signals", "changed")),
        (("/v1/signals", "changed"), ("/v1/signals", "published")),
        (("/v1/entities", "signal_count"), ("/v1/entities", "first_seen")),
        (("/v1/entities", "trend"), ("/v1/entities", "signal_count")),
        (("/v1/signals", "published"), ("/v1/entities", "signal_count")),
        (("/v1/entities", "signal_count"), ("/v1/signals", "published")),
    ],
    ids=lambda pair: "{}:{}".format(*pair),
)
def test_s7_400_cursor_from_another_sort(
    api: TestClient, issued_by: tuple[str, str], used_on: tuple[str, str]
) -> None:
    """§4.3 cursor and `sort` must stay consistent across one pagination sequence;
    docs/design.md §9: a cursor from another sort → 400."""
    cursor = _cursor(api, issued_by[0], sort=issued_by[1])
    error = invalid(api.get(used_on[0], params={"sort": used_on[1], "cursor": cursor}), {"cursor"})
    assert "sort" in error["message"]


@pytest.fixture(scope="module")
def internal_keys(demo_snapshot: OpenedSnapshot) -> list[str]:
    """Internal prefix-encoded ids (`type:key`) of known entities, one per type."""
    table = demo_snapshot.read_table("entities").unique("type", keep="first", maintain_order=True)
    keys: list[str] = table.filter(pl.col("key").str.contains(":"))["key"].to_list()
    assert keys
    return keys


def test_s7_400_internal_prefix_encoded_entity_id_in_the_path(
    api: TestClient, internal_keys: list[str]
) -> None:
    """§4.6 / §7 400: an internal prefix-encoded entity ID in the entity path (raw or
    URL-encoded, known or not)."""
    for key in [*internal_keys, "organization:no-such-company"]:
        for path in (key, quote(key, safe="")):
            error = error_of(api.get(f"/v1/entities/{path}"), 400)
            assert error["code"] == "invalid_parameters", key
            assert spec.is_nonempty_str(error["field"]), error


# -- 404 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/v1/signals/sig_0000000000000000",
        "/v1/entities/ent:/no-such-entity",
        "/v1/entities/ent%3A%2Fno-such-entity",
        "/v1/entities/No%20Such%20Company%20Anywhere",
    ],
)
def test_s7_404_unknown_signal_or_entity(api: TestClient, path: str) -> None:
    """§4.4 / §4.6 / §7 404: unknown signal or entity, code `not_found`."""
    assert error_of(api.get(path), 404)["code"] == "not_found"


@pytest.mark.parametrize(
    ("axis", "label"),
    [
        ("value_chain", "No Such Theme"),
        ("market_force", "Infrastructure"),  # a label of the other axis
        ("market_force", "C&I"),  # shorthands are not served (§2.6)
        ("value_chain", "FM"),
    ],
)
def test_s7_404_unknown_theme_names_axis_and_label(api: TestClient, axis: str, label: str) -> None:
    """§4.9 unknown → 404, with a message naming `<axis>/<label>`."""
    error = error_of(api.get(f"/v1/themes/{axis}/{quote(label, safe='')}"), 404)
    assert error["code"] == "not_found"
    assert f"{axis}/{label}" in error["message"], error["message"]


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/v1/signals", {"entity": "No Such Company Anywhere"}),
        ("/v1/signals", {"entity": "ent:/no-such-entity"}),
        ("/v1/signals", {"theme": "No Such Theme"}),
        ("/v1/signals", {"theme": "C&I"}),
        ("/v1/signals", {"theme": "R&L"}),
        ("/v1/signals", {"theme": "T&L"}),
        ("/v1/signals", {"theme": "T&SI"}),
        ("/v1/signals", {"theme": "FM"}),
        ("/v1/search", {"q": "chips", "entity": "No Such Company Anywhere"}),
        ("/v1/search", {"q": "chips", "theme": "No Such Theme"}),
        ("/v1/entities", {"theme": "No Such Theme"}),
        ("/v1/entities/trending", {"mode": "hot", "theme": "No Such Theme"}),
    ],
)
def test_s7_404_unknown_entity_or_theme_filter_is_never_an_empty_list(
    api: TestClient, path: str, params: dict[str, str]
) -> None:
    """§7 404: unknown `entity` or `theme` filters give 404, never an empty list (§4.2, §4.3,
    §4.5; §2.6 shorthand labels are unknown labels)."""
    error = error_of(api.get(path, params=params), 404)
    assert error["code"] == "not_found"


def test_s7_404_unknown_similar_to_unit(api: TestClient) -> None:
    """§4.2 `similar_to` names a unit ID; an unknown one is a missing resource (404)."""
    response = api.get("/v1/search", params={"similar_to": "unit-that-does-not-exist"})
    assert error_of(response, 404)["code"] == "not_found"


@pytest.mark.parametrize("path", ["/v1/nothing-here", "/v2/signals", "/v1/signals/a/b"])
def test_s7_404_unknown_route(api: TestClient, path: str) -> None:
    """docs/design.md §9 `not_found` also for unknown routes, with the error body."""
    assert error_of(api.get(path), 404)["code"] == "not_found"


# -- 405 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/v1/signals"),
        ("PUT", "/v1/themes"),
        ("DELETE", "/v1/entities/some-entity"),
        ("POST", "/v1/health"),
        ("GET", "/v1/admin/refresh"),
    ],
)
def test_s7_405_method_not_allowed(api: TestClient, method: str, path: str) -> None:
    """docs/design.md §9 `method_not_allowed` 405, with the error body and an `Allow` header."""
    response = api.request(method, path)
    assert error_of(response, 405)["code"] == "method_not_allowed"
    assert response.headers["Allow"]


# -- 422 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "params", "loc"),
    [
        ("/v1/signals", {"limit": "ten"}, ("query", "limit")),
        ("/v1/signals", {"sort": "oldest"}, ("query", "sort")),
        ("/v1/signals", {"content_type": "opinion"}, ("query", "content_type")),
        ("/v1/signals", {"window": "7x"}, ("query", "window")),
        ("/v1/signals", {"published_after": "yesterday"}, ("query", "published_after")),
        ("/v1/search", {"q": "chips", "role": "opinion"}, ("query", "role")),
        ("/v1/search", {"q": ""}, ("query", "q")),
        ("/v1/search", {"q": "chips", "recency_boost": "high"}, ("query", "recency_boost")),
        ("/v1/entities", {"type": "company"}, ("query", "type")),
        ("/v1/entities", {"direction": "Up"}, ("query", "direction")),
        ("/v1/entities", {"sort": "name"}, ("query", "sort")),
        ("/v1/entities/trending", {}, ("query", "mode")),
        ("/v1/entities/trending", {"mode": "cold"}, ("query", "mode")),
        ("/v1/themes", {"axis": "supply"}, ("query", "axis")),
        ("/v1/themes/supply/Data", {}, ("path", "axis")),
    ],
)
def test_s7_422_body_is_detail_loc_msg_type(
    api: TestClient, path: str, params: dict[str, str], loc: tuple[str, ...]
) -> None:
    """§7 422 validation error: body `{detail: [{loc: [string|integer], msg, type, input?,
    ctx?}]}`; docs/design.md §9: type and range violations of a parameter."""
    validation_errors(api.get(path, params=params), loc)


def test_s7_422_lists_every_invalid_parameter(api: TestClient) -> None:
    """§7 422 `detail` is a list: one item per offending parameter."""
    response = api.get("/v1/signals", params={"limit": "0", "sort": "oldest"})
    detail = validation_errors(response, ("query", "limit"))
    assert {tuple(item["loc"]) for item in detail} == {("query", "limit"), ("query", "sort")}


# -- 503 ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def empty_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The API before any snapshot was published."""
    root = tmp_path_factory.mktemp("contract-empty")
    with TestClient(create_app(make_settings(root)), headers={"X-API-Key": API_KEY}) as client:
        yield client


@pytest.mark.parametrize("path", DATA_ENDPOINTS)
def test_s7_503_before_the_first_snapshot(empty_api: TestClient, path: str) -> None:
    """§7 503 temporarily unavailable, carrying `retry_after` (and `Retry-After`); docs/design.md §9
    `unavailable`: no snapshot loaded yet."""
    error = error_of(empty_api.get(path), 503)
    assert error["code"] == "unavailable"


def test_s7_503_health_still_answers(empty_api: TestClient) -> None:
    """§4.1 health answers while nothing is served (it reports it is not ready)."""
    response = empty_api.get("/v1/health")
    assert response.status_code == 200
    assert response.json()["status"] != "ok" and response.json()["version"] == spec.API_VERSION
