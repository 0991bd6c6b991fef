"""One lock helper: every ``flock`` in the project goes through ``warehouse.locks``; the build
lock is re-entrant within a thread and exclusive across threads and processes."""

from __future__ import annotations

import ast
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from warehouse.locks import LockBusy, build_lock, build_lock_held_by
from warehouse.paths import DataDir

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (
    "analytics",
    "demo",
    "warehouse",
    "retrieval",
    "readmodel",
    "publishing",
    "pipelines",
    "serving",
)


def imports_fcntl(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import) and any(a.name == "fcntl" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.module == "fcntl":
            return True
    return False


def test_only_the_lock_helper_imports_fcntl() -> None:
    modules = [p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))]
    assert len(modules) > 50  # the packages were really read
    found = [str(p.relative_to(ROOT)) for p in modules if imports_fcntl(p)]
    assert found == ["warehouse/locks.py"]


class HeldElsewhere:
    """The build lock held by another thread until ``release``: what a second run sees."""

    def __init__(self, data: DataDir, *, token: str = "") -> None:
        self._taken, self._release = threading.Event(), threading.Event()
        self.released_at = 0.0
        self.token = token
        self._thread = threading.Thread(target=self._hold, args=(data,))

    def _hold(self, data: DataDir) -> None:
        with build_lock(data, token=self.token):
            self._taken.set()
            self._release.wait(90)
            self.released_at = time.monotonic()

    def __enter__(self) -> HeldElsewhere:
        self._thread.start()
        assert self._taken.wait(10)
        return self

    def release(self) -> None:
        self._release.set()

    def __exit__(self, *exc: object) -> None:
        self.release()
        self._thread.join(10)


def test_the_build_lock_is_reentrant_within_a_thread_only(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    with (
        build_lock(data),
        build_lock(data, wait=False),
        build_lock(data, wait=False),
        ThreadPoolExecutor(1) as other,
    ):
        busy = other.submit(lambda: build_lock(data, wait=False).__enter__())
        with pytest.raises(LockBusy):
            busy.result(10)
    with HeldElsewhere(data), pytest.raises(LockBusy), build_lock(data, wait=False):
        pass
    with build_lock(data, wait=False):  # released everywhere
        pass


def test_a_waiting_build_starts_when_the_holder_releases(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    with HeldElsewhere(data) as holder:
        threading.Timer(0.3, holder.release).start()
        with build_lock(data):
            entered = time.monotonic()
    assert entered >= holder.released_at > 0


def test_the_steps_of_a_multiprocess_run_see_their_launcher_hold_the_lock(tmp_path: Path) -> None:
    # the launcher (`aimi build --processes N`) takes the lock with a token; its steps, other
    # processes, check that it still holds it under that token instead of waiting for it
    data = DataDir(tmp_path)
    assert not build_lock_held_by(data, "run-a")  # no lock file yet
    with HeldElsewhere(data, token="run-a"):
        assert build_lock_held_by(data, "run-a")
        assert not build_lock_held_by(data, "run-b")
        assert not build_lock_held_by(data, "")
    assert not build_lock_held_by(data, "run-a")  # released: the token no longer vouches
    with HeldElsewhere(data):  # a later holder without a token clears the stale one
        assert not build_lock_held_by(data, "run-a")
