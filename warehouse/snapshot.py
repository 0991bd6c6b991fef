"""Snapshots: immutable folders of serving tables with a checksummed manifest, published by an
atomic pointer switch and opened only after verification."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow.parquet as pq

from warehouse.files import (
    atomic_write_parquet,
    atomic_write_text,
    file_digests,
    file_sha256,
    file_xxh3,
)
from warehouse.paths import DataDir

log = logging.getLogger(__name__)

# 2: served signals carry change_seq and changed_at; 3: entity and theme profiles; 4: the
# index of whole sources (search's source legs) and the stories table.
FORMAT_VERSION = 4
MANIFEST = "manifest.json"
KEEP_SNAPSHOTS = 5
STAGING_PREFIX = ".staging-"  # a snapshot being written, renamed whole once sealed
# The static site's folder inside a snapshot (``<snapshot>/site/``), and beside it the record of
# what each page was rendered from, for the next build to reuse (the publishing package).
SITE_DIR = "site"
SITE_INPUTS_FILE = "site-inputs.json"


class SnapshotError(RuntimeError):
    """A snapshot that is missing, incomplete or does not match its manifest."""


@dataclass(frozen=True)
class TableEntry:
    file: str
    rows: int
    bytes: int
    sha256: str
    xxh3: str = ""  # absent from manifests written before XXH3 checksums


@dataclass(frozen=True)
class FileEntry:
    bytes: int
    sha256: str
    xxh3: str = ""


@dataclass(frozen=True)
class Manifest:
    snapshot_id: str
    as_of: datetime
    built_at: datetime
    format_version: int
    tables: dict[str, TableEntry]
    metadata: dict[str, Any] = field(default_factory=dict)
    files: dict[str, FileEntry] = field(default_factory=dict)  # index files, by relative path

    def to_json(self) -> dict[str, Any]:
        return {
            "snapshot_id": self.snapshot_id,
            "as_of": self.as_of.isoformat(),
            "built_at": self.built_at.isoformat(),
            "format_version": self.format_version,
            "tables": {name: vars(entry) for name, entry in self.tables.items()},
            "row_counts": {name: entry.rows for name, entry in self.tables.items()},
            "files": {name: vars(entry) for name, entry in sorted(self.files.items())},
            "metadata": self.metadata,
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Manifest:
        try:
            return cls(
                snapshot_id=str(raw["snapshot_id"]),
                as_of=datetime.fromisoformat(raw["as_of"]),
                built_at=datetime.fromisoformat(raw["built_at"]),
                format_version=int(raw["format_version"]),
                tables={name: TableEntry(**entry) for name, entry in raw["tables"].items()},
                metadata=dict(raw.get("metadata") or {}),
                files={
                    name: FileEntry(**entry) for name, entry in (raw.get("files") or {}).items()
                },
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise SnapshotError(f"manifest is malformed: {exc!r}") from None


@dataclass(frozen=True)
class OpenedSnapshot:
    """A verified snapshot on disk."""

    path: Path
    manifest: Manifest

    @property
    def snapshot_id(self) -> str:
        return self.manifest.snapshot_id

    def table_path(self, name: str) -> Path:
        try:
            return self.path / self.manifest.tables[name].file
        except KeyError:
            raise SnapshotError(f"snapshot {self.snapshot_id} has no table {name!r}") from None

    def read_table(self, name: str) -> pl.DataFrame:
        return pl.read_parquet(self.table_path(name))


def _snapshot_id(as_of: datetime, built_at: datetime, tables: Mapping[str, TableEntry]) -> str:
    content = hashlib.sha256(
        json.dumps({k: v.sha256 for k, v in sorted(tables.items())}).encode()
    ).hexdigest()[:8]
    return f"{as_of:%Y%m%d}-{built_at:%Y%m%dT%H%M%S%f}-{content}"


def publish_snapshot(
    data_dir: DataDir,
    tables: Mapping[str, pl.DataFrame],
    *,
    as_of: datetime,
    built_at: datetime | None = None,
    metadata: Mapping[str, Any] | None = None,
    keep: int = KEEP_SNAPSHOTS,
    write_files: Callable[[Path], Mapping[str, Any]] | None = None,
) -> OpenedSnapshot:
    """``stage_snapshot`` then ``switch_current``: write, verify and publish in one step."""
    opened = stage_snapshot(
        data_dir,
        tables,
        as_of=as_of,
        built_at=built_at,
        metadata=metadata,
        write_files=write_files,
    )
    switch_current(data_dir, opened, keep=keep)
    return opened


def stage_snapshot(
    data_dir: DataDir,
    tables: Mapping[str, pl.DataFrame],
    *,
    as_of: datetime,
    built_at: datetime | None = None,
    metadata: Mapping[str, Any] | None = None,
    write_files: Callable[[Path], Mapping[str, Any]] | None = None,
) -> OpenedSnapshot:
    """Write a new snapshot folder and verify it, without publishing it: ``STAGED`` names it,
    ``CURRENT`` does not move (``switch_current`` does that, once its checks have run).

    ``write_files`` may add files (indexes) to the folder before it is sealed; every one of
    them gets a checksum in the manifest, and what it returns is added to the metadata. The
    folder is written under a temporary name and renamed whole.
    """
    built_at = (built_at or datetime.now(UTC)).astimezone(UTC)
    as_of = as_of.astimezone(UTC)
    data_dir.snapshots.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=data_dir.snapshots))
    try:
        entries: dict[str, TableEntry] = {}
        for name, frame in tables.items():
            file = f"{name}.parquet"
            atomic_write_parquet(frame, staging / file)
            path = staging / file
            entries[name] = TableEntry(file, frame.height, path.stat().st_size, *file_digests(path))
        extra_metadata = dict(write_files(staging)) if write_files is not None else {}
        manifest = Manifest(
            snapshot_id=_snapshot_id(as_of, built_at, entries),
            as_of=as_of,
            built_at=built_at,
            format_version=FORMAT_VERSION,
            tables=entries,
            metadata={**(metadata or {}), **extra_metadata},
            files=_file_entries(staging, entries),
        )
        _write_manifest(staging, manifest)
        final = data_dir.snapshots / manifest.snapshot_id
        os.rename(staging, final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    opened = open_snapshot(final)
    atomic_write_text(data_dir.staged_pointer, manifest.snapshot_id + "\n")
    return opened


def add_files(
    data_dir: DataDir,
    opened: OpenedSnapshot,
    write_files: Callable[[Path], Mapping[str, Any]],
    *,
    linked_from: OpenedSnapshot | None = None,
) -> OpenedSnapshot:
    """Let ``write_files`` add files to a staged snapshot, then seal them into its manifest
    (checksums, and what it returns added to the metadata).

    ``linked_from`` is a snapshot whose files ``write_files`` may have hard-linked: a new file
    that is the very file (device and inode) at the same path there takes that manifest's entry
    instead of being hashed again; the verification below still reads every file.

    Refused for the snapshot ``CURRENT`` names: a published snapshot never changes under the
    readers that verified it.
    """
    if current_snapshot_id(data_dir) == opened.snapshot_id:
        raise SnapshotError(
            f"snapshot {opened.snapshot_id} is published already; files are added only before "
            "CURRENT moves to it"
        )
    sealed = opened.manifest.files
    try:
        extra_metadata = dict(write_files(opened.path))
        # only the new files are hashed here; verifying below re-reads every file once, so a
        # writer that changed a sealed file is caught before the snapshot can be published
        manifest = replace(
            opened.manifest,
            metadata={**opened.manifest.metadata, **extra_metadata},
            files={
                **sealed,
                **_file_entries(
                    opened.path, opened.manifest.tables, skip=set(sealed), linked_from=linked_from
                ),
            },
        )
        _write_manifest(opened.path, manifest)
    except BaseException:
        # a writer that failed half way (the disk full during the static site): the snapshot
        # goes back to what its manifest seals, so no half-written file stays in it
        _remove_unsealed(opened)
        raise
    return open_snapshot(opened.path)


def _remove_unsealed(opened: OpenedSnapshot) -> int:
    """Remove every file and folder of ``opened``'s folder that its manifest does not list;
    how many files."""
    keep = {entry.file for entry in opened.manifest.tables.values()} | {MANIFEST}
    keep |= set(opened.manifest.files)
    root = str(opened.path)
    removed = 0
    for current, folders, names in os.walk(root, topdown=False):
        for name in names:
            path = os.path.join(current, name)
            if path[len(root) + 1 :] not in keep:
                with suppress(OSError):
                    os.unlink(path)
                    removed += 1
        for name in folders:
            with suppress(OSError):
                os.rmdir(os.path.join(current, name))  # only once empty
    return removed


def remove_dead_staging(data_dir: DataDir) -> list[str]:
    """Remove what stagings that died left (``kill -9`` of a build): their ``.staging-*``
    folders, and the files a build killed while it wrote the static site left in the snapshot
    ``STAGED`` names, which its manifest does not seal. Returns what was removed. The caller
    holds the publish lock (``warehouse.locks.publish_lock``), under which every build stages
    and adds its site, so no live writer is among them."""
    if not data_dir.snapshots.is_dir():
        return []
    dead = sorted(p for p in data_dir.snapshots.glob(STAGING_PREFIX + "*") if p.is_dir())
    for folder in dead:
        shutil.rmtree(folder, ignore_errors=True)
    removed = [p.name for p in dead]
    staged = staged_snapshot_id(data_dir)
    if staged is not None and staged != current_snapshot_id(data_dir):
        try:
            opened = open_snapshot(data_dir.snapshots / staged, verify=False)
        except (SnapshotError, OSError):
            return removed  # nothing to seal back to: left as it is, never published
        if _remove_unsealed(opened):
            removed.append(f"{staged}: unsealed files")
    return removed


def switch_current(
    data_dir: DataDir, opened: OpenedSnapshot, *, keep: int = KEEP_SNAPSHOTS
) -> None:
    """Publish ``opened``: replace the ``CURRENT`` pointer atomically, then prune snapshots
    beyond ``keep`` (never the current one)."""
    atomic_write_text(data_dir.current_pointer, opened.snapshot_id + "\n")
    log.info("published snapshot %s (%s)", opened.snapshot_id, opened.path)
    _prune(data_dir, keep=keep, current=opened.snapshot_id)


def _file_entries(
    folder: Path,
    tables: Mapping[str, TableEntry],
    *,
    skip: set[str] | None = None,
    linked_from: OpenedSnapshot | None = None,
) -> dict[str, FileEntry]:
    """Size and checksum of every file in ``folder`` but the tables, the manifest and
    ``skip`` (relative paths); a file hard-linked from ``linked_from`` keeps its entry there.
    Walked with plain strings: pathlib cost more than the hashing on a site's 35,000 files."""
    left_out = {entry.file for entry in tables.values()} | {MANIFEST} | (skip or set())
    known = linked_from.manifest.files if linked_from is not None else {}
    root = str(folder)
    found: dict[str, FileEntry] = {}
    for current, _folders, names in os.walk(root):
        for name in names:
            path = os.path.join(current, name)
            relative = path[len(root) + 1 :]
            if relative in left_out or not os.path.isfile(path):
                continue
            stat = os.stat(path)
            entry = known.get(relative)
            if entry is not None and linked_from is not None:
                try:
                    twin = os.stat(os.path.join(linked_from.path, relative))
                except OSError:
                    twin = None
                if (
                    twin is not None
                    and (twin.st_dev, twin.st_ino) == (stat.st_dev, stat.st_ino)
                    and entry.bytes == stat.st_size
                    and entry.xxh3
                ):
                    found[relative] = entry
                    continue
            found[relative] = FileEntry(stat.st_size, *file_digests(Path(path)))
    return dict(sorted(found.items()))


