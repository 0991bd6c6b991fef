"""Pre-rendered JSON of what the API serves (docs/design.md §10): built once per snapshot, served as
bytes.

The shapes are the interface spec's (§2.1–2.3); the serving layer's response models describe
the same shapes and a test checks the two agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
import polars as pl

from analytics.copies import copy_of
from analytics.records import iso_utc
from analytics.schema import SEARCH_UNITS, SERVED_SIGNALS

CENTRAL_ROLES = ("thesis", "synopsis")


def served_signals(signals: pl.DataFrame, units: pl.DataFrame) -> pl.DataFrame:
    """The signals the API serves: those whose central statement (thesis or synopsis) passed
    verification. Analytics count exactly these, so profiles agree with the served cards."""
    central = units.filter(pl.col("role").is_in(CENTRAL_ROLES)).select("signal_id").unique()
    return signals.join(central, on="signal_id", how="semi")


def unit_object(
    unit: dict[str, Any], corroboration: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A unit as served (docs/api.md §2.1): optional fields are omitted, never null. Its
    ``corroboration`` (``analytics.corroboration.corroboration_objects``) when it has one."""
    obj: dict[str, Any] = {"id": unit["unit_id"], "role": unit["role"], "text": unit["text"]}
    if unit["role"] == "argument" and unit["argument_id"]:
        obj["argument_id"] = unit["argument_id"]
    obj["entities"] = list(unit["entities"] or [])
    if unit["human_reviewed"]:
        obj["verification"] = {"human_reviewed": True}
    obj["evidence_preview"] = {
        "snippets": [{"text": s["text"], "truncated": s["truncated"]} for s in unit["evidence"]]
    }
    if corroboration is not None:
        obj["corroboration"] = dict(corroboration)
    return obj


def render_served_signals(
    signals: pl.DataFrame,
    units: pl.DataFrame,
    *,
    themes: pl.DataFrame | None = None,
    signal_entities: pl.DataFrame | None = None,
    entities: pl.DataFrame | None = None,
    unit_entities: pl.DataFrame | None = None,
    story_of: Mapping[str, str] | None = None,
    corroboration: Mapping[str, Mapping[str, Any]] | None = None,
) -> pl.DataFrame:
    """The snapshot's signal table: sort/filter keys plus card and detail JSON per signal.

    A signal is served only when its central statement passed verification, so every card
    has its ``thesis`` or ``synopsis`` and ``verified_unit_count`` equals ``len(units)``.
    ``themes`` (SIGNAL_THEMES), ``signal_entities`` + ``entities`` and ``unit_entities`` fill
    the cards' ``themes`` and ``entities`` and the units' ``entities``; absent, they are empty.
    ``story_of`` (signal id → story id, the ``stories`` table) gives card and detail their
    ``story_id``, null for a signal in no story; absent, the field is left out. ``corroboration``
    (unit id → object) gives the units theirs.
    """
    corroborated = corroboration or {}
    theme_of = _themes_by_signal(themes)
    entity_ref = _entity_refs(entities)
    mentioned = _mentions_by_signal(signal_entities, entity_ref)
    units_by_signal = _units_by_signal(units, unit_entities)
    rows: list[dict[str, Any]] = []
    for sig in signals.iter_rows(named=True):
        signal_units = units_by_signal.get(sig["signal_id"], [])
        central = [u for u in signal_units if u["role"] in CENTRAL_ROLES]
        if not central:
            continue
        common = _card_common(sig, len(signal_units), story_of)
        central_key = "synopsis" if sig["content_type"] == "event" else "thesis"
        value_chain, market_force = theme_of.get(sig["signal_id"], ([], []))
        entity_ids = mentioned.get(sig["signal_id"], [])
        refs = sorted(
            (entity_ref[e] for e in entity_ids), key=lambda r: (r["name"].lower(), r["entity_id"])
        )
        tags: dict[str, Any] = {
            "themes": {"value_chain": value_chain, "market_force": market_force},
            "entities": refs,
        }
        card = {**common, central_key: central[0]["text"], **tags}
        detail = {
            **common,
            **tags,
            "units": [unit_object(u, corroborated.get(u["unit_id"])) for u in signal_units],
        }
        rows.append(
            {
                "signal_id": sig["signal_id"],
                "published_at": sig["published_at"],
                "content_type": sig["content_type"],
                "domain": sig["domain"],
                "title": sig["title"],
                "change_seq": None,  # numbered when published (analytics.changes)
                "changed_at": None,
                "entity_ids": entity_ids,
                "value_chain": value_chain,
                "market_force": market_force,
                # what the `keyword` filter reads: the title and the served unit texts
                "search_text": "\n".join([sig["title"], *(u["text"] for u in signal_units)]),
                "card_json": orjson.dumps(card),
                "detail_json": orjson.dumps(detail),
            }
        )
    return pl.DataFrame(rows, schema=SERVED_SIGNALS, orient="row").sort(
        ["published_at", "signal_id"], descending=True
    )


def _card_common(
    sig: Mapping[str, Any], unit_count: int, story_of: Mapping[str, str] | None
) -> dict[str, Any]:
    """What a signal's card and detail both carry."""
    common: dict[str, Any] = {
        "signal_id": sig["signal_id"],
        "title": sig["title"],
        "url": sig["url"],
        "published_at": iso_utc(sig["published_at"]),
        "content_type": sig["content_type"],
        "domain": sig["domain"],
        "verified_unit_count": unit_count,
    }
    if story_of is not None:
        common["story_id"] = story_of.get(sig["signal_id"])
    return common


