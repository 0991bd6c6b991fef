"""§2 Resources and their fields: every field of the unit, signal card, signal detail, search
hit, entity profile and theme tables, with its type, on real responses; and the rules printed
under each table."""

from __future__ import annotations

from collections import Counter
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from fastapi.testclient import TestClient

from tests.contract import spec
from tests.contract.helpers import Json, assert_shape, parse_time

ROLE_GROUP = {"thesis": 0, "synopsis": 0, "argument": 1, "claim": 2}


def all_units(details: dict[str, Json]) -> list[Json]:
    return [unit for detail in details.values() for unit in detail["units"]]


def test_s2_2_every_signal_card_has_the_listed_fields(cards: list[Json]) -> None:
    """§2.2 Signal card: every field with its type; `thesis` for analysis signals, `synopsis`
    for event signals instead; `domain` is the source's (flat) domain."""
    for card in cards:
        assert_shape(spec.SIGNAL_CARD, card)
        central, other = (
            ("thesis", "synopsis") if card["content_type"] == "analysis" else ("synopsis", "thesis")
        )
        assert central in card and other not in card, card["signal_id"]
        host = (urlsplit(card["url"]).hostname or "").lower()
        assert host == card["domain"] or host.endswith("." + card["domain"]), (
            card["url"],
            card["domain"],
        )
    assert {card["content_type"] for card in cards} == set(spec.CONTENT_TYPES)
    assert len({card["signal_id"] for card in cards}) == len(cards)


def test_s2_3_every_signal_detail_has_the_card_fields_and_units(
    cards: list[Json], details: dict[str, Json]
) -> None:
    """§2.3 Signal detail: all card fields except `thesis`/`synopsis`, plus `units`;
    §2.2 `verified_unit_count` equals the length of `units`."""
    for card in cards:
        detail = details[card["signal_id"]]
        assert_shape(spec.SIGNAL_DETAIL, detail)
        shared = {k: v for k, v in card.items() if k not in ("thesis", "synopsis")}
        assert {k: detail[k] for k in shared} == shared, card["signal_id"]
        assert detail["verified_unit_count"] == len(detail["units"]) > 0, card["signal_id"]


def test_s2_1_every_unit_has_the_listed_fields(details: dict[str, Json]) -> None:
    """§2.1 Unit: `id`, `role`, `text` required; `argument_id` only when role=argument;
    `entities` are public entity ids; `verification` is `{human_reviewed: true}` when present;
    `evidence_preview` is `{snippets: [{text, truncated}]}` (the old name `evidence` is gone)."""
    units = all_units(details)
    for unit in units:
        assert_shape(spec.UNIT, unit)
        assert ("argument_id" in unit) == (unit["role"] == "argument"), unit
        assert "evidence" not in unit, "renamed evidence_preview on 2026-08-11 (§2.1, §9)"
        assert all(e.startswith("ent:/") for e in unit.get("entities", [])), unit
        if "evidence_preview" in unit:
            assert_shape(spec.EVIDENCE_PREVIEW, unit["evidence_preview"])
            for snippet in unit["evidence_preview"]["snippets"]:
                assert_shape(spec.SNIPPET, snippet)
    roles = Counter(unit["role"] for unit in units)
    assert set(roles) == set(spec.ROLES), roles
    # the demo snapshot has no human review yet, so `verification` is omitted throughout
    assert any("verification" not in unit for unit in units), "verification is omitted otherwise"
    assert any(u.get("evidence_preview", {}).get("snippets") for u in units)


def test_s2_1_unit_ids_are_unique_and_stable(details: dict[str, Json]) -> None:
    """§2.1 `id`: stable unit identifier; one id names one unit."""
    ids = [unit["id"] for unit in all_units(details)]
    assert len(ids) == len(set(ids))


def test_s2_1_units_of_one_argument_are_adjacent(details: dict[str, Json]) -> None:
    """§2.1 `argument_id`: units sharing the label, taken in list order, form one argument."""
    for detail in details.values():
        labels = [u["argument_id"] for u in detail["units"] if u["role"] == "argument"]
        runs = [label for i, label in enumerate(labels) if i == 0 or labels[i - 1] != label]
        assert len(runs) == len(set(runs)), (detail["signal_id"], labels)


