"""Inter-process locks (``flock``): the one helper every lock in the project goes through.

- ``build_lock``: held by whatever materializes and publishes (`aimi build`, an admin refresh,
  any Dagster run), so two runs never build over one data dir at once; with the warehouse or
  the snapshot store on an S3-compatible store, also a lease there (``warehouse.lease``), so
  two builders on two machines never build over one warehouse at once.
- ``publish_lock``: held while a build numbers changes and switches the snapshot pointer.
- ``exclusive``: an already open file, e.g. the rate-limit counters every worker maps.
- ``file_lock``: a lock file, e.g. the one each review file is appended under
  (``warehouse.files.append_jsonl``).
"""

from __future__ import annotations

import fcntl
import secrets
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from warehouse.busy import LockBusy as LockBusy  # raised by every lock here: callers catch it
from warehouse.paths import DataDir


class _Exclusive:
    """``exclusive``'s context manager: a plain class, since the rate limiter enters one per
    request and a generator-based one cost several times the two ``flock`` calls."""

    __slots__ = ("fd", "on_wait", "wait")

    def __init__(self, fd: int, wait: bool, on_wait: Callable[[], None] | None) -> None:
        self.fd = fd
        self.wait = wait
        self.on_wait = on_wait

    def __enter__(self) -> None:
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not self.wait:
                raise LockBusy("the lock is held by another process") from None
            if self.on_wait is not None:
                self.on_wait()
            fcntl.flock(self.fd, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_UN)


def exclusive(
    fd: int, *, wait: bool = True, on_wait: Callable[[], None] | None = None
) -> AbstractContextManager[None]:
    """An exclusive ``flock`` on an open file for the block. ``wait=False`` raises
    ``LockBusy`` at once when another process holds it; ``on_wait`` is called before waiting.
    The manager may be entered again once it has been left."""
    return _Exclusive(fd, wait, on_wait)


@contextmanager
def file_lock(
    path: Path, *, wait: bool = True, on_wait: Callable[[], None] | None = None
) -> Iterator[None]:
    """``exclusive`` on the lock file ``path`` (created, with its folder, when missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+") as handle, exclusive(handle.fileno(), wait=wait, on_wait=on_wait):
        yield


# build locks this thread holds, by lock file: build_lock is re-entrant within a thread
_held = threading.local()


@contextmanager
def build_lock(
    data: DataDir,
    *,
    wait: bool = True,
    on_wait: Callable[[], None] | None = None,
    token: str = "",
    on_lease_wait: Callable[[str], None] | None = None,
) -> Iterator[None]:
    """Exclusive use of the data dir for one run: `aimi build`, an admin refresh, and every
    Dagster run (its resource takes it: UI, schedule and sensor runs too).

    Re-entrant within a thread: `aimi build` holds it while the Dagster run it starts, in the
    same thread, takes it again. Another thread or process waits (or gets ``LockBusy``).
    Whoever takes it writes ``token`` into the lock file (empty by default), which
    ``build_lock_held_by`` reads: the steps of a multiprocess run, each its own process, check
    that their launcher still holds it.

    When the warehouse or the snapshot store is on an S3-compatible store, the lock file's
    holder then takes the store's lease (``warehouse.lease``) under ``token`` (a random one
    when empty), waiting while another machine's build holds it (``on_lease_wait`` gets who
    holds it; else ``on_wait`` is called), or raising ``LeaseBusy`` (a ``LockBusy``) when
    ``wait`` is False; the lease is renewed while the block runs and released after it.
    """
    path = data.build_lock.resolve()
    counts: dict[Path, int] = _held.__dict__.setdefault("counts", {})
    if counts.get(path):
        counts[path] += 1
        try:
            yield
        finally:
            counts[path] -= 1
        return
    with file_lock(path, wait=wait, on_wait=on_wait):
        # the holder's token replaces the last holder's, so a stale one never vouches
        path.write_text(token)
        counts[path] = 1
        try:
            with _lease(token or secrets.token_hex(16), wait, on_wait, on_lease_wait):
                yield
        finally:
            del counts[path]


def _lease(
    token: str,
    wait: bool,
    on_wait: Callable[[], None] | None,
    on_lease_wait: Callable[[str], None] | None,
) -> AbstractContextManager[object]:
    """The store's lease (``warehouse.lease``; imported here: it imports boto3's wrappers)."""
    from warehouse.lease import hold_configured

    def waiting(why: str) -> None:
        if on_lease_wait is not None:
            on_lease_wait(why)
        elif on_wait is not None:
            on_wait()

    held: AbstractContextManager[object] = hold_configured(token, wait=wait, on_wait=waiting)
    return held


def build_lock_held_by(data: DataDir, token: str) -> bool:
    """Whether another process holds the data dir's build lock and took it with ``token``;
    with a store's lease configured (``warehouse.lease``), whether the lease is unexpired and
    held under ``token``, which a step on another machine than its launcher can see too."""
    from warehouse.lease import configured_lease

    lease = configured_lease()
    if lease is not None:
        return bool(token) and lease.held_by(token)
    path = data.build_lock.resolve()
    if not token or not path.exists():
        return False
    with path.open("a+") as handle:
        try:
            with exclusive(handle.fileno(), wait=False):
                return False  # nobody holds it
        except LockBusy:
            pass
    return path.read_text() == token


@contextmanager
def publish_lock(data: DataDir) -> Iterator[None]:
    """Held while a build numbers changes and publishes a snapshot; a second build waits."""
    with file_lock(data.root / ".publish.lock"):
        yield
