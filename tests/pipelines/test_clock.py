"""One clock per run (docs/design.md §7): every asset of a run sees the same instant, even when the
wall clock crosses Monday 00:00 UTC (a new trend week) while the run goes on."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import dagster as dg
import pytest

import pipelines.resources
from cli.status import render_status, status_report
from pipelines.__main__ import main as pipelines_main
from pipelines.build import build_run
from pipelines.definitions import ASSETS, CHECKS
from pipelines.resources import AimiResource
from warehouse.build_record import read_build_record
from warehouse.clock import ClockFileError, pin, read_pinned, unpin
from warehouse.paths import DataDir
from warehouse.snapshot import open_current

# a Sunday, one second before the week (and so the trend window) turns over
SUNDAY_LATE = datetime(2026, 11, 22, 23, 59, 59, tzinfo=UTC)
MONDAY = datetime(2026, 11, 23, tzinfo=UTC)


def _inbox(data: DataDir) -> None:
    data.inbox.mkdir(parents=True)
    published = [MONDAY - timedelta(days=d, hours=3) for d in range(1, 30, 3)]
    # published in the new week: after the run's instant, so never served by this run
    published.append(MONDAY + timedelta(minutes=30))
    records = [
        {
            "kind": "news",
            "title": f"Deal {i}",
            "url": f"https://example.com/deal/{i}",
            "published_at": when.isoformat(),
            "text": f"Acme signed a ${i + 1} billion compute deal with Beta Cloud on Monday.",
        }
        for i, when in enumerate(published)
    ]
    (data.inbox / "batch.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")


def _metadata(result: dg.ExecuteInProcessResult) -> dict[str, dict[str, object]]:
    return {
        event.asset_key.to_user_string(): {
            key: getattr(value, "value", value)
            for key, value in event.materialization.metadata.items()
        }
        for event in result.get_asset_materialization_events()
    }


@pytest.fixture(autouse=True)
def _no_pinned_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AIMI_AS_OF", raising=False)


@pytest.mark.slow  # a whole build, or MiniLM over a corpus sample
def test_a_build_across_monday_midnight_keeps_one_window(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # every read of the wall clock is one second later: across Sunday → Monday at once
    ticks: Iterator[datetime] = (SUNDAY_LATE + timedelta(seconds=s) for s in range(1000))
    reads: list[datetime] = []

    def wall_clock() -> datetime:
        reads.append(next(ticks))
        return reads[-1]

    monkeypatch.setattr(pipelines.resources, "wall_clock", wall_clock)
    data = DataDir(tmp_path / "data")
    _inbox(data)
    run = build_run(data, persistent=False)

    assert reads == [SUNDAY_LATE]  # read once, for the whole run
    manifest = run.snapshot.manifest
    assert manifest.as_of == manifest.built_at == SUNDAY_LATE
    metadata = _metadata(run.result)
    assert metadata["signals"]["as_of"] == SUNDAY_LATE.isoformat()
    # the window ends where the week of as_of starts: the Monday before, not the one after
    last_monday = (MONDAY - timedelta(days=7)).isoformat()
    assert metadata["entity_trends"]["window_end"] == last_monday
    assert metadata["theme_trends"]["window_end"] == last_monday
    # the signal published after the run's instant is cut off
    assert run.snapshot.read_table("signals").height == 10


@pytest.mark.slow  # a whole build, or MiniLM over a corpus sample
def test_a_run_started_from_the_ui_uses_the_instant_dagster_created_it_at(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def wall_clock() -> datetime:
        raise AssertionError("a UI run takes its instant from Dagster's run record")

    monkeypatch.setattr(pipelines.resources, "wall_clock", wall_clock)
    data = DataDir(tmp_path / "data")
    _inbox(data)
    before = datetime.now(UTC)
    with dg.DagsterInstance.ephemeral() as instance:
        # what the UI's "Materialize all" runs: the definitions' resource, nothing configured
        result = dg.materialize(
            [*ASSETS, *CHECKS],
            resources={"aimi": AimiResource(data_dir=str(data.root))},
            instance=instance,
        )
        record = instance.get_run_record_by_id(result.run_id)
    assert result.success and record is not None
    created = record.create_timestamp.replace(tzinfo=UTC)
    assert before - timedelta(seconds=1) <= created <= datetime.now(UTC)
    opened = open_current(data)
    assert opened is not None
    assert opened.manifest.as_of == opened.manifest.built_at == created
    assert _metadata(result)["signals"]["as_of"] == created.isoformat()


def test_a_pinned_clock_sets_as_of_and_leaves_built_at_to_the_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AIMI_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(pipelines.resources, "wall_clock", lambda: MONDAY)
    monkeypatch.setenv("AIMI_AS_OF", "2026-01-01")
    clock = AimiResource().run_clock()
    assert (clock.as_of, clock.started_at) == (datetime(2026, 1, 1, tzinfo=UTC), MONDAY)
    given = AimiResource(as_of="2025-06-30T12:00:00+02:00", started_at="2026-02-02T00:00:00Z")
    assert given.clock() == datetime(2025, 6, 30, 10, tzinfo=UTC)
    assert given.run_started_at() == datetime(2026, 2, 2, tzinfo=UTC)


def test_a_remembered_clock_is_kept_by_every_kind_of_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A UI, schedule or sensor run (no ``as_of`` of its own, no ``AIMI_AS_OF``) takes the
    clock the data dir remembers; ``AIMI_AS_OF`` and the run's own ``as_of`` still win."""
    data = DataDir(tmp_path)
    monkeypatch.setenv("AIMI_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("AIMI_AS_OF", raising=False)
    monkeypatch.setattr(pipelines.resources, "wall_clock", lambda: MONDAY)
    assert AimiResource().clock() == MONDAY
    pin(data, datetime(2026, 10, 28, tzinfo=UTC), by="aimi build --demo")
    assert AimiResource().clock() == datetime(2026, 10, 28, tzinfo=UTC)
    assert AimiResource().run_started_at() == MONDAY
    assert AimiResource(as_of="2025-01-01").clock() == datetime(2025, 1, 1, tzinfo=UTC)
    monkeypatch.setenv("AIMI_AS_OF", "2026-01-01")
    assert AimiResource().clock() == datetime(2026, 1, 1, tzinfo=UTC)
    monkeypatch.delenv("AIMI_AS_OF")
    unpin(data)
    assert AimiResource().clock() == MONDAY


def test_an_unreadable_remembered_clock_stops_the_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AIMI_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("AIMI_AS_OF", raising=False)
    DataDir(tmp_path).clock_file.write_text("{not json")
    with pytest.raises(ClockFileError, match="aimi build --wall-clock"):
        AimiResource().clock()


@pytest.mark.slow  # a whole build, or MiniLM over a corpus sample
def test_a_fixed_clock_is_remembered_by_the_next_ui_run_until_the_wall_clock_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The clock trap: after `aimi build --as-of` (or `--demo`), a run started any other way
    used to take the wall clock and slide the trend window past the data."""
    monkeypatch.setattr(pipelines.resources, "wall_clock", lambda: MONDAY)
    data = DataDir(tmp_path / "data")
    _inbox(data)
    fixed = MONDAY - timedelta(days=10)
    first = build_run(data, as_of=fixed, persistent=False)
    assert first.snapshot.manifest.as_of == fixed
    pinned = read_pinned(data)
    assert pinned is not None and pinned.as_of == fixed
    assert pinned.by == f"aimi build --as-of {fixed.isoformat()}"

    with dg.DagsterInstance.ephemeral() as instance:  # what the UI, schedule and sensor run
        ui = dg.materialize(
            [*ASSETS, *CHECKS],
            resources={"aimi": AimiResource(data_dir=str(data.root))},
            instance=instance,
        )
    assert ui.success
    opened = open_current(data)
    assert opened is not None and opened.manifest.as_of == fixed

    report = status_report(data)
    assert report["clock"]["mode"] == "pinned"
    assert report["snapshot"]["id"] == opened.snapshot_id
    record = read_build_record(data)  # the CLI build's record: the UI run writes none
    assert record is not None and record.success and record.kind == "build"
    assert record.snapshot_id == first.snapshot.snapshot_id
    assert record.checks and not record.failed_checks
    assert "checks passed" in render_status(report)

    last = build_run(data, wall_clock=True, persistent=False)
    assert last.snapshot.manifest.as_of == MONDAY
    assert read_pinned(data) is None


def test_wall_clock_and_as_of_exclude_each_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ValueError, match="not both"):
        build_run(DataDir(tmp_path), as_of=MONDAY, wall_clock=True, persistent=False)
    monkeypatch.setenv("AIMI_AS_OF", "2026-01-01")
    monkeypatch.setenv("COLUMNS", "400")  # the error box would wrap the message
    assert pipelines_main(["build", "--wall-clock", "--data-dir", str(tmp_path)]) == 2
    assert "AIMI_AS_OF is set" in capsys.readouterr().err
