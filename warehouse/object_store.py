"""Snapshots on an S3-compatible object store (``AIMI_SNAPSHOT_STORE=s3://bucket/prefix``,
docs/design.md §11): a publish uploads the sealed snapshot folder and moves the store's ``CURRENT``
object last; each API replica pulls the snapshot it names into its own data dir, verifies it
against its manifest and moves its local ``CURRENT``, which its servers already follow.

The store holds, under the prefix::

    snapshots/<id>/<file>            every table and file of 1 MiB or more the manifest lists
    snapshots/<id>/small-files.tar   the smaller ones, packed (a snapshot's static site is
                                     thousands of pages: one request each would make a pull
                                     take minutes instead of seconds)
    snapshots/<id>/small-files.json  where each file lies in the pack, so that a pull needing
                                     a few of them reads those byte ranges alone
    snapshots/<id>/manifest.json     written after them: a snapshot is whole once this is there
    CURRENT                          the published id, written last

so a reader that follows ``CURRENT`` never sees half a snapshot. The client is boto3, with its
own configuration: credentials and region from ``AWS_*`` variables or ``~/.aws``, another
endpoint (MinIO, Ceph, a local S3 server) from ``AWS_ENDPOINT_URL_S3`` or ``AWS_ENDPOINT_URL``.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tarfile
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from warehouse.locks import file_lock
from warehouse.paths import DataDir
from warehouse.s3 import ObjectStoreError, StoreUrl, store_errors
from warehouse.snapshot import (
    MANIFEST,
    Manifest,
    OpenedSnapshot,
    SnapshotError,
    current_snapshot_id,
    open_current,
    open_snapshot,
    switch_current,
)

# under aimi.*: `aimi serve` logs these at INFO beside the snapshot swaps
log = logging.getLogger("aimi.object_store")

POINTER = "CURRENT"
SNAPSHOTS = "snapshots"
# files moved at once: a snapshot's static site is thousands of small files, where a request's
# round trip, not the bandwidth, is what costs
TRANSFER_THREADS = 16
PULLING_PREFIX = ".pulling-"
PACK_SCRATCH_PREFIX = ".pack-"  # an upload's pack, beside the snapshot it packs
UPLOAD_LOCK = ".upload.lock"  # in the data dir: one upload at a time
PACK = "small-files.tar"
PACK_BELOW = 1 << 20  # files smaller than this travel in the pack
PACK_INDEX = "small-files.json"  # where each packed file lies in the pack: [offset, size]
# a pull that needs at most this many packed files reads them by byte range; more, the whole
# pack. Measured against moto (which reads the whole object for each range): 100 files of the
# demo by range 8.5 s, by the pack 3.5-4.8 s; 7 files by range 2.6 s, by the pack 4.1 s
RANGED_AT_MOST = 16


@dataclass(frozen=True)
class Transfer:
    """What one push or pull moved."""

    snapshot_id: str
    files: int  # sent or taken from the store
    bytes: int
    seconds: float
    linked: int = 0  # pulled files hard-linked from the snapshot served before
    copied: int = 0  # pushed files copied inside the store from the snapshot it named before


@contextmanager
def _pack_scratch(snapshots: Path) -> Iterator[str]:
    """A temporary folder beside the snapshots for an upload's pack, removed after it. One
    upload at a time per data dir (a file lock), which first removes the folders of uploads
    that died (``kill -9`` in the middle of one left its pack there: the fault test)."""
    with file_lock(snapshots.parent / UPLOAD_LOCK):
        _remove_dead_packs(snapshots)
        with tempfile.TemporaryDirectory(prefix=PACK_SCRATCH_PREFIX, dir=snapshots) as scratch:
            yield scratch


def _remove_dead_packs(snapshots: Path) -> None:
    """The pack folders of uploads that died; the caller holds the upload lock."""
    for stale in snapshots.glob(PACK_SCRATCH_PREFIX + "*"):
        shutil.rmtree(stale, ignore_errors=True)


class ObjectStore:
    """One store's snapshots and pointer, through a boto3 S3 client."""

    def __init__(self, url: str | StoreUrl, *, client: Any | None = None) -> None:
        self.url = url if isinstance(url, StoreUrl) else StoreUrl.parse(url)
        if client is None:
            import boto3
            from botocore.config import Config

            client = boto3.client(
                "s3",
                config=Config(
                    retries={"max_attempts": 5, "mode": "standard"},
                    connect_timeout=5,
                    read_timeout=60,
                    max_pool_connections=TRANSFER_THREADS,
                ),
            )
        self.client = client

    def _get(self, key: str) -> bytes | None:
        """The object's bytes, or None when there is none."""
        from botocore.exceptions import ClientError

        with store_errors(self.url, f"read {key}"):
            try:
                response = self.client.get_object(Bucket=self.url.bucket, Key=key)
            except ClientError as exc:
                if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404", "NotFound"):
                    return None
                raise
            body: bytes = response["Body"].read()
        return body

    def current_id(self) -> str | None:
        """The id the store's ``CURRENT`` names, or None before the first push."""
        raw = self._get(self.url.key(POINTER))
        if raw is None:
            return None
        return raw.decode().strip() or None

    def manifest_bytes(self, snapshot_id: str) -> bytes | None:
        """The stored manifest of ``snapshot_id``, or None when it is not (wholly) there."""
        return self._get(self.url.key(SNAPSHOTS, snapshot_id, MANIFEST))

    def upload(self, opened: OpenedSnapshot) -> Transfer:
        """Upload a sealed snapshot: every file its manifest lists, then the manifest. A
        snapshot whose identical manifest is stored already is not uploaded again. A large
        file identical (size and SHA-256) to one of the snapshot the store's ``CURRENT``
        names is copied inside the store instead of sent: a republish with the same units
        (a clock-only daily run) sends no vectors nor indexes, gigabytes at a million units;
        one that cannot be copied (gone from the store) is sent."""
        from botocore.exceptions import ClientError

        started = time.perf_counter()
        sid = opened.snapshot_id
        local_manifest = (opened.path / MANIFEST).read_bytes()
        if self.manifest_bytes(sid) == local_manifest:
            # uploaded whole before, by an upload killed before it removed its pack
            with file_lock(opened.path.parent.parent / UPLOAD_LOCK):
                _remove_dead_packs(opened.path.parent)
            return Transfer(sid, 0, 0, time.perf_counter() - started)
        names = _listed_files(opened.manifest)
        sizes = _sizes(opened.manifest)
        small = [name for name in names if sizes[name] < PACK_BELOW]
        packed = set(small)
        previous = self._current_manifest()
        copy_from = {} if previous is None else _unchanged(opened.manifest, previous)
        copy_failed: set[str] = set()

        def put(name: str) -> int:
            """Send ``name`` or copy it in the store; the bytes sent."""
            key = self.url.key(SNAPSHOTS, sid, name)
            if previous is not None and name in copy_from:
                source = self.url.key(SNAPSHOTS, previous.snapshot_id, copy_from[name])
                try:
                    self.client.copy(
                        {"Bucket": self.url.bucket, "Key": source}, self.url.bucket, key
                    )
                    return 0
                except ClientError as exc:  # gone from the store, or packed there: send it
                    log.warning("%s: cannot copy %s (%s); sending it", self.url, source, exc)
                    copy_failed.add(name)
            self.client.upload_file(str(opened.path / name), self.url.bucket, key)
            return sizes[name]

        with (
            store_errors(self.url, f"upload snapshot {sid}"),
            _pack_scratch(opened.path.parent) as scratch,
            ThreadPoolExecutor(TRANSFER_THREADS) as pool,
        ):
            pack = Path(scratch) / PACK
            with tarfile.open(pack, "w") as tar:
                for name in small:
                    tar.add(opened.path / name, arcname=name, recursive=False)
            with tarfile.open(pack, "r") as tar:  # where the data lies is known once read
                index = {m.name: [m.offset_data, m.size] for m in tar.getmembers()}
            uploads = [pool.submit(put, name) for name in names if name not in packed]
            self.client.upload_file(str(pack), self.url.bucket, self.url.key(SNAPSHOTS, sid, PACK))
            index_bytes = json.dumps(index).encode()
            self.client.put_object(
                Bucket=self.url.bucket,
                Key=self.url.key(SNAPSHOTS, sid, PACK_INDEX),
                Body=index_bytes,
            )
            sent = [future.result() for future in uploads] + [pack.stat().st_size, len(index_bytes)]
            copied = sum(
                1
                for name in names
                if name not in packed and name in copy_from and name not in copy_failed
            )
            self.client.put_object(
                Bucket=self.url.bucket,
                Key=self.url.key(SNAPSHOTS, sid, MANIFEST),
                Body=local_manifest,
                ContentType="application/json",
            )
        total = sum(sent) + len(local_manifest)
        files = len(names) - len(small) - copied + 3  # the pack, its index, the manifest
        return Transfer(sid, files, total, time.perf_counter() - started, copied=copied)

    def _current_manifest(self) -> Manifest | None:
        """The manifest of the snapshot ``CURRENT`` names, or None (none yet, or unreadable:
        then every file is sent)."""
        current = self.current_id()
        raw = None if current is None else self.manifest_bytes(current)
        if raw is None:
            return None
        try:
            return Manifest.from_json(json.loads(raw))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            return None

    def set_current(self, snapshot_id: str) -> None:
        """Point the store's ``CURRENT`` at an uploaded snapshot (refused for one whose
        manifest is not stored: replicas would follow the pointer to nothing)."""
        if self.manifest_bytes(snapshot_id) is None:
            raise ObjectStoreError(
                f"{self.url} holds no manifest for snapshot {snapshot_id}: upload it first"
            )
        with store_errors(self.url, f"point CURRENT at {snapshot_id}"):
            self.client.put_object(
                Bucket=self.url.bucket,
                Key=self.url.key(POINTER),
                Body=(snapshot_id + "\n").encode(),
                ContentType="text/plain",
            )
        log.info("%s: CURRENT -> %s", self.url, snapshot_id)

    def download(
        self, snapshot_id: str, folder: Path, *, reuse: OpenedSnapshot | None = None
    ) -> Fetched:
        """Bring ``snapshot_id`` into the empty ``folder``: files identical (size and SHA-256)
        to one of ``reuse`` (the snapshot served now) are hard-linked from it, the others
        downloaded; then the manifest. Nothing is verified here (``open_snapshot`` does that)."""
        raw = self.manifest_bytes(snapshot_id)
        if raw is None:
            raise ObjectStoreError(f"{self.url} holds no manifest for snapshot {snapshot_id}")
        try:
            manifest = Manifest.from_json(json.loads(raw))
        except json.JSONDecodeError as exc:
            raise SnapshotError(
                f"{self.url}: manifest of {snapshot_id} is not JSON: {exc}"
            ) from None
        if manifest.snapshot_id != snapshot_id:
            raise SnapshotError(
                f"{self.url}: the manifest under {snapshot_id} is snapshot {manifest.snapshot_id}"
            )
        names = _listed_files(manifest)
        for parent in sorted({str(PurePosixPath(name).parent) for name in names}):
            (folder / parent).mkdir(parents=True, exist_ok=True)
        linked = _link_unchanged(manifest, reuse, folder) if reuse is not None else set()
        needed = [name for name in names if name not in linked]
        sizes = _sizes(manifest)

        def get(name: str, target: Path) -> None:
            self.client.download_file(
                self.url.bucket, self.url.key(SNAPSHOTS, snapshot_id, name), str(target)
            )

        with (
            store_errors(self.url, f"download snapshot {snapshot_id}"),
            ThreadPoolExecutor(TRANSFER_THREADS) as pool,
        ):
            unpacked: set[str] = set()
            small = [name for name in needed if sizes[name] < PACK_BELOW]
            if small:
                unpacked = _from_pack(self, snapshot_id, folder, small, set(names), pool)
            rest = [name for name in needed if name not in unpacked]
            list(pool.map(lambda name: get(name, folder / name), rest))
        (folder / MANIFEST).write_bytes(raw)
        return Fetched(
            manifest,
            linked=frozenset(linked),
            fetched=len(needed),
            bytes=sum(sizes[name] for name in needed) + len(raw),
        )


