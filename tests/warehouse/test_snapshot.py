from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from warehouse.paths import DataDir
from warehouse.snapshot import (
    STAGING_PREFIX,
    SnapshotError,
    add_files,
    current_snapshot_id,
    open_current,
    open_snapshot,
    open_staged,
    publish_snapshot,
    remove_dead_staging,
    stage_snapshot,
    switch_current,
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


def test_a_staged_snapshot_is_not_served_until_switched(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    served = publish_snapshot(data, {"signals": frame(2)}, as_of=AS_OF)
    staged = stage_snapshot(data, {"signals": frame(3)}, as_of=AS_OF)
    assert current_snapshot_id(data) == served.snapshot_id
    assert open_staged(data) == staged
    switch_current(data, staged)
    assert current_snapshot_id(data) == staged.snapshot_id


def test_added_files_are_sealed_into_the_manifest_before_publishing(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    staged = stage_snapshot(data, {"signals": frame(3)}, as_of=AS_OF)

    def write(folder: Path) -> dict[str, int]:
        (folder / "site" / "json").mkdir(parents=True)
        (folder / "site" / "json" / "a.json").write_text("{}")
        return {"pages": 1}

    sealed = add_files(data, staged, write)
    assert sealed.snapshot_id == staged.snapshot_id
    assert "site/json/a.json" in sealed.manifest.files
    assert sealed.manifest.metadata["pages"] == 1
    (sealed.path / "site" / "json" / "a.json").write_text("[]")
    with pytest.raises(SnapshotError, match="site/json/a.json does not match"):
        open_snapshot(sealed.path)


def test_skipped_files_are_left_unverified_and_tables_never_are(tmp_path: Path) -> None:
    """A reader that never opens some files (an API server and the static site) skips them."""
    data = DataDir(tmp_path)

    def write(folder: Path) -> dict[str, int]:
        (folder / "site").mkdir()
        (folder / "site" / "index.html").write_text("<p>ok</p>")
        (folder / "index.bin").write_bytes(b"1")
        return {}

    opened = publish_snapshot(data, {"signals": frame(3)}, as_of=AS_OF, write_files=write)
    (opened.path / "site" / "index.html").write_text("<p>no</p>")
    in_site: Callable[[str], bool] = lambda name: name.startswith("site/")  # noqa: E731
    open_snapshot(opened.path, skip=in_site)
    with pytest.raises(SnapshotError, match="site/index.html does not match"):
        open_snapshot(opened.path)
    (opened.path / "index.bin").write_bytes(b"2")
    with pytest.raises(SnapshotError, match="index.bin does not match"):
        open_snapshot(opened.path, skip=in_site)
    table = opened.path / opened.manifest.tables["signals"].file
    table.write_bytes(table.read_bytes()[:-1] + b"\1")
    with pytest.raises(SnapshotError, match="checksum does not match"):
        open_snapshot(opened.path, skip=lambda _name: True)


def test_files_are_never_added_to_the_published_snapshot(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    opened = publish_snapshot(data, {"signals": frame(1)}, as_of=AS_OF)
    with pytest.raises(SnapshotError, match="published already"):
        add_files(data, opened, lambda _folder: {})


def test_a_writer_that_changes_a_sealed_file_is_caught(tmp_path: Path) -> None:
    data = DataDir(tmp_path)

    def index(folder: Path) -> dict[str, int]:
        (folder / "index.bin").write_bytes(b"1")
        return {}

    staged = stage_snapshot(data, {"signals": frame(1)}, as_of=AS_OF, write_files=index)
    with pytest.raises(SnapshotError, match="index.bin does not match"):
        add_files(data, staged, lambda folder: {"bytes": (folder / "index.bin").write_bytes(b"2")})


def test_a_writer_that_fails_half_way_leaves_only_what_the_manifest_seals(
    tmp_path: Path,
) -> None:
    """The disk full while the static site is written (the fault test's ``disk`` case): the
    staged snapshot goes back to its sealed files, so nothing half-written stays in it."""
    data = DataDir(tmp_path)

    def index(folder: Path) -> dict[str, int]:
        (folder / "lexical").mkdir()
        (folder / "lexical" / "index.bin").write_bytes(b"1")
        return {}

    staged = stage_snapshot(data, {"signals": frame(2)}, as_of=AS_OF, write_files=index)
    sealed = sorted(p.relative_to(staged.path) for p in staged.path.rglob("*"))

    def full_disk(folder: Path) -> dict[str, int]:
        (folder / "site" / "json").mkdir(parents=True)
        (folder / "site" / "json" / "a.json").write_text("{}")
        (folder / "lexical" / "extra.bin").write_bytes(b"2")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        add_files(data, staged, full_disk)
    assert sorted(p.relative_to(staged.path) for p in staged.path.rglob("*")) == sealed
    assert open_staged(data) == open_snapshot(staged.path)  # still whole, and still staged


def test_a_dead_staging_folder_is_removed_under_the_publish_lock(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    served = publish_snapshot(data, {"signals": frame(1)}, as_of=AS_OF)
    dead = data.snapshots / f"{STAGING_PREFIX}abc123"  # a build killed -9 while it staged
    (dead / "lexical").mkdir(parents=True)
    (dead / "signals.parquet").write_bytes(b"half")
    assert remove_dead_staging(data) == [dead.name]
    assert not dead.exists() and (data.snapshots / served.snapshot_id).is_dir()
    assert remove_dead_staging(data) == []
    assert remove_dead_staging(DataDir(tmp_path / "empty")) == []


def test_the_site_files_of_a_build_killed_while_writing_them_are_removed(tmp_path: Path) -> None:
    """``kill -9`` while the static site is written: the staged snapshot keeps the files its
    manifest seals, nothing of the half-written site, once the next build stages."""
    data = DataDir(tmp_path)
    served = publish_snapshot(data, {"signals": frame(1)}, as_of=AS_OF)
    staged = stage_snapshot(data, {"signals": frame(2)}, as_of=AS_OF)
    sealed = sorted(p.relative_to(staged.path) for p in staged.path.rglob("*"))
    (staged.path / "site" / "json").mkdir(parents=True)
    (staged.path / "site" / "json" / "a.json").write_text("{")  # the kill came here
    assert remove_dead_staging(data) == [f"{staged.snapshot_id}: unsealed files"]
    assert sorted(p.relative_to(staged.path) for p in staged.path.rglob("*")) == sealed
    open_snapshot(staged.path)
    # the published snapshot is never touched, staged or not
    (data.snapshots / served.snapshot_id / "extra").write_text("x")
    switch_current(data, staged)
    (data.snapshots / staged.snapshot_id / "extra").write_text("x")
    assert remove_dead_staging(data) == []
    assert (data.snapshots / staged.snapshot_id / "extra").is_file()


def _edit_manifest(opened_path: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    manifest_path = opened_path / "manifest.json"
    raw = json.loads(manifest_path.read_text())
    edit(raw)
    manifest_path.write_text(json.dumps(raw))


def test_a_fast_open_checks_xxh3_and_a_thorough_one_sha256(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    opened = publish_snapshot(data, {"signals": frame(50)}, as_of=AS_OF)
    entry = opened.manifest.tables["signals"]
    assert len(entry.xxh3) == 32 and len(entry.sha256) == 64
    # a manifest whose SHA-256 alone is wrong: only the thorough open looks at it
    _edit_manifest(opened.path, lambda raw: raw["tables"]["signals"].update(sha256="0" * 64))
    open_snapshot(opened.path)
    with pytest.raises(SnapshotError, match="checksum does not match"):
        open_snapshot(opened.path, thorough=True)
    # one byte changed, same size: the fast checksum sees it
    table = opened.path / entry.file
    table.write_bytes(table.read_bytes()[:-1] + b"\1")
    with pytest.raises(SnapshotError, match="checksum does not match"):
        open_snapshot(opened.path)


def test_a_manifest_without_xxh3_is_verified_with_sha256(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    opened = publish_snapshot(data, {"signals": frame(50)}, as_of=AS_OF)
    _edit_manifest(opened.path, lambda raw: raw["tables"]["signals"].pop("xxh3"))
    open_snapshot(opened.path)  # what a snapshot written before issue 19 looks like
    table = opened.path / opened.manifest.tables["signals"].file
    table.write_bytes(table.read_bytes()[:-1] + b"\1")
    with pytest.raises(SnapshotError, match="checksum does not match"):
        open_snapshot(opened.path)
