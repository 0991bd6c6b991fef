"""The set filters of ``GET /v1/signals`` (docs/api.md §4.3): ``entity`` (id or exact name, any
case, alias- and family-aware; unknown → 404), ``theme`` (canonical labels only; unknown → 404),
``keyword`` (literal, whole-word, title and unit text), combined with each other, with
``content_type`` and dates, on both sorts."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from fastapi.testclient import TestClient

from analytics.entities import Alias, Entity
from analytics.linking import Linker
from analytics.profiles import profile_tables
from analytics.records import validate_record
from analytics.render import render_search_units, render_served_signals, served_signals
from analytics.schema import ENTITIES
from analytics.signals import extract_units, signals_from_sources
from analytics.trends import Clock
from pipelines.defs.tag.assets import entities_frame
from pipelines.publishing import publish_served
from serving.app import create_app
from tests.serving.conftest import AS_OF, DEV_KEY, RECORDS, make_settings, search_input
from warehouse.ingest import sources_frame
from warehouse.paths import DataDir

GROUP = Entity("ent:/cobaltgrp0", "organization:cobalt-group", "Cobalt Group", "organization")
REGISTRY = [
    Entity(
        "ent:/acmeai0000",
        "organization:acme-ai",
        "Acme AI",
        "organization",
        (Alias("Acme", "exact"),),
    ),
    Entity("ent:/borealis00", "organization:borealis-labs", "Borealis Labs", "organization"),
    GROUP,
    Entity(
        "ent:/cobaltcmp0",
        "organization:cobalt-compute",
        "Cobalt Compute",
        "organization",
        family=GROUP.entity_id,
    ),
    Entity("ent:/texas00000", "location:texas", "Texas", "location"),
]


def themes_for(signals: pl.DataFrame) -> pl.DataFrame:
    # fixed labels, so the filter is tested apart from the tagger
    return signals.select(
        "signal_id",
        "content_hash",
        pl.when(pl.col("kind") == "news")
        .then(pl.lit(["Infrastructure"]))
        .otherwise(pl.lit(["Semiconductors & Hardware"]))
        .alias("value_chain"),
        pl.when(pl.col("kind") == "news")
        .then(pl.lit(["Capital & Investment"]))
        .otherwise(pl.lit([], dtype=pl.List(pl.String)))
        .alias("market_force"),
    )


@pytest.fixture(scope="module")
def tagged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pl.DataFrame]:
    root = tmp_path_factory.mktemp("filters")
    validated = [(validate_record(r), f"inline:{n}") for n, r in enumerate(RECORDS, start=1)]
    signals = signals_from_sources(sources_frame(validated, now=AS_OF), as_of=AS_OF)
    units = extract_units(signals).units
    linker = Linker(REGISTRY)
    mentions = linker.link_signals(signals)
    entities = entities_frame(REGISTRY)
    assert entities.schema == ENTITIES
    unit_mentions = linker.link_units(units, signal_mentions=mentions)
    rendered = render_served_signals(
        signals,
        units,
        themes=themes_for(signals),
        signal_entities=mentions,
        entities=entities,
        unit_entities=unit_mentions,
    )
    profiles = profile_tables(
        signals=served_signals(signals, units),
        signal_entities=mentions,
        signal_themes=themes_for(signals),
        entities=entities,
        clock=Clock(AS_OF),
    )
    publish_served(
        DataDir(root),
        rendered,
        units,
        extra_tables={"entities": entities, **profiles},
        search=search_input(
            render_search_units(rendered, signals, units, unit_mentions), signals, units
        ),
        as_of=AS_OF,
        built_at=datetime.now(UTC),
    )
    return root, signals.join(mentions, on="signal_id", how="left")


@pytest.fixture(scope="module")
def client(tagged: tuple[Path, pl.DataFrame]) -> Iterator[TestClient]:
    with TestClient(create_app(make_settings(tagged[0])), headers={"X-API-Key": DEV_KEY}) as c:
        yield c


def ids(client: TestClient, **params: Any) -> set[str]:
    found: set[str] = set()
    cursor = None
    while True:
        query = {**params, "limit": 7, **({"cursor": cursor} if cursor else {})}
        response = client.get("/v1/signals", params=query)
        assert response.status_code == 200, response.text
        body = response.json()
        found |= {card["signal_id"] for card in body["signals"]}
        cursor = body["next_cursor"]
        if not body["has_more"]:
            return found


def mentioning(tagged: tuple[Path, pl.DataFrame], *entity_ids: str) -> set[str]:
    frame = tagged[1]
    return set(frame.filter(pl.col("entity_id").is_in(entity_ids))["signal_id"])


@pytest.mark.parametrize(
    "value", ["ent:/acmeai0000", "Acme AI", "acme ai", "Acme", "ACME AI", "acme", "Acme-AI"]
)
def test_entity_by_id_name_any_case_and_alias(
    client: TestClient, tagged: tuple[Path, pl.DataFrame], value: str
) -> None:
    expected = mentioning(tagged, "ent:/acmeai0000")
    assert expected and ids(client, entity=value) == expected


def test_entity_family_covers_members(
    client: TestClient, tagged: tuple[Path, pl.DataFrame]
) -> None:
    members = mentioning(tagged, "ent:/cobaltcmp0")
    assert members
    assert ids(client, entity="Cobalt Group") == members
    assert ids(client, entity="Cobalt Compute") == members


@pytest.mark.parametrize("value", ["Nobody Inc", "ent:/nothing000", "Acme Labs"])
def test_unknown_entity_is_404_not_an_empty_list(client: TestClient, value: str) -> None:
    response = client.get("/v1/signals", params={"entity": value})
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["code"] == "not_found" and error["field"] == "entity"
    assert value in error["message"]


def test_theme_filter_and_unknown_or_shorthand_themes(client: TestClient) -> None:
    infra = ids(client, theme="Infrastructure")
    capital = ids(client, theme="capital & investment")
    chips = ids(client, theme="Semiconductors & Hardware")
    assert infra and infra == capital and not infra & chips
    assert len(infra | chips) == len(RECORDS)
    for label in ("C&I", "Robotics"):
        response = client.get("/v1/signals", params={"theme": label})
        assert response.status_code == 404
        assert response.json()["error"]["field"] == "theme"
    message = client.get("/v1/signals", params={"theme": "C&I"}).json()["error"]["message"]
    assert "Capital & Investment" in message


def test_keyword_is_literal_whole_word_any_case(client: TestClient) -> None:
    bavaria = ids(client, keyword="bavaria")
    assert bavaria and bavaria == ids(client, keyword="BAVARIA")
    assert ids(client, keyword="Bavar") == set(), "whole words only"
    # titles count too
    assert ids(client, keyword="Report number 3") != set()
    assert ids(client, keyword="funding   round") == ids(client, content_type="event")
    assert ids(client, keyword="a.b*c(") == set(), "regex characters are literal"
    assert client.get("/v1/signals", params={"keyword": "   "}).status_code == 400


def test_filters_combine_on_both_sorts(
    client: TestClient, tagged: tuple[Path, pl.DataFrame]
) -> None:
    texas = mentioning(tagged, "ent:/texas00000")
    combined = ids(client, entity="Texas", theme="Infrastructure", keyword="data centers")
    assert combined == texas & ids(client, theme="Infrastructure")
    assert combined == ids(
        client, entity="Texas", theme="Infrastructure", keyword="data centers", sort="changed"
    )
    assert ids(client, entity="Texas", content_type="analysis") == texas & ids(
        client, content_type="analysis"
    )


def test_q_is_ignored_beside_real_filters(client: TestClient) -> None:
    response = client.get("/v1/signals", params={"q": "anything", "theme": "Infrastructure"})
    assert response.status_code == 200 and response.headers["Deprecation"] == "true"
