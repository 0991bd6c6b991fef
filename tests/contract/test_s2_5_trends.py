"""§2.5 / §2.6 / §8 what the entity and theme numbers mean, recounted from what ``/v1/signals``
serves: `signal_count`, `first_seen`/`last_seen`, the mixes, the trend fields over the last 12
complete Monday–Sunday weeks (the in-progress week excluded), and co-occurrence."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from math import isclose
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from tests.contract import spec
from tests.contract.helpers import Json, parse_time, trend_weeks, week_index


@dataclass
class Tally:
    """One entity's or theme's signals, counted from the cards."""

    signals: int = 0
    first: datetime | None = None
    last: datetime | None = None
    content: Counter[str] = field(default_factory=Counter)
    value_chain: Counter[str] = field(default_factory=Counter)
    market_force: Counter[str] = field(default_factory=Counter)
    weekly: list[int] = field(default_factory=lambda: [0] * spec.TREND_WEEKS)
    domains: set[str] = field(default_factory=set)  # inside the 12-week window

    def add(self, card: Json, week: int | None) -> None:
        moment = parse_time(card["published_at"])
        self.signals += 1
        self.first = moment if self.first is None else min(self.first, moment)
        self.last = moment if self.last is None else max(self.last, moment)
        self.content[card["content_type"]] += 1
        self.value_chain.update(card["themes"]["value_chain"])
        self.market_force.update(card["themes"]["market_force"])
        if week is not None:
            self.weekly[week] += 1
            self.domains.add(card["domain"])

    def share(self, totals: list[int], weeks: slice) -> float:
        total = sum(totals[weeks])
        return sum(self.weekly[weeks]) / total if total else 0.0

    def streak(self) -> int:
        """Consecutive growth weeks ending at the last complete week."""
        run = 0
        for week in range(spec.TREND_WEEKS - 1, 0, -1):
            if self.weekly[week] <= self.weekly[week - 1]:
                break
            run += 1
        return run


@dataclass(frozen=True)
class Recount:
    by_key: dict[str, Tally]
    totals: list[int]  # all signals per window week, oldest first
    pairs: Counter[tuple[str, str]]


def recount(
    cards: list[Json], as_of: datetime, keys_of: Callable[[Json], Iterable[str]]
) -> Recount:
    weeks = trend_weeks(as_of)
    by_key: dict[str, Tally] = {}
    totals = [0] * spec.TREND_WEEKS
    pairs: Counter[tuple[str, str]] = Counter()
    for card in cards:
        week = week_index(card["published_at"], weeks)
        if week is not None:
            totals[week] += 1
        keys = sorted(set(keys_of(card)))
        for key in keys:
            by_key.setdefault(key, Tally()).add(card, week)
        pairs.update((a, b) for a in keys for b in keys if a != b)
    return Recount(by_key, totals, pairs)


def entity_keys(card: Json) -> list[str]:
    return [ref["entity_id"] for ref in card["entities"]]


def theme_keys(card: Json) -> list[str]:
    return [*card["themes"]["value_chain"], *card["themes"]["market_force"]]


@pytest.fixture(scope="module")
def by_entity(cards: list[Json], as_of: datetime) -> Recount:
    return recount(cards, as_of, entity_keys)


@pytest.fixture(scope="module")
def by_theme(cards: list[Json], as_of: datetime) -> Recount:
    return recount(cards, as_of, theme_keys)


def nonzero(counts: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in counts.items() if v}


def counting_problems(name: str, served: Json, tally: Tally) -> list[str]:
    """What §2.5/§2.6 say the counting fields are, against the recount."""
    expected: dict[str, object] = {"signal_count": tally.signals}
    found: dict[str, object] = {"signal_count": served["signal_count"]}
    if "first_seen" in served:  # entities
        expected |= {
            "first_seen": tally.first,
            "last_seen": tally.last,
            "content_type_mix": dict(tally.content),
            "value_chain_distribution": dict(tally.value_chain),
            "market_force_distribution": dict(tally.market_force),
        }
        found |= {
            "first_seen": parse_time(served["first_seen"]),
            "last_seen": parse_time(served["last_seen"]),
            **{
                key: nonzero(served[key])
                for key in (
                    "content_type_mix",
                    "value_chain_distribution",
                    "market_force_distribution",
                )
            },
        }
    return [
        f"{name}: {key} is {found[key]!r}, cards say {value!r}"
        for key, value in expected.items()
        if found[key] != value
    ]


def trend_problems(name: str, trend: Json, tally: Tally, totals: list[int]) -> list[str]:
    """§2.5 trend: `current_week` the last complete week, `prior_week` the one before,
    `share_of_voice` over the trailing 4 weeks, `streak` consecutive growth weeks,
    `source_diversity` distinct source domains (entities)."""
    expected: dict[str, float] = {
        "current_week": tally.weekly[-1],
        "prior_week": tally.weekly[-2],
        "streak": tally.streak(),
    }
    if "source_diversity" in trend:
        expected["source_diversity"] = len(tally.domains)
    problems = [
        f"{name}: trend.{k} is {trend[k]}, cards say {v}"
        for k, v in expected.items()
        if trend[k] != v
    ]
    share = tally.share(totals, slice(-4, None))
    if not isclose(trend["share_of_voice"], share, rel_tol=1e-9, abs_tol=1e-12):
        problems.append(f"{name}: share_of_voice is {trend['share_of_voice']}, cards say {share}")
    return problems


def test_s2_5_entity_counts_agree_with_the_served_signals(
    all_entities: list[Json], by_entity: Recount
) -> None:
    """§2.5 `signal_count` (signals mentioning the entity), `first_seen`, `last_seen`,
    `content_type_mix`, `value_chain_distribution`, `market_force_distribution`."""
    listed = {e["entity_id"] for e in all_entities}
    problems = [f"{e}: in signal cards, not listed" for e in sorted(set(by_entity.by_key) - listed)]
    problems += [
        problem
        for entity in all_entities
        for problem in counting_problems(
            entity["entity_id"], entity, by_entity.by_key.get(entity["entity_id"], Tally())
        )
    ]
    assert not problems, (len(problems), problems[:10])


def test_s2_5_entity_trend_covers_the_last_complete_weeks(
    all_entities: list[Json], by_entity: Recount
) -> None:
    """§2.5 trend of an entity; §8 trend window: rolling 12 full Monday–Sunday weeks, the
    in-progress week excluded."""
    assert sum(by_entity.totals[-4:]) > 0
    problems = [
        problem
        for entity in all_entities
        for problem in trend_problems(
            entity["entity_id"],
            entity["trend"],
            by_entity.by_key.get(entity["entity_id"], Tally()),
            by_entity.totals,
        )
    ]
    assert not problems, (len(problems), problems[:10])


def test_s2_6_theme_counts_and_trend_agree_with_the_served_signals(
    themes: list[Json], by_theme: Recount
) -> None:
    """§2.6 `signal_count` and `trend` (same meaning as for entities); §8 trend window."""
    problems: list[str] = []
    for theme in themes:
        tally = by_theme.by_key.get(theme["label"], Tally())
        problems += counting_problems(theme["label"], theme, tally)
        problems += trend_problems(theme["label"], theme["trend"], tally, by_theme.totals)
    assert not problems, problems


def test_s2_5_related_entities_are_the_top_25_by_co_occurrence(
    api: TestClient, all_entities: list[Json], by_entity: Recount
) -> None:
    """§2.5 `related_entities`: `co_occurrence_count` = signals containing both, ordered by it
    descending, capped at the top 25 (§8 `related_entities` per profile: top 25)."""
    ranked = sorted(all_entities, key=lambda e: -e["signal_count"])[:15]
    capped = 0
    for entity in ranked:
        entity_id = entity["entity_id"]
        related = api.get(f"/v1/entities/{quote(entity_id, safe='')}").json()["related_entities"]
        partners = {b: n for (a, b), n in by_entity.pairs.items() if a == entity_id}
        assert len(related) == min(spec.RELATED_MAX, len(partners)), entity_id
        for item in related:
            assert item["co_occurrence_count"] == partners[item["entity_id"]], item
        if len(partners) > spec.RELATED_MAX:
            capped += 1
            left_out = set(partners) - {item["entity_id"] for item in related}
            lowest = related[-1]["co_occurrence_count"]
            assert all(partners[other] <= lowest for other in left_out), entity_id
    assert capped, "the cap should bind for the busiest entities of the demo snapshot"


def test_s8_trending_share_history_is_the_12_complete_weeks(
    api: TestClient, by_entity: Recount
) -> None:
    """§8 trend window: rolling 12 full Monday–Sunday weeks; §4.7 `share_of_voice_history`
    is one share per window week (oldest first, as the OpenAPI document says), and the
    item's `current_week`/`prior_week`/`share_of_voice` agree with it."""
    items = api.get("/v1/entities/trending", params={"mode": "hot", "limit": 50}).json()["data"]
    assert items
    totals = by_entity.totals
    for item in items:
        tally = by_entity.by_key[item["entity_id"]]
        history = item["trend"]["share_of_voice_history"]
        assert len(history) == spec.TREND_WEEKS, item["entity_id"]
        weekly = [c / t if t else 0.0 for c, t in zip(tally.weekly, totals, strict=True)]
        assert all(
            isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) for a, b in zip(history, weekly, strict=True)
        ), (item["entity_id"], history, weekly)
        assert item["trend"]["current_week"] == tally.weekly[-1]
        assert item["trend"]["prior_week"] == tally.weekly[-2]
        assert isclose(
            item["trend"]["share_of_voice"], tally.share(totals, slice(-4, None)), rel_tol=1e-9
        )
