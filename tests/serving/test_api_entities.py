"""``/v1/entities``, ``/v1/entities/{name_or_id}``, ``/v1/entities/trending`` and ``/v1/themes``
over the snapshot the pipeline built from the demo corpus (docs/api.md §4.5–4.9, docs/design.md §7,
§9)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import polars as pl
import pytest
from fastapi.testclient import TestClient

from analytics.themes import THEME_LABELS
from readmodel.models import (
    EntityList,
    EntityProfileDetail,
    ThemeDetail,
    ThemeList,
    TrendingList,
)
from tests.test_end_to_end import client_for
from warehouse.paths import DataDir
from warehouse.snapshot import OpenedSnapshot


@pytest.fixture(scope="module")
def api(demo_data_dir: DataDir) -> Iterator[TestClient]:
    yield from client_for(demo_data_dir)


@pytest.fixture(scope="module")
def table(demo_snapshot: OpenedSnapshot) -> pl.DataFrame:
    return demo_snapshot.read_table("entity_profiles")


@pytest.fixture(scope="module")
def truth(demo_data_dir: DataDir) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(
        (demo_data_dir.inbox / "demo" / "ground_truth.json").read_text()
    )
    return loaded


def entities(api: TestClient, limit: int = 50, **params: Any) -> list[dict[str, Any]]:
    """Every profile of a listing, paged through with the cursor."""
    found: list[dict[str, Any]] = []
    cursor = None
    while True:
        query = {**params, "limit": limit, **({"cursor": cursor} if cursor else {})}
        response = api.get("/v1/entities", params=query)
        assert response.status_code == 200, response.text
        body = response.json()
        EntityList.model_validate(body)
        found += body["entities"]
        cursor = body["next_cursor"]
        if not body["has_more"]:
            assert cursor is None
            return found


def error(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    detail: dict[str, Any] = response.json()["error"]
    assert detail["status"] == status
    return detail


def test_default_list_is_the_reviewed_set_with_two_signals(
    api: TestClient, table: pl.DataFrame
) -> None:
    listed = entities(api)
    expected = table.filter(pl.col("reviewed") & (pl.col("signal_count") >= 2))
    assert {e["entity_id"] for e in listed} == set(expected["entity_id"])
    assert len(listed) == len({e["entity_id"] for e in listed}) == expected.height > 50
    assert all("related_entities" not in e for e in listed)
    everything = entities(api, min_signals=1)
    assert len(everything) == table.filter(pl.col("signal_count") >= 1).height > len(listed)
    few = entities(api, min_signals=20)
    assert few and all(e["signal_count"] >= 20 for e in few)


@pytest.mark.parametrize(
    ("sort", "key"),
    [
        ("signal_count", lambda e: (-e["signal_count"], e["entity_id"])),
        ("first_seen", lambda e: ("".join(chr(0x10FFFF - ord(c)) for c in e["first_seen"]),)),
        ("trend", lambda e: (-e["trend"]["share_of_voice"], e["entity_id"])),
    ],
)
def test_sorts_and_keyset_pages_agree_with_one_big_page(
    api: TestClient, sort: str, key: Any
) -> None:
    small_pages = entities(api, limit=7, sort=sort)
    big_pages = entities(api, limit=50, sort=sort)
    assert [e["entity_id"] for e in small_pages] == [e["entity_id"] for e in big_pages]
    if sort == "first_seen":  # newest first; equal times fall back to entity_id ascending
        pairs = [(e["first_seen"], e["entity_id"]) for e in small_pages]
        assert all(
            a[0] > b[0] or (a[0] == b[0] and a[1] < b[1])
            for a, b in zip(pairs, pairs[1:], strict=False)
        )
    else:
        assert small_pages == sorted(small_pages, key=key)


def test_filters_match_the_fields_they_name(api: TestClient) -> None:
    everything = entities(api, min_signals=1)
    for field, value in [
        ("direction", "Rising"),
        ("confidence", "Significant"),
        ("stability", "Steady"),
        ("scale", "Large"),
        ("notability", "High"),
    ]:
        params: dict[str, Any] = {"min_signals": 1, field: value}
        found = entities(api, **params)
        assert found, (field, value)
        assert found == [e for e in everything if e[field] == value]
    organizations = entities(api, min_signals=1, type="organization")
    assert organizations == [e for e in everything if e["type"] == "organization"]
    named = entities(api, min_signals=1, name="  cEREB ")
    assert named and named == [e for e in everything if "cereb" in e["name"].lower()]
    themed = entities(api, min_signals=1, theme="regulatory & legal")
    assert themed == [
        e for e in everything if e["market_force_distribution"]["Regulatory & Legal"] > 0
    ]
    assert 0 < len(themed) < len(everything)


def test_list_errors(api: TestClient) -> None:
    detail = error(api.get("/v1/entities", params={"theme": "C&I"}), 404)
    assert "Capital & Investment" in detail["message"] and detail["field"] == "theme"
    assert error(api.get("/v1/entities", params={"cursor": "nonsense"}), 400)["field"] == "cursor"
    first = api.get("/v1/entities", params={"limit": 2}).json()
    other_sort = api.get("/v1/entities", params={"sort": "trend", "cursor": first["next_cursor"]})
    assert "sort" in error(other_sort, 400)["message"]
    assert error(api.get("/v1/entities", params={"name": "   "}), 400)["field"] == "name"
    for bad in ({"min_signals": 0}, {"limit": 51}, {"type": "company"}, {"sort": "name"}):
        response = api.get("/v1/entities", params=bad)
        assert response.status_code == 422, (bad, response.text)
        assert "detail" in response.json()


def test_q_is_ignored_and_flagged_deprecated(api: TestClient) -> None:
    plain = api.get("/v1/entities", params={"limit": 5})
    with_q = api.get("/v1/entities", params={"limit": 5, "q": "openai"})
    assert with_q.json() == plain.json()
    assert with_q.headers["Deprecation"] == "true"
    assert "Deprecation" not in plain.headers


def test_profile_by_id_name_and_encodings(api: TestClient, table: pl.DataFrame) -> None:
    row = table.filter(pl.col("name") == "Cerebras").row(0, named=True)
    entity_id = row["entity_id"]
    raw = api.get(f"/v1/entities/{entity_id}")
    assert raw.status_code == 200, raw.text
    profile = EntityProfileDetail.model_validate(raw.json())
    assert profile.entity_id == entity_id and profile.name == "Cerebras"
    assert api.get(f"/v1/entities/{quote(entity_id, safe='')}").json() == raw.json()
    assert api.get("/v1/entities/cerebras").json() == raw.json()
    related = raw.json()["related_entities"]
    assert 0 < len(related) <= 25
    counts = [(-r["co_occurrence_count"], r["entity_id"]) for r in related]
    assert counts == sorted(counts)
    spaced = table.filter(pl.col("name").str.contains(" ") & (pl.col("signal_count") > 0))
    name = spaced["name"][0]
    by_name = api.get(f"/v1/entities/{quote(name, safe='')}")
    assert by_name.status_code == 200 and by_name.json()["name"] == name


def test_profile_errors(api: TestClient, table: pl.DataFrame) -> None:
    detail = error(api.get("/v1/entities/organization:cerebras"), 400)
    assert "internal id" in detail["message"]
    public = table.filter(pl.col("name") == "Cerebras")["entity_id"].item()
    assert public in detail["message"]
    assert error(api.get(f"/v1/entities/{quote('organization:cerebras', safe='')}"), 400)
    assert "not found" in error(api.get("/v1/entities/No Such Company Inc"), 404)["message"]
    assert error(api.get("/v1/entities/ent:/nothere00"), 404)


def test_entity_without_signals_resolves(api: TestClient, table: pl.DataFrame) -> None:
    unseen = table.filter(pl.col("signal_count") == 0)["entity_id"][0]
    body = api.get(f"/v1/entities/{unseen}").json()
    assert body["signal_count"] == 0 and body["first_seen"] is None
    assert body["direction"] is None and body["related_entities"] == []


def test_planted_ground_truth_through_the_api(api: TestClient, truth: dict[str, Any]) -> None:
    expected = {"rising": "Rising", "declining": "Declining", "new": "New", "steady": "Stable"}
    for group, direction in expected.items():
        for name in truth["entities"][group]:
            body = api.get(f"/v1/entities/{quote(name, safe='')}").json()
            assert body["direction"] == direction, (name, body["direction"])
    rising = entities(api, direction="Rising")
    assert set(truth["entities"]["rising"]) <= {e["name"] for e in rising}


def trending(api: TestClient, **params: Any) -> list[dict[str, Any]]:
    response = api.get("/v1/entities/trending", params=params)
    assert response.status_code == 200, response.text
    TrendingList.model_validate(response.json())
    data: list[dict[str, Any]] = response.json()["data"]
    return data


def test_trending_modes_follow_their_rules(api: TestClient, truth: dict[str, Any]) -> None:
    rising = trending(api, mode="rising", limit=50)
    assert rising
    for item in rising:
        assert item["trend"]["current_week"] >= 2
        assert item["signal_count"] >= 2 and len(item["trend"]["share_of_voice_history"]) == 12
        # the direction label's rule: a rising entity is never labelled Declining or Stable
        profile = api.get(f"/v1/entities/{quote(item['entity_id'], safe='')}").json()
        assert profile["direction"] in ("Rising", "New", None), item["display_name"]
    z = [item["trend"]["z_score"] for item in rising]
    assert z == sorted(z, reverse=True)
    assert set(truth["entities"]["rising"]) & {item["display_name"] for item in rising[:10]}
    hot = trending(api, mode="hot")
    assert len(hot) == 25 and all(item["trend"]["current_week"] >= 1 for item in hot)
    weeks = [item["trend"]["current_week"] for item in hot]
    assert weeks == sorted(weeks, reverse=True)
    consistent = trending(api, mode="consistent", limit=10)
    assert all(item["trend"]["persistence"] >= 0.75 for item in consistent)
    new = trending(api, mode="new", limit=50)
    assert set(truth["entities"]["new"]) <= {item["display_name"] for item in new}
    assert set(hot[0]) == {
        "entity_id",
        "display_name",
        "type_primary",
        "signal_count",
        "first_seen",
        "last_seen",
        "trend",
        "content_type_mix",
        "value_chain_distribution",
        "market_force_distribution",
    }


def test_trending_filters_and_errors(api: TestClient) -> None:
    everything = trending(api, mode="hot", limit=50)
    companies = trending(api, mode="hot", type_primary="Organization", limit=50)
    assert companies and all(item["type_primary"] == "Organization" for item in companies)
    # the filtered list keeps the mode's order: the organizations of the unfiltered top 50
    # are its first entries
    in_top = [item for item in everything if item["type_primary"] == "Organization"]
    assert in_top and companies[: len(in_top)] == in_top
    themed = trending(api, mode="hot", theme="Semiconductors & Hardware", limit=50)
    assert themed and all(
        item["value_chain_distribution"]["Semiconductors & Hardware"] > 0 for item in themed
    )
    assert len(trending(api, mode="hot", limit=3)) == 3
    assert api.get("/v1/entities/trending").status_code == 422  # mode required, not a name
    assert api.get("/v1/entities/trending", params={"mode": "cold"}).status_code == 422
    assert api.get("/v1/entities/trending", params={"mode": "hot", "limit": 0}).status_code == 422
    detail = error(api.get("/v1/entities/trending", params={"mode": "hot", "theme": "FM"}), 404)
    assert "Foundation Models" in detail["message"]


def test_themes_list_and_axis(api: TestClient) -> None:
    body = api.get("/v1/themes").json()
    ThemeList.model_validate(body)
    assert [t["label"] for t in body["themes"]] == [
        *THEME_LABELS["value_chain"],
        *THEME_LABELS["market_force"],
    ]
    assert all("related_themes" not in t for t in body["themes"])
    market = api.get("/v1/themes", params={"axis": "market_force"}).json()["themes"]
    assert [t["label"] for t in market] == list(THEME_LABELS["market_force"])
    assert api.get("/v1/themes", params={"axis": "supply"}).status_code == 422


def test_theme_detail(api: TestClient, truth: dict[str, Any]) -> None:
    label = truth["themes"]["rising"][0]["label"]
    response = api.get(f"/v1/themes/market_force/{quote(label, safe='')}")
    assert response.status_code == 200, response.text
    theme = ThemeDetail.model_validate(response.json())
    assert theme.label == label and theme.direction == "Rising"
    assert theme.related_themes and all(r.label != label for r in theme.related_themes)
    assert {r.axis for r in theme.related_themes} == {"value_chain", "market_force"}
    counts = [r.co_occurrence_count for r in theme.related_themes]
    assert counts == sorted(counts, reverse=True)
    folded = api.get(f"/v1/themes/market_force/{quote(label.lower(), safe='')}")
    assert folded.json() == response.json()


def test_theme_detail_errors(api: TestClient) -> None:
    detail = error(api.get("/v1/themes/value_chain/Capital%20%26%20Investment"), 404)
    assert "value_chain/Capital & Investment" in detail["message"]
    assert "market_force/Capital & Investment" in detail["message"]  # the suggestion
    detail = error(api.get("/v1/themes/market_force/C%26I"), 404)
    assert "market_force/C&I" in detail["message"]
    assert api.get("/v1/themes/supply/Data").status_code == 422


def test_search_over_the_demo_snapshot(api: TestClient, table: pl.DataFrame) -> None:
    """The pipeline-built snapshot answers search: the entity filter keeps units naming the
    entity, and similar_to stays on topic."""
    cerebras = table.filter(pl.col("name") == "Cerebras")["entity_id"].item()
    response = api.get(
        "/v1/search", params={"q": "wafer-scale inference chips", "entity": "Cerebras"}
    )
    assert response.status_code == 200, response.text
    hits = response.json()["results"]
    assert len(hits) == 10
    assert all(cerebras in hit["unit"]["entities"] for hit in hits)
    first = hits[0]["unit"]["id"]
    similar = api.get("/v1/search", params={"similar_to": first, "limit": 5}).json()["results"]
    assert len(similar) == 5 and first not in {hit["unit"]["id"] for hit in similar}
    assert similar[0]["relevance_score"] > 0.5
