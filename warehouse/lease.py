"""The build lock across machines: a lease object on the S3-compatible store.

When the warehouse (``AIMI_WAREHOUSE_URL``) or, without it, the snapshot store
(``AIMI_SNAPSHOT_STORE``) is on an S3-compatible store, builders on several machines share it,
and the local ``flock`` (``warehouse.locks.build_lock``) excludes only the processes of one
machine. So whoever takes the build lock also takes ``<prefix>/build.lease``:

- **acquired** with a conditional write: ``PutObject`` with ``If-None-Match: *`` succeeds for
  exactly one of the builders that race for a missing lease;
- it holds the holder's **token**, host, pid, when it was acquired and renewed, and its
  lifetime (``AIMI_BUILD_LEASE_SECONDS``, 60 s by default);
- **renewed** by a thread of the holder every quarter of its lifetime, each renewal a
  compare-and-swap (``If-Match`` on the ETag it last wrote): a renewal that fails its condition
  means another builder took the lease over, and the holder has **lost** it;
- **expired** when the store's clock (the ``Date`` of a read) is past the object's
  ``Last-Modified`` plus its lifetime: both times come from the store, so the machines' clocks
  need not agree. A holder killed with ``kill -9`` stops renewing, and its lease expires;
- an expired lease is **taken over** with ``If-Match`` on the ETag the taker read (one taker
  wins), the lease it replaced **recorded** in the new one (``taken_over_from``) and logged;
- a step of a multiprocess run checks that the lease is unexpired under its launcher's token
  (``held_by``), as it checks the local lock file's token;
- **released** at the end with a conditional delete (``If-Match``), which leaves alone a lease
  that was taken over meanwhile.

A store that ignores the conditions would let two builders both "win": before its first
acquisition a process checks, once per store, that the store refuses a write whose condition
fails (``LeaseUnsupported`` otherwise, and no lock is taken).
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from functools import lru_cache
from typing import Any

from warehouse.busy import LockBusy
from warehouse.s3 import ObjectStoreError, StoreUrl, store_errors

log = logging.getLogger("aimi.lease")

LEASE = "build.lease"
DEFAULT_SECONDS = 60.0
# the answers of a write whose condition failed: 412, or 409 when another conditional write
# on the key was in flight (AWS), or 404 for If-Match on a key that is gone
_REFUSED = {"PreconditionFailed", "412", "ConditionalRequestConflict", "409"}
_GONE = {"NoSuchKey", "404", "NotFound"}
# an ETag no object has (an MD5 of 32 zeros would be one: this is not hex)
_NO_SUCH_ETAG = '"aimi-lease-probe-no-such-etag"'


class LeaseBusy(LockBusy):
    """Another builder holds an unexpired lease; the message says who, since and until when."""


class LeaseUnsupported(ObjectStoreError):
    """The store does not refuse a write whose condition fails: a lease there would be racy."""


class LeaseLost(ObjectStoreError):
    """This process's lease was taken over (or could not be renewed): it must not publish."""


