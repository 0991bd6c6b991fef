"""``/v1/signals`` and ``/v1/signals/{id}`` over the shared snapshot: shapes, keyset paging,
filters and the parameters that are refused in this build."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import orjson
import polars as pl
import pytest
from fastapi.testclient import TestClient

from readmodel.models import SignalCard, SignalDetail, SignalList
from tests.serving.conftest import AS_OF, Corpus


def served_order(frame: pl.DataFrame) -> list[str]:
    """The reference order: (published_at, signal_id) descending, computed independently."""
    rows = sorted(
        zip(frame["published_at"].to_list(), frame["signal_id"].to_list(), strict=True),
        reverse=True,
    )
    return [signal_id for _, signal_id in rows]


def page_through(client: TestClient, query: str, limit: int) -> list[dict[str, Any]]:
    cards: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(100):
        params = f"{query}&limit={limit}" + (f"&cursor={cursor}" if cursor else "")
        response = client.get(f"/v1/signals?{params}")
        assert response.status_code == 200, response.text
        body = SignalList.model_validate_json(response.content)
        assert len(body.signals) <= limit
        cards.extend(response.json()["signals"])
        if not body.has_more:
            assert body.next_cursor is None
            return cards
        assert body.next_cursor is not None and len(body.signals) == limit
        cursor = body.next_cursor
    raise AssertionError("paging did not end")


def assert_round_trips(model: type[SignalCard | SignalDetail], raw: dict[str, Any]) -> None:
    """The JSON is exactly what the model describes: no unknown fields, no nulls for absent."""
    parsed = model.model_validate(raw)
    assert parsed.model_dump(mode="json", exclude_unset=True) == raw


def test_listing_shape_and_default_page(client: TestClient, corpus: Corpus) -> None:
    response = client.get("/v1/signals")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert "Deprecation" not in response.headers
    raw = response.json()
    assert list(raw) == ["signals", "has_more", "next_cursor"]
    body = SignalList.model_validate_json(response.content)
    assert len(body.signals) == 20 and body.has_more is False and body.next_cursor is None
    for card in raw["signals"]:
        assert_round_trips(SignalCard, card)
        central = "synopsis" if card["content_type"] == "event" else "thesis"
        other = "thesis" if central == "synopsis" else "synopsis"
        assert card[central] and other not in card
    assert [c["signal_id"] for c in raw["signals"]] == served_order(corpus.served)


@pytest.mark.parametrize("limit", [1, 3, 7])
def test_paging_yields_every_signal_once_in_keyset_order(
    client: TestClient, corpus: Corpus, limit: int
) -> None:
    cards = page_through(client, "sort=published", limit=limit)
    ids = [c["signal_id"] for c in cards]
    assert ids == served_order(corpus.served)
    assert len(set(ids)) == len(ids) == corpus.served.height
    keys = [(c["published_at"], c["signal_id"]) for c in cards]
    assert keys == sorted(keys, reverse=True)
    # The tie: two signals share a timestamp and are ordered by signal_id descending.
    stamps = [c["published_at"] for c in cards]
    tied = [i for i in range(len(stamps) - 1) if stamps[i] == stamps[i + 1]]
    assert tied, "the corpus should contain a published_at tie"


def test_limit_bounds(client: TestClient) -> None:
    assert len(client.get("/v1/signals?limit=1").json()["signals"]) == 1
    assert client.get("/v1/signals?limit=50").status_code == 200
    assert client.get("/v1/signals?limit=0").status_code == 422
    assert client.get("/v1/signals?limit=51").status_code == 422


@pytest.mark.parametrize(
    "cursor",
    [
        "garbage!",
        "e30",
        "bm90IGpzb24",
        "W10",
        "eyJ2IjoyLCJzIjoicHVibGlzaGVkIiwiayI6WzEsImEiXX0",
        "x" * 600,
    ],
)
def test_malformed_cursor_is_400(client: TestClient, cursor: str) -> None:
    response = client.get("/v1/signals", params={"cursor": cursor})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_parameters" and error["field"] == "cursor"


def test_content_type_filter(client: TestClient, corpus: Corpus) -> None:
    for content_type in ("analysis", "event"):
        cards = page_through(client, f"content_type={content_type}", limit=4)
        expected = served_order(corpus.served.filter(pl.col("content_type") == content_type))
        assert expected and [c["signal_id"] for c in cards] == expected
        assert {c["content_type"] for c in cards} == {content_type}


def _ids_between(corpus: Corpus, lower: datetime | None, upper: datetime | None) -> list[str]:
    frame = corpus.served
    if lower is not None:
        frame = frame.filter(pl.col("published_at") >= lower)
    if upper is not None:
        frame = frame.filter(pl.col("published_at") < upper)
    return served_order(frame)


def test_published_bounds_are_inclusive_then_exclusive(client: TestClient, corpus: Corpus) -> None:
    stamps = sorted(set(corpus.served["published_at"].to_list()))
    lower, upper = stamps[3], stamps[9]
    cards = page_through(
        client,
        f"published_after={lower:%Y-%m-%dT%H:%M:%SZ}&published_before={upper:%Y-%m-%dT%H:%M:%S}",
        limit=2,
    )
    ids = [c["signal_id"] for c in cards]
    assert ids == _ids_between(corpus, lower, upper)
    assert f"{lower:%Y-%m-%dT%H:%M:%SZ}" in {c["published_at"] for c in cards}
    assert f"{upper:%Y-%m-%dT%H:%M:%SZ}" not in {c["published_at"] for c in cards}
    # An offset is honoured (sent encoded: a raw "+" in a query string reads as a space).
    shifted = client.get(
        "/v1/signals", params={"published_after": f"{lower:%Y-%m-%dT%H:%M:%S}-01:00"}
    )
    expected = _ids_between(corpus, lower + timedelta(hours=1), None)
    assert expected != _ids_between(corpus, lower, None)
    assert [c["signal_id"] for c in shifted.json()["signals"]] == expected
    # A date-time without offset is UTC (published_before above); a bare date is midnight UTC.
    day = client.get("/v1/signals?published_before=2026-03-10&limit=50").json()["signals"]
    assert [c["signal_id"] for c in day] == _ids_between(
        corpus, None, datetime.fromisoformat("2026-03-10T00:00:00+00:00")
    )


@pytest.mark.parametrize(("window", "days"), [("7d", 7), ("2w", 14), ("1m", 30)])
def test_window_counts_back_from_the_snapshot_as_of(
    client: TestClient, corpus: Corpus, window: str, days: int
) -> None:
    cards = page_through(client, f"window={window}", limit=5)
    expected = _ids_between(corpus, AS_OF - timedelta(days=days), None)
    assert 0 < len(expected) < corpus.served.height
    assert [c["signal_id"] for c in cards] == expected


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("window=7d&published_after=2026-03-01", "window"),
        ("published_after=2026-04-01&published_before=2026-03-01", "published_after"),
        ("window=1w&published_before=2026-03-01", "window"),
    ],
)
def test_parameters_that_cannot_be_answered_are_400(
    client: TestClient, query: str, field: str
) -> None:
    response = client.get(f"/v1/signals?{query}")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_parameters" and error["field"] == field
    assert error["status"] == 400 and error["request_id"] == response.headers["X-Request-Id"]
    if field in ("sort", "entity", "theme", "keyword"):
        assert "not available in this build" in error["message"]


def test_deprecated_q_is_ignored_with_headers(client: TestClient) -> None:
    plain = client.get("/v1/signals?limit=5")
    with_q = client.get("/v1/signals?limit=5&q=chips")
    assert with_q.status_code == 200
    assert with_q.content == plain.content
    assert with_q.headers["Deprecation"] == "true"
    assert with_q.headers["Link"] == '</v1/changelog>; rel="deprecation"'


def test_detail_matches_its_card(client: TestClient) -> None:
    cards = client.get("/v1/signals?limit=50").json()["signals"]
    assert cards
    for card in cards:
        response = client.get(f"/v1/signals/{card['signal_id']}")
        assert response.status_code == 200
        detail = response.json()
        assert_round_trips(SignalDetail, detail)
        central_key = "synopsis" if card["content_type"] == "event" else "thesis"
        expected_keys = (set(card) - {"thesis", "synopsis"}) | {"units"}
        assert set(detail) == expected_keys
        assert {k: detail[k] for k in card if k != central_key} == {
            k: v for k, v in card.items() if k != central_key
        }
        units = detail["units"]
        assert detail["verified_unit_count"] == len(units)
        assert units[0]["role"] == central_key and units[0]["text"] == card[central_key]
        roles = [u["role"] for u in units]
        assert roles == sorted(roles, key=["thesis", "synopsis", "argument", "claim"].index)
        if card["content_type"] == "event":
            assert "argument" not in roles
        for unit in units:
            snippets = unit["evidence_preview"]["snippets"]
            assert snippets and all(len(s["text"]) <= 50 for s in snippets)


def test_detail_bytes_are_the_snapshot_bytes(client: TestClient, corpus: Corpus) -> None:
    row = corpus.served.row(0, named=True)
    response = client.get(f"/v1/signals/{row['signal_id']}")
    assert response.content == row["detail_json"]
    assert orjson.loads(response.content)["signal_id"] == row["signal_id"]


def test_unknown_signal_is_404(client: TestClient) -> None:
    response = client.get("/v1/signals/sig_doesnotexist")
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["code"] == "not_found"
    assert error["message"] == "signal 'sig_doesnotexist' not found"
