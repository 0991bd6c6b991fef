"""Hostile and odd input (issue 7): malformed cursors, huge or unusual Unicode, SQL-looking text
in ``keyword``, ``name`` and ``q``, and strange entity paths all get a clean answer: a 4xx with
the error body, or a 200 that treats the text literally. Never a 5xx."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

CLEAN = {200, 400, 404, 422}
SQL_LIKE = [
    "' OR 1=1 --",
    '"; DROP TABLE signals; --',
    "%' UNION SELECT * FROM units --",
    "1; SELECT pg_sleep(10)",
    "\\'; --",
    "*",
    "%",
    "_",
]
ODD = [
    "\u0000",
    "\ud7ff\ue000",
    "e\u0301",  # a combining accent
    "\u202eevil",  # right-to-left override
    "🤖🚀" * 50,
    "ａｂｃ",  # full-width letters
    "\t\n\r",
    "x" * 10_000,
]


def _assert_clean(response: Any) -> None:
    assert response.status_code in CLEAN, (response.status_code, response.text[:300])
    if response.status_code in (400, 404):
        assert response.json()["error"]["status"] == response.status_code
    if response.status_code == 422:
        assert isinstance(response.json()["detail"], list)


@pytest.mark.parametrize("text", SQL_LIKE + ODD)
def test_sql_like_and_odd_text_is_just_text(client: TestClient, text: str) -> None:
    everything = client.get("/v1/signals", params={"limit": 50}).json()["signals"]
    keyword = client.get("/v1/signals", params={"keyword": text, "limit": 50})
    _assert_clean(keyword)
    if keyword.status_code == 200 and text.strip("%_* ") == "":
        # wildcards of SQL LIKE are literal characters, not "match everything"
        assert len(keyword.json()["signals"]) < len(everything)
    _assert_clean(client.get("/v1/entities", params={"name": text}))
    _assert_clean(client.get("/v1/search", params={"q": text[:2000]}))
    _assert_clean(client.get("/v1/signals", params={"entity": text}))
    _assert_clean(client.get("/v1/search", params={"q": "chips", "theme": text}))


@pytest.mark.parametrize(
    "cursor",
    [
        "",
        "not-base64!!",
        "=" * 10,
        base64.urlsafe_b64encode(b"not json").decode(),
        base64.urlsafe_b64encode(b'{"v":1,"s":"published","k":["x","y"]}').decode(),
        base64.urlsafe_b64encode(
            b'{"v":1,"s":"published","k":[99999999999999999999999,"s"]}'
        ).decode(),
        base64.urlsafe_b64encode(b'{"v":2,"s":"published","k":[1,"s"]}').decode(),
        base64.urlsafe_b64encode(b'{"v":1,"s":"changed","k":[1]}').decode(),  # another sort
        base64.urlsafe_b64encode(b"[]").decode(),
        "A" * 5000,
        "🤖",
    ],
)
def test_malformed_cursors_are_400(client: TestClient, cursor: str) -> None:
    for path in ("/v1/signals", "/v1/entities"):
        response = client.get(path, params={"cursor": cursor})
        if cursor == "":
            _assert_clean(response)
            continue
        assert response.status_code == 400, (path, cursor, response.text)
        assert response.json()["error"]["field"] == "cursor"


@pytest.mark.parametrize(
    "path",
    [
        "/v1/entities/%00",
        "/v1/entities/%F0%9F%A4%96",
        "/v1/entities/..%2F..%2Fetc%2Fpasswd",
        "/v1/entities/ent:%2F" + "z" * 3000,
        "/v1/entities/org:openai",
        "/v1/signals/%27%20OR%201%3D1",
        "/v1/themes/value_chain/%00",
        "/v1/search?q=%00&similar_to=%00",
    ],
)
def test_odd_paths_are_clean(client: TestClient, path: str) -> None:
    _assert_clean(client.get(path))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(min_size=1, max_size=300))
def test_any_text_in_any_text_parameter_is_clean(client: TestClient, text: str) -> None:
    for path, name in (
        ("/v1/signals", "keyword"),
        ("/v1/entities", "name"),
        ("/v1/search", "q"),
        ("/v1/signals", "cursor"),
    ):
        _assert_clean(client.get(path, params={name: text}))
