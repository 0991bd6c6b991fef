"""Issue 31's additive fields over the snapshot the pipeline built from the demo corpus
(docs/api.md §2.1, §2.2, §2.5, §2.6): `story_id` on every signal card and detail, naming a
story that lists the signal (a roundup's: of those listing it, the one holding most of its
units); `corroboration` on units, the same in signal detail and in search
hits, each listed claim another voice's, with its evidence; `story_count` on entity and theme
profiles, as many as `/v1/stories` lists for them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from readmodel.models import EntityProfileDetail, SignalDetail, ThemeDetail
from tests.serving.test_api_stories import all_stories, story_details
from tests.test_end_to_end import client_for, page_through
from warehouse.paths import DataDir


@pytest.fixture(scope="module")
def api(demo_data_dir: DataDir) -> Iterator[TestClient]:
    yield from client_for(demo_data_dir)


@pytest.fixture(scope="module")
def details(api: TestClient) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for card in page_through(api, limit=50):
        response = api.get(f"/v1/signals/{card['signal_id']}")
        assert response.status_code == 200, response.text
        found[card["signal_id"]] = response.json()
    return found


def test_every_card_names_a_story_that_lists_it(api: TestClient) -> None:
    listing: dict[str, list[str]] = {}  # signal id -> the stories listing it
    held: dict[tuple[str, str], int] = {}  # (roundup id, story id) -> its units in that story
    for _, detail in story_details(api):
        for signal in detail.signals:
            listing.setdefault(signal.signal_id, []).append(detail.story_id)
        for part in detail.parts or []:
            held[part.signal_id, detail.story_id] = len(part.units)
    cards = page_through(api, limit=50)
    assert cards and all("story_id" in card for card in cards)
    for card in cards:
        stories = listing.get(card["signal_id"], [])
        if len(stories) <= 1:  # every signal but a roundup: the one story listing it, if any
            assert card["story_id"] == (stories[0] if stories else None), card["signal_id"]
            continue
        # a roundup in several stories: the one holding most of its units, the first id on a tie
        best = min(stories, key=lambda story_id: (-held[card["signal_id"], story_id], story_id))
        assert card["story_id"] == best, card["signal_id"]


def test_corroborated_units_list_other_voices_claims_with_evidence(
    api: TestClient, details: dict[str, dict[str, Any]]
) -> None:
    units = {
        unit["id"]: (signal_id, unit)
        for signal_id, detail in details.items()
        for unit in detail["units"]
    }
    corroborated = [(s, u) for s, u in units.values() if "corroboration" in u]
    # the demo's templated news restate facts across outlets: some claims are corroborated
    assert corroborated, "no unit of the demo snapshot is corroborated"
    for signal_id, unit in corroborated:
        SignalDetail.model_validate(details[signal_id])
        assert unit["role"] in ("thesis", "synopsis", "claim")
        found = unit["corroboration"]
        assert found["count"] == len(found["sources"]) == len(set(found["sources"]))
        assert len(found["claims"]) <= 5 and len(found["contested"]) <= 5
        assert found["claims"] or found["contested"]
        for claim in found["claims"] + found["contested"]:
            other_signal, other = units[claim["unit_id"]]
            assert other_signal == claim["signal_id"] != signal_id
            assert other["text"] == claim["text"]
            assert claim["domain"] == details[other_signal]["domain"]
            assert claim["evidence"] == other["evidence_preview"]["snippets"][0]
    # a unit in a search hit is the unit of the signal detail, corroboration included (the
    # query is a corroborated claim's text: the demo's outlets restate it, so the top hits are
    # its restatements, not necessarily the claim itself)
    _, unit = corroborated[0]
    hits = api.get("/v1/search", params={"q": unit["text"], "limit": 10}).json()["results"]
    shown = [hit["unit"] for hit in hits]
    assert any("corroboration" in u for u in shown)
    assert [units[u["id"]][1] for u in shown] == shown


def test_profiles_count_their_stories(api: TestClient) -> None:
    entities = api.get("/v1/entities", params={"limit": 5}).json()["entities"]
    assert entities
    for entity in entities:
        profile = api.get(f"/v1/entities/{entity['entity_id']}").json()
        EntityProfileDetail.model_validate(profile)
        listed = all_stories(api, entity=entity["entity_id"])
        assert profile["story_count"] == entity["story_count"] == len(listed) > 0
        # buzz against breadth: never more stories than signals
        assert profile["story_count"] <= profile["signal_count"]
    for theme in api.get("/v1/themes").json()["themes"]:
        full = api.get(f"/v1/themes/{theme['axis']}/{theme['label']}").json()
        ThemeDetail.model_validate(full)
        assert full["story_count"] == theme["story_count"]
        assert theme["story_count"] == len(all_stories(api, theme=theme["label"]))
