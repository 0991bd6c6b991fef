"""``aimi snapshots`` underneath (``warehouse.snapshot_history``): list, roll back to a verified
snapshot only, prune never the current one, and neither while a build runs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from cli.app import app
from tests.warehouse.test_locks import HeldElsewhere
from warehouse.paths import DataDir
from warehouse.snapshot import (
    OpenedSnapshot,
    SnapshotError,
    current_snapshot_id,
    publish_snapshot,
    stage_snapshot,
)
from warehouse.snapshot_history import SnapshotBusy, list_snapshots, prune, rollback

AS_OF = datetime(2026, 1, 5, tzinfo=UTC)


def _publish(data: DataDir, rows: int, hour: int) -> OpenedSnapshot:
    frame = pl.DataFrame({"id": [f"x{i}" for i in range(rows)]})
    built = AS_OF + timedelta(hours=hour)
    return publish_snapshot(data, {"signals": frame}, as_of=AS_OF, built_at=built, keep=10)


@pytest.fixture
def three(tmp_path: Path) -> tuple[DataDir, list[str]]:
    data = DataDir(tmp_path)
    return data, [_publish(data, rows, hour).snapshot_id for hour, rows in enumerate((3, 4, 5))]


def test_list_is_oldest_first_with_the_current_and_staged_marked(
    three: tuple[DataDir, list[str]],
) -> None:
    data, ids = three
    staged = stage_snapshot(
        data, {"signals": pl.DataFrame({"id": ["y"]})}, as_of=AS_OF, built_at=AS_OF + timedelta(9)
    )
    listed = list_snapshots(data)
    assert [s.snapshot_id for s in listed] == [*ids, staged.snapshot_id]
    assert [s.current for s in listed] == [False, False, True, False]
    assert [s.staged for s in listed] == [False, False, False, True]
    assert [s.rows["signals"] for s in listed] == [3, 4, 5, 1]
    assert all(s.bytes > 0 and s.problem is None for s in listed)


def test_rollback_moves_current_to_a_verified_snapshot_only(
    three: tuple[DataDir, list[str]],
) -> None:
    data, ids = three
    rollback(data, ids[0])
    assert current_snapshot_id(data) == ids[0]
    with pytest.raises(SnapshotError, match="current snapshot already"):
        rollback(data, ids[0])
    with pytest.raises(SnapshotError, match=r"no snapshot 'nope'.*known: "):
        rollback(data, "nope")
    with pytest.raises(SnapshotError, match="no snapshot"):
        rollback(data, "../" + ids[1])
    table = data.snapshots / ids[1] / "signals.parquet"
    table.write_bytes(table.read_bytes()[:-1] + b"\0")  # same size, one byte changed
    with pytest.raises(SnapshotError, match="checksum does not match"):
        rollback(data, ids[1])
    assert current_snapshot_id(data) == ids[0]


def test_rollback_runs_before_switch_on_the_verified_snapshot_before_the_pointer_moves(
    three: tuple[DataDir, list[str]],
) -> None:
    data, ids = three
    seen: list[tuple[str, str | None]] = []

    def before_switch(opened: OpenedSnapshot) -> None:
        seen.append((opened.snapshot_id, current_snapshot_id(data)))

    rollback(data, ids[0], before_switch=before_switch)
    assert seen == [(ids[0], ids[2])]  # called with the target while CURRENT was unmoved
    assert current_snapshot_id(data) == ids[0]

    def failing(_opened: OpenedSnapshot) -> None:
        raise RuntimeError("the store is down")

    with pytest.raises(RuntimeError, match="the store is down"):
        rollback(data, ids[1], before_switch=failing)
    assert current_snapshot_id(data) == ids[0]  # nothing moved


def test_prune_keeps_the_newest_and_always_the_current(three: tuple[DataDir, list[str]]) -> None:
    data, ids = three
    rollback(data, ids[0])
    assert prune(data, keep=1) == [ids[1]]
    assert [s.snapshot_id for s in list_snapshots(data)] == [ids[0], ids[2]]
    assert prune(data, keep=5) == []
    with pytest.raises(ValueError, match="keep at least 1"):
        prune(data, keep=0)


def test_neither_runs_while_a_build_holds_the_data_dir(three: tuple[DataDir, list[str]]) -> None:
    data, ids = three
    with HeldElsewhere(data):  # another run's thread or process
        with pytest.raises(SnapshotBusy, match="build or refresh is running"):
            rollback(data, ids[0])
        with pytest.raises(SnapshotBusy):
            prune(data, keep=1)
    assert current_snapshot_id(data) == ids[2]
    assert len(list_snapshots(data)) == 3


def test_the_commands(three: tuple[DataDir, list[str]]) -> None:
    data, ids = three
    runner = CliRunner()
    where = ["--data-dir", str(data.root)]
    listed = runner.invoke(app, ["snapshots", "list", *where])
    assert listed.exit_code == 0
    assert listed.output.splitlines()[-1].startswith(f"* {ids[2]}  as_of 2026-01-05")
    back = runner.invoke(app, ["snapshots", "rollback", ids[1], *where])
    assert back.exit_code == 0 and current_snapshot_id(data) == ids[1]
    wrong = runner.invoke(app, ["snapshots", "rollback", "nope", *where])
    assert wrong.exit_code == 1 and "no snapshot 'nope'" in wrong.output
    pruned = runner.invoke(app, ["snapshots", "prune", "--keep", "1", *where])
    assert pruned.exit_code == 0 and f"removed 1 snapshot(s)\n  {ids[0]}" in pruned.output
    refused = runner.invoke(
        app, ["snapshots", "prune", "--keep", "0", "--data-dir", str(data.root)]
    )
    assert refused.exit_code == 2
