"""Pre-rendered JSON of what the API serves (DESIGN §10): built once per snapshot, served as bytes.

The shapes are the interface spec's (§2.1–2.3); the serving layer's response models describe
the same shapes and a test checks the two agree.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson
import polars as pl

from analytics.schema import SERVED_SIGNALS

CENTRAL_ROLES = ("thesis", "synopsis")


def iso_utc(moment: datetime) -> str:
    """``2025-06-01T09:30:00Z``: the one timestamp format the API uses."""
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def unit_object(unit: dict[str, Any]) -> dict[str, Any]:
    """A unit as served (spec §2.1): optional fields are omitted, never null."""
    obj: dict[str, Any] = {"id": unit["unit_id"], "role": unit["role"], "text": unit["text"]}
    if unit["role"] == "argument" and unit["argument_id"]:
        obj["argument_id"] = unit["argument_id"]
    obj["entities"] = list(unit["entities"] or [])
    if unit["human_reviewed"]:
        obj["verification"] = {"human_reviewed": True}
    obj["evidence_preview"] = {
        "snippets": [{"text": s["text"], "truncated": s["truncated"]} for s in unit["evidence"]]
    }
    return obj


def render_served_signals(signals: pl.DataFrame, units: pl.DataFrame) -> pl.DataFrame:
    """The snapshot's signal table: sort/filter keys plus card and detail JSON per signal.

    A signal is served only when its central statement passed verification, so every card
    has its ``thesis`` or ``synopsis`` and ``verified_unit_count`` equals ``len(units)``.
    """
    units_by_signal: dict[str, list[dict[str, Any]]] = {}
    for unit in units.sort("signal_id", "position").iter_rows(named=True):
        units_by_signal.setdefault(unit["signal_id"], []).append(unit)
    rows: list[dict[str, Any]] = []
    for sig in signals.iter_rows(named=True):
        signal_units = units_by_signal.get(sig["signal_id"], [])
        central = [u for u in signal_units if u["role"] in CENTRAL_ROLES]
        if not central:
            continue
        common: dict[str, Any] = {
            "signal_id": sig["signal_id"],
            "title": sig["title"],
            "url": sig["url"],
            "published_at": iso_utc(sig["published_at"]),
            "content_type": sig["content_type"],
            "domain": sig["domain"],
            "verified_unit_count": len(signal_units),
        }
        central_key = "synopsis" if sig["content_type"] == "event" else "thesis"
        tags: dict[str, Any] = {
            "themes": {"value_chain": [], "market_force": []},
            "entities": [],
        }
        card = {**common, central_key: central[0]["text"], **tags}
        detail = {**common, **tags, "units": [unit_object(u) for u in signal_units]}
        rows.append(
            {
                "signal_id": sig["signal_id"],
                "published_at": sig["published_at"],
                "content_type": sig["content_type"],
                "domain": sig["domain"],
                "title": sig["title"],
                "change_seq": None,  # numbered when published (analytics.changes)
                "changed_at": None,
                "card_json": orjson.dumps(card),
                "detail_json": orjson.dumps(detail),
            }
        )
    return pl.DataFrame(rows, schema=SERVED_SIGNALS, orient="row").sort(
        ["published_at", "signal_id"], descending=True
    )
