"""§4 Endpoints: each route's body and each parameter's rule, on the demo snapshot. The change
feed (§4.3 `sort=changed`) and pagination (§4.11) have modules of their own; errors are §7."""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from tests.contract import spec
from tests.contract.helpers import (
    Json,
    assert_shape,
    entity_ids,
    iso,
    parse_time,
    signal_ids,
    walk,
)
from warehouse.snapshot import OpenedSnapshot


def listed(api: TestClient, **params: Any) -> list[str]:
    """Every signal id ``/v1/signals`` lists for ``params``, in order."""
    return signal_ids(walk(api, "/v1/signals", "signals", limit=50, **params))


def searched(api: TestClient, **params: Any) -> list[Json]:
    response = api.get("/v1/search", params=params)
    assert response.status_code == 200, response.text
    hits: list[Json] = response.json()["results"]
    return hits


@pytest.fixture(scope="module")
def busy_entity(all_entities: list[Json]) -> Json:
    """A reviewed entity with many signals (it is in the default list)."""
    return max(all_entities, key=lambda e: (e["signal_count"], e["entity_id"]))


# §4.1


def test_s4_1_health_body(bare: TestClient) -> None:
    """§4.1 `GET /v1/health`: 200 body `{status: string, version: string}`."""
    response = bare.get("/v1/health")
    assert response.status_code == 200
    body = response.json()
    assert spec.is_nonempty_str(body["status"]) and spec.is_nonempty_str(body["version"])
    assert set(body) <= {"status", "version", "snapshot"}  # docs/design.md §9 adds snapshot


# §4.2


def test_s4_2_role_and_content_type_filters_are_orthogonal(
    api: TestClient, details: dict[str, Json]
) -> None:
    """§4.2 `role` and `content_type` filters; `content_type` is orthogonal to `role`."""
    for role, content_type in [("claim", "event"), ("claim", "analysis"), ("argument", None)]:
        params: Json = {"q": "funding round for AI chips", "role": role, "limit": 20}
        if content_type is not None:
            params["content_type"] = content_type
        hits = searched(api, **params)
        assert hits, params
        for hit in hits:
            assert hit["unit"]["role"] == role
            detail = details[hit["citation"]["signal_id"]]
            assert content_type is None or detail["content_type"] == content_type


def test_s4_2_entity_filter_takes_an_id_or_a_display_name_in_any_case(
    api: TestClient, busy_entity: Json
) -> None:
    """§4.2 `entity`: public entity ID or exact display name (case-insensitive); only units
    naming it."""
    query = {"q": "growth and competition", "limit": 20}
    by_id = searched(api, entity=busy_entity["entity_id"], **query)
    assert by_id
    assert searched(api, entity=busy_entity["name"], **query) == by_id
    assert searched(api, entity=busy_entity["name"].upper(), **query) == by_id
    assert searched(api, entity=busy_entity["name"].lower(), **query) == by_id
    assert all(hit["unit"].get("entities") for hit in by_id)


def test_s4_2_theme_and_date_filters(api: TestClient, details: dict[str, Json]) -> None:
    """§4.2 `theme` (a theme label), `published_after` / `published_before` (ISO dates)."""
    hits = searched(api, q="regulation of AI models", theme="Regulatory & Legal", limit=30)
    assert hits
    for hit in hits:
        assert (
            "Regulatory & Legal" in details[hit["citation"]["signal_id"]]["themes"]["market_force"]
        )
    after, before = "2026-08-01", "2026-09-01"
    hits = searched(api, q="new data centers", published_after=after, published_before=before)
    assert hits
    for hit in hits:
        moment = parse_time(hit["citation"]["published_at"])
        assert parse_time(after + "T00:00:00Z") <= moment <= parse_time(before + "T00:00:00Z")