def _write_manifest(folder: Path, manifest: Manifest) -> None:
    atomic_write_text(folder / MANIFEST, json.dumps(manifest.to_json(), indent=2) + "\n")


def _prune(data_dir: DataDir, *, keep: int, current: str) -> None:
    folders = sorted(
        (p for p in data_dir.snapshots.iterdir() if p.is_dir() and not p.name.startswith(".")),
        key=lambda p: p.name,
    )
    for old in folders[:-keep] if keep > 0 else []:
        if old.name != current:
            shutil.rmtree(old, ignore_errors=True)


def static_file(name: str) -> bool:
    """Whether a snapshot's file (path relative to the snapshot) belongs to the static site:
    under ``site/``, or the record of its pages' inputs."""
    return name == SITE_INPUTS_FILE or name.startswith(SITE_DIR + "/")


def open_snapshot(
    path: Path,
    *,
    verify: bool = True,
    thorough: bool = False,
    skip: Callable[[str], bool] | None = None,
) -> OpenedSnapshot:
    """Open a snapshot folder; with ``verify`` check every table's and file's size and
    checksum, and every table's row count.

    ``skip`` names files (paths relative to the folder) the caller never reads, left
    unverified: an API server that does not serve the static site skips its files (hundreds of
    thousands at a million units), a replica's pull the files it hard-linked from a snapshot
    verified before. The publish verifies every file. Tables are always verified.

    The checksum is XXH3-128 (a damaged, truncated or swapped file; ~17 GB/s), or SHA-256
    when ``thorough`` or the manifest predates XXH3. Opening a 1M-unit snapshot took ~31 s on
    SHA-256 alone; a server opens every snapshot it swaps to, so it takes the fast one, while
    a rollback (``warehouse.snapshot_history``) takes SHA-256. Raises ``SnapshotError`` naming
    the first thing that does not match.
    """
    manifest_path = path / MANIFEST
    if not manifest_path.is_file():
        raise SnapshotError(f"{path} has no {MANIFEST}")
    try:
        manifest = Manifest.from_json(json.loads(manifest_path.read_text()))
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"{manifest_path} is not valid JSON: {exc}") from None
    if manifest.format_version != FORMAT_VERSION:
        raise SnapshotError(
            f"snapshot {manifest.snapshot_id} has format {manifest.format_version}; "
            f"this aimi reads format {FORMAT_VERSION}: rebuild it with `aimi build`"
        )
    if verify:
        sid = manifest.snapshot_id
        for name, entry in manifest.tables.items():
            table = path / entry.file
            if not table.is_file():
                raise SnapshotError(f"snapshot {sid}: table {name} is missing")
            if table.stat().st_size != entry.bytes:
                raise SnapshotError(f"snapshot {sid}: {entry.file} size differs")
            if not _checksum_matches(table, entry, thorough):
                raise SnapshotError(f"snapshot {sid}: {entry.file} checksum does not match")
            rows = pq.ParquetFile(table).metadata.num_rows
            if rows != entry.rows:
                raise SnapshotError(
                    f"snapshot {sid}: {entry.file} has {rows} rows, manifest says {entry.rows}"
                )
        for name, file_entry in manifest.files.items():
            if skip is not None and skip(name):
                continue
            file = path / name
            if not file.is_file():
                raise SnapshotError(f"snapshot {sid}: file {name} is missing")
            if file.stat().st_size != file_entry.bytes or not _checksum_matches(
                file, file_entry, thorough
            ):
                raise SnapshotError(f"snapshot {sid}: {name} does not match its checksum")
    return OpenedSnapshot(path, manifest)


