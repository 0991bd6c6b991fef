"""The analytics benchmark's equality check (bench/analytics/speed/run.py): a column on one side
only is a difference whichever side it is on, and differences end the run with a nonzero status;
with pandas installed, the reference agrees with the stage on a small corpus."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import polars as pl
import pytest

from bench.analytics.speed import run as analytics_run


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return analytics_run


def _ours(bench: ModuleType) -> dict[str, pl.DataFrame]:
    corpus = bench.generate(2_000, seed=3)
    return {part: fn() for part, fn in bench.ours(corpus).items()}


def test_identical_frames_have_no_differences(bench: ModuleType) -> None:
    mine = _ours(bench)
    for part, frame in mine.items():
        assert bench.compare(frame, frame.clone(), part) == []


def test_a_column_on_one_side_only_is_a_difference_either_way(bench: ModuleType) -> None:
    entities = _ours(bench)["entities"]
    assert "notable_since" in entities.columns
    # the stage gained a field the reference lacks (how notable_since went unnoticed)
    problems = bench.compare(entities, entities.drop("notable_since"), "entities")
    assert problems == ["entities: columns only in ours (missing in pandas): ['notable_since']"]
    # the reference has a field the stage dropped
    problems = bench.compare(entities.drop("streak"), entities, "entities")
    assert problems == ["entities: columns only in pandas (missing in ours): ['streak']"]


def test_a_changed_value_is_a_difference(bench: ModuleType) -> None:
    entities = _ours(bench)["entities"]
    changed = entities.with_columns(pl.col("signal_count") + (pl.col("key") == pl.col("key").min()))
    (problem,) = bench.compare(entities, changed, "entities")
    assert problem.startswith("entities.signal_count: 1 rows differ")


def test_differences_end_the_run_with_a_nonzero_status(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def reference_without_a_column(corpus: Any) -> dict[str, Any]:
        stage = bench.ours(corpus)
        return {**stage, "entities": lambda: stage["entities"]().drop("notable_since")}

    monkeypatch.setattr(bench, "reference", reference_without_a_column)
    with pytest.raises(SystemExit) as exited:
        bench.main(["--signals", "2000"])
    assert exited.value.code not in (0, None)
    assert "DIFFERENT" in capsys.readouterr().out

    monkeypatch.setattr(bench, "reference", bench.ours)
    bench.main(["--signals", "2000"])  # identical: returns normally
    assert "results: identical" in capsys.readouterr().out


def test_the_pandas_reference_agrees_with_the_stage(bench: ModuleType) -> None:
    pytest.importorskip("pandas", reason="pandas is not a project dependency")
    corpus = bench.generate(5_000, seed=4)
    mine = {part: fn() for part, fn in bench.ours(corpus).items()}
    theirs = {part: fn() for part, fn in bench.reference(corpus).items()}
    assert [p for part in bench.PARTS for p in bench.compare(mine[part], theirs[part], part)] == []


def test_the_floor_counts_the_pairs_three_ways_alike(bench: ModuleType) -> None:
    # DuckDB's self-join, scipy's sparse product and the packed codes count the same pairs
    # (floor() exits nonzero when they disagree)
    report = bench.floor(bench.generate(2_000, seed=5))
    assert "| pairs on integer codes: DuckDB (1 thread) self-join + GROUP BY |" in report
    assert "(the three pair counts agree:" in report
