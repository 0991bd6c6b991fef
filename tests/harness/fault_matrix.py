"""The fault-injection matrix (issue 34; `make fault-test`, docs/deployment.md): the scale-out
arrangement of tests/harness/arrangement.py — moto's S3 server, redis-server, two `aimi serve`
replicas behind nginx — run with credentials configured (a Redis password, S3 keys, an admin
secret, all random per run), and one component at a time broken under a bounded load through
nginx (4 clients, 100 requests/s with the dev key, over signals, the change feed, themes,
entities, search and health):

- ``redis``: redis-server killed -9 for 10 s and started again on the same port. Keyed
  requests get 503 with ``Retry-After: 5``, never a 500 or a lost connection; afterwards a
  500-per-minute quota admits exactly 500 of 600 requests again.
- ``replica``: replica a killed -9 (its whole process group) under the load, a snapshot
  published while it is down, a started again. nginx sends the load to b (no failed request:
  ``proxy_next_upstream``), and a catches up with the new snapshot.
- ``store``: the object store unreachable, first for the builder during a publish (`aimi
  snapshots rollback` of a staged snapshot, the CLI's publish to the store: it fails with a
  clear error and no traceback, the store's and the local pointer unmoved; the retry
  succeeds), then for the replicas during the pull of that snapshot (they keep serving the
  one they have and converge once it returns). The store is cut by a TCP gate in front of
  moto (connections refused).
- ``store-cut``: the store cut in the middle of a transfer: the builder's link once objects of
  the snapshot it publishes are on the store but not its manifest (the publish fails cleanly,
  both pointers unmoved, a retry succeeds), then the replicas' link once one of them has a
  ``.pulling-*`` folder (it keeps serving, nothing half-pulled stays, all converge once the
  store returns); the links slowed so that each cut lands inside its transfer.
- ``tamper``: a snapshot uploaded, then one of its files changed on the store (a byte
  flipped), then another with its manifest changed (a row count), the store's pointer moved to
  each: every replica refuses it, logs why and keeps serving.
- ``publish-kill``: the builder's publish (`aimi snapshots rollback` of a staged snapshot) killed
  -9 during the store upload, then once the manifest is stored, each time run again: the local
  pointer never ahead of the store's, the killed publish's build lease taken over at once (its
  process is gone), then one snapshot everywhere, no temporary folder left.
- ``disk``: replica b's data dir on a small tmpfs, filled before a publish (its pull fails, it
  keeps serving, nothing half-pulled stays; it converges once space returns), then a whole
  `aimi build` (new notes in its inbox) on a copy of the builder on another tmpfs with 30 MiB
  left: it stops with one clear line (no traceback), ``CURRENT`` unmoved there and on the
  store, the replicas on their snapshot, nothing half-written; once space returns a rebuild
  publishes, every replica serves it, and the change feed runs on without a repeat. Skipped,
  saying why, where a tmpfs cannot be mounted or the builder has no warehouse to build from.
- ``build-kill`` (two cases, ``build-kill-local``: staging and site, ``build-kill-store``:
  upload and pointer): ``kill -9`` of a whole `aimi build` (new notes in the builder's inbox) once
  its ``.staging-*`` folder appears, once the snapshot it staged has site files, once objects
  of that snapshot are on the store but not its manifest (the upload), once its manifest is
  stored but the store's ``CURRENT`` not moved (the pointer move; for these two the builder's
  link to the store is slowed, 0.05 s a chunk), each followed by a rebuild: the pointers
  unmoved, then one snapshot everywhere, nothing
  half-written left, and the change feed without a repeat and with a gap only at numbers the
  killed build saved (docs/decisions/0066-change-feed.md). The line says where each kill landed.
- ``hostile``: through nginx, beside the load: a 64 KiB header (400), a 1 MB query string
  (414), 200 slowloris heads and 200 stalled bodies (cut within 15 s), 10,000 distinct invalid
  keys from a process of their own at nice 19 (401; the replicas' RSS and open files before and
  after), 200 admin guesses (401, then 429 past the limit, logged without the guesses); the
  load's p99 within 2x that of the same load alone for 20 s just before.

Then the secrets scan: every answer the loads, the quota spends (600 requests), the hostile
case's oversized requests, invalid-key flood and admin guesses got, every line the replicas,
nginx, Redis and the CLI commands logged or printed, must hold none of the configured
credentials; and no non-2xx body among those answers may name a connection URL, a loopback
address, a file path (the run's folders, or one under /tmp, /var, /home, ...), a key or a
credential written out (arrangement.unsafe_in_answer).

Each case prints one line to stdout: its verdict, requests sent, non-2xx answers by status,
socket errors, its own checks' figures, and what the data dirs and the store hold afterwards
(CURRENT's build time and how many snapshots, with any temporary folder a failed step left),
which is asserted (``after_checks``): no temporary folder, one snapshot named everywhere, and
``STORE_ADDS`` snapshots more on the store. Exit status 0 when every case holds, 1 when one
fails (the run's logs are kept under ``--work``), 2 when nginx or redis-server is missing. A
snapshot for the builder as tests/harness/scale_out.py does (``--builder``, else the demo built once
into WORK/builder).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack, suppress
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from analytics.schema import CHANGE_STATE  # noqa: E402
from serving.routers.admin import ADMIN_FAILURES_PER_MINUTE  # noqa: E402
from tests.harness import arrangement  # noqa: E402
from tests.harness.arrangement import (  # noqa: E402
    AIMI,
    Arrangement,
    Credentials,
    Failed,
    Load,
    add_arguments,
    guarded,
    health_id,
    note,
    run_folder,
    spend_quota,
    unsafe_in_answer,
)
from warehouse.locks import file_lock  # noqa: E402
from warehouse.paths import DataDir  # noqa: E402
from warehouse.snapshot import (  # noqa: E402
    STAGING_PREFIX,
    SnapshotError,
    current_snapshot_id,
    open_current,
    open_snapshot,
    stage_snapshot,
    staged_snapshot_id,
)
from warehouse.snapshot_history import prune  # noqa: E402
from warehouse.tables import read_table  # noqa: E402

CASES = (
    "redis",
    "replica",
    "store",
    "store-cut",
    "tamper",
    "publish-kill",
    "disk",
    "build-kill-local",
    "build-kill-store",
    "hostile",
)
# The matrix in named groups, each within 10 minutes on 2 cores (one arrangement started per
# run; docs/deployment.md): `--cases serving` runs one group, as a CI job with a time limit.
GROUPS = {
    "serving": ("redis", "replica", "store", "store-cut", "tamper", "hostile"),
    "publish": ("publish-kill", "disk"),
    "build-local": ("build-kill-local",),
    "build-store": ("build-kill-store",),
}
# other names for some cases: ``build-kill`` is its two halves, the kills in the local steps
# and in the store's (one kill and rebuild after another took 13–16 min under load)
ALIASES = {"build-kill": ("build-kill-local", "build-kill-store")}
QUOTA = 500
QUOTA_SENT = 600
TIERS = f'{{"fault": {{"per_minute": {QUOTA}, "per_month": 1000000}}}}'
REDIS_DOWN_SECONDS = 10.0
RETRY_AFTER = "5"  # what docs/deployment.md promises while Redis is unreachable
STORE_DOWN_SECONDS = 6.0  # how long the replicas are kept from a published snapshot
CONVERGE_LIMIT = 30.0  # seconds from the store returning to every replica serving its snapshot
# a real build's snapshot: new tables and pages to pull (the demo's whole snapshot, 8,374 files,
# took 11-15 s alone; docs/journal/2026-11-27.md), on a loaded machine
BUILD_CONVERGE_LIMIT = 120.0
# how long a build may take to reach the step a kill aims at: at nice 19 on the shared 2 cores
# (load average 20) the demo's took over 10 minutes
BUILD_LIMIT = 1800.0
REFUSE_LIMIT = 30.0  # seconds for every replica to refuse a tampered snapshot
MARKER = "fault-test.bin"  # a file of each staged copy, unique to it, over the pack's 1 MiB


@dataclass
class Outcome:
    """One case's verdict: the checks that failed (none: ok) and its summary's figures."""

    name: str
    load: Load | None = None
    figures: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    skipped: str | None = None
    seconds: float = 0.0
    held: str = ""

    def check(self, what: str, ok: bool) -> None:
        if not ok:
            self.failed.append(what)

    def line(self) -> str:
        if self.skipped is not None:
            return f"fault-test {self.name}: skipped ({self.skipped})"
        verdict = "ok" if not self.failed else f"FAILED ({'; '.join(self.failed)})"
        parts = [f"fault-test {self.name}: {verdict}"]
        if self.load is not None:
            load = self.load
            non_2xx = ", ".join(f"{n} x {s}" for s, n in load.non_2xx().items()) or "none"
            parts.append(
                f"{load.requests:,} requests in {load.seconds:.0f} s, non-2xx: {non_2xx}, "
                f"{load.errors} socket errors, p99 {load.p99() * 1000:.0f} ms"
            )
        parts += self.figures
        parts.append(f"after: {self.held}")
        parts.append(f"{self.seconds:.0f} s")
        return " | ".join(parts)


@dataclass(frozen=True)
class Held:
    """What each data dir (``builder``, the replicas) and the ``store`` hold after a case: the
    id its CURRENT names, how many snapshots, its temporary folders."""

    dirs: dict[str, tuple[str | None, int, list[str]]]

    def text(self) -> str:
        """CURRENT's build time and the counts, for a case's line."""

        def one(name: str) -> str:
            sid, kept, temp = self.dirs[name]
            extra = f", {len(temp)} temporary" if temp else ""
            return f"{name} {_short(sid or 'none')} ({kept} snapshots{extra})"

        local = ", ".join(one(name) for name in self.dirs if name != "store")
        return f"{local}; {one('store')}"


# how many snapshots each case adds on the store (the folders under snapshots/, a killed
# upload's partial one and the tamper case's refused ones among them): each publish of a new
# id adds one; ``build-kill-local``'s two rebuilds add two; ``build-kill-store``'s two rebuilds
# two, its upload kill leaves the objects of one more, its pointer kill a whole one (manifest
# stored, never pointed at)
STORE_ADDS = {
    "redis": 0,
    "replica": 1,
    "store": 1,
    "store-cut": 1,
    "tamper": 2,
    "publish-kill": 2,
    "disk": 2,
    "build-kill-local": 2,
    "build-kill-store": 4,
    "hostile": 0,
}


def after_checks(case: str, before: Held, after: Held, skipped: bool = False) -> list[str]:
    """What every case must leave (its "after"), as failed checks: no temporary folder in any
    data dir, one snapshot named by every CURRENT (the builder's, each replica's, the
    store's), and the store holding ``STORE_ADDS[case]`` snapshots more than before (none
    for a skipped case)."""
    failed = [
        f"after: {name} holds temporary folders {temp}"
        for name, (_, _, temp) in after.dirs.items()
        if temp
    ]
    named = {name: sid for name, (sid, _, _) in after.dirs.items()}
    if len(set(named.values())) != 1 or None in named.values():
        failed.append(f"after: not one snapshot everywhere ({after.text()})")
    added = after.dirs["store"][1] - before.dirs["store"][1]
    expected = 0 if skipped else STORE_ADDS[case]
    if added != expected:
        failed.append(f"after: the store holds {added} snapshots more, not {expected}")
    return failed


@dataclass
class Run:
    """What every case shares: the arrangement, the credentials, the CLI output to scan."""

    parts: Arrangement
    stack: ExitStack
    credentials: Credentials
    dev_key: str
    quota_keys: list[str]
    api_keys: tuple[str, ...] = ()
    outputs: list[str] = field(default_factory=list)  # every CLI command's stdout and stderr
    loads: list[Load] = field(default_factory=list)
    # answers the cases got outside the loads (the quota spend, the hostile case's attacks),
    # scanned as they came: how many, how many of them not 2xx, and what was found
    other_answers: int = 0
    other_errors: int = 0
    other_leaks: list[str] = field(default_factory=list)

    @property
    def builder(self) -> DataDir:
        return DataDir(self.parts.builder)

    def secrets(self) -> tuple[str, ...]:
        """Every credential of the run: the configured ones, the dev key, the API keys."""
        return (*self.credentials.values(), self.dev_key, *self.api_keys)

    def paths(self) -> tuple[str, ...]:
        """The run's folders and data dirs, none of which an error body may name."""
        parts = self.parts
        dirs = [parts.run_dir, parts.builder, *(parts.replica_dir(r) for r in parts.replicas)]
        return tuple(dict.fromkeys(str(Path(d)) for d in dirs))

    def scan(self, where: str, response: Any) -> None:
        """One answer outside the loads, scanned (`answer_leaks`) and counted."""
        self.count(
            where, response.status_code, answer_leaks(response, self.secrets(), self.paths())
        )

    def count(self, where: str, status: int, found: list[str], answers: int = 1) -> None:
        self.other_answers += answers
        self.other_errors += 0 if 200 <= status < 300 else answers
        self.other_leaks += [f"{where}: {status} holds {what}" for what in found]

    def load(self) -> Load:
        load = Load(self.parts.front, self.dev_key, secrets=self.secrets(), paths=self.paths())
        self.loads.append(load)
        return load

    def aimi(self, *args: str, data: Path | None = None) -> subprocess.CompletedProcess[str]:
        """An ``aimi`` command on the builder (or the data dir ``data``), its output kept for
        the secrets scan."""
        env = self.parts.builder_env
        if data is not None:
            env = {**env, "AIMI_DATA_DIR": str(data)}
        done = subprocess.run(
            [str(AIMI), *args],
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=BUILD_LIMIT,
        )
        self.outputs += [done.stdout, done.stderr]
        return done

    def stage_copy(self, builder: DataDir | None = None) -> str:
        """A new snapshot staged on the builder (``CURRENT`` unmoved): the current one's
        tables and files under a new id, plus ``MARKER``, a file no other snapshot has (so a
        replica fetches it from the store, where the tamper case changes it)."""
        builder = builder or self.builder
        opened = open_current(builder)
        assert opened is not None

        def copy_files(folder: Path) -> dict[str, Any]:
            for name in opened.manifest.files:
                if name == MARKER:
                    continue
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                try:
                    os.link(opened.path / name, folder / name)
                except OSError:
                    shutil.copyfile(opened.path / name, folder / name)
            (folder / MARKER).write_bytes(os.urandom((1 << 20) + 1))
            return {}

        staged = stage_snapshot(
            builder,
            {name: opened.read_table(name) for name in opened.manifest.tables},
            as_of=opened.manifest.as_of,
            metadata=opened.manifest.metadata,
            write_files=copy_files,
        )
        return staged.snapshot_id

    def publish(
        self, snapshot_id: str, data: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        """The CLI's publish of a staged snapshot: verify, upload, the store's ``CURRENT``,
        then the local one."""
        return self.aimi("snapshots", "rollback", snapshot_id, data=data)

    def start_publish(self, snapshot_id: str, *, merged: bool) -> subprocess.Popen[str]:
        """``publish`` started and left running (to be cut or killed mid-way): its output piped,
        standard error into standard output when ``merged``."""
        return subprocess.Popen(
            [str(AIMI), "snapshots", "rollback", snapshot_id],
            env=self.parts.builder_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if merged else subprocess.PIPE,
            text=True,
        )

    def serving(self) -> dict[str, set[str | None]]:
        """The ids each replica answers from, over ten health requests (both workers)."""
        return {
            r: {health_id(self.parts.replica_base(r)) for _ in range(10)}
            for r in self.parts.replicas
        }

    def wait_all_serve(self, snapshot_id: str, timeout: float) -> float:
        return arrangement.wait_until(
            f"every replica to serve {snapshot_id}",
            lambda: all(ids == {snapshot_id} for ids in self.serving().values()),
            timeout,
        )

    def held(self) -> Held:
        """What the data dirs and the store hold: each one's CURRENT, snapshots and
        temporary folders."""
        store = self.parts.store
        assert store is not None

        def local(data: DataDir) -> tuple[str | None, int, list[str]]:
            folders = (
                sorted(p.name for p in data.snapshots.iterdir()) if data.snapshots.is_dir() else []
            )
            temp = [f for f in folders if f.startswith(".")]
            return current_snapshot_id(data), len(folders) - len(temp), temp

        dirs = {"builder": local(self.builder)}
        dirs |= {r: local(DataDir(self.parts.replica_dir(r))) for r in self.parts.replicas}
        listed = store.client.list_objects_v2(
            Bucket=store.url.bucket, Prefix=store.url.key("snapshots") + "/", Delimiter="/"
        )
        dirs["store"] = (store.current_id(), len(listed.get("CommonPrefixes", [])), [])
        return Held(dirs)

    def log_offsets(self) -> dict[str, int]:
        return {r: self.parts.servers[r].log.stat().st_size for r in self.parts.replicas}

    def logged_since(self, replica: str, offset: int) -> str:
        with self.parts.servers[replica].log.open("rb") as fh:
            fh.seek(offset)
            return fh.read().decode(errors="replace")


def _short(snapshot_id: str) -> str:
    """A snapshot id's build time (``20261128T064342``): the copies the cases publish share
    the rest of it (the as-of date and the tables' digest)."""
    parts = snapshot_id.split("-")
    return parts[1][:15] if len(parts) == 3 else snapshot_id


def served_ids(ids: set[str | None]) -> str:
    """What one replica answered from over `Run.serving`'s health requests, for a line: each
    id's build time, sorted, joined by ``/``, and ``none`` for a request that got no id."""
    return "/".join(sorted(_short(i) if i is not None else "none" for i in ids)) or "none"


def case_redis(run: Run, outcome: Outcome) -> None:
    parts = run.parts
    assert parts.redis is not None
    with run.load() as load:
        outcome.load = load
        time.sleep(2)
        note("redis: kill -9")
        parts.redis.kill()
        time.sleep(REDIS_DOWN_SECONDS)
        note("redis: started again")
        parts.start_redis()
        time.sleep(3)
    statuses = set(load.statuses)
    outcome.check("only 200 and 503 answers", statuses <= {200, 503})
    outcome.check("keyed requests got 503 while Redis was down", load.statuses[503] > 0)
    outcome.check("no answer without Retry-After", load.no_retry_after == 0)
    outcome.check(
        f"every 503 says Retry-After: {RETRY_AFTER}", set(load.retry_after) <= {RETRY_AFTER}
    )
    outcome.check("no socket error", load.errors == 0)
    quota, admitted_by, windows = spend_quota(
        parts.front, run.quota_keys.pop(), QUOTA_SENT, scan=run.scan
    )
    outcome.check(
        f"exactly {QUOTA} of {QUOTA_SENT} admitted after Redis returned",
        quota.get(200, 0) == QUOTA and quota.get(429, 0) == QUOTA_SENT - QUOTA,
    )
    outcome.check("the quota spent in one minute window", len(windows) == 1)
    retry = "/".join(sorted(load.retry_after)) or "-"
    outcome.figures.append(
        f"Redis down {REDIS_DOWN_SECONDS:.0f} s: 503s with Retry-After {retry}"
        f" | quota {QUOTA}/min after: {quota.get(200, 0)} admitted, {quota.get(429, 0)} x 429"
        f" of {QUOTA_SENT}"
    )


def case_replica(run: Run, outcome: Outcome) -> None:
    parts = run.parts
    before = run.serving()
    new = run.stage_copy()
    with run.load() as load:
        outcome.load = load
        time.sleep(2)
        note("replica a: kill -9")
        parts.servers["a"].kill()
        killed = time.monotonic()
        time.sleep(1)
        published = run.publish(new)
        outcome.check("the publish succeeded", published.returncode == 0)
        b_took = parts.wait_serving("b", new, timeout=60)
        time.sleep(2)
        note("replica a: started again")
        parts.start_replica("a")
        restarted = time.monotonic()
        caught_up = parts.wait_serving("a", new)
        time.sleep(2)
    down = restarted - killed
    was = ", ".join(f"{r} {served_ids(ids)}" for r, ids in before.items())
    outcome.check("no failed request", not load.failures)
    outcome.check(
        "every replica serves the new snapshot", run.serving() == {r: {new} for r in parts.replicas}
    )
    outcome.figures.append(
        f"a down {down:.0f} s, b on the new snapshot {b_took:.1f} s after the publish, "
        f"a serving it {caught_up:.1f} s after its restart (before: {was})"
    )


def case_store(run: Run, outcome: Outcome) -> None:
    parts = run.parts
    store = parts.store
    assert store is not None and parts.builder_gate is not None and parts.replica_gate is not None
    old_remote = store.current_id()
    old_local = current_snapshot_id(run.builder)
    new = run.stage_copy()
    with run.load() as load:
        outcome.load = load
        time.sleep(1)
        note("store: unreachable for the builder; publishing")
        parts.builder_gate.close()
        began = time.monotonic()
        failed = run.publish(new)
        fail_seconds = time.monotonic() - began
        parts.builder_gate.open()
        error = failed.stderr.strip().splitlines()[-1] if failed.stderr.strip() else ""
        outcome.check("the publish failed", failed.returncode != 0)
        outcome.check("its error says it was not published", "not rolled back" in error)
        outcome.check(
            "its output holds no traceback", "Traceback" not in failed.stderr + failed.stdout
        )
        outcome.check("the store's pointer did not move", store.current_id() == old_remote)
        outcome.check(
            "the local pointer did not move", current_snapshot_id(run.builder) == old_local
        )
        note("store: unreachable for the replicas; publishing again")
        parts.replica_gate.close()
        retried = run.publish(new)
        outcome.check("the retry succeeded", retried.returncode == 0)
        outcome.check("the store names the new snapshot", store.current_id() == new)
        time.sleep(STORE_DOWN_SECONDS)
        kept = run.serving()
        outcome.check(
            "the replicas kept serving their snapshot while cut off",
            all(ids == {old_local} for ids in kept.values()),
        )
        note("store: reachable again")
        parts.replica_gate.open()
        converged = run.wait_all_serve(new, CONVERGE_LIMIT)
        time.sleep(1)
    outcome.check("no failed request", not load.failures)
    outcome.figures.append(
        f"publish refused in {fail_seconds:.1f} s ({error[:160]!r}), retried ok; replicas cut off"
        f" {STORE_DOWN_SECONDS:.0f} s kept serving, converged {converged:.1f} s after the store"
        " returned"
    )


# seconds the TCP gate holds each chunk while ``store-cut`` waits for a transfer to be under way
# (the builder's upload, the replicas' download: a 1 MiB file and a few small ones, which at
# full speed take a few milliseconds, too short for a 0.1 s poll to cut inside)
UPLOAD_DELAY = 0.05
DOWNLOAD_DELAY = 0.25


def _pulling(run: Run) -> dict[str, list[str]]:
    """The replicas with a pull under way (a ``.pulling-*`` folder in their data dir)."""
    found = {
        r: [n for n in _temporary(run.parts.replica_dir(r)) if n.startswith(".pulling-")]
        for r in run.parts.replicas
    }
    return {r: names for r, names in found.items() if names}


def case_store_cut(run: Run, outcome: Outcome) -> None:
    """The store cut in the middle of a transfer, not before it: the builder's publish (`aimi
    snapshots rollback` of a staged snapshot) once objects of it are on the store but not its
    manifest, then the replicas' pull of it once a ``.pulling-*`` folder is there. The links
    are slowed (``UPLOAD_DELAY``, ``DOWNLOAD_DELAY``) so the cut lands inside the transfer."""
    parts = run.parts
    store = parts.store
    builder_gate, replica_gate = parts.builder_gate, parts.replica_gate
    assert store is not None and builder_gate is not None and replica_gate is not None
    old = current_snapshot_id(run.builder)
    new = run.stage_copy()
    prefix = store.url.key("snapshots", new) + "/"
    with run.load() as load:
        outcome.load = load
        time.sleep(1)
        note("store-cut: the builder's publish, cut during its upload")
        builder_gate.delay = UPLOAD_DELAY
        publish = run.start_publish(new, merged=False)

        def uploading() -> bool:
            if publish.poll() is not None:
                return True
            listed = store.client.list_objects_v2(Bucket=store.url.bucket, Prefix=prefix)
            return bool(listed.get("KeyCount", 0)) and store.manifest_bytes(new) is None

        closed = False
        try:
            arrangement.wait_until("the publish to be uploading", uploading, 120)
            listed = store.client.list_objects_v2(Bucket=store.url.bucket, Prefix=prefix)
            objects = int(listed.get("KeyCount", 0))
            mid = publish.poll() is None and store.manifest_bytes(new) is None
            builder_gate.close()
            closed = True
            out, err = publish.communicate(timeout=BUILD_LIMIT)
        finally:
            if publish.poll() is None:
                publish.kill()
                publish.wait()
            builder_gate.delay = 0.0
            if closed:
                builder_gate.open()
        run.outputs += [out, err]
        error = _last_line(err)
        outcome.check(f"the cut landed in the upload ({objects} objects stored, no manifest)", mid)
        outcome.check("the publish cut mid-upload failed", publish.returncode != 0)
        outcome.check(
            f"its error says it was not published ({error[:120]!r})", "not rolled back" in error
        )
        outcome.check("its output holds no traceback", "Traceback" not in out + err)
        outcome.check("the store's pointer did not move", store.current_id() == old)
        outcome.check("the local pointer did not move", current_snapshot_id(run.builder) == old)
        outcome.check(
            "the replicas kept serving their snapshot",
            all(ids == {old} for ids in run.serving().values()),
        )
        note("store-cut: published again; the replicas' pull cut during its download")
        replica_gate.delay = DOWNLOAD_DELAY
        began = time.monotonic()
        retried = run.publish(new)
        retry_took = time.monotonic() - began
        outcome.check(
            f"the retry succeeded ({_last_line(retried.stderr)[:160]})", retried.returncode == 0
        )
        outcome.check("the store names the new snapshot", store.current_id() == new)
        pulling: dict[str, list[str]] = {}
        serving_new: list[str] = []
        cut = False
        try:
            arrangement.wait_until(
                "a replica to be pulling",
                lambda: bool(pulling.update(_pulling(run)) or pulling),
                CONVERGE_LIMIT,
            )
            serving_new = [r for r, ids in run.serving().items() if new in ids]
            replica_gate.close()
            cut = True
        finally:
            replica_gate.delay = 0.0
        outcome.check(
            f"the cut landed in a download ({pulling}; serving the new one then: {serving_new})",
            bool(pulling) and not set(pulling) & set(serving_new),
        )
        time.sleep(STORE_DOWN_SECONDS)
        kept = run.serving()
        cut_off = {r: kept[r] for r in pulling}
        outcome.check(
            f"a replica cut mid-pull kept serving its snapshot ({cut_off})",
            all(ids == {old} for ids in cut_off.values()),
        )
        left: dict[str, list[str]] = {}
        for r in run.parts.replicas:
            data = DataDir(run.parts.replica_dir(r))
            with file_lock(data.root / ".pull.lock"):
                half = _half_written(data)
            if half:
                left[r] = half
        outcome.check(f"nothing half-pulled left ({left})", not left)
        note("store-cut: reachable again")
        if cut:
            replica_gate.open()
        converged = run.wait_all_serve(new, CONVERGE_LIMIT)
        time.sleep(1)
    outcome.check("no failed request", not load.failures)
    outcome.figures.append(
        f"upload cut with {objects} objects stored: refused ({error[:160]!r}), both pointers "
        f"unmoved, retried ok in {retry_took:.1f} s; download cut on "
        f"{', '.join(f'{r} ({n[0]})' for r, n in pulling.items()) or 'no replica'}, kept serving "
        f"{STORE_DOWN_SECONDS:.0f} s, nothing half-pulled, converged {converged:.1f} s after the "
        "store returned"
    )


def case_tamper(run: Run, outcome: Outcome) -> None:
    parts = run.parts
    store = parts.store
    assert store is not None
    served = current_snapshot_id(run.builder)
    refused: list[str] = []
    with run.load() as load:
        outcome.load = load
        for kind, tamper in (("file", _flip_marker), ("manifest", _bump_rows)):
            sid = run.stage_copy()
            store.upload(open_snapshot(run.builder.snapshots / sid))
            tamper(store, sid)
            offsets = run.log_offsets()
            note(f"tamper: the store names {sid} with its {kind} changed")
            store.set_current(sid)
            began = time.monotonic()
            line = f"refused snapshot {sid}"
            try:
                arrangement.wait_until(
                    f"every replica to refuse the tampered {kind}",
                    lambda offsets=offsets, line=line: all(
                        line in run.logged_since(r, o) for r, o in offsets.items()
                    ),
                    REFUSE_LIMIT,
                )
            except Failed as exc:
                outcome.failed.append(str(exc))
            took = time.monotonic() - began
            serving = run.serving()
            outcome.check(
                f"every replica kept serving its snapshot ({kind})",
                all(ids == {served} for ids in serving.values()),
            )
            reasons = {
                run.logged_since(r, o)
                .split(line, 1)[-1]
                .split("\n", 1)[0]
                .rsplit(f"{sid}: ", 1)[-1]
                for r, o in offsets.items()
            }
            refused.append(
                f"{kind} refused by every replica in {took:.1f} s ({' / '.join(reasons)})"
            )
            assert served is not None
            store.set_current(served)  # the operator puts the pointer back
            shutil.rmtree(run.builder.snapshots / sid, ignore_errors=True)
        time.sleep(1)
    outcome.check("no failed request", not load.failures)
    outcome.figures += refused


def _flip_marker(store: Any, snapshot_id: str) -> None:
    key = store.url.key("snapshots", snapshot_id, MARKER)
    body = bytearray(store.client.get_object(Bucket=store.url.bucket, Key=key)["Body"].read())
    body[len(body) // 2] ^= 0xFF
    store.client.put_object(Bucket=store.url.bucket, Key=key, Body=bytes(body))


def _bump_rows(store: Any, snapshot_id: str) -> None:
    key = store.url.key("snapshots", snapshot_id, "manifest.json")
    manifest = json.loads(store.client.get_object(Bucket=store.url.bucket, Key=key)["Body"].read())
    table = sorted(manifest["tables"])[0]
    manifest["tables"][table]["rows"] += 1
    store.client.put_object(Bucket=store.url.bucket, Key=key, Body=json.dumps(manifest).encode())


class NoMount(RuntimeError):
    """A small filesystem cannot be mounted here (not root, no tmpfs)."""


def _mount_small(stack: ExitStack, where: Path, size: int) -> None:
    """A tmpfs of ``size`` bytes at ``where``, unmounted when ``stack`` closes (after what was
    entered into it later, such as a server using it)."""
    where.mkdir(parents=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise NoMount(f"cannot mount a tmpfs ({done.stderr.strip() or done.returncode})")
    stack.callback(subprocess.run, ["umount", "-l", str(where)], check=False)


def _fill(where: Path, leave: int) -> Path:
    """A file filling ``where``'s filesystem until ``leave`` bytes are free."""
    stats = os.statvfs(where)
    free = stats.f_bavail * stats.f_frsize
    filler = where / "filler"
    with filler.open("wb") as fh:
        fh.truncate(0)
        remaining = max(0, free - leave)
        chunk = b"\0" * (1 << 20)
        while remaining > 0:
            fh.write(chunk[: min(len(chunk), remaining)])
            remaining -= min(len(chunk), remaining)
    return filler


def _folder_bytes(folder: Path) -> int:
    """The room ``folder`` takes on a filesystem of 4 KiB blocks (a tmpfs): the demo snapshot's
    8,374 small files take twice their size."""
    return sum(-(-max(p.stat().st_size, 1) // 4096) * 4096 for p in folder.rglob("*"))


def _temporary(data: Path) -> list[str]:
    snapshots = data / "snapshots"
    return (
        [p.name for p in snapshots.iterdir() if p.name.startswith(".")]
        if snapshots.is_dir()
        else []
    )


NOTES = "fault-test"  # the inbox folder of the notes the build cases add
BUILD_ROOM = 30 << 20  # what the filler leaves a build: less than its snapshot and site write
NOTE = """---
kind: "essay"
title: "Drill note {tag} {n}: inference capacity is what limits shipping"
url: "https://example.org/fault-drill/{tag}/{n}"
published_at: "2026-10-{day:02d}T09:00:00Z"
author: "Drill Writer {tag}"
---

My argument is that inference capacity, not training, now limits how fast AI products ship,
and that the evidence for drill {tag} is in lease contracts rather than in announcements.

First, leases tell the story. Operators signed {n}.4 gigawatts of new inference campus leases
in September, and most of them start within twelve months.

Second, prices follow scarcity. Hourly rates for inference accelerators rose by {pct}% over the
quarter while training rates stayed flat.

Skeptics say the leases are speculative. That is why I count signed contracts, not plans.
"""


def _write_notes(data: DataDir, tag: str, count: int = 2) -> None:
    """``count`` new Markdown essays in ``data``'s inbox (written here, from a template: no
    corpus text), so that the next build has new signals to number in the change feed."""
    folder = data.root / "inbox" / NOTES
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(1, count + 1):
        text = NOTE.format(tag=tag, n=n, day=10 + n, pct=10 + n)
        (folder / f"{tag}-{n}.md").write_text(text)


def _copy_builder(source: DataDir, target: DataDir) -> str:
    """What a build reads and its published snapshot, copied to ``target`` (its other
    snapshots left out): the id ``CURRENT`` names."""
    served = current_snapshot_id(source)
    assert served is not None
    target.snapshots.mkdir(parents=True)
    for name in ("warehouse", "inbox", "dagster"):
        shutil.copytree(source.root / name, target.root / name)
    for name in ("clock.json", "catalog.duckdb"):
        if (source.root / name).is_file():
            shutil.copy2(source.root / name, target.root / name)
    shutil.copytree(source.snapshots / served, target.snapshots / served)
    shutil.copy(source.current_pointer, target.current_pointer)
    return served


def _give_back(run: Run, builder: DataDir, snapshot_id: str) -> bool:
    """The usual builder takes over ``builder``'s state (its warehouse, with the change feed's
    numbering, its inbox and the snapshot it published), so the next cases build on one
    lineage, as a deployment's one builder does; True when its ``CURRENT`` names the
    snapshot again."""
    for name in ("warehouse", "inbox"):
        shutil.rmtree(run.builder.root / name)
        shutil.copytree(builder.root / name, run.builder.root / name)
    if not (run.builder.snapshots / snapshot_id).is_dir():
        shutil.copytree(builder.snapshots / snapshot_id, run.builder.snapshots / snapshot_id)
    return run.aimi("snapshots", "rollback", snapshot_id).returncode == 0


def _served_seqs(data: DataDir) -> dict[str, int]:
    """The change feed's numbers the current snapshot of ``data`` serves, by signal."""
    opened = open_current(data, verify=False)
    assert opened is not None
    frame = opened.read_table("signals").select("signal_id", "change_seq")
    return dict(zip(frame["signal_id"].to_list(), frame["change_seq"].to_list(), strict=True))


def _saved_seqs(data: DataDir) -> set[int]:
    """Every number the change feed's numbering (``change_state``) holds in ``data``."""
    return set(read_table(data, "change_state", CHANGE_STATE)["change_seq"].to_list())


def _read_feed(front: str, key: str, cursor: str | None = None) -> tuple[list[str], str | None]:
    """``GET /v1/signals?sort=changed`` through nginx, page after page from ``cursor``: the
    signal ids in the order given, and the last ``next_cursor`` (the one to keep)."""
    import httpx

    ids: list[str] = []
    with httpx.Client(base_url=front, headers={"X-API-Key": key}, timeout=30) as client:
        while True:
            params: dict[str, str | int] = {"sort": "changed", "limit": 50}
            if cursor:
                params["cursor"] = cursor
            page = client.get("/v1/signals", params=params)
            page.raise_for_status()
            body = page.json()
            ids += [card["signal_id"] for card in body["signals"]]
            cursor = body["next_cursor"] or cursor
            if not body["has_more"]:
                return ids, cursor


def _check_feed(
    run: Run,
    outcome: Outcome,
    what: str,
    before: dict[str, int],
    cursor: str | None,
    saved: set[int],
) -> str:
    """The change feed after a failed or killed build and the rebuild that followed, against
    the one served ``before`` (signal -> number) and the numbers the failed run saved
    (``saved``, read from ``change_state`` right after it). docs/decisions/0066-change-feed.md:
    numbers are saved before the snapshot goes live, so a failed publish may leave a gap,
    never a number given twice. Checked: every served number once; a number served before
    names the same signal after; the new numbers run on from the highest served before, with
    gaps only at numbers the failed run saved; the feed through nginx lists every signal
    once in that order; a reader polling from the cursor kept before gets exactly the new and
    changed signals, once each. Returns the figures."""
    after = _served_seqs(run.builder)
    feed, _ = _read_feed(run.parts.front, run.dev_key)
    polled, _ = _read_feed(run.parts.front, run.dev_key, cursor)
    numbers = list(after.values())
    outcome.check(f"{what}: every change_seq served once", len(set(numbers)) == len(numbers))
    named = {seq: sid for sid, seq in before.items()}
    repeated = [seq for sid, seq in after.items() if named.get(seq, sid) != sid]
    outcome.check(f"{what}: no number given to a second signal", not repeated)
    high = max(before.values(), default=0)
    new = sorted(seq for seq in numbers if seq > high)
    gap = set(range(high + 1, (new[-1] if new else high) + 1)) - set(new)
    outcome.check(f"{what}: new numbers after the kill", bool(new))
    outcome.check(
        f"{what}: a gap only at numbers the failed run saved ({sorted(gap)[:5]})", gap <= saved
    )
    in_order = sorted(after, key=after.__getitem__)
    outcome.check(f"{what}: the feed through nginx lists every signal once", feed == in_order)
    fresh = [sid for sid in in_order if after[sid] > high]
    outcome.check(f"{what}: a reader polling on gets the new signals once each", polled == fresh)
    return (
        f"change feed: {len(before):,} -> {len(after):,} signals, numbers "
        f"{high + 1}-{new[-1] if new else high} new ({len(new)}), gap {len(gap)}, repeats "
        f"{len(repeated)}; a reader polling from its cursor got {len(polled)}"
    )


def _unsealed(folder: Path) -> int:
    """Files in a snapshot folder its manifest does not list (a writer's leftovers)."""
    opened = open_snapshot(folder, verify=False)
    listed = {e.file for e in opened.manifest.tables.values()} | set(opened.manifest.files)
    listed.add("manifest.json")
    return sum(
        1 for p in folder.rglob("*") if p.is_file() and str(p.relative_to(folder)) not in listed
    )


def _half_written(data: DataDir) -> list[str]:
    """What a failed or killed build must never leave where it could be opened: a temporary
    folder (``.staging-*``, ``.pulling-*``, ``.pack-*``), a temporary catalog, a snapshot
    folder with files its manifest does not seal, or ``STAGED``/``CURRENT`` naming one that
    does not verify."""
    found = [f"snapshots/{name}" for name in _temporary(data.root)]
    found += [p.name for p in data.root.glob(".catalog-*")]
    if data.snapshots.is_dir():
        for folder in sorted(data.snapshots.iterdir()):
            if folder.is_dir() and not folder.name.startswith("."):
                try:
                    extra = _unsealed(folder)
                except (SnapshotError, OSError):
                    extra = -1
                if extra:
                    found.append(f"{folder.name} ({extra} unsealed files)")
    for pointer in (data.staged_pointer, data.current_pointer):
        if pointer.is_file():
            named = data.snapshots / pointer.read_text().strip()
            try:
                open_snapshot(named, thorough=True)
            except (SnapshotError, OSError) as exc:
                found.append(f"{pointer.name} names a snapshot that does not verify: {exc}")
    return found


def _last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else ""


def case_disk(run: Run, outcome: Outcome) -> None:
    """The disk full twice: under replica b's data dir while it pulls a new snapshot, and
    under a builder during a whole `aimi build` (new notes in its inbox), then a rebuild
    once space returns."""
    parts = run.parts
    stack = run.stack
    served = current_snapshot_id(run.builder)
    assert served is not None
    if not (run.builder.root / "warehouse").is_dir():
        outcome.skipped = "the builder has no warehouse to build from (--builder of a snapshot)"
        return
    size = _folder_bytes(run.builder.snapshots / served)
    builder_bytes = size + sum(
        _folder_bytes(run.builder.root / name) for name in ("warehouse", "inbox", "dagster")
    )
    disk_b = parts.run_dir / "disk-b"
    disk_builder = parts.run_dir / "disk-builder"
    try:
        # room for two snapshots and 32 MiB: the filler takes all but 512 KiB of it, so the
        # new snapshot's MARKER (1 MiB) will not fit; once it is gone, b pulls that snapshot
        # (its unchanged files linked) and then the builder's rebuild (a real build: new
        # tables and pages, a snapshot's worth when every signal's detail changed)
        _mount_small(stack, disk_b, 2 * size + (32 << 20))
        # the builder, its failed build (filled to BUILD_ROOM), then a rebuild: a snapshot's
        # worth for each
        _mount_small(stack, disk_builder, builder_bytes + 2 * size + (64 << 20))
    except NoMount as exc:
        outcome.skipped = str(exc)
        return
    with run.load() as load:
        outcome.load = load
        time.sleep(1)
        note("disk: replica b moves onto a small filesystem, then it fills up")
        parts.servers["b"].kill()
        old = parts.replica_dir("b")
        new_dir = disk_b / "data"
        new_dir.mkdir()
        shutil.copy(old / "keys.json", new_dir / "keys.json")
        (new_dir / "snapshots").mkdir()
        shutil.copytree(old / "snapshots" / served, new_dir / "snapshots" / served)
        shutil.copy(old / "snapshots" / "CURRENT", new_dir / "snapshots" / "CURRENT")
        parts.data_dirs["b"] = new_dir
        parts.start_replica("b")
        parts.wait_serving("b", served)
        filler = _fill(disk_b, leave=512 << 10)
        offset = run.log_offsets()["b"]
        new = run.stage_copy()
        published = run.publish(new)
        outcome.check("the publish succeeded", published.returncode == 0)
        parts.wait_serving("a", new, timeout=60)
        try:
            arrangement.wait_until(
                "replica b to log the failed pull",
                lambda: "No space left on device" in run.logged_since("b", offset),
                CONVERGE_LIMIT,
            )
        except Failed as exc:
            outcome.failed.append(str(exc))
        b_ids = run.serving()["b"]
        outcome.check("b kept serving its snapshot", b_ids == {served})
        # b retries every poll, each pull in a temporary folder of its own: with b's pull lock
        # held here no pull runs, so a temporary folder seen now is one a failed pull left
        with file_lock(new_dir / ".pull.lock"):
            left_b = _half_written(DataDir(new_dir))
        outcome.check(f"nothing half-pulled left on b ({left_b})", not left_b)
        note("disk: space returns on b")
        filler.unlink()
        converged = run.wait_all_serve(new, CONVERGE_LIMIT)
        outcome.figures.append(
            f"replica b's disk full during a pull: kept serving, nothing half-pulled, on the new "
            f"snapshot {converged:.1f} s after space returned"
        )

        note("disk: a builder on a small filesystem; `aimi build` of new notes, the disk full")
        builder = DataDir(disk_builder / "data")
        builder.root.mkdir()
        _copy_builder(run.builder, builder)
        shutil.rmtree(builder.root / "inbox" / NOTES, ignore_errors=True)  # earlier runs'
        _write_notes(builder, f"disk-{os.urandom(3).hex()}")
        before = _served_seqs(run.builder)
        _, cursor = _read_feed(parts.front, run.dev_key)
        filler = _fill(disk_builder, leave=BUILD_ROOM)
        began = time.monotonic()
        failed = run.aimi("build", data=builder.root)
        failed_in = time.monotonic() - began
        error = _last_line(failed.stderr)
        outcome.check("the build on a full disk failed", failed.returncode == 1)
        outcome.check(
            "it said so in its last line, naming the full disk",
            error.startswith("aimi build: ") and "No space left on device" in error,
        )
        outcome.check(
            "no uncaught traceback", "Traceback (most recent call last)" not in failed.stderr
        )
        outcome.check("no source line in its error", 'File "' not in error)
        outcome.check("the builder's CURRENT did not move", current_snapshot_id(builder) == new)
        outcome.check(
            "the store's CURRENT did not move",
            parts.store is not None and parts.store.current_id() == new,
        )
        outcome.check(
            "every replica kept serving its snapshot",
            all(ids == {new} for ids in run.serving().values()),
        )
        left_builder = _half_written(builder)
        outcome.check(f"nothing half-written on the builder ({left_builder})", not left_builder)
        saved = _saved_seqs(builder) - set(before.values())
        outcome.figures.append(
            f"`aimi build` with {BUILD_ROOM >> 20} MiB free: failed in {failed_in:.0f} s "
            f"({error[:300]!r}), CURRENT unmoved here and on the store, nothing half-written "
            f"({len(saved)} change numbers saved by it)"
        )
        note("disk: space returns on the builder; building again")
        filler.unlink()
        rebuilt_run = run.aimi("build", data=builder.root)
        outcome.check(
            f"the rebuild succeeded ({_last_line(rebuilt_run.stderr)[:200]})",
            rebuilt_run.returncode == 0,
        )
        rebuilt = current_snapshot_id(builder)
        assert rebuilt is not None
        # the usual builder first: the next cases build on this lineage whatever happens here
        outcome.check(
            "the usual builder takes the snapshot back", _give_back(run, builder, rebuilt)
        )
        rebuilt_in = run.wait_all_serve(rebuilt, BUILD_CONVERGE_LIMIT)
        feed = _check_feed(run, outcome, "disk", before, cursor, saved)
        outcome.figures.append(
            f"rebuilt once space returned, every replica on it in {rebuilt_in:.1f} s | {feed}"
        )
        # b back on its own data dir: its tmpfs has room for two snapshots, not the five a
        # replica keeps, and the next cases publish more
        note("disk: replica b back on its own data dir")
        parts.servers["b"].kill()
        parts.data_dirs.pop("b")
        parts.start_replica("b")
        parts.wait_serving("b", rebuilt)
        time.sleep(1)
    outcome.check("no failed request", not load.failures)


def _kill_point(
    data: DataDir, aim: str, staged_before: str | None, store: Any = None
) -> str | None:
    """Where a running build is, when it is inside the step ``aim``, else None: ``staging``,
    its ``.staging-*`` folder exists; ``site``, the snapshot it staged has a ``site`` folder
    with files in it; ``upload``, objects of that snapshot are on ``store`` but not its
    manifest; ``pointer``, its manifest is stored but the store's ``CURRENT`` does not name
    it yet."""
    if aim == "staging":
        staging = _temporary(data.root)
        staging = [name for name in staging if name.startswith(STAGING_PREFIX)]
        return f"writing {staging[0]}" if staging else None
    staged = staged_snapshot_id(data)
    if staged is None or staged == staged_before:
        return None
    if aim in ("upload", "pointer"):
        assert store is not None
        return _store_point(store, staged, aim)
    site = data.snapshots / staged / "site"
    try:
        written = sum(1 for p in site.rglob("*") if p.is_file())
    except OSError:
        return None
    return f"{written:,} site files of {_short(staged)} written" if written > 50 else None


def _store_point(store: Any, staged: str, aim: str) -> str | None:
    """``upload``: some of ``staged``'s objects on the store, its manifest not; ``pointer``:
    its manifest stored, ``CURRENT`` still naming another snapshot (None otherwise)."""
    stored = store.manifest_bytes(staged) is not None
    if aim == "pointer":
        if stored and store.current_id() != staged:
            return f"manifest of {_short(staged)} stored, the store's CURRENT not yet moved"
        return None
    if stored:
        return None
    prefix = store.url.key("snapshots", staged) + "/"
    listed = store.client.list_objects_v2(Bucket=store.url.bucket, Prefix=prefix)
    count = int(listed.get("KeyCount", 0))
    return f"{count} objects of {_short(staged)} on the store, no manifest" if count else None


BUILD_KILL_POINTS = ("staging", "site", "upload", "pointer")
# seconds the TCP gate holds each chunk between the builder and the store during the upload and
# pointer kills (as ``publish-kill`` does): the pointer step (the manifest read back, then the
# ``CURRENT`` put) takes a few milliseconds at full speed, too short for a 0.1 s poll to see
BUILD_KILL_DELAY = 0.05


def case_build_kill(
    run: Run, outcome: Outcome, points: tuple[str, ...] = BUILD_KILL_POINTS
) -> None:
    """``kill -9`` of a whole ``aimi build`` (new notes in the builder's inbox) in each step of
    its publish (``BUILD_KILL_POINTS``): while it stages its snapshot, while it writes the
    static site, during the store upload (objects of the new snapshot on the store, not its
    manifest) and at the pointer move (its manifest stored, the store's ``CURRENT`` not yet
    moved), the builder's link to the store slowed by ``BUILD_KILL_DELAY`` for the last two;
    each followed by a rebuild. Checked: the local pointer never ahead of the store's, the
    store's only on a stored manifest (both unmoved by the kill in all four points), then one
    snapshot everywhere, nothing half-written left, and the change feed without a repeat and
    with a gap only at numbers the killed build saved (docs/decisions/0066-change-feed.md)."""
    parts = run.parts
    store = parts.store
    assert store is not None
    if not (run.builder.root / "warehouse").is_dir():
        outcome.skipped = "the builder has no warehouse to build from (--builder of a snapshot)"
        return
    gate = parts.builder_gate
    assert gate is not None
    with run.load() as load:
        outcome.load = load
        for aim in points:
            served = current_snapshot_id(run.builder)
            before = _served_seqs(run.builder)
            _, cursor = _read_feed(parts.front, run.dev_key)
            shutil.rmtree(run.builder.root / "inbox" / NOTES, ignore_errors=True)
            _write_notes(run.builder, f"kill-{aim}-{os.urandom(3).hex()}")
            staged_before = staged_snapshot_id(run.builder)
            log = parts.run_dir / f"build-kill-{aim}.log"
            on_store = aim in ("upload", "pointer")
            # the builder's link to the store slowed, so that the kill lands inside the step
            gate.delay = BUILD_KILL_DELAY if on_store else 0.0
            with log.open("wb") as out:
                build = subprocess.Popen(
                    [str(AIMI), "build"],
                    env=parts.builder_env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,  # the site's child process dies with it
                )
            began = time.monotonic()
            where: list[str] = []

            def reached(
                aim: str = aim,
                build: subprocess.Popen[bytes] = build,
                staged_before: str | None = staged_before,
                where: list[str] = where,
            ) -> bool:
                if build.poll() is not None:
                    return True
                point = _kill_point(run.builder, aim, staged_before, store)
                if point is not None:
                    where.append(point)
                return point is not None

            try:
                arrangement.wait_until(f"the build to reach its {aim}", reached, BUILD_LIMIT)
            finally:  # killed also when the wait failed: a build left running holds the lock
                killed = build.poll() is None
                if killed:
                    os.killpg(build.pid, signal.SIGKILL)
                build.wait()
                gate.delay = 0.0
            took = time.monotonic() - began
            run.outputs.append(log.read_text(errors="replace"))
            # the snapshot the killed build staged (None when it staged none)
            staged = staged_snapshot_id(run.builder)
            staged = None if staged == staged_before else staged
            remote, local = store.current_id(), current_snapshot_id(run.builder)
            manifest = staged is not None and store.manifest_bytes(staged) is not None
            state = (
                f"store CURRENT {'old' if remote == served else 'new'}, local "
                f"{'old' if local == served else 'new'}, manifest "
                f"{'stored' if manifest else 'absent' if staged else 'none staged'}"
            )
            landed = where[0] if where else "nowhere: it finished first"
            # the step still unfinished once the build was dead: no manifest after an upload
            # kill, the store's CURRENT unmoved after a pointer kill
            inside = {"upload": not manifest, "pointer": remote == served}.get(aim, True)
            outcome.check(
                f"the kill landed in the {aim} ({landed}; {state})",
                killed and bool(where) and inside,
            )
            outcome.check(
                f"killed in the {aim}: the local pointer never ahead of the store's",
                local in (served, remote),
            )
            outcome.check(
                f"killed in the {aim}: the store's pointer only on a stored manifest",
                remote == served or manifest,
            )
            if aim != "pointer":
                outcome.check(
                    f"killed in the {aim}: the builder's CURRENT unmoved", local == served
                )
                outcome.check(f"killed in the {aim}: the store's CURRENT unmoved", remote == served)
            if remote == served:
                outcome.check(
                    f"killed in the {aim}: every replica kept serving its snapshot",
                    all(ids == {served} for ids in run.serving().values()),
                )
            saved = _saved_seqs(run.builder) - set(before.values())
            left = _temporary(run.builder.root)
            note(f"build-kill: killed in the {aim} ({landed}; {state}); building again")
            again = run.aimi("build")
            outcome.check(
                f"the rebuild after the {aim} succeeded ({_last_line(again.stderr)[:200]})",
                again.returncode == 0,
            )
            rebuilt = current_snapshot_id(run.builder)
            assert rebuilt is not None
            converged = run.wait_all_serve(rebuilt, BUILD_CONVERGE_LIMIT)
            outcome.check(
                f"after the {aim}: one snapshot everywhere",
                store.current_id() == rebuilt != served,
            )
            half = _half_written(run.builder)
            outcome.check(f"after the {aim}: nothing half-written left ({half})", not half)
            feed = _check_feed(run, outcome, f"after the {aim}", before, cursor, saved)
            delay = (
                f" (the store link delayed {BUILD_KILL_DELAY:.2f} s a chunk)" if on_store else ""
            )
            outcome.figures.append(
                f"{aim}: killed {took:.0f} s into the build{delay}, {landed} ({state}); left "
                f"{', '.join(left) or 'no temporary folder'}; {len(saved)} numbers saved by the "
                f"killed build; rebuilt, every replica on it in {converged:.1f} s; {feed}"
            )
            failed = "; ".join(outcome.failed) or "every check held"
            note(f"build-kill: {outcome.figures[-1]} ({failed})")  # a long case: as it goes
        time.sleep(1)
    outcome.check("no failed request", not load.failures)


SLOW_CLIENTS = 200  # slowloris connections, headers and bodies each
INVALID_KEYS = 10_000
FLOOD_CLIENTS = 4
QUIET_SECONDS = 20.0  # the load alone before the attacks: 2,000 requests at 100/s


def _group_usage(process: arrangement.Process) -> tuple[int, int]:
    """RSS (bytes) and open file descriptors of a server and its workers together."""
    pids = [process.popen.pid]
    children = Path(f"/proc/{process.popen.pid}/task/{process.popen.pid}/children")
    if children.is_file():
        pids += [int(p) for p in children.read_text().split()]
    rss = fds = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    rss += int(line.split()[1]) * 1024
            fds += len(os.listdir(f"/proc/{pid}/fd"))
        except OSError:
            continue
    return rss, fds


def answer_leaks(response: Any, secrets: tuple[str, ...], paths: tuple[str, ...] = ()) -> list[str]:
    """What an answer holds that it must not (arrangement.unsafe_in_answer): one of
    ``secrets`` in its body or headers; not 2xx, a path of ``paths``, a connection URL, a file
    path, a key."""
    return unsafe_in_answer(
        response.status_code, response.text, str(response.headers), secrets, paths
    )


def flood_invalid_keys(
    front: str, count: int, secrets: tuple[str, ...] = (), paths: tuple[str, ...] = ()
) -> tuple[Counter[int], float, list[str]]:
    """``count`` requests through nginx, each with a distinct invalid key, ``FLOOD_CLIENTS`` at
    a time as fast as they are answered; the statuses, the CPU seconds the flood's own
    process took, and what the answers held that they must not (`answer_leaks`). Run in a
    process of its own at the lowest priority: a real attacker's clients run on their own
    machine, and here their Python would otherwise take the 2 cores from the servers it
    attacks, and the check would measure the attacker. The case prints the rate it reached
    and that CPU."""
    import httpx

    os.nice(19)
    cpu = time.process_time()

    statuses: Counter[int] = Counter()
    leaks: list[str] = []
    lock = threading.Lock()
    todo = iter(range(count))

    def client() -> None:
        with httpx.Client(base_url=front, timeout=30) as c:
            for n in todo:
                code = c.get("/v1/signals", headers={"X-API-Key": f"aimi_bad_{n:08d}"})
                leaked = answer_leaks(code, secrets, paths)
                with lock:
                    statuses[code.status_code] += 1
                    leaks.extend(f"an invalid key: {code.status_code} holds {w}" for w in leaked)

    workers = [threading.Thread(target=client) for _ in range(FLOOD_CLIENTS)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=300)
    return statuses, time.process_time() - cpu, leaks


def _slow_clients(front: str, body: bool, hold: float) -> tuple[int, float]:
    """``SLOW_CLIENTS`` connections that send a request's headers a byte a second, never
    finishing them (or, with ``body``, a POST's headers and then nothing of its body); how
    many nginx cut off (closed, or answered) within ``hold`` seconds, and the longest any
    lasted."""
    import socket as sockets

    host, port = front.removeprefix("http://").split(":")
    opened: list[tuple[sockets.socket, float]] = []
    for _ in range(SLOW_CLIENTS):
        conn = sockets.create_connection((host, int(port)), timeout=5)
        if body:
            head = (
                "POST /v1/admin/refresh HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n"
                "X-Admin-Secret: not-it\r\n\r\n"
            )
        else:
            head = "GET /v1/health HTTP/1.1\r\nHost: x\r\n"
        conn.sendall(head.encode())
        conn.setblocking(False)
        opened.append((conn, time.monotonic()))
    cut: dict[int, float] = {}
    deadline = time.monotonic() + hold
    while time.monotonic() < deadline and len(cut) < len(opened):
        for i, (conn, began) in enumerate(opened):
            if i in cut:
                continue
            try:
                if not body:
                    conn.sendall(b"X")
                conn.recv(4096)  # an answer (408) or the end of the connection
                cut[i] = time.monotonic() - began
            except BlockingIOError:
                pass
            except OSError:
                cut[i] = time.monotonic() - began
        time.sleep(1)
    for conn, _ in opened:
        conn.close()
    return len(cut), max(cut.values(), default=0.0)


def _raw_answer(front: str, head: str) -> tuple[int, str]:
    """The status and body nginx answers to a request sent as it is (httpx refuses to send a
    URL component over 64 KiB), with ``Host`` and the dev key's absence added; 0 when the
    connection was closed without an answer."""
    import socket as sockets

    host, port = front.removeprefix("http://").split(":")
    answer = b""
    with sockets.create_connection((host, int(port)), timeout=30) as conn:
        # refused before the whole request was read: the answer may still be there
        with suppress(OSError):
            conn.sendall((head + "Host: x\r\nConnection: close\r\n\r\n").encode())
        try:
            while len(answer) < 1 << 20 and (chunk := conn.recv(4096)):
                answer += chunk
        except OSError:
            if b"\r\n" not in answer:
                return 0, ""
    first = answer.split(b"\r\n", 1)[0].split()
    status = int(first[1]) if len(first) >= 2 and first[1].isdigit() else 0
    return status, answer.partition(b"\r\n\r\n")[2].decode(errors="replace")


def case_hostile(run: Run, outcome: Outcome) -> None:
    """Slow and oversized requests, a flood of invalid keys and admin brute force through
    nginx, while the usual load runs: its p99 against the same load alone just before."""
    import httpx

    parts = run.parts
    with run.load() as quiet:
        time.sleep(QUIET_SECONDS)
    before = {r: _group_usage(parts.servers[r]) for r in parts.replicas}
    statuses: dict[str, Counter[int]] = {}
    with run.load() as load:
        outcome.load = load
        junk = "x" * (64 << 10)
        query = "a" * (1 << 20)
        for what, head in (
            ("64 KiB header", f"GET /v1/health HTTP/1.1\r\nX-Junk: {junk}\r\n"),
            ("1 MB query string", f"GET /v1/search?q={query} HTTP/1.1\r\n"),
        ):
            status, body = _raw_answer(parts.front, head)
            statuses[what] = Counter([status])
            found = unsafe_in_answer(status, body, "", run.secrets(), run.paths())
            run.count(f"a {what}", status, found)
        note("hostile: slowloris on headers, then on bodies")
        headers_cut, headers_longest = _slow_clients(parts.front, body=False, hold=40)
        bodies_cut, bodies_longest = _slow_clients(parts.front, body=True, hold=40)
        note(f"hostile: {INVALID_KEYS:,} distinct invalid keys")
        began = time.monotonic()
        # in a process of its own: in this one, its four busy clients would hold the GIL the
        # load's clients time their requests with, and the p99 would be the client's own
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            flooded = pool.submit(
                flood_invalid_keys, parts.front, INVALID_KEYS, run.secrets(), run.paths()
            )
            invalid, flood_cpu, flood_leaks = flooded.result(300)
        for status, n in invalid.items():
            run.count("an invalid key", status, [], answers=n)
        run.other_leaks += flood_leaks
        flood_seconds = time.monotonic() - began
        statuses["invalid keys"] = invalid
        note("hostile: admin refresh brute force")
        brute: Counter[int] = Counter()
        with httpx.Client(base_url=parts.front, timeout=30) as c:
            for n in range(200):
                response = c.post("/v1/admin/refresh", headers={"X-Admin-Secret": f"guess-{n}"})
                brute[response.status_code] += 1
                run.scan("an admin guess", response)
        statuses["admin guesses"] = brute
    after = {r: _group_usage(parts.servers[r]) for r in parts.replicas}
    outcome.check(
        "every replica running before and after",
        all(before[r][0] > 0 and after[r][0] > 0 for r in parts.replicas),
    )
    outcome.check("a 64 KiB header is refused with 400", statuses["64 KiB header"] == {400: 1})
    outcome.check(
        "a 1 MB query string is refused with 414", statuses["1 MB query string"] == {414: 1}
    )
    outcome.check(
        f"nginx cut off every slow header within 15 s ({headers_cut} of {SLOW_CLIENTS})",
        headers_cut == SLOW_CLIENTS and headers_longest <= 15,
    )
    outcome.check(
        f"nginx cut off every slow body within 15 s ({bodies_cut} of {SLOW_CLIENTS})",
        bodies_cut == SLOW_CLIENTS and bodies_longest <= 15,
    )
    outcome.check("every invalid key got 401", invalid == {401: INVALID_KEYS})
    # ADMIN_FAILURES_PER_MINUTE failures a minute per server process (4 here), then 429
    allowed = 2 * ADMIN_FAILURES_PER_MINUTE * len(parts.replicas) * parts.workers
    outcome.check(
        "admin guesses got 401, then 429 past the limit",
        set(brute) <= {401, 429} and brute[401] <= allowed and brute[429] >= 200 - allowed,
    )
    logged = "".join(p.read_text(errors="replace") for p in parts.logs())
    outcome.check("failed admin attempts logged", "admin refresh refused" in logged)
    outcome.check("no guess logged", "guess-" not in logged)
    outcome.check("no failed request", not load.failures)
    outcome.check(
        f"p99 within 2x the same load alone ({load.p99() * 1000:.0f} ms against "
        f"{quiet.p99() * 1000:.0f} ms)",
        load.p99() <= 2 * quiet.p99(),
    )
    grew = {r: (after[r][0] - before[r][0], after[r][1] - before[r][1]) for r in parts.replicas}
    outcome.check(
        "each replica's RSS grew by under 100 MB and its open files by under 50",
        all(rss < 100e6 and fds < 50 for rss, fds in grew.values()),
    )
    answered = "; ".join(
        f"{what}: {', '.join(f'{n:,} x {s}' for s, n in sorted(c.items()))}"
        for what, c in statuses.items()
    )
    usage = ", ".join(
        f"{r} RSS {before[r][0] / 1e6:.0f} -> {after[r][0] / 1e6:.0f} MB, "
        f"fds {before[r][1]} -> {after[r][1]}"
        for r in parts.replicas
    )
    outcome.figures.append(
        f"{answered} | {INVALID_KEYS:,} invalid keys in {flood_seconds:.0f} s "
        f"(the flood's own client {flood_cpu:.1f} s of CPU)"
        f" | slow headers: {headers_cut} of {SLOW_CLIENTS} cut, the longest after "
        f"{headers_longest:.0f} s; slow bodies: {bodies_cut} cut, the longest after "
        f"{bodies_longest:.0f} s | p99 {load.p99() * 1000:.0f} ms under attack, "
        f"{quiet.p99() * 1000:.0f} ms alone | {usage}"
    )


def case_publish_kill(run: Run, outcome: Outcome) -> None:
    """``kill -9`` of the CLI's publish (``aimi snapshots rollback`` of a staged snapshot)
    during the store upload, then during the pointer moves, each followed by the publish run
    again: one consistent snapshot everywhere (the store's ``CURRENT``, the builder's, every
    replica), no temporary folder left. The link to the store is slowed (a TCP gate delaying
    each chunk) so that the kill lands inside the step it aims at."""
    parts = run.parts
    store = parts.store
    assert store is not None and parts.builder_gate is not None
    steps: list[str] = []
    with run.load() as load:
        outcome.load = load
        for aim in ("upload", "pointers"):
            before = current_snapshot_id(run.builder)
            new = run.stage_copy()
            parts.builder_gate.delay = 0.05
            publish = run.start_publish(new, merged=True)
            prefix = store.url.key("snapshots", new) + "/"

            def reached(
                aim: str = aim,
                prefix: str = prefix,
                new: str = new,
                publish: subprocess.Popen[str] = publish,
            ) -> bool:
                if publish.poll() is not None:
                    return True
                if aim == "upload":
                    listed = store.client.list_objects_v2(Bucket=store.url.bucket, Prefix=prefix)
                    return bool(listed.get("KeyCount", 0))
                return store.manifest_bytes(new) is not None

            arrangement.wait_until(f"the publish to reach its {aim}", reached, 120)
            killed = publish.poll() is None
            if killed:
                publish.kill()
            output, _ = publish.communicate()
            run.outputs.append(output or "")
            parts.builder_gate.delay = 0.0
            remote, local = store.current_id(), current_snapshot_id(run.builder)
            manifest = store.manifest_bytes(new) is not None
            state = (
                f"store CURRENT {'new' if remote == new else 'old'}, local "
                f"{'new' if local == new else 'old'}, manifest "
                f"{'stored' if manifest else 'absent'}"
            )
            outcome.check(
                f"killed during the {aim}: the local pointer never ahead of the store's",
                not (local == new and remote != new),
            )
            outcome.check(
                f"killed during the {aim}: the store's pointer only on a stored manifest",
                remote != new or manifest,
            )
            if remote != new:
                outcome.check(
                    f"killed during the {aim}: replicas kept serving their snapshot",
                    all(ids == {before} for ids in run.serving().values()),
                )
            started = time.monotonic()
            again = run.publish(new) if local != new else None
            took = time.monotonic() - started
            outcome.check(
                f"the publish after the kill during the {aim} succeeded",
                again is None or again.returncode == 0,
            )
            lease = ""
            if killed and again is not None:
                gone = took_over_gone(again.stderr, publish.pid)
                outcome.check(
                    f"after the {aim}: the publish run again took the killed one's build lease "
                    "over at once (its process gone), not by waiting out its lifetime",
                    gone,
                )
                lease = (
                    f"; the lease of killed pid {publish.pid} taken over as gone"
                    if gone
                    else f"; the lease of killed pid {publish.pid} NOT taken over as gone"
                ) + f", published again in {took:.1f} s"
            converged = run.wait_all_serve(new, CONVERGE_LIMIT)
            outcome.check(
                f"after the {aim}: one snapshot everywhere",
                store.current_id() == new == current_snapshot_id(run.builder),
            )
            left = _temporary(run.builder.root)
            outcome.check(f"after the {aim}: no temporary folder on the builder", not left)
            what = "killed" if killed else "finished before the kill"
            steps.append(
                f"{what} in the {aim} ({state}){lease}; published again, every replica on it "
                f"in {converged:.1f} s"
            )
        time.sleep(1)
    outcome.check("no failed request", not load.failures)
    outcome.figures += steps


def took_over_gone(output: str, pid: int) -> bool:
    """Whether a publish's output says it took over the build lease of ``pid`` because that
    process was gone (warehouse/lease.py's warning), as a publish run again right after a
    ``kill -9`` on the same host does, rather than waiting the lease's lifetime out."""
    return any(
        "took over the build lease " in line
        and f", pid {pid} (" in line
        and line.rstrip().endswith("its process on this host is gone)")
        for line in output.splitlines()
    )


CASE_FUNCTIONS: dict[str, Callable[[Run, Outcome], None]] = {
    "redis": case_redis,
    "replica": case_replica,
    "store": case_store,
    "store-cut": case_store_cut,
    "tamper": case_tamper,
    "disk": case_disk,
    "hostile": case_hostile,
    "publish-kill": case_publish_kill,
    "build-kill-local": partial(case_build_kill, points=BUILD_KILL_POINTS[:2]),
    "build-kill-store": partial(case_build_kill, points=BUILD_KILL_POINTS[2:]),
}


def find_secrets(texts: list[tuple[str, str]], values: tuple[str, ...]) -> tuple[int, Counter[str]]:
    """The lines of ``texts`` (name, text) scanned, and by name how many hold one of
    ``values``."""
    lines = 0
    found: Counter[str] = Counter()
    for name, text in texts:
        for line in text.splitlines():
            lines += 1
            if any(v in line for v in values):
                found[name] += 1
    return lines, found


def scan_secrets(run: Run) -> Outcome:
    """Every answer the cases got (the loads', the quota spends', the attacks'): none may hold
    a secret, and no error body a connection URL, a file path or a key
    (arrangement.unsafe_in_answer); every log line and CLI output: none may hold a secret."""
    outcome = Outcome("secrets")
    values = run.secrets()
    answers = sum(load.requests for load in run.loads) + run.other_answers
    errors = sum(sum(load.non_2xx().values()) for load in run.loads) + run.other_errors
    leaks = [leak for load in run.loads for leak in load.leaks] + run.other_leaks
    texts = [(p.name, p.read_text(errors="replace")) for p in run.parts.logs()]
    texts += [("cli output", text) for text in run.outputs]
    lines, found = find_secrets(texts, values)
    outcome.check(
        f"no answer holds a secret, no error body a URL, path or key ({leaks[:3]})", not leaks
    )
    outcome.check("no log line holds a secret", not found)
    where = ", ".join(f"{n} in {name}" for name, n in found.items()) or "none"
    outcome.figures.append(
        f"{len(values)} secrets (Redis password, S3 key id and secret, admin secret, dev key, "
        f"{len(run.api_keys)} API keys) over "
        f"{answers:,} answers ({errors:,} of them not 2xx, their bodies also scanned for "
        f"URLs, paths and keys) and {lines:,} lines of {len(texts)} logs and outputs: "
        f"{len(leaks)} answers, lines found: {where}"
    )
    outcome.held = "-"
    return outcome


def fault_test(args: argparse.Namespace) -> list[Outcome]:
    credentials = Credentials.random()
    dev_key = f"fault-test-dev-{os.urandom(8).hex()}"
    outcomes: list[Outcome] = []
    with run_folder(args, "run-") as folder:
        with ExitStack() as stack:
            parts = Arrangement.for_run(
                stack, folder, args, dev_key, TIERS, credentials=credentials, gated=True
            )
            _, quota_keys = parts.start(keys=tuple((f"fault-{n}", "fault") for n in range(2)))
            run = Run(parts, stack, credentials, dev_key, quota_keys, api_keys=tuple(quota_keys))
            for name in args.cases:
                outcome = Outcome(name)
                began = time.monotonic()
                held_before = run.held()
                note(f"case {name}")
                try:
                    CASE_FUNCTIONS[name](run, outcome)
                except Failed as exc:
                    outcome.failed.append(str(exc).splitlines()[0])
                    note(str(exc))
                except Exception as exc:  # a step that broke: this case fails, the next ones run
                    outcome.failed.append(f"the case stopped: {exc!r}"[:300])
                    note(traceback.format_exc())
                outcome.seconds = time.monotonic() - began
                held_after = run.held()
                outcome.held = held_after.text()
                outcome.failed += after_checks(
                    name, held_before, held_after, skipped=outcome.skipped is not None
                )
                if outcome.load is not None and outcome.load.failures:
                    note(f"{name}: failures:\n  " + "\n  ".join(outcome.load.failures[:10]))
                sys.stdout.write(outcome.line() + "\n")
                sys.stdout.flush()
                outcomes.append(outcome)
            outcomes.append(scan_secrets(run))
            sys.stdout.write(outcomes[-1].line() + "\n")
        prune(DataDir(folder.builder), keep=3)  # the builder is reused: its staged copies go
        folder.failed = any(o.failed for o in outcomes)  # its logs are kept
    return outcomes


def _named_cases(text: str) -> list[str]:
    """``--cases``: case names and group names (a group stands for its cases, in order)."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    named = {**GROUPS, **ALIASES}
    return [case for name in names for case in named.get(name, (name,))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="tests/harness/fault_matrix.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--cases",
        type=_named_cases,
        default=list(CASES),
        help=f"comma-separated cases or groups ({', '.join([*GROUPS, *ALIASES])}), run in "
        "this order "
        f"(default: all: {','.join(CASES)})",
    )
    add_arguments(parser, work="aimi-fault-test", deleted_when="every case passes")
    args = parser.parse_args(argv)
    unknown = [c for c in args.cases if c not in CASES]
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; the cases are {', '.join(CASES)}")
    started_at = time.monotonic()

    def body() -> int:
        outcomes = fault_test(args)
        failed = [o.name for o in outcomes if o.failed]
        skipped = [o.name for o in outcomes if o.skipped is not None]
        verdict = "ok" if not failed else f"FAILED ({', '.join(failed)})"
        also = f" ({len(skipped)} skipped: {', '.join(skipped)})" if skipped else ""
        sys.stdout.write(
            f"fault-test: {verdict} | {len(outcomes)} cases{also} | total "
            f"{time.monotonic() - started_at:.0f} s\n"
        )
        return 1 if failed else 0

    return guarded("fault-test", body)


if __name__ == "__main__":
    sys.exit(main())
