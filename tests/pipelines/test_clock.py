"""One clock per run (DESIGN §7): every asset of a run sees the same instant, even when the wall
clock crosses Monday 00:00 UTC (a new trend week) while the run goes on."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import dagster as dg
import pytest

import pipelines.resources
from pipelines.build import build_run
from pipelines.definitions import ASSETS, CHECKS
from pipelines.resources import AimiResource
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
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pipelines.resources, "wall_clock", lambda: MONDAY)
    monkeypatch.setenv("AIMI_AS_OF", "2026-01-01")
    clock = AimiResource().run_clock()
    assert (clock.as_of, clock.started_at) == (datetime(2026, 1, 1, tzinfo=UTC), MONDAY)
    given = AimiResource(as_of="2025-06-30T12:00:00+02:00", started_at="2026-02-02T00:00:00Z")
    assert given.clock() == datetime(2025, 6, 30, 10, tzinfo=UTC)
    assert given.run_started_at() == datetime(2026, 2, 2, tzinfo=UTC)
