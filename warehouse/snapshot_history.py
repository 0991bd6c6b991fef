"""The snapshots a data dir keeps: list them, roll ``CURRENT`` back to one, prune old ones
(``aimi snapshots``, docs/design.md §10).

Rolling back and pruning hold the build lock, so neither runs under a build that is about to
publish; a rollback then holds the publish lock while the pointer moves, as a publish does. No
reader needs an old snapshot: cursors are keyset positions, valid on any snapshot (docs/api.md
§4.11), and a server that still has an old snapshot open keeps its open files after they are
deleted. So pruning only ever spares the current snapshot (and never touches ``CURRENT``).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from warehouse import locks
from warehouse.files import atomic_write_text
from warehouse.paths import DataDir
from warehouse.snapshot import (
    OpenedSnapshot,
    SnapshotError,
    current_snapshot_id,
    open_snapshot,
    staged_snapshot_id,
)
from warehouse.tables import refresh_catalog


class SnapshotBusy(SnapshotError):
    """A build or refresh holds the data dir: try again when it has finished."""


@dataclass(frozen=True)
class SnapshotInfo:
    snapshot_id: str
    as_of: datetime | None
    built_at: datetime | None
    rows: dict[str, int]
    bytes: int
    current: bool
    staged: bool  # written last (by the latest build), published or not
    problem: str | None  # why it cannot be opened; None when its manifest reads


def list_snapshots(data: DataDir) -> list[SnapshotInfo]:
    """Every snapshot folder, oldest first (their ids start with ``as_of`` then ``built_at``;
    sorted by ``built_at``). Manifests are read, not verified: ``rollback`` verifies."""
    if not data.snapshots.is_dir():
        return []
    current = current_snapshot_id(data)
    staged = staged_snapshot_id(data)
    found: list[SnapshotInfo] = []
    for folder in _folders(data):
        size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
        try:
            manifest = open_snapshot(folder, verify=False).manifest
        except SnapshotError as exc:
            found.append(
                SnapshotInfo(
                    snapshot_id=folder.name,
                    as_of=None,
                    built_at=None,
                    rows={},
                    bytes=size,
                    current=folder.name == current,
                    staged=folder.name == staged,
                    problem=str(exc),
                )
            )
            continue
        found.append(
            SnapshotInfo(
                snapshot_id=manifest.snapshot_id,
                as_of=manifest.as_of,
                built_at=manifest.built_at,
                rows={name: entry.rows for name, entry in manifest.tables.items()},
                bytes=size,
                current=folder.name == current,
                staged=folder.name == staged,
                problem=None,
            )
        )
    # unreadable ones first, then by built_at
    return sorted(found, key=lambda s: (s.built_at is not None, s.built_at or 0, s.snapshot_id))


def rollback(
    data: DataDir,
    snapshot_id: str,
    *,
    before_switch: Callable[[OpenedSnapshot], object] | None = None,
) -> None:
    """Point ``CURRENT`` at ``snapshot_id`` after verifying every table and file of it (sizes,
    SHA-256, row counts); a running API swaps to it as to any new snapshot. Raises
    ``SnapshotError`` naming the problem: unknown id, the current one already, or a snapshot
    that does not verify.

    ``before_switch`` runs on the verified snapshot before the local pointer moves, under the
    build lock (the CLI pushes it to the object store there: a server that follows the store
    would otherwise bring this data dir back to the store's snapshot while the upload runs).
    Whatever it raises propagates, and ``CURRENT`` stays where it was."""
    folder = data.snapshots / snapshot_id
    if "/" in snapshot_id or snapshot_id.startswith(".") or not folder.is_dir():
        known = ", ".join(s.snapshot_id for s in list_snapshots(data)) or "none"
        raise SnapshotError(f"no snapshot {snapshot_id!r} in {data.snapshots} (known: {known})")
    with _exclusive(data):
        if current_snapshot_id(data) == snapshot_id:
            raise SnapshotError(f"{snapshot_id} is the current snapshot already")
        opened = open_snapshot(folder, verify=True, thorough=True)
        if before_switch is not None:
            before_switch(opened)
        with locks.publish_lock(data):
            atomic_write_text(data.current_pointer, opened.snapshot_id + "\n")
            refresh_catalog(data)


def prune(data: DataDir, keep: int) -> list[str]:
    """Delete all but the ``keep`` newest snapshots (by ``built_at``), never the current one;
    returns the ids deleted, oldest first."""
    if keep < 1:
        raise ValueError("keep at least 1 snapshot")
    with _exclusive(data):
        current = current_snapshot_id(data)
        ordered = [s.snapshot_id for s in list_snapshots(data)]
        doomed = [sid for sid in ordered[: max(len(ordered) - keep, 0)] if sid != current]
        for snapshot_id in doomed:
            shutil.rmtree(data.snapshots / snapshot_id)
    return doomed


def _folders(data: DataDir) -> list[Path]:
    return [p for p in data.snapshots.iterdir() if p.is_dir() and not p.name.startswith(".")]


@contextmanager
def _exclusive(data: DataDir) -> Iterator[None]:
    """The build lock without waiting: a build running now would publish over the change."""
    with ExitStack() as held:
        try:
            held.enter_context(locks.build_lock(data, wait=False))
        except locks.LockBusy:
            raise SnapshotBusy(
                "a build or refresh is running on this data dir; try again when it has finished"
            ) from None
        yield
