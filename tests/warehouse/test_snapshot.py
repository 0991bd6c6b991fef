from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest

from warehouse.paths import DataDir
from warehouse.snapshot import (
    SnapshotError,
    current_snapshot_id,
    open_current,
    open_snapshot,
    publish_snapshot,
)

AS_OF = datetime(2026, 1, 1, tzinfo=UTC)


def frame(n: int) -> pl.DataFrame:
    return pl.DataFrame({"id": [f"x{i}" for i in range(n)], "value": list(range(n))})


def test_publish_writes_manifest_and_switches_pointer(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    assert open_current(data) is None
    first = publish_snapshot(data, {"signals": frame(3)}, as_of=AS_OF)
    manifest = json.loads((first.path / "manifest.json").read_text())
    assert manifest["row_counts"] == {"signals": 3}
    assert manifest["as_of"] == "2026-01-01T00:00:00+00:00" and manifest["built_at"]
    assert len(manifest["tables"]["signals"]["sha256"]) == 64
    assert current_snapshot_id(data) == first.snapshot_id

    second = publish_snapshot(data, {"signals": frame(4)}, as_of=AS_OF)
    assert second.snapshot_id != first.snapshot_id
    assert open_current(data) == second
    assert first.path.is_dir(), "older snapshots stay readable for in-flight requests"
    assert second.read_table("signals").height == 4
    assert not [p for p in data.snapshots.iterdir() if p.name.startswith(".staging")]


def test_old_snapshots_are_pruned_but_never_the_current(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    ids = [
        publish_snapshot(data, {"t": frame(i)}, as_of=AS_OF, keep=2).snapshot_id for i in range(4)
    ]
    kept = sorted(p.name for p in data.snapshots.iterdir() if p.is_dir())
    assert kept == sorted(ids[-2:])


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda p: p.write_bytes(p.read_bytes()[:-3] + b"xyz"), "checksum"),
        (lambda p: p.write_bytes(p.read_bytes() + b"0"), "size"),
        (lambda p: p.unlink(), "missing"),
    ],
)
def test_damaged_snapshot_is_refused(tmp_path: Path, damage, message: str) -> None:  # type: ignore[no-untyped-def]
    data = DataDir(tmp_path)
    opened = publish_snapshot(data, {"signals": frame(5)}, as_of=AS_OF)
    damage(opened.path / "signals.parquet")
    with pytest.raises(SnapshotError, match=message):
        open_snapshot(opened.path)


def test_malformed_manifest_is_refused(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    opened = publish_snapshot(data, {"signals": frame(1)}, as_of=AS_OF)
    (opened.path / "manifest.json").write_text("{")
    with pytest.raises(SnapshotError, match="not valid JSON"):
        open_snapshot(opened.path)
    (opened.path / "manifest.json").write_text('{"snapshot_id": "x"}')
    with pytest.raises(SnapshotError, match="malformed"):
        open_snapshot(opened.path)
