"""Checks on the staged snapshot, before it is published: the invariants the API promises its
readers. They block: when one fails, ``static_site`` does not run and ``CURRENT`` stays."""

# No `from __future__ import annotations`: Dagster reads these annotations at definition time.

import dagster as dg
import orjson

from analytics.profiles import RELATED_LIMIT, recount
from pipelines.defs.publish.assets import snapshot
from pipelines.resources import AimiResource
from warehouse.snapshot import open_staged

SNIPPET_LIMIT = 50


@dg.asset_check(
    asset=snapshot, blocking=True, description="Manifest checksums and row counts verify."
)
def snapshot_verifies(aimi: AimiResource) -> dg.AssetCheckResult:
    opened = open_staged(aimi.data(), verify=True)
    return dg.AssetCheckResult(
        passed=opened is not None,
        metadata={"snapshot_id": opened.snapshot_id if opened else ""},
    )


@dg.asset_check(
    asset=snapshot,
    blocking=True,
    description=(
        "Every served signal has one central statement first, `verified_unit_count` equals "
        "the number of units, and every evidence snippet is at most 50 characters."
    ),
)
def served_signals_are_complete(aimi: AimiResource) -> dg.AssetCheckResult:
    opened = open_staged(aimi.data(), verify=False)
    if opened is None:
        return dg.AssetCheckResult(passed=False, metadata={"reason": "no snapshot"})
    problems: list[str] = []
    for signal_id, detail_json in (
        opened.read_table("signals").select("signal_id", "detail_json").iter_rows()
    ):
        detail = orjson.loads(detail_json)
        units = detail["units"]
        if detail["verified_unit_count"] != len(units):
            problems.append(f"{signal_id}: verified_unit_count != len(units)")
        if not units or units[0]["role"] not in ("thesis", "synopsis"):
            problems.append(f"{signal_id}: no central statement first")
        for unit in units:
            for item in unit["evidence_preview"]["snippets"]:
                if len(item["text"]) > SNIPPET_LIMIT:
                    problems.append(f"{signal_id}: snippet over {SNIPPET_LIMIT} characters")
    return dg.AssetCheckResult(
        passed=not problems,
        metadata={"problems": len(problems), "first": "; ".join(problems[:5])},
    )


def profile_recount_problems(cards: list[bytes], profiles: list[bytes]) -> list[str]:
    """Where the entity profiles disagree with a recount over the served cards: every
    ``signal_count``, and every ``related_entities`` list (the top 25 partners by signals in
    common, then id)."""
    counts, pairs = recount(orjson.loads(card) for card in cards)
    partners: dict[str, list[tuple[int, str]]] = {}
    for (a, b), count in pairs.items():
        partners.setdefault(a, []).append((-count, b))
        partners.setdefault(b, []).append((-count, a))
    problems: list[str] = []
    for raw in profiles:
        profile = orjson.loads(raw)
        entity_id = profile["entity_id"]
        if profile["signal_count"] != counts.get(entity_id, 0):
            problems.append(
                f"{entity_id}: signal_count {profile['signal_count']}, cards say "
                f"{counts.get(entity_id, 0)}"
            )
        expected = sorted(partners.get(entity_id, []))[:RELATED_LIMIT]
        served = [(-r["co_occurrence_count"], r["entity_id"]) for r in profile["related_entities"]]
        if served != expected:
            problems.append(f"{entity_id}: related_entities differ from the cards' recount")
    return problems


@dg.asset_check(
    asset=snapshot,
    blocking=True,
    description=(
        "Entity profiles agree with a recount over the served signal cards: every "
        "`signal_count` and every `related_entities` list with its `co_occurrence_count`s."
    ),
)
def profiles_agree_with_cards(aimi: AimiResource) -> dg.AssetCheckResult:
    opened = open_staged(aimi.data(), verify=False)
    if opened is None:
        return dg.AssetCheckResult(passed=False, metadata={"reason": "no snapshot"})
    cards = opened.read_table("signals")["card_json"].to_list()
    profiles = opened.read_table("entity_profiles")["profile_json"].to_list()
    problems = profile_recount_problems(cards, profiles)
    return dg.AssetCheckResult(
        passed=not problems,
        metadata={
            "entities": len(profiles),
            "cards": len(cards),
            "problems": len(problems),
            "first": "; ".join(problems[:5]),
        },
    )
