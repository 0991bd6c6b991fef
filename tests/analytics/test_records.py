from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from analytics.records import RecordError, validate_record


def record(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "kind": "news",
        "title": "Nvidia reports record quarter",
        "url": "https://example.com/nvidia-q3",
        "published_at": "2026-05-01T09:30:00Z",
        "text": "Nvidia reported revenue of $57 billion on Wednesday.",
    }
    base.update(overrides)
    return base


def test_valid_record_gets_identity_domain_and_utc_time() -> None:
    rec = validate_record(record(url="https://www.news.example.co.uk/a/", labels={"x": 1}))
    assert rec.domain == "example.co.uk"
    assert rec.canonical_url == "https://news.example.co.uk/a"
    assert rec.published_at == datetime(2026, 5, 1, 9, 30, tzinfo=UTC)
    assert rec.extra == {"labels": {"x": 1}}
    assert rec.source_id.startswith("src_")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-05-01", datetime(2026, 5, 1, tzinfo=UTC)),
        ("2026-05-01T09:30:00", datetime(2026, 5, 1, 9, 30, tzinfo=UTC)),
        ("2026-05-01T11:30:00+02:00", datetime(2026, 5, 1, 9, 30, tzinfo=UTC)),
    ],
)
def test_published_at_without_offset_is_utc(value: str, expected: datetime) -> None:
    assert validate_record(record(published_at=value)).published_at == expected


@pytest.mark.parametrize(
    ("overrides", "field", "fragment"),
    [
        ({"kind": "blog"}, "kind", "expected one of"),
        ({"kind": None}, "kind", "missing"),
        ({"title": "  "}, "title", "empty"),
        ({"title": 5}, "title", "must be a string"),
        ({"url": "example.com/x"}, "url", "absolute http(s) URL"),
        ({"published_at": "yesterday"}, "published_at", "ISO 8601"),
        ({"published_at": None}, "published_at", "missing"),
        ({"text": None}, "text", "missing"),
        ({"author": 3}, "author", "must be a string"),
        ({"kind": "podcast", "text": None}, "segments", "segments"),
        (
            {"kind": "podcast", "segments": [{"start_s": 10, "end_s": 5, "text": "x"}]},
            "segments",
            "must be after",
        ),
        (
            {"kind": "podcast", "segments": [{"start_s": 1.5, "end_s": 5, "text": "x"}]},
            "segments",
            "whole seconds",
        ),
    ],
)
def test_invalid_records_name_the_field_and_the_fix(
    overrides: dict[str, Any], field: str, fragment: str
) -> None:
    with pytest.raises(RecordError) as info:
        validate_record(record(**overrides))
    assert info.value.field == field
    assert fragment in info.value.message


def test_non_object_record_is_refused() -> None:
    with pytest.raises(RecordError, match="JSON object"):
        validate_record(["not", "a", "record"])


def test_content_hash_changes_with_text_only() -> None:
    a = validate_record(record())
    b = validate_record(record(extra_field="ignored for identity"))
    c = validate_record(record(text="Nvidia reported revenue of $58 billion on Wednesday."))
    assert a.content_hash == b.content_hash
    assert a.content_hash != c.content_hash
    assert a.source_id == c.source_id


def test_podcast_segments_are_typed_and_joined_into_text() -> None:
    rec = validate_record(
        record(
            kind="podcast",
            text=None,
            segments=[
                {"start_s": 0, "end_s": 60, "chapter": "Intro", "text": "Host (00:00:01): Hi."},
                {"start_s": 60, "end_s": 120.0, "chapter": "Chips", "text": "Guest: chips."},
            ],
        )
    )
    assert [s.end_s for s in rec.segments] == [60, 120]
    assert "Hi." in rec.text and "chips." in rec.text


def test_iso_utc_in_the_api_s_seconds_or_with_an_adapter_s_microseconds() -> None:
    from datetime import timedelta, timezone

    from analytics.records import iso_utc, parse_timestamp

    moment = datetime(2025, 6, 1, 9, 30, 0, 250000, tzinfo=UTC)
    assert iso_utc(moment) == "2025-06-01T09:30:00Z"  # what the API serves
    assert iso_utc(moment, precision="microseconds") == "2025-06-01T09:30:00.250000Z"
    assert iso_utc(moment.replace(microsecond=0), precision="microseconds") == (
        "2025-06-01T09:30:00Z"
    )
    # a naive datetime is UTC already; an aware one in another zone is converted
    assert iso_utc(moment.replace(tzinfo=None)) == "2025-06-01T09:30:00Z"
    paris = moment.astimezone(timezone(timedelta(hours=2)))
    assert iso_utc(paris) == "2025-06-01T09:30:00Z"
    assert iso_utc(paris, precision="microseconds") == "2025-06-01T09:30:00.250000Z"
    assert parse_timestamp(iso_utc(moment, precision="microseconds")) == moment
