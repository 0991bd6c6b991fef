"""The snapshot check that entity profiles agree with a recount over the served cards."""

from __future__ import annotations

from typing import Any

import orjson

from pipelines.defs.publish.checks import profile_recount_problems


def card(*entity_ids: str) -> bytes:
    return orjson.dumps({"entities": [{"entity_id": e} for e in entity_ids]})


def profile(entity_id: str, signal_count: int, related: list[tuple[str, int]]) -> bytes:
    body: dict[str, Any] = {
        "entity_id": entity_id,
        "signal_count": signal_count,
        "related_entities": [
            {"entity_id": other, "co_occurrence_count": count} for other, count in related
        ],
    }
    return orjson.dumps(body)


CARDS = [card("a", "b"), card("a", "b", "c"), card("a"), card("d")]


def test_agreeing_profiles_pass() -> None:
    profiles = [
        profile("a", 3, [("b", 2), ("c", 1)]),
        profile("b", 2, [("a", 2), ("c", 1)]),
        profile("c", 1, [("a", 1), ("b", 1)]),
        profile("d", 1, []),
        profile("e", 0, []),
    ]
    assert profile_recount_problems(CARDS, profiles) == []


def test_each_kind_of_disagreement_is_reported() -> None:
    problems = profile_recount_problems(
        CARDS,
        [
            profile("a", 2, [("b", 2), ("c", 1)]),  # wrong signal_count
            profile("b", 2, [("a", 1), ("c", 1)]),  # wrong co-occurrence count
            profile("c", 1, [("b", 1), ("a", 1)]),  # wrong order (ties go to id asc)
            profile("d", 1, [("a", 1)]),  # a partner that never co-occurs
        ],
    )
    assert [p.split(":")[0] for p in problems] == ["a", "b", "c", "d"]
    assert "signal_count 2, cards say 3" in problems[0]
