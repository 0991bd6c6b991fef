"""One API over the pipeline-built demo snapshot for the whole contract suite, and what the
tests read from it once: every signal card and detail, every entity, the themes."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from serving.app import create_app
from tests.contract.helpers import Json, parse_time, walk
from tests.serving.conftest import DEV_KEY, make_settings
from warehouse.paths import DataDir

API_KEY = DEV_KEY
ADMIN_SECRET = "contract-admin-secret"


@pytest.fixture(scope="session")
def api(demo_data_dir: DataDir) -> Iterator[TestClient]:
    """The API over the demo snapshot, authenticated with a valid key; the admin endpoint is
    enabled (with a secret no test sends) so that §5 is checked against an open door."""
    settings = make_settings(demo_data_dir.root).model_copy(
        update={"admin_secret": SecretStr(ADMIN_SECRET)}
    )
    with TestClient(create_app(settings), headers={"X-API-Key": API_KEY}) as client:
        yield client


@pytest.fixture(scope="session")
def bare(api: TestClient) -> TestClient:
    """The same app, without the API key header."""
    return TestClient(api.app)


@pytest.fixture(scope="session")
def as_of(api: TestClient) -> datetime:
    snapshot = api.get("/v1/health").json()["snapshot"]
    return parse_time(snapshot["as_of"])


@pytest.fixture(scope="session")
def cards(api: TestClient) -> list[Json]:
    """Every signal card, newest first."""
    found = walk(api, "/v1/signals", "signals", limit=50)
    assert len(found) > 500, "the demo snapshot should hold a few thousand signals"
    return found


@pytest.fixture(scope="session")
def details(api: TestClient, cards: list[Json]) -> dict[str, Json]:
    """Every signal detail, by signal_id."""
    found: dict[str, Json] = {}
    for card in cards:
        response = api.get(f"/v1/signals/{card['signal_id']}")
        assert response.status_code == 200, response.text
        found[card["signal_id"]] = response.json()
    return found


@pytest.fixture(scope="session")
def all_entities(api: TestClient) -> list[Json]:
    """Every entity with at least one signal (list form)."""
    return walk(api, "/v1/entities", "entities", limit=50, min_signals=1)


@pytest.fixture(scope="session")
def themes(api: TestClient) -> list[Json]:
    response = api.get("/v1/themes")
    assert response.status_code == 200, response.text
    found: list[Json] = response.json()["themes"]
    return found


@pytest.fixture(scope="session")
def a_unit(details: dict[str, Json]) -> Json:
    """A claim unit of some signal (for ``similar_to``)."""
    for detail in details.values():
        for unit in detail["units"]:
            if unit["role"] == "claim":
                return dict(unit)
    raise AssertionError("no claim unit in the demo snapshot")
