"""The build lease on the S3-compatible store (``warehouse.lease``, issue 33): builders on two
machines exclude each other through one object. Against a real local S3 server (moto's,
``tests.s3_server``, as tests/warehouse/test_tables_s3.py starts it), over HTTP."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from subprocess import Popen
from typing import Any

import pytest

from tests.s3_server import S3Server, module_server
from warehouse import lease as lease_module
from warehouse import locks
from warehouse.lease import LeaseBusy, LeaseUnsupported, StoreLease
from warehouse.paths import DataDir
from warehouse.s3 import ObjectStoreError

_prefixes = iter(range(10_000))


s3 = module_server("aimi-lease")


@pytest.fixture
def url(s3: S3Server, monkeypatch: pytest.MonkeyPatch) -> str:
    """A prefix of this test's own, and boto3's variables pointed at the server."""
    for name, value in s3.env().items():
        monkeypatch.setenv(name, value)
    return f"s3://{s3.bucket}/lease-{next(_prefixes)}"


def builder(s3: S3Server, url: str, ttl: float) -> StoreLease:
    """A builder of its own: its own client, as a builder on another machine has."""
    return StoreLease(url, ttl_seconds=ttl, client=s3.client())


def _body(s3: S3Server, url: str) -> dict[str, Any] | None:
    key = url.removeprefix(f"s3://{s3.bucket}/") + "/build.lease"
    try:
        got = s3.client().get_object(Bucket=s3.bucket, Key=key)
    except Exception:  # noqa: BLE001 - absent
        return None
    doc: dict[str, Any] = json.loads(got["Body"].read())
    return doc


def wait_until_expired(lease: StoreLease) -> None:
    """Until the store's clock says the lease is past (its second-granular Last-Modified)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        state = lease.read()
        if state is None or state.expired:
            return
        time.sleep(0.2)
    raise AssertionError("the lease never expired")


def _race(
    i: int, lease: StoreLease, start: threading.Barrier, won: list[int], refused: list[str]
) -> None:
    lease.check_conditional_writes()  # before the barrier: only the race after it
    start.wait()
    try:
        lease.try_acquire(f"builder-{i}")
        won.append(i)
    except LeaseBusy as busy:
        refused.append(str(busy))