def test_s2_3_units_are_grouped_central_then_arguments_then_claims(
    cards: list[Json], details: dict[str, Json]
) -> None:
    """§2.3 `units`: grouped by role, central statement, then arguments, then claims; event
    signals have a `synopsis` unit and claims and no arguments; §2.2 the card's `thesis` /
    `synopsis` is the central statement, whole."""
    for card in cards:
        units = details[card["signal_id"]]["units"]
        groups = [ROLE_GROUP[unit["role"]] for unit in units]
        assert groups == sorted(groups), (card["signal_id"], [u["role"] for u in units])
        central = "thesis" if card["content_type"] == "analysis" else "synopsis"
        assert units[0]["role"] == central, card["signal_id"]
        assert [u["role"] for u in units].count(central) == 1, card["signal_id"]
        assert card[central] == units[0]["text"], card["signal_id"]
        if card["content_type"] == "event":
            assert all(u["role"] in ("synopsis", "claim") for u in units), card["signal_id"]
        else:
            assert all(u["role"] != "synopsis" for u in units), card["signal_id"]


def test_s2_3_podcast_segment_urls_carry_the_audio_span(cards: list[Json]) -> None:
    """§2.3 Podcast signals: `url` carries `t=<start_seconds>` and `end=<end_seconds>`
    (integers); titles have the form `<Episode> — <Chapter>`."""
    segments = [c for c in cards if "t" in parse_qs(urlsplit(c["url"]).query)]
    assert segments, "the demo corpus holds podcast segments"
    for card in segments:
        query = parse_qs(urlsplit(card["url"]).query)
        start, end = query["t"], query.get("end")
        assert end is not None and len(start) == len(end) == 1, card["url"]
        assert start[0].isdigit() and end[0].isdigit(), card["url"]
        assert int(end[0]) > int(start[0]), card["url"]
        episode, sep, chapter = card["title"].partition(" — ")
        assert sep and episode.strip() and chapter.strip(), card["title"]


def test_s2_2_signal_entities_and_themes_are_canonical(
    cards: list[Json], themes: list[Json]
) -> None:
    """§2.2 `themes` `{value_chain, market_force}` and `entities` `[{entity_id, name, type}]`;
    §2.6 only the 12 canonical labels are served, each on its own axis."""
    by_axis = {axis: {t["label"] for t in themes if t["axis"] == axis} for axis in spec.AXES}
    for card in cards:
        for axis in spec.AXES:
            labels = card["themes"][axis]
            assert set(labels) <= by_axis[axis], (card["signal_id"], axis, labels)
            assert len(labels) == len(set(labels))
        ids = [ref["entity_id"] for ref in card["entities"]]
        assert len(ids) == len(set(ids)) and all(i.startswith("ent:/") for i in ids)


@pytest.mark.parametrize("mode", ["q", "similar_to"])
def test_s2_4_search_hits_have_the_listed_fields(
    api: TestClient, details: dict[str, Json], a_unit: Json, mode: str
) -> None:
    """§2.4 Search hit: `unit` (the same object, same `id`, as in signal detail, §2.1),
    `citation` {signal_id, title, url, domain, published_at}, `relevance_score` (higher means
    more relevant); §4.2 the body echoes `query` or `similar_to`."""
    value = "data center power and GPU supply" if mode == "q" else a_unit["id"]
    response = api.get("/v1/search", params={mode: value, "limit": 30})
    assert response.status_code == 200, response.text
    body = response.json()
    echo = "query" if mode == "q" else "similar_to"
    assert set(body) == {"results", echo} and body[echo] == value
    hits = body["results"]
    assert len(hits) == 30
    for hit in hits:
        assert_shape(spec.SEARCH_HIT, hit)
        assert_shape(spec.UNIT, hit["unit"])
        assert_shape(spec.CITATION, hit["citation"])
        detail = details[hit["citation"]["signal_id"]]
        same = [u for u in detail["units"] if u["id"] == hit["unit"]["id"]]
        assert same == [hit["unit"]], hit["unit"]["id"]
        for field in ("title", "url", "domain", "published_at"):
            assert hit["citation"][field] == detail[field], field
    scores = [hit["relevance_score"] for hit in hits]
    assert scores == sorted(scores, reverse=True)
    if mode == "similar_to":  # cosine similarity
        assert all(-1 - 1e-6 <= score <= 1 + 1e-6 for score in scores), scores