@pytest.mark.parametrize(("window", "days"), [("14d", 14), ("2w", 14), ("1m", 30)])
def test_s4_2_window_is_published_after_now_minus_window(
    api: TestClient, as_of: datetime, window: str, days: int
) -> None:
    """§4.2 `window`: d = days, w = weeks, m = 30-day months; equivalent to
    `published_after = now - window` (now: the snapshot's as_of)."""
    after = iso(as_of - timedelta(days=days))
    query = {"q": "quarterly revenue growth", "limit": 50}
    with_window = searched(api, window=window, **query)
    assert with_window == searched(api, published_after=after, **query)
    assert all(parse_time(h["citation"]["published_at"]) >= parse_time(after) for h in with_window)


# §4.3 (sort=published; the change feed is in test_s4_3_change_feed.py)


def test_s4_3_without_filters_the_most_recent_signals_come_first(cards: list[Json]) -> None:
    """§4.3 with no filters it returns the most recent signals; `sort=published`: newest
    published first."""
    stamps = [parse_time(card["published_at"]) for card in cards]
    assert stamps == sorted(stamps, reverse=True)


def test_s4_3_sort_published_is_the_default(api: TestClient) -> None:
    """§4.3 `sort` default `published`."""
    assert api.get("/v1/signals").json() == api.get("/v1/signals?sort=published").json()


def test_s4_3_entity_filter_by_id_or_name(
    api: TestClient, cards: list[Json], busy_entity: Json
) -> None:
    """§4.3 `entity`: ID or exact name, as in search."""
    by_id = listed(api, entity=busy_entity["entity_id"])
    assert by_id == listed(api, entity=busy_entity["name"].swapcase())
    mentioning = {
        c["signal_id"] for c in cards if busy_entity["entity_id"] in entity_ids(c["entities"])
    }
    assert mentioning and mentioning <= set(by_id)


@pytest.fixture(scope="module")
def aliases(demo_snapshot: OpenedSnapshot) -> list[tuple[str, str]]:
    """(alias, entity_id) for aliases of mentioned entities that name nothing else."""
    table = demo_snapshot.read_table("entities")
    names = Counter(name.casefold() for name in table["name"].to_list())
    rows = table.select("entity_id", "aliases").iter_rows()
    pairs = [(a["text"], entity_id) for entity_id, found in rows for a in found or []]
    forms = Counter(text.casefold() for text, _ in pairs)
    return [(t, e) for t, e in pairs if forms[t.casefold()] == 1 and not names[t.casefold()]]


def test_s4_3_entity_filter_is_alias_aware(
    api: TestClient, aliases: list[tuple[str, str]], all_entities: list[Json]
) -> None:
    """§4.2 / §4.3 `entity`: ID or exact name, family-level and alias-aware (search and the
    signal list alike)."""
    mentioned = {e["entity_id"] for e in all_entities if e["signal_count"] >= 3}
    checked = 0
    for alias, entity_id in aliases:
        if entity_id not in mentioned or checked == 5:
            continue
        checked += 1
        assert listed(api, entity=alias) == listed(api, entity=entity_id), alias
        query = {"q": alias, "limit": 10}
        assert searched(api, entity=alias, **query) == searched(api, entity=entity_id, **query)
    assert checked, "the demo registry has aliases"


@pytest.mark.parametrize("label", ["Foundation Models", "Capital & Investment"])
def test_s4_3_theme_filter(api: TestClient, cards: list[Json], label: str) -> None:
    """§4.3 `theme`: the signals carrying the label, newest first."""
    expected = [
        c["signal_id"]
        for c in cards
        if label in c["themes"]["value_chain"] or label in c["themes"]["market_force"]
    ]
    assert expected and listed(api, theme=label) == expected


@pytest.mark.parametrize("content_type", spec.CONTENT_TYPES)
def test_s4_3_content_type_filter(api: TestClient, cards: list[Json], content_type: str) -> None:
    """§4.3 `content_type`: `analysis`, `event`."""
    expected = [c["signal_id"] for c in cards if c["content_type"] == content_type]
    assert expected and listed(api, content_type=content_type) == expected


