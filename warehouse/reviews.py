"""The reviews file (``<data dir>/reviews.jsonl``): one JSON line per human decision
(``REVIEW_DECISIONS``), appended under the file's lock, and editable by hand; the latest
decision per unit counts."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime

import polars as pl

from analytics.records import RecordError, parse_timestamp
from analytics.schema import REVIEW_DECISIONS, REVIEWS
from warehouse.files import append_jsonl
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
            _check(decision)
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
    _check(decision)
    moment = (now or datetime.now(UTC)).astimezone(UTC).isoformat()
    lines = [
        {
            "unit_id": unit_id,
            "decision": decision,
            "reviewer": reviewer,
            "reviewed_at": moment,
            "note": note,
        }
        for unit_id in unit_ids
    ]
    return append_jsonl(data.reviews_file, lines)


def _check(decision: object) -> None:
    if decision not in REVIEW_DECISIONS:
        raise ValueError(f"decision must be {' or '.join(REVIEW_DECISIONS)}, got {decision!r}")
