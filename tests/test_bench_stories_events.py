"""The event-level story benchmark's estimator (bench/stories/events.py): same-story pairs,
stratified precision and recall from judged pairs, unjudged cells left out, and judged pairs
whose signals are gone reported, not counted."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from bench.stories import events as events_script


@pytest.fixture(scope="module")
def events() -> ModuleType:
    return events_script


def judged(stratum: str, a: str, b: str, yes: bool) -> dict[str, Any]:
    return {"a": a, "b": b, "sample": stratum, "stratum": stratum, "same_event": yes}


def paired_off(
    n: int, day: date
) -> tuple[dict[str, Any], list[tuple[str, str]], list[dict[str, Any]]]:
    """``n`` posts of one day, paired off (p0, p1), (p2, p3)…, each pair judged the same event
    in the ``method`` sample: the data, the pairs and the judged rows."""
    ids = [f"p{i}" for i in range(n)]
    pairs = [(ids[i], ids[i + 1]) for i in range(0, n, 2)]
    rows = [{"a": a, "b": b, "sample": "method", "same_event": True, "note": ""} for a, b in pairs]
    return {"ids": ids, "days": [day] * n}, pairs, rows


def test_grouped_pairs_are_every_pair_of_a_label_smaller_id_first(events: ModuleType) -> None:
    labels = {"c": 1, "a": 1, "b": 1, "d": 2}
    assert events.grouped_pairs(["c", "a", "b", "d"], labels) == {
        ("a", "b"),
        ("a", "c"),
        ("b", "c"),
    }


def test_precision_and_recall_weight_each_stratum_by_its_size(events: ModuleType) -> None:
    # the method stratum: 10 pairs, 1 of 2 judged yes -> 5 expected yes pairs; the candidate
    # stratum: 20 pairs, 1 of 4 judged yes -> 5 expected yes pairs the method misses
    method = {(f"m{i}", f"n{i}") for i in range(10)}
    candidate = {(f"c{i}", f"d{i}") for i in range(20)}
    pools = {"method": method, "baseline": set(), "candidate": candidate}
    rows = [
        judged("method", "m0", "n0", True),
        judged("method", "m1", "n1", False),
        *(judged("candidate", f"c{i}", f"d{i}", i == 0) for i in range(4)),
    ]
    figures = events.estimate(rows, pools, method)
    assert figures["precision"] == pytest.approx(0.5)
    assert figures["recall"] == pytest.approx(0.5)
    assert figures["outside"] == 0
    # a clustering grouping the method's pairs and the judged-yes candidate: that candidate
    # cell is 1 pair judged yes; the other 19 candidates keep their own cell (0 of 3 yes)
    wider = method | {("c0", "d0"), ("x", "y")}
    figures = events.estimate(rows, pools, wider)
    assert figures["precision"] == pytest.approx(6 / 11)
    assert figures["recall"] == pytest.approx(1.0)
    assert figures["outside"] == 1  # ("x", "y") was never a candidate: not judged


def test_a_cell_without_judged_pairs_is_unknown_not_zero(events: ModuleType) -> None:
    pools = {"method": {("a", "b"), ("c", "d")}, "baseline": set(), "candidate": set()}
    rows = [judged("method", "a", "b", True)]
    # the clustering groups only ("c", "d"), whose cell holds no judged pair
    figures = events.estimate(rows, pools, {("c", "d")})
    assert figures["unknown"] == 1
    assert figures["precision"] == 0.0


def test_judged_pairs_of_signals_no_longer_served_are_reported(
    events: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "judged.json"
    path.write_text(
        json.dumps(
            {
                "pairs": [
                    {"a": "b", "b": "a", "sample": "method", "same_event": True, "note": ""},
                    {"a": "a", "b": "gone", "sample": "method", "same_event": True, "note": ""},
                ]
            }
        )
    )
    data = {"ids": ["a", "b"], "days": [date(2025, 1, 1), date(2025, 1, 1)]}
    pools = {"method": {("a", "b")}, "baseline": set(), "candidate": set()}
    rows = events.load_judged(data, path, pools)
    assert [(r["a"], r["b"], r["stratum"]) for r in rows] == [("a", "b", "method")]
    assert "GONE: a gone" in capsys.readouterr().out


def test_strata_cut_by_year_weigh_each_years_part_by_its_own_judged_pairs(
    events: ModuleType,
) -> None:
    # the method stratum: 4 pairs of 2024 and 4 of 2025; 2024 judged 2 of 2 yes (a later round
    # drew it again), 2025 judged 0 of 1: over the whole stratum the judged share would be 2/3
    ids = [f"p{i}" for i in range(16)]
    days = [date(2024, 5, 1)] * 8 + [date(2025, 5, 1)] * 8
    data = {"ids": ids, "days": days}
    method = {(ids[i], ids[i + 1]) for i in range(0, 16, 2)}
    pools = {"method": method, "baseline": set(), "candidate": set(), "_drawn": method}
    rows = [
        judged("method", "p0", "p1", True),
        judged("method", "p2", "p3", True),
        judged("method", "p8", "p9", False),
    ]
    split_rows, split = events.yearly(data, rows, pools)
    assert sorted(n for n in split if not n.startswith("_")) == ["method/2024", "method/2025"]
    assert split["_drawn"] == method
    assert [r["stratum"] for r in split_rows] == ["method/2024", "method/2024", "method/2025"]
    # 4 expected yes pairs of 2024, none of 2025, among the 8 grouped: precision 0.5
    figures = events.estimate(split_rows, split, method)
    assert figures["precision"] == pytest.approx(0.5)
    assert events.estimate(rows, pools, method)["precision"] == pytest.approx(2 / 3)


def test_judged_pairs_a_rebuild_left_in_no_stratum_are_left_out_unless_too_many(
    events: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, pairs, rows = paired_off(120, date(2025, 1, 1))
    path = tmp_path / "judged.json"
    path.write_text(json.dumps({"pairs": rows}))
    # one of 60 judged pairs is no longer grouped by anything: reported, left out
    pools = {"method": set(pairs[1:]), "baseline": set(), "candidate": set()}
    kept = events.load_judged(data, path, pools)
    assert len(kept) == 59 and "OUTSIDE: ('p0', 'p1')" in capsys.readouterr().out
    # five of 60 (over 2 %): the pool changed, the sample must be drawn again
    pools = {"method": set(pairs[5:]), "baseline": set(), "candidate": set()}
    with pytest.raises(SystemExit):
        events.load_judged(data, path, pools)


def test_the_terms_stratum_takes_only_the_judged_pairs_drawn_from_it(
    events: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, pairs, rows = paired_off(200, date(2024, 1, 1))
    path = tmp_path / "judged.json"
    # an earlier round's method pair now falls in the terms stratum; a terms pair stays there
    rows[-1]["sample"] = "terms"
    path.write_text(json.dumps({"pairs": rows}))
    pools = {
        "method": set(pairs[1:-1]),
        "baseline": set(),
        "candidate": set(),
        "terms": {pairs[0], pairs[-1]},
    }
    kept = events.load_judged(data, path, pools)
    assert len(kept) == 99 and "OUTSIDE: ('p0', 'p1') (method)" in capsys.readouterr().out
    assert [r["stratum"] for r in kept if r["a"] == "p198"] == ["terms"]


def test_unjudged_cells_of_the_clusterings_own_pairs_are_counted_apart(
    events: ModuleType,
) -> None:
    pools = {"method": {("a", "b")}, "baseline": set(), "candidate": set(), "terms": {("c", "d")}}
    rows = [judged("method", "a", "b", True)]
    # ("c", "d") is the clustering's own pair in an unjudged cell: left out of its precision
    figures = events.estimate(rows, pools, {("a", "b"), ("c", "d")})
    assert figures["unknown_grouped"] == 1 and figures["precision"] == 1.0
    assert events.estimate(rows, pools, {("a", "b")})["unknown_grouped"] == 0


def test_every_burst_variant_turns_the_burst_weights_on(events: ModuleType) -> None:
    from dataclasses import replace

    points = [replace(events.BenchParams(), **v) for v in events.BURST_VARIANTS]
    assert points and all(p.term_burst in ("times", "only") for p in points)
    assert len(set(points)) == len(points)


def test_a_hard_call_counts_as_not_one_event_only_when_asked(events: ModuleType) -> None:
    close = {"a": "a", "b": "b", "same_event": True, "note": "a release and a port (close)"}
    plain = {"a": "c", "b": "d", "same_event": True, "note": "one launch"}
    assert events.hard_call_no(close)["same_event"] is False
    assert events.hard_call_no(plain) is plain and close["same_event"] is True