def test_two_builders_racing_for_the_lease_exactly_one_wins(s3: S3Server, url: str) -> None:
    for round_ in range(10):
        where = f"{url}/race-{round_}"
        builders = [builder(s3, where, ttl=60) for _ in range(4)]
        start = threading.Barrier(len(builders))
        won: list[int] = []
        refused: list[str] = []
        threads = [
            threading.Thread(target=_race, args=(i, b, start, won, refused))
            for i, b in enumerate(builders)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(won) == 1, (round_, won)
        assert len(refused) == 3
        assert all("another build holds the lease" in why and "expires" in why for why in refused)
        body = _body(s3, where)
        assert body is not None and body["token"] == f"builder-{won[0]}"
        assert body["pid"] == os.getpid() and body["ttl_seconds"] == 60
        builders[won[0]].release()
        assert _body(s3, where) is None


def test_renewal_keeps_the_lease_and_release_frees_it(s3: S3Server, url: str) -> None:
    ttl = 4.0  # renewed every second; held for three lifetimes
    holder, other = builder(s3, url, ttl), builder(s3, url, ttl)
    with holder.hold("holder"):
        first = holder.read()
        assert first is not None
        ends = time.monotonic() + 3 * ttl
        tries = 0
        while time.monotonic() < ends:
            with pytest.raises(LeaseBusy):
                other.try_acquire("other")
            tries += 1
            time.sleep(0.5)
        last = holder.read()
        assert last is not None and last.holder.token == "holder" and not last.expired
        assert last.modified > first.modified  # renewed: a new Last-Modified, a new ETag
        assert last.etag != first.etag
        assert holder.lost is None
    assert tries >= 10
    assert _body(s3, url) is None  # released
    other.try_acquire("other")  # at once
    other.release()


def test_an_expired_lease_is_taken_over_and_recorded(s3: S3Server, url: str) -> None:
    # 5 s: the store dates the lease to the second (Last-Modified), so a lease of 1 s could
    # look expired within milliseconds of being taken, before the first refusal is tried
    stalled, taker = builder(s3, url, ttl=5.0), builder(s3, url, ttl=60)
    stalled.try_acquire("stalled")  # and never renewed: a launcher that stopped
    acquired_at = (_body(s3, url) or {})["acquired_at"]
    with pytest.raises(LeaseBusy, match=r"another build holds the lease .* since .* expires"):
        taker.try_acquire("taker")
    wait_until_expired(taker)
    taker.try_acquire("taker")
    body = _body(s3, url)
    assert body is not None and body["token"] == "taker"
    record = body["taken_over_from"]
    assert record["pid"] == os.getpid() and record["acquired_at"] == acquired_at
    assert record["expired_at"]
    # the launcher that stalled finds out at its next renewal, and its release leaves the
    # taker's lease alone
    assert not stalled.renew()
    assert stalled.lost is not None and "took it over" in stalled.lost
    stalled.release()
    assert (_body(s3, url) or {}).get("token") == "taker"
    assert taker.held_by("taker") and not taker.held_by("stalled")
    taker.release()
    assert _body(s3, url) is None


# a holder in a process of its own; with a third argument, it names that host instead of this
# one (a builder on another machine, which only expiry may judge)
_HOLDER = """
import socket, sys, time
if len(sys.argv) > 3:
    socket.gethostname = lambda: sys.argv[3]
from warehouse.lease import StoreLease
with StoreLease(sys.argv[1], ttl_seconds=float(sys.argv[2])).hold("killed"):
    print("held", flush=True)
    time.sleep(600)
"""


@contextmanager
def holder_process(s3: S3Server, url: str, ttl: float, *host: str) -> Iterator[Popen[str]]:
    """A process holding the lease at ``url`` (``host``: the host it names, another machine's),
    yielded once it holds it; killed and reaped on the way out, whatever the test did to it."""
    env = {**os.environ, **s3.env()}
    holder = Popen(
        [sys.executable, "-c", _HOLDER, url, str(ttl), *host],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield holder
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()


def killed(holder: Popen[str]) -> None:
    """Kill ``holder`` with no release and no more renewals, and reap it."""
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=10)


def test_a_killed_holders_lease_on_another_host_expires(s3: S3Server, url: str) -> None:
    ttl = 3.0
    with holder_process(s3, url, ttl, "another-machine") as holder:
        time.sleep(ttl)  # a lifetime: the holder's renewals kept it
        waiter = builder(s3, url, ttl=60)
        with pytest.raises(LeaseBusy, match=f"pid {holder.pid}"):
            waiter.try_acquire("waiter")
        killed(holder)
        since = time.monotonic()
        said: list[str] = []
        waiter.acquire("waiter", wait=True, on_wait=said.append)
        waited = time.monotonic() - since
    assert said and f"pid {holder.pid}" in said[0]
    # at most a lifetime after the last renewal (a quarter of one before the kill), give or
    # take the store's one-second clock and the poll
    assert ttl - ttl / 4 - 1.5 < waited < ttl + 6, waited
    body = _body(s3, url)
    assert body is not None and body["taken_over_from"]["pid"] == holder.pid
    waiter.release()


def test_a_lease_whose_holder_on_this_host_is_gone_is_taken_at_once(s3: S3Server, url: str) -> None:
    # a publish killed here and run again at once (the fault matrix's publish-kill): its own
    # machine knows the holder is gone, so nothing waits out the lifetime
    with holder_process(s3, url, 60) as holder:
        again = builder(s3, url, ttl=60)
        with pytest.raises(LeaseBusy, match=f"pid {holder.pid}"):  # alive: refused
            again.try_acquire("again")
        killed(holder)
        started = time.monotonic()
        again.try_acquire("again")
        assert time.monotonic() - started < 10  # not the 60 s lifetime
    body = _body(s3, url)
    assert body is not None and body["token"] == "again"
    assert body["taken_over_from"]["pid"] == holder.pid and body["taken_over_from"]["gone"]
    again.release()


class _IgnoresConditions:
    """A store that ignores ``If-None-Match`` and ``If-Match`` (as some S3-compatible servers
    did before 2024): a test double of a store we do not run, made by sending moto the same
    requests without the conditions."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def put_object(self, **kwargs: Any) -> Any:
        kwargs.pop("IfNoneMatch", None)
        kwargs.pop("IfMatch", None)
        return self._client.put_object(**kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


def test_a_store_without_conditional_writes_is_refused(s3: S3Server, url: str) -> None:
    lease = StoreLease(url, client=_IgnoresConditions(s3.client()))
    with pytest.raises(LeaseUnsupported, match="does not honour conditional writes"):
        lease.try_acquire("anyone")
    assert _body(s3, url) is None  # no lock taken
    listed = s3.client().list_objects_v2(Bucket=s3.bucket, Prefix=url.split("/", 3)[3] + "/")
    assert not listed.get("Contents")  # nor its probe left behind


@pytest.fixture
def warehouse_on_s3(url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """``AIMI_WAREHOUSE_URL`` on this test's prefix: the build lock's lease lives there."""
    from warehouse import tables

    monkeypatch.setenv("AIMI_WAREHOUSE_URL", url)
    tables._s3_tables.cache_clear()
    lease_module._client.cache_clear()
    yield url
    tables._s3_tables.cache_clear()


def test_the_build_lock_takes_the_lease_of_the_warehouses_store(
    tmp_path: Path, s3: S3Server, warehouse_on_s3: str
) -> None:
    """Two data dirs (two machines) on one warehouse: the second cannot take the lock."""
    here, there = DataDir(tmp_path / "here"), DataDir(tmp_path / "there")
    with locks.build_lock(here, token="launcher"):
        body = _body(s3, warehouse_on_s3)
        assert body is not None and body["token"] == "launcher"
        assert locks.build_lock_held_by(there, "launcher")  # what a step elsewhere checks
        assert not locks.build_lock_held_by(there, "another")
        with (
            pytest.raises(LeaseBusy, match="another build holds the lease"),
            locks.build_lock(there, wait=False),
        ):
            pass
    assert _body(s3, warehouse_on_s3) is None
    assert not locks.build_lock_held_by(there, "launcher")


def test_a_holder_that_lost_its_lease_is_stopped_before_it_publishes(
    s3: S3Server, url: str
) -> None:
    from warehouse.lease import LeaseLost, ensure_held

    with builder(s3, url, ttl=60).hold("holder") as held:
        ensure_held()  # held: renewed, nothing raised
        assert held.lost is None
        # another builder's lease where this one's was (as after a stall past its lifetime)
        key = url.removeprefix(f"s3://{s3.bucket}/") + "/build.lease"
        s3.client().put_object(Bucket=s3.bucket, Key=key, Body=b'{"token": "another"}')
        with pytest.raises(LeaseLost, match="lost the build lease .* publishes nothing"):
            ensure_held()
    assert (_body(s3, url) or {}).get("token") == "another"  # its release left that alone
    ensure_held()  # nothing held any more


def test_a_block_s_error_is_not_hidden_by_a_release_that_fails_too(
    s3: S3Server, url: str, caplog: pytest.LogCaptureFixture
) -> None:
    # the store lost while the lease is held (what `make fault-test`'s store-cut does to a
    # publish): the holder's client pointed at a port where nothing listens, then the block
    # fails; its own error reaches the caller, the failed release is logged, not raised over it
    import boto3
    from botocore.config import Config

    from tests.s3_server import free_port

    holder = builder(s3, url, ttl=30)
    caplog.set_level(logging.WARNING, logger="aimi.lease")
    with pytest.raises(RuntimeError, match="the upload failed"), holder.hold("holder"):
        holder.client = boto3.client(
            "s3",
            endpoint_url=f"http://127.0.0.1:{free_port()}",
            config=Config(retries={"max_attempts": 1}, connect_timeout=1, read_timeout=5),
        )
        raise RuntimeError("the upload failed")
    assert "after RuntimeError: the build lease" in caplog.text
    assert "was not released" in caplog.text and "Could not connect" in caplog.text
    assert _body(s3, url) is not None  # still there: it expires, or is taken over
    # a block that ends well still raises a release that fails (nothing else to report)
    other = builder(s3, f"{url}-2", ttl=30)
    refused = pytest.raises(ObjectStoreError, match="cannot release the build lease")
    with refused, other.hold("other"):
        other.client = holder.client
