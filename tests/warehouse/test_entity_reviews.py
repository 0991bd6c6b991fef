"""The entity reviews file: appended decisions read back in order; a malformed line is named."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from analytics.entity_review import EntityReviewError
from warehouse.entity_reviews import append_entity_review, read_entity_reviews
from warehouse.paths import DataDir
from warehouse.reviews import ReviewFileError

NOW = datetime(2026, 11, 25, 12, tzinfo=UTC)


def test_appended_decisions_read_back_in_order(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data")
    assert read_entity_reviews(data) == []
    append_entity_review(
        data, " Kimi  K3 ", "approve", reviewer="ana", now=NOW, type="model", entity_id="ent:/a"
    )
    append_entity_review(data, "Moonshot", "merge", reviewer="ana", now=NOW, into="ent:/b")
    append_entity_review(data, "Spam", "reject", reviewer="bo", now=NOW, note="noise")
    read = read_entity_reviews(data)
    assert [(d.name, d.decision) for d in read] == [
        ("Kimi K3", "approve"),
        ("Moonshot", "merge"),
        ("Spam", "reject"),
    ]
    assert (read[0].type, read[0].entity_id, read[1].into, read[2].note) == (
        "model",
        "ent:/a",
        "ent:/b",
        "noise",
    )
    assert read[0].reviewed_at == NOW


def test_an_invalid_decision_is_never_written(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data")
    with pytest.raises(EntityReviewError):
        append_entity_review(data, "X", "approve", reviewer="ana", type="gadget")
    assert not data.entity_reviews_file.exists()


@pytest.mark.parametrize(
    "line",
    [
        "not json",
        '["a list"]',
        '{"name": "X", "decision": "promote", "reviewed_at": "2026-11-25T00:00:00Z"}',
        '{"name": "X", "decision": "reject"}',
        '{"name": "X", "decision": "approve", "reviewed_at": "2026-11-25T00:00:00Z"}',
    ],
)
def test_a_malformed_line_is_named(tmp_path: Path, line: str) -> None:
    data = DataDir(tmp_path / "data")
    data.root.mkdir(parents=True)
    data.entity_reviews_file.write_text(
        '{"name": "Ok", "decision": "reject", "reviewed_at": "2026-11-25T00:00:00Z"}\n'
        + line
        + "\n",
        encoding="utf-8",
    )
    with pytest.raises(ReviewFileError, match=r"entity_reviews.jsonl:2: "):
        read_entity_reviews(data)