def test_s2_5_entity_list_form_has_the_listed_fields(
    all_entities: list[Json], themes: list[Json]
) -> None:
    """§2.5 Entity profile: every field with its type; the list form omits
    `related_entities`; the distributions are keyed by content type and by theme label."""
    assert all_entities
    by_axis = {axis: {t["label"] for t in themes if t["axis"] == axis} for axis in spec.AXES}
    for entity in all_entities:
        assert_shape(spec.ENTITY_LISTED, entity)
        assert set(entity["value_chain_distribution"]) <= by_axis["value_chain"], entity
        assert set(entity["market_force_distribution"]) <= by_axis["market_force"], entity
        assert parse_time(entity["first_seen"]) <= parse_time(entity["last_seen"])
    assert len({e["entity_id"] for e in all_entities}) == len(all_entities)
    assert any("wikipedia_url" in e for e in all_entities)


def test_s2_5_entity_profile_has_related_entities(
    api: TestClient, all_entities: list[Json]
) -> None:
    """§2.5 / §4.6 Single-entity response: the list fields plus `related_entities` items
    `{entity_id, name, type, co_occurrence_count}`, ordered by `co_occurrence_count`
    descending."""
    ranked = sorted(all_entities, key=lambda e: -e["signal_count"])
    sample = ranked[:10] + ranked[-5:] + [e for e in all_entities if "wikipedia_url" in e][:3]
    for listed in sample:
        response = api.get(f"/v1/entities/{quote(listed['entity_id'], safe='')}")
        assert response.status_code == 200, response.text
        profile = response.json()
        assert_shape(spec.ENTITY_PROFILE, profile)
        assert {k: v for k, v in profile.items() if k != "related_entities"} == listed
        related = profile["related_entities"]
        counts = [r["co_occurrence_count"] for r in related]
        assert counts == sorted(counts, reverse=True)
        assert listed["entity_id"] not in {r["entity_id"] for r in related}
        assert all(0 < c <= listed["signal_count"] for c in counts)


def test_s2_6_twelve_canonical_themes_six_per_axis(themes: list[Json]) -> None:
    """§2.6 Theme: 12 canonical labels, six per axis, including the six the spec names; the
    shorthands are not served; every field with its type, no `related_themes` in the list."""
    assert len(themes) == 12
    for axis in spec.AXES:
        labels = [t["label"] for t in themes if t["axis"] == axis]
        assert len(labels) == len(set(labels)) == 6, labels
        assert set(spec.LABELS_SEEN[axis]) <= set(labels)
    assert not {t["label"] for t in themes} & set(spec.SHORTHANDS)
    for theme in themes:
        assert_shape(spec.THEME_LISTED, theme)


def test_s2_6_single_theme_has_related_themes_from_both_axes(
    api: TestClient, themes: list[Json]
) -> None:
    """§2.6 / §4.9 Single-theme response: the list fields plus `related_themes`
    `{axis, label, co_occurrence_count}` drawn from both axes."""
    canonical = {(t["axis"], t["label"]) for t in themes}
    same_axis = other_axis = False
    for listed in themes:
        response = api.get(f"/v1/themes/{listed['axis']}/{quote(listed['label'], safe='')}")
        assert response.status_code == 200, response.text
        theme = response.json()
        assert_shape(spec.THEME, theme)
        assert {k: v for k, v in theme.items() if k != "related_themes"} == listed
        for related in theme["related_themes"]:
            assert (related["axis"], related["label"]) in canonical
            assert (related["axis"], related["label"]) != (listed["axis"], listed["label"])
            assert 0 < related["co_occurrence_count"] <= listed["signal_count"]
        axes = [r["axis"] == listed["axis"] for r in theme["related_themes"]]
        same_axis, other_axis = same_axis or any(axes), other_axis or not all(axes)
    assert same_axis and other_axis, "related themes come from the theme's own axis and the other"