def test_s4_3_keyword_is_a_literal_term_on_title_and_decomposition(
    api: TestClient, cards: list[Json], details: dict[str, Json]
) -> None:
    """§4.3 `keyword`: literal, exact-term filter on title and decomposition text, not
    relevance-ranked (newest first)."""
    term = "inference"
    texts = {
        c["signal_id"]: "\n".join(
            [c["title"], *(u["text"] for u in details[c["signal_id"]]["units"])]
        )
        for c in cards
    }
    found = listed(api, keyword=term)
    whole_word = {s for s, text in texts.items() if re.search(rf"\b{term}\b", text, re.I)}
    substring = {s for s, text in texts.items() if term in text.lower()}
    assert whole_word and whole_word <= set(found) <= substring
    assert found == [c["signal_id"] for c in cards if c["signal_id"] in set(found)]


def test_s4_3_published_bounds(api: TestClient, cards: list[Json]) -> None:
    """§4.3 `published_after`, `published_before`: ISO 8601 dates bounding `published_at`."""
    low, high = parse_time("2026-07-01T00:00:00Z"), parse_time("2026-08-15T00:00:00Z")
    found = set(listed(api, published_after="2026-07-01", published_before="2026-08-15"))
    stamps = {c["signal_id"]: parse_time(c["published_at"]) for c in cards}
    assert found
    assert {s for s, t in stamps.items() if low < t < high} <= found
    assert found <= {s for s, t in stamps.items() if low <= t <= high}


@pytest.mark.parametrize(("window", "days"), [("7d", 7), ("2w", 14), ("1m", 30)])
def test_s4_3_window(api: TestClient, as_of: datetime, window: str, days: int) -> None:
    """§4.3 `window`: as in search (`published_after = now - window`)."""
    found = listed(api, window=window)
    assert found and found == listed(api, published_after=iso(as_of - timedelta(days=days)))


# §4.5


def test_s4_5_sorts_list_the_same_entities(api: TestClient) -> None:
    """§4.5 `sort`: `signal_count` (the default), `first_seen`, `trend`: the same list in
    another order."""
    default = walk(api, "/v1/entities", "entities", limit=50)
    assert default == walk(api, "/v1/entities", "entities", limit=50, sort="signal_count")
    for sort in ("first_seen", "trend"):
        other = entity_ids(walk(api, "/v1/entities", "entities", limit=50, sort=sort))
        assert sorted(other) == sorted(entity_ids(default)), sort


@pytest.mark.parametrize("min_signals", [1, 2, 5, 8])
def test_s4_5_min_signals_is_a_minimum_signal_count(
    api: TestClient, all_entities: list[Json], min_signals: int
) -> None:
    """§4.5 `min_signals`: minimum `signal_count` to include; 1 includes single-signal
    entities."""
    found = walk(api, "/v1/entities", "entities", limit=50, min_signals=min_signals)
    assert found and all(e["signal_count"] >= min_signals for e in found)
    if min_signals == 1:
        assert any(e["signal_count"] == 1 for e in found)
        assert found == all_entities