def _from_pack(
    store: ObjectStore,
    snapshot_id: str,
    folder: Path,
    wanted: list[str],
    listed: set[str],
    pool: ThreadPoolExecutor,
) -> set[str]:
    """Write the ``wanted`` files the pack holds into ``folder`` (several at once: creating
    files is what a pull spends its time on), the pack's index saying where each lies: a few
    read by byte range, more from the whole pack downloaded once. The names written; a file
    in the index that the manifest does not list refuses the snapshot."""
    raw = store._get(store.url.key(SNAPSHOTS, snapshot_id, PACK_INDEX))
    index: dict[str, list[int]] = json.loads(raw) if raw is not None else {}
    unlisted = sorted(set(index) - listed)
    if unlisted:
        raise SnapshotError(
            f"snapshot {snapshot_id}: its pack holds {unlisted[0]!r}, which its manifest does "
            "not list as a file"
        )
    key = store.url.key(SNAPSHOTS, snapshot_id, PACK)
    found = [name for name in wanted if name in index]

    def ranged(name: str) -> None:
        offset, size = index[name]
        body = b""  # an empty range cannot be asked for (a lock file, an empty index part)
        if size > 0:
            body = store.client.get_object(
                Bucket=store.url.bucket, Key=key, Range=f"bytes={offset}-{offset + size - 1}"
            )["Body"].read()
        (folder / name).write_bytes(body)

    if len(found) <= RANGED_AT_MOST:
        list(pool.map(ranged, found))
        return set(found)
    pack = folder / f".{PACK}"
    store.client.download_file(store.url.bucket, key, str(pack))
    batch: list[tuple[str, bytes]] = []
    held = 0

    def flush() -> None:
        nonlocal held
        list(pool.map(lambda item: (folder / item[0]).write_bytes(item[1]), batch))
        batch.clear()
        held = 0

    with pack.open("rb") as fh:
        for name in sorted(found, key=lambda n: index[n][0]):  # one pass through the file
            offset, size = index[name]
            fh.seek(offset)
            batch.append((name, fh.read(size)))
            held += size
            if held >= _UNPACK_BATCH:
                flush()
        flush()
    pack.unlink()
    return set(found)


