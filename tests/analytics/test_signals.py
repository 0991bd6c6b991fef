from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson
import polars as pl
from polars.testing import assert_frame_equal

from analytics.records import validate_record
from analytics.render import render_served_signals
from analytics.signals import (
    assemble_extraction,
    decompose_planned,
    extract_units,
    plan_extraction,
    signals_from_sources,
)
from warehouse.ingest import sources_frame

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def sources(*raw: dict[str, Any]) -> pl.DataFrame:
    return sources_frame([(validate_record(r), "inline:1") for r in raw], now=NOW)


NEWS = {
    "kind": "news",
    "title": "Nvidia posts record revenue",
    "url": "https://example.com/nvidia",
    "published_at": "2026-05-20T10:00:00Z",
    "text": (
        "Nvidia reported revenue of $57 billion on Wednesday. "
        "Data-center sales rose 66% from a year earlier."
    ),
}
EPISODE = {
    "kind": "podcast",
    "title": "The Compute Ledger #41",
    "url": "https://pod.example.fm/episodes/41",
    "published_at": "2026-05-21T06:00:00Z",
    "segments": [
        {
            "start_s": 0,
            "end_s": 610,
            "chapter": "Power",
            "text": (
                "Host (00:00:05): Power is the binding constraint on new data centers this year."
            ),
        },
        {
            "start_s": 610,
            "end_s": 1500,
            "chapter": "Chips",
            "text": "Guest (00:10:12): Custom accelerators will take a third of inference by 2028.",
        },
    ],
}
LATE = {**NEWS, "url": "https://example.com/late", "published_at": "2026-07-01T00:00:00Z"}


def test_podcast_segments_become_signals_with_spans_and_chapter_titles() -> None:
    frame = signals_from_sources(sources(NEWS, EPISODE))
    pod = frame.filter(pl.col("kind") == "podcast").sort("segment_start_s")
    assert pod["title"].to_list() == [
        "The Compute Ledger #41 — Power",
        "The Compute Ledger #41 — Chips",
    ]
    assert pod["url"].to_list() == [
        "https://pod.example.fm/episodes/41?t=0&end=610",
        "https://pod.example.fm/episodes/41?t=610&end=1500",
    ]
    assert pod["signal_id"].n_unique() == 2
    assert frame.filter(pl.col("kind") == "news")["content_type"].to_list() == ["event"]


def test_sources_after_as_of_are_left_out() -> None:
    frame = signals_from_sources(sources(NEWS, LATE), as_of=datetime(2026, 6, 1, tzinfo=UTC))
    assert frame["url"].to_list() == ["https://example.com/nvidia"]


def test_every_signal_gets_verified_units_in_served_order() -> None:
    signal_frame = signals_from_sources(sources(NEWS, EPISODE))
    extraction = extract_units(signal_frame)
    units, rejections = extraction.units, extraction.rejections
    assert rejections.height == 0
    for _, group in units.group_by("signal_id"):
        group = group.sort("position")
        assert group["position"].to_list() == list(range(group.height))
        assert group["role"][0] in ("thesis", "synopsis")
        assert set(group["role"][1:].to_list()) <= {"argument", "claim"}
    news_units = units.join(
        signal_frame.filter(pl.col("kind") == "news").select("signal_id"), on="signal_id"
    )
    assert news_units["role"].to_list() == ["synopsis", "claim"]


def test_an_extraction_in_slices_is_the_whole_extraction() -> None:
    # what a build split into chunks does: every chunk plans alike, decomposes its slice of
    # the plan, and the slices' rows assembled in order are extract_units' own
    signal_frame = signals_from_sources(sources(NEWS, EPISODE))
    whole = extract_units(signal_frame)
    plan = plan_extraction(signal_frame)
    assert len(plan.todo) == 3 and plan.keep == ()
    slices = [decompose_planned(plan, plan.todo[a:b]) for a, b in ((0, 1), (1, 1), (1, 3))]
    assert [part.extractions.height for part in slices] == [1, 0, 2]
    parts = assemble_extraction(plan, None, slices)
    for got, want in (
        (parts.units, whole.units),
        (parts.rejections, whole.rejections),
        (parts.extractions, whole.extractions),
    ):
        assert_frame_equal(got, want)
    assert (parts.extracted, parts.reused) == (whole.extracted, whole.reused) == (3, 0)
    # a second run keeps every signal: nothing to do, the earlier rows as they were
    again = plan_extraction(signal_frame, previous=whole)
    assert again.todo == () and len(again.keep) == 3
    kept = assemble_extraction(again, whole, [decompose_planned(again, ())])
    assert_frame_equal(kept.units, whole.units)
    assert kept.reused == 3


def test_cards_and_details_have_the_spec_shape() -> None:
    signal_frame = signals_from_sources(sources(NEWS, EPISODE))
    units = extract_units(signal_frame).units
    served = render_served_signals(signal_frame, units)
    assert served.height == 3
    assert served["published_at"].to_list() == sorted(
        served["published_at"].to_list(), reverse=True
    )
    news = served.filter(pl.col("content_type") == "event").row(0, named=True)
    card = orjson.loads(news["card_json"])
    detail = orjson.loads(news["detail_json"])
    assert card == {
        "signal_id": news["signal_id"],
        "title": "Nvidia posts record revenue",
        "url": "https://example.com/nvidia",
        "published_at": "2026-05-20T10:00:00Z",
        "content_type": "event",
        "domain": "example.com",
        "verified_unit_count": 2,
        "synopsis": "Nvidia reported revenue of $57 billion on Wednesday.",
        "themes": {"value_chain": [], "market_force": []},
        "entities": [],
    }
    assert {k: v for k, v in card.items() if k != "synopsis"} == {
        k: v for k, v in detail.items() if k != "units"
    }
    assert len(detail["units"]) == card["verified_unit_count"]
    first = detail["units"][0]
    assert first["role"] == "synopsis" and "verification" not in first
    assert first["evidence_preview"] == {
        "snippets": [{"text": "Nvidia reported revenue of $57 billion on", "truncated": True}]
    }