def _themes_by_signal(themes: pl.DataFrame | None) -> dict[str, tuple[list[str], list[str]]]:
    """signal id → (value-chain labels, market-force labels)."""
    theme_of: dict[str, tuple[list[str], list[str]]] = {}
    if themes is not None:
        for signal_id, value_chain, market_force in themes.select(
            "signal_id", "value_chain", "market_force"
        ).iter_rows():
            theme_of[signal_id] = (list(value_chain or []), list(market_force or []))
    return theme_of


def _entity_refs(entities: pl.DataFrame | None) -> dict[str, dict[str, str]]:
    """entity id → the reference a card carries (id, name, type)."""
    entity_ref: dict[str, dict[str, str]] = {}
    if entities is not None:
        for entity_id, name, kind in entities.select("entity_id", "name", "type").iter_rows():
            entity_ref[entity_id] = {"entity_id": entity_id, "name": name, "type": kind}
    return entity_ref


def _mentions_by_signal(
    signal_entities: pl.DataFrame | None, entity_ref: Mapping[str, dict[str, str]]
) -> dict[str, list[str]]:
    """signal id → the ids of the known entities it mentions, in id order."""
    mentioned: dict[str, list[str]] = {}
    if signal_entities is not None:
        for signal_id, entity_id in signal_entities.sort("signal_id", "entity_id").iter_rows():
            if entity_id in entity_ref:
                mentioned.setdefault(signal_id, []).append(entity_id)
    return mentioned


def _units_by_signal(
    units: pl.DataFrame, unit_entities: pl.DataFrame | None
) -> dict[str, list[dict[str, Any]]]:
    """signal id → its units in position order, each with its ``entities`` when
    ``unit_entities`` has any."""
    in_unit: dict[str, list[str]] = {}
    if unit_entities is not None:
        for unit_id, entity_id in unit_entities.sort("unit_id", "entity_id").iter_rows():
            in_unit.setdefault(unit_id, []).append(entity_id)
    units_by_signal: dict[str, list[dict[str, Any]]] = {}
    for unit in units.sort("signal_id", "position").iter_rows(named=True):
        if in_unit:
            unit = {**unit, "entities": in_unit.get(unit["unit_id"], [])}
        units_by_signal.setdefault(unit["signal_id"], []).append(unit)
    return units_by_signal


def render_search_units(
    served: pl.DataFrame,
    signals: pl.DataFrame,
    units: pl.DataFrame,
    unit_entities: pl.DataFrame | None = None,
    corroboration: Mapping[str, Mapping[str, Any]] | None = None,
) -> pl.DataFrame:
    """SEARCH_UNITS rows for the units of the served signals (``served``: the snapshot's signal
    table, in served order), each unit in its signal's order. ``unit_json`` is the unit exactly
    as in the signal detail; ``citation_json`` is ``{signal_id, title, url, domain,
    published_at}``; ``copy_of`` names each unit's earliest copy (analytics.copies)."""
    in_unit: dict[str, list[str]] = {}
    if unit_entities is not None:
        for unit_id, entity_id in unit_entities.sort("unit_id", "entity_id").iter_rows():
            in_unit.setdefault(unit_id, []).append(entity_id)
    url_of = dict(signals.select("signal_id", "url").iter_rows())
    order = {signal_id: i for i, signal_id in enumerate(served["signal_id"].to_list())}
    meta = {
        row["signal_id"]: row
        for row in served.select(
            "signal_id",
            "title",
            "domain",
            "published_at",
            "content_type",
            "value_chain",
            "market_force",
        ).iter_rows(named=True)
    }
    chosen = units.filter(pl.col("signal_id").is_in(list(order)))
    chosen = chosen.with_columns(
        pl.col("signal_id").replace_strict(order, return_dtype=pl.Int64).alias("_order")
    ).sort("_order", "position")
    rows: list[dict[str, Any]] = []
    for unit in chosen.iter_rows(named=True):
        sig = meta[unit["signal_id"]]
        # as render_served_signals does: unit-level mentions when given, else the unit's own
        entity_ids = in_unit.get(unit["unit_id"], []) if in_unit else list(unit["entities"] or [])
        citation = {
            "signal_id": unit["signal_id"],
            "title": sig["title"],
            "url": url_of.get(unit["signal_id"]),
            "domain": sig["domain"],
            "published_at": iso_utc(sig["published_at"]),
        }
        rows.append(
            {
                "unit_id": unit["unit_id"],
                "signal_id": unit["signal_id"],
                "role": unit["role"],
                "content_type": sig["content_type"],
                "published_at": sig["published_at"],
                "entity_ids": entity_ids,
                "themes": [*(sig["value_chain"] or []), *(sig["market_force"] or [])],
                "text": unit["text"],
                "title": sig["title"],
                "copy_of": None,
                "unit_json": orjson.dumps(
                    unit_object(
                        {**unit, "entities": entity_ids},
                        (corroboration or {}).get(unit["unit_id"]),
                    )
                ),
                "citation_json": orjson.dumps(citation),
            }
        )
    frame = pl.DataFrame(rows, schema=SEARCH_UNITS, orient="row")
    return frame.with_columns(copy_of(frame))
