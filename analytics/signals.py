"""From sources to signals and their verified units: pure frame-in, frame-out steps."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

import polars as pl

from analytics.decompose import (
    Decomposer,
    LexicalDecomposer,
    classify_content_type,
    unit_id_for,
    verify_units,
)
from analytics.schema import SIGNALS, UNIT_REJECTIONS, UNITS
from analytics.urls import signal_id_for, with_segment

EPISODE_CHAPTER_SEPARATOR = " — "


def _segment_hash(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()


def signals_from_sources(sources: pl.DataFrame, *, as_of: datetime | None = None) -> pl.DataFrame:
    """One signal per source, or one per segment of a podcast that carries segments.

    Sources published after ``as_of`` are left out: a build sees the corpus as of its clock.
    """
    if as_of is not None:
        sources = sources.filter(pl.col("published_at") <= as_of)
    rows: list[dict[str, Any]] = []
    for src in sources.iter_rows(named=True):
        segments = src["segments"] or []
        if src["kind"] == "podcast" and segments:
            for seg in segments:
                chapter = (seg["chapter"] or "").strip()
                title = (
                    f"{src['title']}{EPISODE_CHAPTER_SEPARATOR}{chapter}"
                    if chapter
                    else src["title"]
                )
                url = with_segment(src["url"], seg["start_s"], seg["end_s"])
                rows.append(
                    {
                        "signal_id": signal_id_for(
                            src["canonical_url"], seg["start_s"], seg["end_s"]
                        ),
                        "source_id": src["source_id"],
                        "kind": src["kind"],
                        "content_type": classify_content_type(src["kind"], title, seg["text"]),
                        "title": title,
                        "url": url,
                        "domain": src["domain"],
                        "published_at": src["published_at"],
                        "author": src["author"],
                        "text": seg["text"],
                        "segment_start_s": seg["start_s"],
                        "segment_end_s": seg["end_s"],
                        "content_hash": _segment_hash(
                            src["content_hash"], seg["start_s"], seg["end_s"], seg["text"]
                        ),
                    }
                )
            continue
        rows.append(
            {
                "signal_id": signal_id_for(src["canonical_url"]),
                "source_id": src["source_id"],
                "kind": src["kind"],
                "content_type": classify_content_type(src["kind"], src["title"], src["text"]),
                "title": src["title"],
                "url": src["url"],
                "domain": src["domain"],
                "published_at": src["published_at"],
                "author": src["author"],
                "text": src["text"],
                "segment_start_s": None,
                "segment_end_s": None,
                "content_hash": src["content_hash"],
            }
        )
    return pl.DataFrame(rows, schema=SIGNALS, orient="row").sort("signal_id")


def extract_units(
    signals: pl.DataFrame, decomposer: Decomposer | None = None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Decompose every signal and keep only verified units.

    Returns ``(units, rejections)``. Units are in served order: central statement, arguments,
    claims, each group in document order; ``position`` numbers them within their signal.
    """
    decomposer = decomposer or LexicalDecomposer()
    role_rank = {"thesis": 0, "synopsis": 0, "argument": 1, "claim": 2}
    unit_rows: list[dict[str, Any]] = []
    rejection_rows: list[dict[str, Any]] = []
    for signal_id, content_type, text in signals.select(
        "signal_id", "content_type", "text"
    ).iter_rows():
        drafts = decomposer.decompose(content_type, text)
        accepted, rejected = verify_units(drafts, text)
        seen: set[str] = set()
        ordered = sorted(accepted, key=lambda u: (role_rank[u.role], u.start_char))
        position = 0
        for unit in ordered:
            uid = unit_id_for(signal_id, unit.role, unit.text)
            if uid in seen:  # the same sentence twice in one source is one unit
                continue
            seen.add(uid)
            unit_rows.append(
                {
                    "unit_id": uid,
                    "signal_id": signal_id,
                    "position": position,
                    "role": unit.role,
                    "text": unit.text,
                    "argument_id": unit.argument_id,
                    "evidence": [{"text": s.text, "truncated": s.truncated} for s in unit.evidence],
                    "entities": [],
                    "human_reviewed": False,
                    "start_char": unit.start_char,
                    "end_char": unit.end_char,
                }
            )
            position += 1
        for rejection in rejected:
            rejection_rows.append(
                {
                    "unit_id": unit_id_for(signal_id, rejection.unit.role, rejection.unit.text),
                    "signal_id": signal_id,
                    "role": rejection.unit.role,
                    "text": rejection.unit.text,
                    "rule": rejection.rule,
                }
            )
    units = pl.DataFrame(unit_rows, schema=UNITS, orient="row")
    rejections = pl.DataFrame(rejection_rows, schema=UNIT_REJECTIONS, orient="row")
    return units, rejections