@dataclass(frozen=True)
class Holder:
    """What the lease object holds (JSON). ``expires_at`` is the holder's own estimate, for
    people reading the object; expiry is decided on the store's clock (``LeaseState``)."""

    token: str
    host: str
    pid: int
    acquired_at: str
    renewed_at: str
    ttl_seconds: float
    expires_at: str
    taken_over_from: dict[str, Any] | None = None
    # the holder's pid namespace (Linux; 0 elsewhere): a pid means something only inside it
    pid_namespace: int = 0

    def to_json(self) -> bytes:
        return json.dumps(asdict(self), sort_keys=True).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> Holder:
        """The holder a lease object names; one that cannot be read is held by nobody known
        (its token matches no one) with the default lifetime, so it still expires."""
        try:
            doc = json.loads(raw)
            return cls(
                token=str(doc["token"]),
                host=str(doc.get("host", "?")),
                pid=int(doc.get("pid", 0)),
                acquired_at=str(doc.get("acquired_at", "?")),
                renewed_at=str(doc.get("renewed_at", "?")),
                ttl_seconds=float(doc.get("ttl_seconds", DEFAULT_SECONDS)),
                expires_at=str(doc.get("expires_at", "?")),
                taken_over_from=doc.get("taken_over_from"),
                pid_namespace=int(doc.get("pid_namespace", 0)),
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            return cls("", "?", 0, "?", "?", DEFAULT_SECONDS, "?")


@dataclass(frozen=True)
class LeaseState:
    """The lease object as read: its holder, its ETag, and two times on the store's clock."""

    holder: Holder
    etag: str
    modified: datetime  # Last-Modified: the last acquisition or renewal
    store_now: datetime  # the Date of the read

    @property
    def expires_at(self) -> datetime:
        return self.modified + timedelta(seconds=self.holder.ttl_seconds)

    @property
    def expired(self) -> bool:
        return self.store_now >= self.expires_at

    def describe(self, where: str) -> str:
        h = self.holder
        return (
            f"another build holds the lease {where} since {h.acquired_at} (host {h.host}, "
            f"pid {h.pid}), expires {self.expires_at.isoformat()} unless renewed; it is renewed "
            f"every {h.ttl_seconds / 4:g} s while that build runs"
        )


def _pid_namespace() -> int:
    """This process's pid namespace (the inode of ``/proc/self/ns/pid``), 0 where there is none."""
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


def holder_gone(holder: Holder) -> bool:
    """Whether the lease's holder was a process of this host (by host name and pid namespace)
    that no longer exists: a builder killed here, whose lease need not be waited out. A pid
    taken again by another process counts as alive (the lease is then waited out, the safe
    side); a holder on another host is judged only by expiry."""
    if holder.host != socket.gethostname() or holder.pid <= 0:
        return False
    # containers that share the host's name (host networking) each have their own pids
    if not holder.pid_namespace or holder.pid_namespace != _pid_namespace():
        return False
    try:
        os.kill(holder.pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    return False


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _code(exc: Exception) -> str:
    response = getattr(exc, "response", None) or {}
    error = response.get("Error", {})
    status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    return str(error.get("Code") or status or "")


def _store_time(response: dict[str, Any]) -> datetime:
    """The store's clock at a response (its ``Date`` header), else this machine's."""
    date = response.get("ResponseMetadata", {}).get("HTTPHeaders", {}).get("date")
    if date:
        try:
            return parsedate_to_datetime(date).astimezone(UTC)
        except (TypeError, ValueError):
            pass
    return datetime.now(UTC)


@lru_cache(maxsize=8)
def _client(endpoint: str) -> Any:
    """A boto3 client per endpoint (``AWS_ENDPOINT_URL_S3``; empty: boto3's default), with
    short timeouts: a lease answers within seconds or the builder should hear about it."""
    import boto3
    from botocore.config import Config

    config = Config(retries={"max_attempts": 3, "mode": "standard"}, connect_timeout=5)
    return boto3.client("s3", config=config, **({"endpoint_url": endpoint} if endpoint else {}))


# stores (bucket and prefix) whose refusal of failed conditions this process has seen
_verified: set[str] = set()
_verified_lock = threading.Lock()


class StoreLease:
    """The lease at ``<prefix>/build.lease`` of ``url``, and this process's hold on it."""

    def __init__(
        self, url: str | StoreUrl, *, ttl_seconds: float = DEFAULT_SECONDS, client: Any = None
    ) -> None:
        self.url = url if isinstance(url, StoreUrl) else StoreUrl.parse(url)
        self.key = self.url.key(LEASE)
        self.ttl_seconds = ttl_seconds
        self.client = client if client is not None else _client(_endpoint())
        self._holder: Holder | None = None
        self._etag = ""
        self._renewed = 0.0  # time.monotonic() of the last acquisition or renewal
        self.lost: str | None = None  # why the hold was lost, once it was
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None
        self._renewing = threading.Lock()  # the renewer thread's and ``ensure_held``'s

    @property
    def where(self) -> str:
        return f"s3://{self.url.bucket}/{self.key}"

    # the object -------------------------------------------------------------------------

    def read(self) -> LeaseState | None:
        """The lease as it is on the store, or None when nobody holds it."""
        from botocore.exceptions import ClientError

        with store_errors(self.url, f"read the build lease {self.key}"):
            try:
                got = self.client.get_object(Bucket=self.url.bucket, Key=self.key)
            except ClientError as exc:
                if _code(exc) in _GONE:
                    return None
                raise
            body: bytes = got["Body"].read()
        modified = got["LastModified"]
        modified = modified.astimezone(UTC) if modified.tzinfo else modified.replace(tzinfo=UTC)
        return LeaseState(Holder.from_json(body), got["ETag"], modified, _store_time(got))

    def _put(self, holder: Holder, *, if_match: str | None = None) -> str | None:
        """Write the lease on a condition: ``If-Match: if_match``, else ``If-None-Match: *``.
        The new ETag, or None when the condition failed (another builder wrote first)."""
        from botocore.exceptions import ClientError

        condition = {"IfMatch": if_match} if if_match else {"IfNoneMatch": "*"}
        with store_errors(self.url, f"write the build lease {self.key}"):
            try:
                answer = self.client.put_object(
                    Bucket=self.url.bucket,
                    Key=self.key,
                    Body=holder.to_json(),
                    ContentType="application/json",
                    **condition,
                )
            except ClientError as exc:
                if _code(exc) in _REFUSED or (if_match and _code(exc) in _GONE):
                    return None
                raise
        etag: str = answer["ETag"]
        return etag

    def check_conditional_writes(self) -> None:
        """Refuse (``LeaseUnsupported``) a store that accepts a write whose ``If-None-Match``
        or ``If-Match`` fails: two builders could both take its lease. Once per store and
        process, on a probe object of this process's own."""
        from botocore.exceptions import ClientError

        with _verified_lock:
            if self.where in _verified:
                return
        probe = f"{self.key}.probe-{socket.gethostname()}-{os.getpid()}-{time.monotonic_ns()}"
        bucket = self.url.bucket
        failed: list[str] = []
        with store_errors(self.url, "check that the store honours conditional writes"):
            self.client.put_object(Bucket=bucket, Key=probe, Body=b"probe")
            try:
                for condition in ({"IfNoneMatch": "*"}, {"IfMatch": _NO_SUCH_ETAG}):
                    try:
                        self.client.put_object(Bucket=bucket, Key=probe, Body=b"x", **condition)
                        failed.append(f"{next(iter(condition))} was ignored")
                    except ClientError as exc:
                        if _code(exc) not in _REFUSED:
                            failed.append(f"{next(iter(condition))} answered {_code(exc)}")
            finally:
                self.client.delete_object(Bucket=bucket, Key=probe)
        if failed:
            raise LeaseUnsupported(
                f"{self.url} does not honour conditional writes ({'; '.join(failed)}): a build "
                "lease there could be taken by two builders at once, so no build runs. Use a "
                "store with conditional PutObject (AWS S3, MinIO 2024 or later, moto 5.1+), "
                "or unset AIMI_WAREHOUSE_URL and AIMI_SNAPSHOT_STORE to build on one machine"
            )
        with _verified_lock:
            _verified.add(self.where)

    # the hold ---------------------------------------------------------------------------

    def _new_holder(self, token: str, taken_over_from: dict[str, Any] | None = None) -> Holder:
        now = datetime.now(UTC)
        return Holder(
            token=token,
            host=socket.gethostname(),
            pid=os.getpid(),
            acquired_at=now.isoformat(),
            renewed_at=now.isoformat(),
            ttl_seconds=self.ttl_seconds,
            expires_at=(now + timedelta(seconds=self.ttl_seconds)).isoformat(),
            taken_over_from=taken_over_from,
            pid_namespace=_pid_namespace(),
        )

    def try_acquire(self, token: str) -> None:
        """Take the lease under ``token`` now, or raise ``LeaseBusy`` describing its holder.
        A missing lease is created (``If-None-Match``), an expired one taken over
        (``If-Match`` on the ETag read); losing either race reads the lease again."""
        if not token:
            raise ValueError("a lease is taken under a token")
        self.check_conditional_writes()
        for _ in range(5):
            state = self.read()
            if state is None:
                holder = self._new_holder(token)
                etag = self._put(holder)
            elif state.expired or holder_gone(state.holder):
                old = state.holder
                replaced: dict[str, Any] = {
                    "host": old.host,
                    "pid": old.pid,
                    "acquired_at": old.acquired_at,
                    "renewed_at": old.renewed_at,
                }
                if state.expired:
                    replaced["expired_at"] = state.expires_at.isoformat()
                    why = f"expired {state.expires_at.isoformat()}"
                else:
                    replaced["gone"] = True
                    why = "its process on this host is gone"
                holder = self._new_holder(token, taken_over_from=replaced)
                etag = self._put(holder, if_match=state.etag)
                if etag is not None:
                    log.warning(
                        "took over the build lease %s of host %s, pid %s (held since %s, %s)",
                        self.where,
                        old.host,
                        old.pid,
                        old.acquired_at,
                        why,
                    )
            else:
                raise LeaseBusy(state.describe(self.where))
            if etag is not None:
                self._holder, self._etag = holder, etag
                self._renewed = time.monotonic()
                self.lost = None
                return
        raise LeaseBusy(f"the lease {self.where} changed hands five times while read; try again")

    def acquire(
        self, token: str, *, wait: bool = True, on_wait: Callable[[str], None] | None = None
    ) -> None:
        """``try_acquire``, polling every quarter of a lifetime (at most 5 s) while another
        builder holds it when ``wait``; ``on_wait`` gets the first refusal's description."""
        told = False
        while True:
            try:
                self.try_acquire(token)
                return
            except LeaseBusy as busy:
                if not wait:
                    raise
                if not told:
                    told = True
                    if on_wait is not None:
                        on_wait(str(busy))
            time.sleep(min(5.0, self.ttl_seconds / 4))

    def renew(self) -> bool:
        """Write the lease again under the ETag this holder last wrote (its lifetime starts
        anew); False, with ``lost`` saying why, when another builder took it over or it was
        removed, or when the store could not be reached for a whole lifetime."""
        with self._renewing:
            return self._renew()

    def _renew(self) -> bool:
        if self._holder is None or self.lost:
            return False
        holder = replace(
            self._holder,
            renewed_at=_now(),
            expires_at=(datetime.now(UTC) + timedelta(seconds=self.ttl_seconds)).isoformat(),
        )
        try:
            etag = self._put(holder, if_match=self._etag)
        except ObjectStoreError as exc:
            if time.monotonic() - self._renewed > self.ttl_seconds:
                self.lost = f"not renewed for {self.ttl_seconds:g} s: {exc}"
                log.error("lost the build lease %s: %s", self.where, self.lost)
            else:
                log.warning("could not renew the build lease %s (will retry): %s", self.where, exc)
            return False
        if etag is None:
            try:
                now = self.read()
            except ObjectStoreError:
                now = None
            self.lost = (
                "it was removed"
                if now is None
                else f"host {now.holder.host}, pid {now.holder.pid} took it over at "
                f"{now.holder.acquired_at}"
            )
            log.error("lost the build lease %s: %s", self.where, self.lost)
            return False
        self._holder, self._etag, self._renewed = holder, etag, time.monotonic()
        return True

    def release(self) -> None:
        """Delete the lease if it is still this holder's (a conditional delete)."""
        from botocore.exceptions import ClientError

        self._stop_renewing()
        if self._holder is None:
            return
        token, self._holder = self._holder.token, None
        if self.lost:
            log.warning("the build lease %s was lost before the end: %s", self.where, self.lost)
            return
        with store_errors(self.url, f"release the build lease {self.key}"):
            try:
                self.client.delete_object(Bucket=self.url.bucket, Key=self.key, IfMatch=self._etag)
            except ClientError as exc:
                if _code(exc) in _REFUSED | _GONE:
                    log.warning("the build lease %s was taken over before its release", self.where)
                    return
                # a store without conditional deletes: delete it only if it is still ours
                state = self.read()
                if state is not None and state.holder.token == token:
                    self.client.delete_object(Bucket=self.url.bucket, Key=self.key)

    def held_by(self, token: str) -> bool:
        """Whether the lease is unexpired and held under ``token`` (what a step checks)."""
        state = self.read()
        return (
            bool(token)
            and state is not None
            and state.holder.token == token
            and not (state.expired)
        )

    def _start_renewing(self) -> None:
        self._stop.clear()
        self._renewer = threading.Thread(
            target=self._renew_loop, name="aimi-build-lease", daemon=True
        )
        self._renewer.start()

    def _renew_loop(self) -> None:
        while not self._stop.wait(self.ttl_seconds / 4):
            self.renew()
            if self.lost:
                return

    def _stop_renewing(self) -> None:
        self._stop.set()
        if self._renewer is not None:
            self._renewer.join()
            self._renewer = None

    @contextmanager
    def hold(
        self, token: str, *, wait: bool = True, on_wait: Callable[[str], None] | None = None
    ) -> Iterator[StoreLease]:
        """The lease for the block, renewed in the background, released at the end."""
        self.acquire(token, wait=wait, on_wait=on_wait)
        self._start_renewing()
        with _holds_lock:
            _holds.append(self)
        try:
            yield self
        except BaseException as failure:
            with _holds_lock:
                _holds.remove(self)
            # the block's own error is what its caller must see: a release that fails too
            # (the store unreachable, most often the same cause) is logged, not raised over it
            try:
                self.release()
            except ObjectStoreError as exc:
                log.warning(
                    "after %s: the build lease %s was not released (%s); it expires in %.0f s, "
                    "and a run on this host takes it over at once when this process is gone",
                    type(failure).__name__,
                    self.where,
                    exc,
                    self.ttl_seconds,
                )
            raise
        with _holds_lock:
            _holds.remove(self)
        self.release()


# the leases this process holds now (``hold`` blocks), for ``ensure_held``
_holds: list[StoreLease] = []
_holds_lock = threading.Lock()


def ensure_held() -> None:
    """Renew every lease this process holds now, raising ``LeaseLost`` when one was taken
    over: what a publish calls before it moves a pointer, so a builder that stalled past its
    lease (and whose lease another builder took) publishes nothing. A renewal also starts a
    new lifetime, so the publish that follows has one whole."""
    with _holds_lock:
        held = list(_holds)
    for lease in held:
        if not lease.renew():
            raise LeaseLost(
                f"this build lost the build lease {lease.where} ({lease.lost or 'not renewed'}): "
                "it publishes nothing. Run it again."
            )


def _endpoint() -> str:
    """boto3's own endpoint variables, read when the client is made (the snapshot store's
    rule): the S3-specific one first."""
    return os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL") or ""


def configured_lease() -> StoreLease | None:
    """The lease of this deployment's shared store: ``AIMI_WAREHOUSE_URL``'s, else
    ``AIMI_SNAPSHOT_STORE``'s; None when neither is set (one machine: the ``flock`` is the
    lock)."""
    from warehouse.settings import load_settings

    settings = load_settings()
    url = settings.warehouse_url or settings.snapshot_store
    if not url:
        return None
    return StoreLease(url, ttl_seconds=settings.build_lease_seconds)


def hold_configured(
    token: str, *, wait: bool, on_wait: Callable[[str], None] | None = None
) -> AbstractContextManager[object]:
    """``configured_lease().hold(...)``, or a block that holds nothing when there is none."""
    lease = configured_lease()
    if lease is None:
        return nullcontext()
    return lease.hold(token, wait=wait, on_wait=on_wait)