def _checksum_matches(path: Path, entry: TableEntry | FileEntry, thorough: bool) -> bool:
    if entry.xxh3 and not thorough:
        return file_xxh3(path) == entry.xxh3
    return file_sha256(path) == entry.sha256


def _pointer(path: Path) -> str | None:
    """What a pointer file (``CURRENT``, ``STAGED``) names, stripped; None when it is absent."""
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        return None


def current_snapshot_id(data_dir: DataDir) -> str | None:
    """The id the ``CURRENT`` pointer names, or None before the first publish."""
    return _pointer(data_dir.current_pointer) or None


def staged_snapshot_id(data_dir: DataDir) -> str | None:
    """The id the ``STAGED`` pointer names (the snapshot written last, published or not), or
    None before the first one."""
    return _pointer(data_dir.staged_pointer) or None


def current_snapshot_dir(data_dir: DataDir) -> Path | None:
    snapshot_id = current_snapshot_id(data_dir)
    if snapshot_id is None:
        return None
    path = data_dir.snapshots / snapshot_id
    return path if path.is_dir() else None


def open_current(data_dir: DataDir, *, verify: bool = True) -> OpenedSnapshot | None:
    """The current snapshot, verified; None when nothing was published yet."""
    snapshot_id = current_snapshot_id(data_dir)
    if snapshot_id is None:
        return None
    path = data_dir.snapshots / snapshot_id
    if not path.is_dir():
        raise SnapshotError(f"CURRENT names {snapshot_id}, which is not in {data_dir.snapshots}")
    return open_snapshot(path, verify=verify)


def open_staged(data_dir: DataDir, *, verify: bool = True) -> OpenedSnapshot | None:
    """The snapshot written last (published or not), verified; None before the first one."""
    snapshot_id = _pointer(data_dir.staged_pointer)
    if snapshot_id is None:
        return None
    path = data_dir.snapshots / snapshot_id
    if not snapshot_id or not path.is_dir():
        raise SnapshotError(f"STAGED names {snapshot_id!r}, which is not in {data_dir.snapshots}")
    return open_snapshot(path, verify=verify)
