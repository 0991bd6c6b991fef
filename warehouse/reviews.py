"""The reviews file (``<data dir>/reviews.jsonl``): one JSON line per human decision, appended,
and editable by hand; the latest decision per unit counts."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime

import polars as pl

from analytics.records import RecordError, parse_timestamp
from analytics.schema import REVIEWS
from warehouse.paths import DataDir


class ReviewFileError(ValueError):
    """A line of the reviews file that cannot be read; names the line."""


def read_reviews(data: DataDir) -> pl.DataFrame:
    """Every decision in file order; raises ``ReviewFileError`` naming a malformed line."""
    path = data.reviews_file
    if not path.exists():
        return pl.DataFrame(schema=REVIEWS)
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            decision = raw["decision"]
            if decision not in ("approve", "reject"):
                raise ValueError(f"decision must be approve or reject, got {decision!r}")
            rows.append(
                {
                    "unit_id": str(raw["unit_id"]),
                    "decision": decision,
                    "reviewer": str(raw.get("reviewer") or ""),
                    "reviewed_at": parse_timestamp(raw["reviewed_at"]),
                    "note": raw.get("note"),
                }
            )
        except (ValueError, KeyError, TypeError, RecordError) as exc:
            raise ReviewFileError(f"{path}:{number}: {exc}") from None
    return pl.DataFrame(rows, schema=REVIEWS, orient="row")


def append_reviews(
    data: DataDir,
    unit_ids: Sequence[str],
    decision: str,
    *,
    reviewer: str,
    note: str | None = None,
    now: datetime | None = None,
) -> int:
    """Append one decision per unit id; returns how many lines were written."""
    if decision not in ("approve", "reject"):
        raise ValueError(f"decision must be approve or reject, got {decision!r}")
    moment = (now or datetime.now(UTC)).astimezone(UTC).isoformat()
    data.root.mkdir(parents=True, exist_ok=True)
    with data.reviews_file.open("a", encoding="utf-8") as fh:
        for unit_id in unit_ids:
            line = {
                "unit_id": unit_id,
                "decision": decision,
                "reviewer": reviewer,
                "reviewed_at": moment,
                "note": note,
            }
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    return len(unit_ids)
