"""Inter-process locks (``flock``): the one helper every lock in the project goes through.

- ``build_lock``: held by whatever materializes and publishes (`aimi build`, an admin refresh,
  any Dagster run), so two runs never build over one data dir at once.
- ``publish_lock``: held while a build numbers changes and switches the snapshot pointer.
- ``exclusive``: an already open file, e.g. the rate-limit counters every worker maps.
- ``file_lock``: a lock file, e.g. the one each review file is appended under
  (``warehouse.files.append_jsonl``).
"""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from warehouse.paths import DataDir


class LockBusy(RuntimeError):
    """The lock is held elsewhere and the caller asked not to wait."""


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
) -> Iterator[None]:
    """Exclusive use of the data dir for one run: `aimi build`, an admin refresh, and every
    Dagster run (its resource takes it: UI, schedule and sensor runs too).

    Re-entrant within a thread: `aimi build` holds it while the Dagster run it starts, in the
    same thread, takes it again. Another thread or process waits (or gets ``LockBusy``).
    Whoever takes it writes ``token`` into the lock file (empty by default), which
    ``build_lock_held_by`` reads: the steps of a multiprocess run, each its own process, check
    that their launcher still holds it.
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
            yield
        finally:
            del counts[path]


def build_lock_held_by(data: DataDir, token: str) -> bool:
    """Whether another process holds the data dir's build lock and took it with ``token``."""
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