def test_s4_5_type_name_theme_and_label_filters(api: TestClient, all_entities: list[Json]) -> None:
    """§4.5 `type` (the 8 types), `name` (case-insensitive substring), `theme`, `direction`,
    `confidence`, `stability`, `scale`, `notability`: each keeps the entities whose field
    matches."""

    def entities(**params: Any) -> list[Json]:
        return walk(api, "/v1/entities", "entities", limit=50, min_signals=1, **params)

    for entity_type in spec.ENTITY_TYPES:
        assert entities(type=entity_type) == [e for e in all_entities if e["type"] == entity_type]
    fragment = next(e["name"][1:4] for e in all_entities if e["name"][1:4].isalnum())
    expected = [e for e in all_entities if fragment.casefold() in e["name"].casefold()]
    assert expected and entities(name=fragment.upper()) == expected
    themed = entities(theme="Foundation Models")
    assert themed and themed == [
        e for e in all_entities if e["value_chain_distribution"].get("Foundation Models", 0) > 0
    ]
    for field, values in [
        ("direction", spec.DIRECTIONS),
        ("confidence", spec.CONFIDENCES),
        ("stability", spec.STABILITIES),
        ("scale", spec.SCALES),
        ("notability", spec.NOTABILITIES),
    ]:
        for value in values:
            found = entities(**{field: value})
            assert found == [e for e in all_entities if e[field] == value], (field, value)


# §4.6


def test_s4_6_profile_by_public_id_encoded_id_or_display_name(
    api: TestClient, busy_entity: Json
) -> None:
    """§4.6 path: a public entity ID or a URL-encoded display name."""
    entity_id, name = busy_entity["entity_id"], busy_entity["name"]
    raw = api.get(f"/v1/entities/{entity_id}")
    assert raw.status_code == 200, raw.text
    assert raw.json()["entity_id"] == entity_id
    for path in (quote(entity_id, safe=""), quote(name, safe="")):
        assert api.get(f"/v1/entities/{path}").json() == raw.json(), path


def test_s4_6_profile_resolves_whatever_the_signal_count(
    api: TestClient, all_entities: list[Json]
) -> None:
    """§4.6 resolves any known ID or name regardless of `signal_count` (also those the
    default list leaves out)."""
    default = set(entity_ids(walk(api, "/v1/entities", "entities", limit=50)))
    outside = [e for e in all_entities if e["entity_id"] not in default][:10]
    assert outside
    for entity in outside:
        response = api.get(f"/v1/entities/{quote(entity['entity_id'], safe='')}")
        assert response.status_code == 200, response.text
        assert response.json()["signal_count"] == entity["signal_count"]


# §4.7


@pytest.mark.parametrize("mode", ["rising", "hot", "consistent", "new"])
def test_s4_7_trending_body_and_items(api: TestClient, mode: str) -> None:
    """§4.7 `GET /v1/entities/trending`: `{data: [item]}` with the item fields of its own
    reference page."""
    response = api.get("/v1/entities/trending", params={"mode": mode, "limit": 50})
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"data"}
    assert body["data"], mode
    for item in body["data"]:
        assert_shape(spec.TRENDING_ITEM, item)
    assert len({item["entity_id"] for item in body["data"]}) == len(body["data"])


@pytest.mark.parametrize("type_primary", ["Organization", "Person", "Product"])
def test_s4_7_type_primary_filter(api: TestClient, type_primary: str) -> None:
    """§4.7 `type_primary`: listed as `Organization`, `Person`, `Product`."""
    response = api.get(
        "/v1/entities/trending", params={"mode": "hot", "type_primary": type_primary}
    )
    assert response.status_code == 200, response.text
    assert all(item["type_primary"] == type_primary for item in response.json()["data"])


# §4.8, §4.9


@pytest.mark.parametrize("axis", spec.AXES)
def test_s4_8_axis_filter(api: TestClient, themes: list[Json], axis: str) -> None:
    """§4.8 optional `axis`: `value_chain` or `market_force`; not paginated."""
    body = api.get("/v1/themes", params={"axis": axis}).json()
    assert set(body) == {"themes"}
    assert body["themes"] == [t for t in themes if t["axis"] == axis]


def test_s4_9_label_is_url_encoded(api: TestClient) -> None:
    """§4.9 `label` is a URL-encoded theme label."""
    response = api.get("/v1/themes/market_force/Capital%20%26%20Investment")
    assert response.status_code == 200, response.text
    assert (response.json()["axis"], response.json()["label"]) == (
        "market_force",
        "Capital & Investment",
    )
