"""bench/stories/ids.py's comparison of two builds' stories: ids kept and new, merges, splits
and the signals that changed story."""

from __future__ import annotations

from types import ModuleType

import polars as pl
import pytest

from bench.stories import ids as ids_script


@pytest.fixture(scope="module")
def ids() -> ModuleType:
    return ids_script


def stories(rows: list[tuple[str, list[str], list[str], str | None]]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "story_id": [r[0] for r in rows],
            "signal_ids": [r[1] for r in rows],
            "merged_from": [r[2] for r in rows],
            "split_from": [r[3] for r in rows],
        },
        schema={
            "story_id": pl.String,
            "signal_ids": pl.List(pl.String),
            "merged_from": pl.List(pl.String),
            "split_from": pl.String,
        },
    )


def test_a_cut_story_counts_as_a_split_and_its_moved_signals(
    ids: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    before = stories([("sty_a", ["s1", "s2", "s3"], [], None), ("sty_b", ["s4"], [], None)])
    after = stories(
        [
            ("sty_a", ["s1", "s2"], [], None),
            ("sty_c", ["s3"], [], "sty_a"),
            ("sty_b", ["s4"], [], None),
        ]
    )
    ids.compare("cut", before, after)
    out = capsys.readouterr().out
    assert "2 stories before, 3 after; 2 ids kept, 1 new; 0 record a merge, 1 a split" in out
    assert "1 signals changed story" in out
