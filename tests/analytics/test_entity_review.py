"""The reviewed set: the registry, names a person approved (type, family, id kept), merged names
as aliases, rejected names never proposed, and discovered names over the acceptance bar."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from analytics.entities import Alias, Entity, public_id_for
from analytics.entity_review import (
    ACCEPT_MIN_DAYS,
    ACCEPT_MIN_DOMAINS,
    ACCEPT_MIN_SIGNALS,
    ACCEPTED,
    APPROVED,
    CANDIDATE,
    REGISTRY,
    EntityDecision,
    EntityReviewError,
    accepted,
    apply_decisions,
    latest,
    reviewed_set,
)
from analytics.linking import Linker

T0 = datetime(2026, 11, 1, tzinfo=UTC)
MOONSHOT = Entity(
    public_id_for("organization:moonshot-ai"),
    "organization:moonshot-ai",
    "Moonshot AI",
    "organization",
)
KIMI = Entity(public_id_for("model:kimi"), "model:kimi", "Kimi", "model")
REGISTRY_ENTRIES = [MOONSHOT, KIMI]


def decision(name: str, kind: str, minutes: int = 0, **fields: str) -> EntityDecision:
    return EntityDecision(
        name=name,
        decision=kind,
        reviewer="ana",
        reviewed_at=T0 + timedelta(minutes=minutes),
        **fields,
    )


def candidate(
    name: str, kind: str = "model", signals: int = 5, days: int = 3, domains: int = 3
) -> Entity:
    key = f"{kind}:{name.lower().replace(' ', '-')}"
    return Entity(
        public_id_for(key),
        key,
        name,
        kind,
        reviewed=False,
        extra={"signals": str(signals), "days": str(days), "domains": str(domains)},
    )


def test_the_latest_decision_per_name_counts() -> None:
    chosen = latest(
        [
            decision("Kimi K3", "reject", 5),
            decision("kimi  k3", "approve", 10, type="model"),  # same name, folded
            decision("Other", "reject", 0),
        ]
    )
    assert chosen["kimi k3"].decision == "approve"
    # equal times: the later line wins
    tie = latest([decision("X", "reject"), decision("X", "approve", type="other")])
    assert tie["x"].decision == "approve"


def test_approved_names_become_reviewed_entities_with_their_id_type_and_family() -> None:
    kept_id = candidate("Kimi K3").entity_id
    known = apply_decisions(
        REGISTRY_ENTRIES,
        [decision("Kimi K3", "approve", type="model", family=KIMI.entity_id, entity_id=kept_id)],
    )
    approved = next(e for e in known.entities if e.name == "Kimi K3")
    assert (approved.entity_id, approved.type, approved.family) == (
        kept_id,
        "model",
        KIMI.entity_id,
    )
    assert approved.reviewed and known.status[kept_id] == APPROVED
    assert known.status[MOONSHOT.entity_id] == REGISTRY
    # it is an entity whether or not discovery proposes it again: mentions link to it
    assert Linker(known.entities).entity_ids("Kimi K3 is out") == [kept_id]


def test_a_merged_name_is_an_exact_alias_of_its_entity() -> None:
    known = apply_decisions(
        REGISTRY_ENTRIES, [decision("Moonshot", "merge", into=MOONSHOT.entity_id)]
    )
    moonshot = next(e for e in known.entities if e.entity_id == MOONSHOT.entity_id)
    assert Alias("Moonshot", "exact") in moonshot.aliases
    assert known.merged == {"moonshot": MOONSHOT.entity_id}
    linker = Linker(known.entities)
    assert sorted(linker.entity_ids("Moonshot shipped Kimi")) == sorted(
        [MOONSHOT.entity_id, KIMI.entity_id]
    )
    assert linker.entity_ids("a moonshot idea") == []  # exact case only
    # by name too, and merging twice adds one alias
    again = apply_decisions(
        REGISTRY_ENTRIES,
        [
            decision("Moonshot", "merge", into="Moonshot AI"),
            decision("Moonshot", "merge", 1, into="Moonshot AI"),
        ],
    )
    assert sum(a.text == "Moonshot" for e in again.entities for a in e.aliases) == 1


def test_decisions_that_cannot_apply_fail_loudly() -> None:
    with pytest.raises(EntityReviewError, match="neither in the registry nor approved"):
        apply_decisions(REGISTRY_ENTRIES, [decision("Z", "merge", into="ent:/nothing")])
    with pytest.raises(EntityReviewError, match="family"):
        apply_decisions(
            REGISTRY_ENTRIES, [decision("Z 2", "approve", type="model", family="ent:/nothing")]
        )
    with pytest.raises(EntityReviewError, match="type"):
        decision("Z", "approve", type="gadget")
    with pytest.raises(EntityReviewError, match="decision"):
        decision("Z", "promote")


def test_the_reviewed_set_of_a_build() -> None:
    known = apply_decisions(
        REGISTRY_ENTRIES,
        [
            decision("Spam Name", "reject"),
            decision("Moonshot", "merge", into=MOONSHOT.entity_id),
        ],
    )
    strong, weak = candidate("Kimi K3"), candidate("Quiet One", signals=2, days=1, domains=2)
    entities, status = reviewed_set(
        known, [strong, weak, candidate("Spam Name"), candidate("Moonshot", "organization")]
    )
    names = {e.name: e for e in entities}
    assert "Spam Name" not in names and "Moonshot" not in names  # never proposed again
    assert status[strong.entity_id] == ACCEPTED and names["Kimi K3"].reviewed
    assert status[weak.entity_id] == CANDIDATE and not names["Quiet One"].reviewed
    assert status[KIMI.entity_id] == REGISTRY


@pytest.mark.parametrize(
    ("signals", "days", "domains", "ok"),
    [
        (ACCEPT_MIN_SIGNALS, ACCEPT_MIN_DAYS, ACCEPT_MIN_DOMAINS, True),
        (ACCEPT_MIN_SIGNALS - 1, ACCEPT_MIN_DAYS, ACCEPT_MIN_DOMAINS, False),
        (ACCEPT_MIN_SIGNALS, ACCEPT_MIN_DAYS - 1, ACCEPT_MIN_DOMAINS, False),
        (ACCEPT_MIN_SIGNALS, ACCEPT_MIN_DAYS, ACCEPT_MIN_DOMAINS - 1, False),
    ],
)
def test_the_acceptance_bar_at_its_edges(signals: int, days: int, domains: int, ok: bool) -> None:
    assert accepted(candidate("N 1", signals=signals, days=days, domains=domains)) is ok
