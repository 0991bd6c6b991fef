"""The reviewed set of entities (docs/design.md §6): the registry, the discovered names a person
approved (``aimi entities review approve``), and the discovered names that pass the automatic
acceptance bar. It is what the entity list serves by default and what trending ranks.

A person's decisions are kept one per line in the data dir's entity reviews file
(``warehouse.entity_reviews``); the latest per name counts, matched by the folded name
(``analytics.entities.fold_name``). ``approve`` makes a name an entity of the given type and
family, found whether or not discovery proposes it again; ``merge`` adds it to an existing
entity as an exact-case alias (the next build links its mentions there); ``reject`` removes it
and it is never proposed again.

The acceptance bar (``accepted``) was chosen on the hand-labelled AINews sample
(``bench/entities/quality/discovery.py``, docs/quality.md): names seen in at least 3 signals, on at
least 2 distinct days, from at least 2 source domains, are real entities 95% of the time.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from analytics.entities import ENTITY_TYPES, Alias, Entity, fold_name, public_id_for, slugify
from analytics.linking import EntityIndex
from analytics.trends import NOTABLE_AT

APPROVE, MERGE, REJECT = "approve", "merge", "reject"
ENTITY_DECISIONS = (APPROVE, MERGE, REJECT)
# what each entity of a build is: the registry's, approved by a person, accepted by the bar, or
# a candidate (unreviewed: served with min_signals=1 only, never ranked)
REGISTRY, APPROVED, ACCEPTED, CANDIDATE = "registry", "approved", "accepted", "candidate"
STATUSES = (REGISTRY, APPROVED, ACCEPTED, CANDIDATE)
# the bar's signal count is the one a name is notable from (trends.NOTABLE_AT): a name accepted
# this week is `New` this week
ACCEPT_MIN_SIGNALS = NOTABLE_AT
ACCEPT_MIN_DAYS = 2
ACCEPT_MIN_DOMAINS = 2


class EntityReviewError(ValueError):
    """A decision that cannot be applied (an unknown type, a merge into an unknown entity)."""


@dataclass(frozen=True)
class EntityDecision:
    """One line of the entity reviews file. ``name`` is the name as written; ``entity_id`` the
    id an approved name keeps (its candidate's, so links to it stay valid); ``into`` the entity
    id a merge adds the name to; ``family`` an entity id."""

    name: str
    decision: str
    reviewer: str
    reviewed_at: datetime
    type: str | None = None
    family: str | None = None
    into: str | None = None
    entity_id: str | None = None
    note: str | None = None

    def __post_init__(self) -> None:
        if self.decision not in ENTITY_DECISIONS:
            raise EntityReviewError(
                f"decision must be one of {', '.join(ENTITY_DECISIONS)}, got {self.decision!r}"
            )
        if not self.name.strip():
            raise EntityReviewError("name is empty")
        if self.decision == APPROVE and self.type not in ENTITY_TYPES:
            raise EntityReviewError(
                f"approve needs a type, one of {', '.join(ENTITY_TYPES)}; got {self.type!r}"
            )
        if self.decision == MERGE and not self.into:
            raise EntityReviewError("merge needs the entity it goes into (into)")

    @property
    def folded(self) -> str:
        return fold_name(self.name)


def latest(decisions: Iterable[EntityDecision]) -> dict[str, EntityDecision]:
    """The latest decision per folded name (a later line wins a tie in time)."""
    chosen: dict[str, tuple[datetime, int, EntityDecision]] = {}
    for line, decision in enumerate(decisions):
        key = (decision.reviewed_at, line)
        current = chosen.get(decision.folded)
        if current is None or key >= current[:2]:
            chosen[decision.folded] = (*key, decision)
    return {name: entry[2] for name, entry in chosen.items()}


def accepted(candidate: Entity) -> bool:
    """Whether a discovered name passes the automatic acceptance bar (the module docstring)."""
    extra = candidate.extra
    return (
        int(extra.get("signals", 0)) >= ACCEPT_MIN_SIGNALS
        and int(extra.get("days", 0)) >= ACCEPT_MIN_DAYS
        and int(extra.get("domains", 0)) >= ACCEPT_MIN_DOMAINS
    )


@dataclass(frozen=True)
class Known:
    """The registry with the decisions applied: merged names added as aliases, approved names
    as entities. ``status`` maps each entity id to ``registry`` or ``approved``."""

    entities: list[Entity]
    status: dict[str, str]
    rejected: frozenset[str]  # folded names never to propose
    merged: dict[str, str]  # folded name -> the entity id it was merged into


def apply_decisions(registry: Sequence[Entity], decisions: Iterable[EntityDecision]) -> Known:
    """The registry plus approved names, with merged names as exact-case aliases.

    Raises ``EntityReviewError`` for a merge into an entity that is neither in the registry nor
    approved, or a family that is no known entity: a build must not silently drop a person's
    decision.
    """
    chosen = latest(decisions)
    known = {e.entity_id: e for e in registry}
    status = dict.fromkeys(known, REGISTRY)
    taken = {fold_name(e.name) for e in registry}
    for decision in sorted(chosen.values(), key=lambda d: d.folded):
        if decision.decision != APPROVE or decision.folded in taken:
            continue
        assert decision.type is not None  # checked by EntityDecision
        key = f"{decision.type}:{slugify(decision.name)}"
        entity_id = decision.entity_id or public_id_for(key)
        known[entity_id] = Entity(
            entity_id=entity_id,
            key=key,
            name=" ".join(decision.name.split()),
            type=decision.type,
            family=decision.family,
            reviewed=True,
            extra={"reviewer": decision.reviewer},
        )
        status[entity_id] = APPROVED
    index = EntityIndex(list(known.values()))
    for entity in list(known.values()):
        if entity.family and entity.family not in known and status[entity.entity_id] == APPROVED:
            raise EntityReviewError(
                f"{entity.name!r} is approved into family {entity.family!r}, which is no entity"
            )
    merged: dict[str, str] = {}
    for decision in sorted(chosen.values(), key=lambda d: d.folded):
        if decision.decision != MERGE:
            continue
        target = known.get(decision.into or "") or index.resolve(decision.into or "")
        if target is None:
            raise EntityReviewError(
                f"{decision.name!r} is merged into {decision.into!r}, which is neither in the "
                "registry nor approved"
            )
        name = " ".join(decision.name.split())
        if fold_name(name) not in {fold_name(a.text) for a in target.surface_forms()}:
            target = dataclasses.replace(target, aliases=(*target.aliases, Alias(name, "exact")))
            known[target.entity_id] = target
        merged[decision.folded] = target.entity_id
    rejected = frozenset(d.folded for d in chosen.values() if d.decision == REJECT)
    return Known(list(known.values()), status, rejected, merged)


def with_aliases(known: Known, aliases: Mapping[str, Sequence[str]]) -> Known:
    """``known`` with more aliases (entity id → names: the short forms discovery found,
    ``analytics.discovery.short_forms``), recorded as merged as a person's merges are, so that
    no candidate is made of them. They match in their exact case, as a merge does (the most
    frequent spelling discovery saw). A name a person rejected or merged is left as decided.
    Raises ``EntityReviewError`` for an id ``known`` lacks."""
    entities = {e.entity_id: e for e in known.entities}
    merged = dict(known.merged)
    for entity_id, names in aliases.items():
        entity = entities.get(entity_id)
        if entity is None:
            raise EntityReviewError(f"aliases {list(names)} for {entity_id!r}, which is no entity")
        forms = {fold_name(a.text) for a in entity.surface_forms()}
        fresh = [
            name
            for name in names
            if fold_name(name) not in forms | known.rejected and fold_name(name) not in merged
        ]
        entities[entity_id] = dataclasses.replace(
            entity, aliases=(*entity.aliases, *(Alias(name, "exact") for name in fresh))
        )
        merged.update(dict.fromkeys((fold_name(name) for name in fresh), entity_id))
    return dataclasses.replace(known, entities=list(entities.values()), merged=merged)


def reviewed_set(known: Known, candidates: Iterable[Entity]) -> tuple[list[Entity], dict[str, str]]:
    """Every entity of a build and its status: ``known``'s, then the candidates that were not
    rejected, merged, approved or already known — accepted ones (``accepted``) marked reviewed.
    """
    entities = list(known.entities)
    status = dict(known.status)
    names = {fold_name(e.name) for e in entities}
    for candidate in candidates:
        folded = fold_name(candidate.name)
        if (
            folded in known.rejected
            or folded in known.merged
            or folded in names
            or candidate.entity_id in status
        ):
            continue
        ok = accepted(candidate)
        entities.append(dataclasses.replace(candidate, reviewed=ok))
        status[candidate.entity_id] = ACCEPTED if ok else CANDIDATE
        names.add(folded)
    return entities, status
