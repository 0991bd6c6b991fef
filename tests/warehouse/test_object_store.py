"""Snapshots on an S3-compatible object store, against a real local S3 server (moto's, over
HTTP): a push uploads the files, then the manifest, then the pointer; a pull downloads into a
temporary folder, verifies and renames it whole; a snapshot that fails verification is refused
and leaves the old one in place; two pullers of one data dir download once."""

from __future__ import annotations

import json
import tarfile
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from tests.s3_server import S3Server, moto_server
from warehouse import object_store
from warehouse.object_store import (
    ObjectStore,
    SnapshotPuller,
    pull_current,
    push_snapshot,
)
from warehouse.paths import DataDir
from warehouse.s3 import ObjectStoreError, StoreUrl
from warehouse.settings import Settings
from warehouse.snapshot import (
    OpenedSnapshot,
    SnapshotError,
    current_snapshot_id,
    open_snapshot,
    publish_snapshot,
)

AS_OF = datetime(2026, 5, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    with moto_server() as server:
        yield server


_prefixes = iter(range(10_000))


@pytest.fixture
def store(s3: S3Server) -> ObjectStore:
    """A store under a prefix of this test's own (one bucket for the module's server)."""
    return ObjectStore(f"s3://{s3.bucket}/test-{next(_prefixes)}", client=s3.client())


def _publish(
    root: Path, rows: int, *, big: bool = False, big_tail: int | None = None
) -> OpenedSnapshot:
    """A small snapshot with a table and three small files, two in a subfolder and one empty
    (all of them travel in the pack); with ``big``, also a file of 1.5 MiB (uploaded on its
    own) whose last byte is ``big_tail``, else ``rows``."""

    def write_files(folder: Path) -> dict[str, Any]:
        (folder / "index").mkdir()
        (folder / "index" / "vectors.bin").write_bytes(bytes(range(256)) * rows)
        (folder / "index" / ".lock").write_bytes(b"")  # empty files exist (tantivy's lock)
        if big:
            tail = bytes([rows if big_tail is None else big_tail])
            (folder / "index" / "big.bin").write_bytes(bytes(range(256)) * 6 * 1024 + tail)
        (folder / "site.json").write_text(f'{{"rows": {rows}}}\n')
        return {"extra": rows}

    frame = pl.DataFrame({"id": list(range(rows)), "text": [f"row {i}" for i in range(rows)]})
    return publish_snapshot(DataDir(root), {"signals": frame}, as_of=AS_OF, write_files=write_files)


def _keys(s3: S3Server, store: ObjectStore) -> set[str]:
    listed = s3.client().list_objects_v2(Bucket=s3.bucket, Prefix=store.url.prefix + "/")
    return {item["Key"][len(store.url.prefix) + 1 :] for item in listed.get("Contents", [])}


def test_store_urls() -> None:
    assert StoreUrl.parse("s3://bucket/a/b/") == StoreUrl("bucket", "a/b")
    assert StoreUrl.parse("s3://bucket").key("CURRENT") == "CURRENT"
    assert StoreUrl.parse("s3://bucket/p").key("snapshots", "x") == "p/snapshots/x"
    for bad in ("bucket/prefix", "gs://bucket/p", "s3://", "s3:///p"):
        with pytest.raises(ValueError, match="s3://bucket"):
            StoreUrl.parse(bad)
    settings = Settings(_env_file=None, snapshot_store="s3://b/p")
    assert settings.snapshot_store == "s3://b/p"
    assert Settings(_env_file=None, snapshot_store=" ").snapshot_store is None
    with pytest.raises(ValueError, match="AIMI_SNAPSHOT_STORE"):
        Settings(_env_file=None, snapshot_store="/mnt/snapshots")


@pytest.mark.parametrize("whole_pack", [False, True], ids=["byte-ranges", "whole-pack"])
def test_push_then_pull_gives_the_same_verified_snapshot(
    tmp_path: Path,
    s3: S3Server,
    store: ObjectStore,
    whole_pack: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if whole_pack:  # as a pull that needs more packed files than RANGED_AT_MOST does
        monkeypatch.setattr(object_store, "RANGED_AT_MOST", 0)
    opened = _publish(tmp_path / "builder", 50, big=True)
    assert store.current_id() is None
    replica = DataDir(tmp_path / "replica")
    assert pull_current(replica, store).action == "none"

    sent = push_snapshot(store, opened)
    sid = opened.snapshot_id
    assert sent.files == 4 and sent.bytes > 1.5 * 2**20 + 50 * 256  # big, pack+index, manifest
    assert _keys(s3, store) == {
        "CURRENT",
        f"snapshots/{sid}/index/big.bin",
        f"snapshots/{sid}/small-files.tar",
        f"snapshots/{sid}/small-files.json",
        f"snapshots/{sid}/manifest.json",
    }
    assert store.current_id() == sid
    # pushed again: the identical manifest is there, nothing is sent
    assert push_snapshot(store, opened).files == 0

    pulled = pull_current(replica, store)
    assert (pulled.action, pulled.snapshot_id) == ("downloaded", sid)
    assert pulled.transfer is not None and pulled.transfer.files == 6
    assert current_snapshot_id(replica) == sid
    local = open_snapshot(replica.snapshots / sid, thorough=True)  # SHA-256 too
    assert sorted(str(p.relative_to(local.path)) for p in local.path.rglob("*")) == [
        "index",
        "index/.lock",
        "index/big.bin",
        "index/vectors.bin",
        "manifest.json",
        "signals.parquet",
        "site.json",
    ]
    for name in ("signals.parquet", "index/vectors.bin", "index/big.bin", "site.json"):
        assert (local.path / name).read_bytes() == (opened.path / name).read_bytes()
    assert not list(replica.snapshots.glob(".pulling-*"))
    assert pull_current(replica, store).action == "current"


def test_a_new_snapshot_replaces_the_old_and_old_ones_are_pruned(
    tmp_path: Path, store: ObjectStore
) -> None:
    replica = DataDir(tmp_path / "replica")
    ids = []
    for n in range(7):
        opened = _publish(tmp_path / "builder", 10 + n)
        push_snapshot(store, opened)
        pull_current(replica, store)
        ids.append(opened.snapshot_id)
        assert current_snapshot_id(replica) == opened.snapshot_id
    kept = sorted(p.name for p in replica.snapshots.iterdir() if p.is_dir())
    assert kept == ids[-5:]  # the local keep of a publish
    # the store rolled back to one the replica still holds: switched, not downloaded
    store.set_current(ids[-3])
    assert pull_current(replica, store).action == "switched"
    assert current_snapshot_id(replica) == ids[-3]


def test_an_upload_removes_what_an_upload_killed_midway_left(
    tmp_path: Path, store: ObjectStore
) -> None:
    """``kill -9`` during an upload left its pack's folder beside the snapshots (the fault
    test, docs/deployment.md): the next upload removes it, and leaves none of its own."""
    opened = _publish(tmp_path / "builder", 10)
    dead = opened.path.parent / ".pack-killed"
    dead.mkdir()
    (dead / "small-files.tar").write_bytes(b"half a pack")
    push_snapshot(store, opened)
    assert not [p.name for p in opened.path.parent.iterdir() if p.name.startswith(".pack-")]
    assert store.current_id() == opened.snapshot_id
    # killed after the manifest was stored, before its pack was removed: the snapshot is
    # whole on the store and not sent again, and the folder goes all the same
    dead.mkdir()
    assert push_snapshot(store, opened).files == 0
    assert not dead.exists()


def test_a_large_file_the_stored_snapshot_has_is_copied_in_the_store_not_sent(
    tmp_path: Path, s3: S3Server, store: ObjectStore
) -> None:
    first = _publish(tmp_path / "builder", 20, big=True, big_tail=7)
    assert push_snapshot(store, first).copied == 0
    second = _publish(tmp_path / "builder", 30, big=True, big_tail=7)  # other table, same big
    sent = push_snapshot(store, second)
    assert (sent.copied, sent.files) == (1, 3)  # the pack, its index, the manifest
    assert sent.bytes < 2**20  # the 1.5-MiB file was not sent
    key = store.url.key("snapshots", second.snapshot_id, "index", "big.bin")
    stored = s3.client().get_object(Bucket=s3.bucket, Key=key)["Body"].read()
    assert stored == (second.path / "index" / "big.bin").read_bytes()
    replica = DataDir(tmp_path / "replica")
    assert pull_current(replica, store).action == "downloaded"
    open_snapshot(replica.snapshots / second.snapshot_id, thorough=True)
    # a different large file is sent
    third = _publish(tmp_path / "builder", 40, big=True, big_tail=8)
    assert push_snapshot(store, third).copied == 0
    # the same one, but gone from the store: sent instead of copied
    fourth = _publish(tmp_path / "builder", 50, big=True, big_tail=8)
    gone = store.url.key("snapshots", third.snapshot_id, "index", "big.bin")
    s3.client().delete_object(Bucket=s3.bucket, Key=gone)
    sent = push_snapshot(store, fourth)
    assert (sent.copied, sent.files) == (0, 4) and sent.bytes > 1.5 * 2**20
    assert pull_current(replica, store).action == "downloaded"
    open_snapshot(replica.snapshots / fourth.snapshot_id, thorough=True)


def test_a_snapshot_that_fails_verification_is_refused_and_the_old_one_stays(
    tmp_path: Path, s3: S3Server, store: ObjectStore
) -> None:
    replica = DataDir(tmp_path / "replica")
    good = _publish(tmp_path / "builder", 20)
    push_snapshot(store, good)
    puller = SnapshotPuller(replica, store)
    first = puller.pull()
    assert first is not None and first.action == "downloaded"

    bad = _publish(tmp_path / "builder", 30, big=True)
    push_snapshot(store, bad)
    # damage one file in the store after its manifest was sealed: same size, other bytes
    key = store.url.key("snapshots", bad.snapshot_id, "index", "big.bin")
    damaged = bytearray((bad.path / "index" / "big.bin").read_bytes())
    damaged[100] ^= 0xFF
    s3.client().put_object(Bucket=s3.bucket, Key=key, Body=bytes(damaged))

    with pytest.raises(SnapshotError, match=r"big\.bin does not match"):
        pull_current(replica, store)
    assert current_snapshot_id(replica) == good.snapshot_id
    assert not (replica.snapshots / bad.snapshot_id).exists()
    assert not list(replica.snapshots.glob(".pulling-*"))

    # the puller logs it once and does not download it again at every poll
    downloads: list[str] = []
    original = store.download

    def counted(snapshot_id: str, folder: Path, **kwargs: Any) -> Any:
        downloads.append(snapshot_id)
        return original(snapshot_id, folder, **kwargs)

    store.download = counted  # type: ignore[method-assign]
    assert puller.pull() is None
    assert puller.pull() is None
    assert downloads == [bad.snapshot_id]
    assert current_snapshot_id(replica) == good.snapshot_id

    # the next publish has a new id, and is taken
    fixed = _publish(tmp_path / "builder", 31)
    push_snapshot(store, fixed)
    pulled = puller.pull()
    assert pulled is not None and pulled.action == "downloaded"
    assert current_snapshot_id(replica) == fixed.snapshot_id


def test_a_manifest_naming_a_path_outside_the_folder_is_refused(
    tmp_path: Path, s3: S3Server, store: ObjectStore
) -> None:
    opened = _publish(tmp_path / "builder", 5)
    push_snapshot(store, opened)
    raw = (opened.path / "manifest.json").read_text().replace('"site.json"', '"../../evil"')
    key = store.url.key("snapshots", opened.snapshot_id, "manifest.json")
    s3.client().put_object(Bucket=s3.bucket, Key=key, Body=raw.encode())
    replica = DataDir(tmp_path / "replica")
    with pytest.raises(SnapshotError, match="unsafe path"):
        pull_current(replica, store)
    assert not (tmp_path / "evil").exists() and current_snapshot_id(replica) is None


def test_a_pointer_that_is_no_snapshot_id_is_refused(
    tmp_path: Path, s3: S3Server, store: ObjectStore
) -> None:
    replica = DataDir(tmp_path / "replica")
    for bad in ("../../outside", ".pulling-x", "a/b"):
        s3.client().put_object(Bucket=s3.bucket, Key=store.url.key("CURRENT"), Body=bad.encode())
        with pytest.raises(SnapshotError, match="which is no snapshot id"):
            pull_current(replica, store)
    assert not (tmp_path / "outside").exists() and current_snapshot_id(replica) is None


def test_the_pointer_never_names_a_snapshot_the_store_does_not_hold(
    tmp_path: Path, store: ObjectStore
) -> None:
    with pytest.raises(ObjectStoreError, match="no manifest"):
        store.set_current("20260501-missing")
    assert store.current_id() is None
    calls: list[tuple[str, str]] = []
    real = store.client

    class Recording:
        """The real client, recording which keys it writes, in order."""

        def upload_file(self, path: str, bucket: str, key: str) -> None:
            calls.append(("file", key))
            real.upload_file(path, bucket, key)

        def put_object(self, **kwargs: Any) -> Any:
            calls.append(("put", kwargs["Key"]))
            return real.put_object(**kwargs)

        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

    store.client = Recording()
    push_snapshot(store, _publish(tmp_path / "builder", 6, big=True))
    written = [key.rsplit("/", 1)[-1] for _, key in calls]
    assert written[-2:] == ["manifest.json", "CURRENT"]
    assert sorted(written[:-2]) == ["big.bin", "small-files.json", "small-files.tar"]


@pytest.mark.parametrize("whole_pack", [True, False], ids=["whole-pack", "byte-ranges"])
def test_a_pack_holding_a_file_the_manifest_does_not_list_is_refused(
    tmp_path: Path,
    s3: S3Server,
    store: ObjectStore,
    whole_pack: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if whole_pack:  # a pull that needs more packed files than this takes the whole pack
        monkeypatch.setattr(object_store, "RANGED_AT_MOST", 0)
    opened = _publish(tmp_path / "builder", 5)
    push_snapshot(store, opened)
    extra = tmp_path / "run.sh"
    extra.write_text("echo unexpected\n")
    pack = tmp_path / "pack.tar"
    with tarfile.open(pack, "w") as tar:
        tar.add(opened.path / "site.json", arcname="site.json")
        tar.add(extra, arcname="run.sh")
    with tarfile.open(pack) as tar:
        index = {m.name: [m.offset_data, m.size] for m in tar.getmembers()}
    prefix = store.url.key("snapshots", opened.snapshot_id)
    s3.client().upload_file(str(pack), s3.bucket, f"{prefix}/small-files.tar")
    s3.client().put_object(
        Bucket=s3.bucket, Key=f"{prefix}/small-files.json", Body=json.dumps(index).encode()
    )
    replica = DataDir(tmp_path / "replica")
    with pytest.raises(SnapshotError, match="'run.sh', which its manifest does not list"):
        pull_current(replica, store)
    assert current_snapshot_id(replica) is None
    assert not list(replica.snapshots.iterdir())
    assert not (replica.root / "run.sh").exists()


def test_an_unreachable_store_is_an_object_store_error(tmp_path: Path) -> None:
    import boto3
    from botocore.config import Config

    client = boto3.client(
        "s3",
        endpoint_url="http://127.0.0.1:1",
        aws_access_key_id="x",
        aws_secret_access_key="x",
        region_name="us-east-1",
        config=Config(retries={"max_attempts": 1}, connect_timeout=1),
    )
    store = ObjectStore("s3://nowhere/p", client=client)
    with pytest.raises(
        ObjectStoreError, match="s3://nowhere/p: cannot read p/CURRENT: Could not connect"
    ):
        store.current_id()
    puller = SnapshotPuller(DataDir(tmp_path / "replica"), store)
    assert puller.pull() is None  # logged, and the server goes on with what it has


def test_workers_of_one_replica_download_once(tmp_path: Path, s3: S3Server) -> None:
    url = f"s3://{s3.bucket}/workers"
    opened = _publish(tmp_path / "builder", 2000)  # ~0.5 MB of index, a download that lasts
    push_snapshot(ObjectStore(url, client=s3.client()), opened)
    replica = DataDir(tmp_path / "replica")
    results: list[str] = []
    barrier = threading.Barrier(3)

    def worker() -> None:
        # each its own client and lock file descriptor, as separate processes have
        store = ObjectStore(url, client=s3.client())
        barrier.wait()
        results.append(pull_current(replica, store).action)

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(results) == ["current", "current", "downloaded"]
    assert current_snapshot_id(replica) == opened.snapshot_id


def test_unchanged_files_are_linked_from_the_snapshot_served_before(
    tmp_path: Path, store: ObjectStore
) -> None:
    replica = DataDir(tmp_path / "replica")
    first = _publish(tmp_path / "builder", 40, big=True)
    push_snapshot(store, first)
    assert pull_current(replica, store).action == "downloaded"
    # the same content under a new id (a build in which nothing changed): nothing to fetch
    second = _publish(tmp_path / "builder", 40, big=True)
    assert second.snapshot_id != first.snapshot_id
    push_snapshot(store, second)
    pulled = pull_current(replica, store)
    assert pulled.transfer is not None
    assert (pulled.transfer.linked, pulled.transfer.files) == (5, 1)  # the manifest alone
    big = replica.snapshots / second.snapshot_id / "index" / "big.bin"
    assert big.stat().st_nlink == 2
    # one small file changed: only it comes from the store (through the pack)
    third = _publish(tmp_path / "builder", 41, big=True)
    push_snapshot(store, third)
    pulled = pull_current(replica, store)
    assert pulled.transfer is not None and pulled.transfer.linked < 5
    opened = open_snapshot(replica.snapshots / third.snapshot_id, thorough=True)
    assert opened.manifest == third.manifest


def test_a_pull_verifies_what_it_fetched_not_what_it_linked(
    tmp_path: Path, store: ObjectStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Linked files are the served snapshot's, verified when it came."""
    replica = DataDir(tmp_path / "replica")
    push_snapshot(store, _publish(tmp_path / "builder", 40, big=True, big_tail=1))
    pull_current(replica, store)
    skips: list[Any] = []
    real = object_store.open_snapshot

    def spy(path: Path, **kwargs: Any) -> OpenedSnapshot:
        skips.append(kwargs.get("skip"))
        return real(path, **kwargs)

    monkeypatch.setattr(object_store, "open_snapshot", spy)
    changed = _publish(tmp_path / "builder", 41, big=True, big_tail=1)  # the big file is not
    push_snapshot(store, changed)
    assert pull_current(replica, store).action == "downloaded"
    (skip,) = skips
    assert skip("index/big.bin") and skip("index/.lock")
    assert not skip("index/vectors.bin") and not skip("site.json")