# bytes of the pack held in memory at once while its files are written out
_UNPACK_BATCH = 64 << 20


@dataclass(frozen=True)
class Fetched:
    manifest: Manifest
    linked: frozenset[str]  # files hard-linked from the snapshot served before
    fetched: int  # files taken from the store
    bytes: int  # their size, with the manifest's


def _sizes(manifest: Manifest) -> dict[str, int]:
    return {
        **{entry.file: entry.bytes for entry in manifest.tables.values()},
        **{name: entry.bytes for name, entry in manifest.files.items()},
    }


def _unchanged(manifest: Manifest, other: Manifest) -> dict[str, str]:
    """Each file of ``manifest`` → a file of ``other`` with the same size and SHA-256."""

    def identities(m: Manifest) -> dict[str, tuple[int, str]]:
        return {
            **{e.file: (e.bytes, e.sha256) for e in m.tables.values()},
            **{name: (e.bytes, e.sha256) for name, e in m.files.items()},
        }

    have = {identity: name for name, identity in identities(other).items()}
    return {
        name: have[identity] for name, identity in identities(manifest).items() if identity in have
    }


def _link_unchanged(manifest: Manifest, reuse: OpenedSnapshot, folder: Path) -> set[str]:
    """Hard-link into ``folder`` every file of ``manifest`` whose size and SHA-256 match a file of
    ``reuse`` (snapshots never change once sealed, and ``reuse``'s files were verified when
    it came; the pull verifies the tables and the fetched files); the names linked. A build
    changes a few tables and pages, not the thousands of unchanged ones a pull would
    otherwise download and write again."""

    linked: set[str] = set()
    for name, source in _unchanged(manifest, reuse.manifest).items():
        try:
            os.link(reuse.path / source, folder / name)
        except OSError:  # another file system, or no links there: download it instead
            continue
        linked.add(name)
    return linked


