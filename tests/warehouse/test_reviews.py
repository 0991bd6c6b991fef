"""The units' reviews file: decisions read back in order, an unknown decision refused; and both
review files append under their lock, so a writer waits for another instead of interleaving."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from analytics.schema import REVIEW_DECISIONS
from warehouse.entity_reviews import append_entity_review, read_entity_reviews
from warehouse.locks import file_lock
from warehouse.paths import DataDir
from warehouse.reviews import ReviewFileError, append_reviews, read_reviews

NOW = datetime(2026, 11, 25, 12, tzinfo=UTC)


def test_decisions_read_back_in_order_and_an_unknown_one_is_refused(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data")
    assert append_reviews(data, ["u1", "u2"], "approve", reviewer="ana", now=NOW) == 2
    assert append_reviews(data, ["u1"], "reject", reviewer="bo", note="wrong", now=NOW) == 1
    read = read_reviews(data)
    assert read.select("unit_id", "decision", "reviewer", "note").rows() == [
        ("u1", "approve", "ana", None),
        ("u2", "approve", "ana", None),
        ("u1", "reject", "bo", "wrong"),
    ]
    assert set(read["decision"]) <= set(REVIEW_DECISIONS)
    with pytest.raises(ValueError, match="decision must be approve or reject"):
        append_reviews(data, ["u3"], "merge", reviewer="ana")
    data.reviews_file.write_text('{"unit_id": "u1", "decision": "maybe", "reviewed_at": "x"}\n')
    with pytest.raises(ReviewFileError, match=r"reviews.jsonl:1: decision must be"):
        read_reviews(data)


def _units(data: DataDir) -> None:
    append_reviews(data, ["u1"], "approve", reviewer="ana", now=NOW)


def _names(data: DataDir) -> None:
    append_entity_review(data, "Kimi K2", "reject", reviewer="ana", now=NOW)


@pytest.mark.parametrize(
    ("append", "path_of"),
    [
        (_units, lambda data: data.reviews_file),
        (_names, lambda data: data.entity_reviews_file),
    ],
    ids=["reviews", "entity_reviews"],
)
def test_an_append_waits_for_the_files_lock(
    tmp_path: Path, append: Callable[[DataDir], None], path_of: Callable[[DataDir], Path]
) -> None:
    data = DataDir(tmp_path)
    path = path_of(data)
    writer = threading.Thread(target=append, args=(data,))
    with file_lock(path.parent / f".{path.stem}.lock"):
        writer.start()
        writer.join(timeout=0.5)
        assert writer.is_alive() and not path.exists()  # waiting for the lock
    writer.join(timeout=10)
    assert not writer.is_alive()
    assert len(path.read_text(encoding="utf-8").splitlines()) == 1
    assert read_reviews(data).height == 1 or len(read_entity_reviews(data)) == 1
