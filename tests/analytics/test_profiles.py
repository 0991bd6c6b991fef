"""Entity profiles, themes and trending items rendered from the trend tables (docs/api.md §2.5,
§2.6, §4.7): shapes, defaults for keys without signals, related ordering and caps, trending
ranks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import polars as pl
import pytest

from analytics.profiles import (
    RELATED_LIMIT,
    TYPE_PRIMARY,
    profile_tables,
    recount,
    tag_mix,
    unrated_reasoning,
)
from analytics.render import served_signals
from analytics.schema import ENTITIES, ENTITY_PROFILES, SIGNAL_THEMES, THEME_PROFILES, UTC_TIME
from analytics.themes import THEME_LABELS
from analytics.trends import Clock

AS_OF = datetime(2025, 3, 19, 12, tzinfo=UTC)
CLOCK = Clock(AS_OF)


def _entities(*rows: tuple[str, str, str, bool, str | None]) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "entity_id": entity_id,
                "key": f"{kind}:{name.lower()}",
                "name": name,
                "type": kind,
                "aliases": [],
                "family": None,
                "wikipedia_url": wiki,
                "reviewed": reviewed,
            }
            for entity_id, name, kind, reviewed, wiki in rows
        ],
        schema=ENTITIES,
    )


class Corpus:
    def __init__(self) -> None:
        self.signals: list[dict[str, Any]] = []
        self.mentions: list[tuple[str, str]] = []
        self.themes: list[dict[str, Any]] = []

    def add(
        self,
        week: int,
        *entity_ids: str,
        content_type: str = "analysis",
        value_chain: tuple[str, ...] = (),
        market_force: tuple[str, ...] = (),
        domain: str = "d0",
    ) -> None:
        signal_id = f"s{len(self.signals)}"
        when = CLOCK.week_start(week) + timedelta(hours=10)
        self.signals.append(
            {
                "signal_id": signal_id,
                "published_at": when,
                "domain": domain,
                "content_type": content_type,
            }
        )
        self.mentions += [(signal_id, e) for e in entity_ids]
        self.themes.append(
            {
                "signal_id": signal_id,
                "content_hash": "h",
                "value_chain": list(value_chain),
                "market_force": list(market_force),
            }
        )

    def tables(self, entities: pl.DataFrame) -> dict[str, pl.DataFrame]:
        return profile_tables(
            signals=pl.DataFrame(
                self.signals,
                schema={
                    "signal_id": pl.String,
                    "published_at": UTC_TIME,
                    "domain": pl.String,
                    "content_type": pl.String,
                },
            ),
            signal_entities=pl.DataFrame(
                self.mentions, schema={"signal_id": pl.String, "entity_id": pl.String}, orient="row"
            ),
            signal_themes=pl.DataFrame(self.themes, schema=SIGNAL_THEMES),
            entities=entities,
            clock=CLOCK,
        )


def _profiles(tables: dict[str, pl.DataFrame], column: str) -> dict[str, dict[str, Any]]:
    frame = tables["entity_profiles"]
    return {row["entity_id"]: orjson.loads(row[column]) for row in frame.iter_rows(named=True)}


@pytest.fixture(scope="module")
def small() -> dict[str, pl.DataFrame]:
    corpus = Corpus()
    for week in range(-11, 1):  # A: one analysis signal a week with B, tagged Infrastructure
        corpus.add(week, "ent:/a", "ent:/b", value_chain=("Infrastructure",), domain=f"d{week}")
    corpus.add(0, "ent:/a", content_type="event", market_force=("Capital & Investment",))
    corpus.add(-1, "ent:/c", "ent:/a")
    entities = _entities(
        ("ent:/a", "Alpha", "organization", True, "https://en.wikipedia.org/wiki/Alpha"),
        ("ent:/b", "Beta", "model", True, None),
        ("ent:/c", "Gamma", "location", False, None),
        ("ent:/z", "Zeta", "person", True, None),
    )
    return corpus.tables(entities)


def test_schemas(small: dict[str, pl.DataFrame]) -> None:
    assert small["entity_profiles"].schema == ENTITY_PROFILES
    assert small["theme_profiles"].schema == THEME_PROFILES


def test_entity_profile_fields(small: dict[str, pl.DataFrame]) -> None:
    alpha = _profiles(small, "profile_json")["ent:/a"]
    assert alpha["signal_count"] == 14
    assert alpha["wikipedia_url"] == "https://en.wikipedia.org/wiki/Alpha"
    assert alpha["content_type_mix"] == {"analysis": 13, "event": 1}
    assert list(alpha["value_chain_distribution"]) == list(THEME_LABELS["value_chain"])
    assert alpha["value_chain_distribution"]["Infrastructure"] == 12
    assert alpha["market_force_distribution"]["Capital & Investment"] == 1
    assert alpha["trend"]["current_week"] == 2 and alpha["trend"]["prior_week"] == 2
    assert set(alpha["trend"]) == {
        "share_of_voice",
        "streak",
        "current_week",
        "prior_week",
        "source_diversity",
    }
    assert alpha["direction"] is not None and alpha["notability_reasoning"].startswith(
        alpha["notability"]
    )
    # related: B shares 12 signals, C one; count desc
    assert [(r["entity_id"], r["co_occurrence_count"]) for r in alpha["related_entities"]] == [
        ("ent:/b", 12),
        ("ent:/c", 1),
    ]
    assert alpha["related_entities"][1] == {
        "entity_id": "ent:/c",
        "name": "Gamma",
        "type": "location",
        "co_occurrence_count": 1,
    }
    listed = _profiles(small, "list_json")["ent:/a"]
    assert "related_entities" not in listed
    assert listed == {k: v for k, v in alpha.items() if k != "related_entities"}


def test_below_eight_signals_labels_are_null(small: dict[str, pl.DataFrame]) -> None:
    gamma = _profiles(small, "profile_json")["ent:/c"]
    assert gamma["signal_count"] == 1
    assert "wikipedia_url" not in gamma
    for label in ("direction", "confidence", "stability", "notability"):
        assert gamma[label] is None
    assert gamma["scale"] == "Small"
    assert gamma["notability_reasoning"] == unrated_reasoning(1)
    # plain words, no reference to a document the reader does not have (issue 46)
    assert gamma["notability_reasoning"] == (
        "Not rated: 1 signal so far, too few to judge; notability, direction, confidence and "
        "stability are given from 8 signals on."
    )
    assert "§" not in unrated_reasoning(5) and "spec" not in unrated_reasoning(5)


def test_entity_without_signals_still_has_a_profile(small: dict[str, pl.DataFrame]) -> None:
    zeta = _profiles(small, "profile_json")["ent:/z"]
    assert zeta["signal_count"] == 0
    assert zeta["first_seen"] is None and zeta["last_seen"] is None
    assert zeta["related_entities"] == []
    assert set(zeta["content_type_mix"].values()) == {0}
    assert zeta["trend"] == {
        "share_of_voice": 0.0,
        "streak": 0,
        "current_week": 0,
        "prior_week": 0,
        "source_diversity": 0,
    }


def test_trending_items_and_ranks(small: dict[str, pl.DataFrame]) -> None:
    items = _profiles(small, "trending_json")
    alpha = items["ent:/a"]
    assert alpha["display_name"] == "Alpha" and alpha["type_primary"] == "Organization"
    assert len(alpha["trend"]["share_of_voice_history"]) == 12
    assert items["ent:/b"]["type_primary"] == TYPE_PRIMARY["model"] == "Product"
    frame = small["entity_profiles"].sort("entity_id")
    # A and B are active all 12 weeks: consistent; C is unreviewed and never ranked.
    consistent = frame.filter(pl.col("rank_consistent").is_not_null()).sort("rank_consistent")
    assert consistent["entity_id"].to_list() == ["ent:/a", "ent:/b"]
    assert frame.filter(pl.col("entity_id") == "ent:/c")["rank_hot"].item() is None
    assert frame.filter(pl.col("entity_id") == "ent:/a")["themes"].item().to_list() == [
        "Infrastructure",
        "Capital & Investment",
    ]


def test_themes_all_twelve_in_canonical_order(small: dict[str, pl.DataFrame]) -> None:
    frame = small["theme_profiles"]
    expected = [label for axis in ("value_chain", "market_force") for label in THEME_LABELS[axis]]
    assert frame["label"].to_list() == expected
    themes = {row["label"]: orjson.loads(row["theme_json"]) for row in frame.iter_rows(named=True)}
    infra = themes["Infrastructure"]
    assert infra["axis"] == "value_chain" and infra["signal_count"] == 12
    assert infra["related_themes"] == []
    capital = themes["Capital & Investment"]
    assert capital["signal_count"] == 1 and capital["direction"] is None
    empty = themes["Talent & Labor"]
    assert empty["signal_count"] == 0 and empty["trend"]["share_of_voice"] == 0.0
    assert "source_diversity" not in empty["trend"]
    listed = orjson.loads(frame.filter(pl.col("label") == "Infrastructure")["list_json"].item())
    assert "related_themes" not in listed


def test_related_themes_cross_axes_and_exclude_self() -> None:
    corpus = Corpus()
    for _ in range(3):
        corpus.add(0, value_chain=("Data", "Applications"), market_force=("Talent & Labor",))
    corpus.add(-1, value_chain=("Data",), market_force=("Adoption & Demand",))
    themes = corpus.tables(ENTITIES.to_frame())["theme_profiles"]
    data = orjson.loads(themes.filter(pl.col("label") == "Data")["theme_json"].item())
    # count desc, then canonical order: Applications (value chain) before Talent & Labor
    assert [(t["axis"], t["label"], t["co_occurrence_count"]) for t in data["related_themes"]] == [
        ("value_chain", "Applications", 3),
        ("market_force", "Talent & Labor", 3),
        ("market_force", "Adoption & Demand", 1),
    ]


def test_related_entities_capped_at_25_by_count_then_id() -> None:
    corpus = Corpus()
    others = [f"ent:/o{i:02d}" for i in range(30)]
    for i, other in enumerate(others):
        for _ in range(1 + (i % 3)):  # counts 1, 2, 3 repeating
            corpus.add(-2, "ent:/hub", other)
    entities = _entities(
        ("ent:/hub", "Hub", "organization", True, None),
        *((other, f"Other {other[-2:]}", "organization", True, None) for other in others),
    )
    hub = _profiles(corpus.tables(entities), "profile_json")["ent:/hub"]
    related = [(r["co_occurrence_count"], r["entity_id"]) for r in hub["related_entities"]]
    assert len(related) == RELATED_LIMIT
    assert related == sorted(related, key=lambda pair: (-pair[0], pair[1]))
    assert related[0] == (3, "ent:/o02") and related[-1][0] == 1


def test_recount_agrees_with_profiles(small: dict[str, pl.DataFrame]) -> None:
    names = {"ent:/a": "Alpha", "ent:/b": "Beta", "ent:/c": "Gamma"}
    corpus_cards = [
        {"entities": [{"entity_id": e} for e in ids]}
        for ids in (["ent:/a", "ent:/b"],) * 12 + (["ent:/a"], ["ent:/c", "ent:/a"])
    ]
    counts, pairs = recount(corpus_cards)
    profiles = _profiles(small, "profile_json")
    for entity_id in names:
        assert profiles[entity_id]["signal_count"] == counts[entity_id]
        for related in profiles[entity_id]["related_entities"]:
            pair = tuple(sorted((entity_id, related["entity_id"])))
            assert related["co_occurrence_count"] == pairs[pair]


def test_tag_mix_counts_each_signal_once() -> None:
    mentions = pl.DataFrame({"signal_id": ["s1", "s1", "s2"], "key": ["k", "k", "k"]})
    signals = pl.DataFrame({"signal_id": ["s1", "s2"], "content_type": ["event", "event"]})
    themes = pl.DataFrame(
        {
            "signal_id": ["s1", "s2"],
            "value_chain": [["Data", "Data"], []],
            "market_force": [[], None],
        },
        schema={
            "signal_id": pl.String,
            "value_chain": pl.List(pl.String),
            "market_force": pl.List(pl.String),
        },
    )
    mix = tag_mix(mentions, signals, themes)
    assert mix.rows() == [("k", "content_type", "event", 2), ("k", "value_chain", "Data", 1)]


def test_served_signals_need_a_central_unit() -> None:
    signals = pl.DataFrame({"signal_id": ["s1", "s2", "s3"]})
    units = pl.DataFrame({"signal_id": ["s1", "s2", "s3"], "role": ["thesis", "claim", "synopsis"]})
    assert served_signals(signals, units)["signal_id"].to_list() == ["s1", "s3"]