def _listed_files(manifest: Manifest) -> list[str]:
    """Every file a manifest lists (tables, then index and site files), as relative paths;
    ``SnapshotError`` for a name that would leave the snapshot's folder."""
    names = [entry.file for entry in manifest.tables.values()] + sorted(manifest.files)
    for name in names:
        path = PurePosixPath(name)
        if path.is_absolute() or ".." in path.parts or not path.parts:
            raise SnapshotError(f"snapshot {manifest.snapshot_id} lists an unsafe path {name!r}")
    return names


def open_object_store(url: str | None) -> ObjectStore | None:
    """The store ``url`` names (``AIMI_SNAPSHOT_STORE``), or None when it is unset."""
    return ObjectStore(url) if url and url.strip() else None


def push_snapshot(store: ObjectStore, opened: OpenedSnapshot) -> Transfer:
    """Upload ``opened`` and point the store's ``CURRENT`` at it: what `aimi snapshots push`
    does, and a publish in two steps around its local pointer switch."""
    transfer = store.upload(opened)
    store.set_current(opened.snapshot_id)
    return transfer


@dataclass(frozen=True)
class Pulled:
    """One look at the store: the id it names (None before the first push) and what this
    data dir did about it."""

    snapshot_id: str | None
    action: str  # "none" (nothing published), "current" (already here), "switched", "downloaded"
    transfer: Transfer | None = None


