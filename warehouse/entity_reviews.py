"""The entity reviews file (``<data dir>/entity_reviews.jsonl``): one JSON line per decision a
person took with ``aimi entities review``, appended under the file's lock, editable by hand; the
latest per name counts (``analytics.entity_review``). A line:

    {"name": "Kimi K2", "decision": "approve", "type": "model", "family": "ent:/…",
     "entity_id": "ent:/…", "reviewer": "ana", "reviewed_at": "2026-11-25T12:00:00+00:00",
     "note": null}

``merge`` lines carry ``into`` (an entity id) instead of type and family; ``reject`` lines
neither.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from analytics.entity_review import EntityDecision, EntityReviewError
from analytics.records import RecordError, parse_timestamp
from warehouse.files import append_jsonl
from warehouse.paths import DataDir
from warehouse.reviews import ReviewFileError

_OPTIONAL = ("type", "family", "into", "entity_id", "note")


def read_entity_reviews(data: DataDir) -> list[EntityDecision]:
    """Every decision in file order; raises ``ReviewFileError`` naming a malformed line."""
    path = data.entity_reviews_file
    if not path.exists():
        return []
    decisions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            if not isinstance(raw, dict):
                raise ValueError("a line is a JSON object")
            decisions.append(
                EntityDecision(
                    name=str(raw["name"]),
                    decision=str(raw["decision"]),
                    reviewer=str(raw.get("reviewer") or ""),
                    reviewed_at=parse_timestamp(raw["reviewed_at"]),
                    **{k: (str(raw[k]) if raw.get(k) is not None else None) for k in _OPTIONAL},
                )
            )
        except (ValueError, KeyError, TypeError, RecordError, EntityReviewError) as exc:
            raise ReviewFileError(f"{path}:{number}: {exc}") from None
    return decisions


def append_entity_review(
    data: DataDir,
    name: str,
    decision: str,
    *,
    reviewer: str,
    now: datetime | None = None,
    **fields: str | None,
) -> EntityDecision:
    """Check and append one decision (``fields``: type, family, into, entity_id, note)."""
    unknown = set(fields) - set(_OPTIONAL)
    if unknown:
        raise TypeError(f"unknown fields {sorted(unknown)}")
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    checked = EntityDecision(
        name=" ".join(name.split()),
        decision=decision,
        reviewer=reviewer,
        reviewed_at=moment,
        **fields,
    )
    line: dict[str, Any] = {
        "name": checked.name,
        "decision": decision,
        **{k: fields.get(k) for k in _OPTIONAL if k != "note"},
        "reviewer": reviewer,
        "reviewed_at": moment.isoformat(),
        "note": fields.get("note"),
    }
    append_jsonl(data.entity_reviews_file, [line])
    return checked