def pull_current(data: DataDir, store: ObjectStore, *, snapshot_id: str | None = None) -> Pulled:
    """Bring ``data`` to the snapshot the store's ``CURRENT`` names: download it (into a
    temporary folder, renamed whole), verify it against its manifest, then move the local
    ``CURRENT``, which the servers over ``data`` follow and verify again as they swap.

    One process at a time per data dir (a file lock): the other workers of a replica wait,
    then find the snapshot there. A snapshot that fails verification raises
    ``SnapshotError``, leaves nothing behind and moves nothing: the old one keeps serving.
    ``snapshot_id`` is what the caller read from the store's ``CURRENT`` (read here if None).
    """
    remote = snapshot_id or store.current_id()
    if remote is None:
        return Pulled(None, "none")
    if "/" in remote or "\\" in remote or remote.startswith("."):
        # it becomes a folder name here: never a path out of the snapshots folder
        raise SnapshotError(f"{store.url}: CURRENT names {remote!r}, which is no snapshot id")
    if current_snapshot_id(data) == remote:
        return Pulled(remote, "current")
    with file_lock(data.root / ".pull.lock"):
        if current_snapshot_id(data) == remote:  # another worker pulled it meanwhile
            return Pulled(remote, "current")
        final = data.snapshots / remote
        transfer = None
        if final.is_dir():  # pulled before (a rollback to it), or a build on this machine
            opened = open_snapshot(final)
            action = "switched"
        else:
            opened, transfer = _download(data, store, remote)
            action = "downloaded"
        if opened.snapshot_id != remote:
            raise SnapshotError(f"folder {remote} holds snapshot {opened.snapshot_id}")
        switch_current(data, opened)
        return Pulled(remote, action, transfer)


def _download(
    data: DataDir, store: ObjectStore, snapshot_id: str
) -> tuple[OpenedSnapshot, Transfer]:
    started = time.perf_counter()
    data.snapshots.mkdir(parents=True, exist_ok=True)
    for stale in data.snapshots.glob(PULLING_PREFIX + "*"):  # a pull that died (we hold the lock)
        shutil.rmtree(stale, ignore_errors=True)
    try:
        reuse = open_current(data, verify=False)  # verified when it was pulled
    except SnapshotError:
        reuse = None
    staging = Path(tempfile.mkdtemp(prefix=PULLING_PREFIX, dir=data.snapshots))
    try:
        fetched = store.download(snapshot_id, staging, reuse=reuse)
        manifest = fetched.manifest
        # sizes, checksums and row counts, before anything points at it; a file linked from
        # the snapshot served now is that snapshot's, verified when it came (a site of a
        # million units is ~900,000 files, most of them unchanged from one build to the next)
        open_snapshot(staging, skip=fetched.linked.__contains__)
        final = data.snapshots / snapshot_id
        os.rename(staging, final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return OpenedSnapshot(final, manifest), Transfer(
        snapshot_id,
        fetched.fetched + 1,
        fetched.bytes,
        time.perf_counter() - started,
        linked=len(fetched.linked),
    )


class SnapshotPuller:
    """A server process's view of the store: ``pull`` once per poll, logging each distinct
    failure once and not downloading a refused snapshot again (snapshots are immutable: the
    same id would fail again; the next publish gets a new id)."""

    def __init__(self, data: DataDir, store: ObjectStore) -> None:
        self.data = data
        self.store = store
        self._refused: str | None = None
        self._error: str | None = None

    def pull(self) -> Pulled | None:
        """One look; None when the store could not be read or the snapshot was refused (the
        local ``CURRENT`` is left as it was)."""
        remote: str | None = None
        try:
            remote = self.store.current_id()
            if remote is not None and remote == self._refused:
                return None
            pulled = pull_current(self.data, self.store, snapshot_id=remote)
        except SnapshotError as exc:
            log.error("refused snapshot %s from %s: %s", remote, self.store.url, exc)
            self._refused = remote
            return None
        except Exception as exc:  # the store is down or the disk is full: retry next poll
            message = f"cannot pull from {self.store.url}: {exc!r}"
            if message != self._error:
                log.error("%s", message)
                self._error = message
            return None
        self._error = None
        if pulled.transfer is not None:
            t = pulled.transfer
            log.info(
                "pulled snapshot %s from %s: %d files, %.1f MB in %.1f s (%d unchanged files "
                "linked from the snapshot before)",
                t.snapshot_id,
                self.store.url,
                t.files,
                t.bytes / 1e6,
                t.seconds,
                t.linked,
            )
        return pulled
