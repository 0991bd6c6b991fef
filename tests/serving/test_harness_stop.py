"""Every harness (tests/harness/fault_matrix.py, scale_out.py, soak.py) stops what it started when
it is told to stop (issue 46: `make fault-test` ended by SIGTERM left nginx, Redis and two `aimi
serve` replicas running). Each is started on the small corpus, killed with SIGTERM or SIGINT
once its servers are up, and must exit with 128 + the signal having stopped every process it
started.

Skips when nginx or redis-server is not installed (`make test` installs both first)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.serving.conftest import Corpus, publish

ROOT = Path(__file__).resolve().parents[2]
HARNESSES = [
    ("fault_matrix", ["--cases", "redis", "--workers", "1"], signal.SIGTERM),
    ("scale_out", ["--publish", "copy"], signal.SIGTERM),
    ("soak", ["--minutes", "5", "--workers", "1"], signal.SIGINT),
]


def _parents() -> dict[int, int]:
    """Every live process's parent, from /proc (zombies left out: they are gone)."""
    found: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # the command name is in parentheses and may hold spaces: split after it
        state, parent = stat.rsplit(")", 1)[1].split()[:2]
        if state != "Z":
            found[int(entry.name)] = int(parent)
    return found


def _descendants(pid: int) -> set[int]:
    parents = _parents()
    found, todo = set(), [pid]
    while todo:
        current = todo.pop()
        children = {child for child, parent in parents.items() if parent == current}
        todo += list(children - found)
        found |= children
    return found


def _group(pid: int) -> int | None:
    try:
        return int((Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split())[2])
    except (OSError, IndexError, ValueError):
        return None


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize(("script", "extra", "signum"), HARNESSES, ids=[h[0] for h in HARNESSES])
def test_a_harness_told_to_stop_stops_everything_it_started(
    tmp_path: Path, corpus: Corpus, script: str, extra: list[str], signum: signal.Signals
) -> None:
    for tool in ("nginx", "redis-server"):
        if shutil.which(tool, path=f"{os.environ.get('PATH', '')}:/usr/sbin") is None:
            pytest.skip(f"{tool} is not installed (scripts/ensure-{tool.split('-')[0]})")
    builder = tmp_path / "builder"
    publish(builder, corpus.tables)
    harness = subprocess.Popen(
        [sys.executable, "-m", f"tests.harness.{script}", "--builder", str(builder)]
        + ["--work", str(tmp_path / "work"), *extra],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    started: set[int] = set()
    groups: dict[int, int | None] = {}
    # every command seen among its processes: a fault case may have stopped Redis by the time
    # the signal is sent (the `redis` case kills it), so it is looked for over the whole start
    seen: set[str] = set()
    try:
        deadline = time.monotonic() + 600
        # up: nginx (started last, in front of the replicas) runs among its processes
        while not any("nginx" in _command(pid) for pid in started):
            assert harness.poll() is None, f"{script} ended before its servers were up"
            assert time.monotonic() < deadline, f"{script}'s servers never came up"
            time.sleep(0.5)
            started = _descendants(harness.pid)
            seen |= {_command(pid) for pid in started}
        time.sleep(2)  # mid-run: a request or a case under way
        started = _descendants(harness.pid)
        groups = {pid: _group(pid) for pid in started}
        seen |= {_command(pid) for pid in started}
        assert any("redis-server" in command for command in seen)
        harness.send_signal(signum)
        out, _ = harness.communicate(timeout=120)
    finally:
        if harness.poll() is None:
            harness.kill()
            harness.wait()
    alive = _parents()
    left = {pid: _command(pid) for pid in started if pid in alive}
    # never leave them behind, even when the test fails: their whole process groups (nginx's
    # workers, uvicorn's), the harness's own group (this test's) excepted
    for group in {groups[pid] for pid in left if groups.get(pid)} - {os.getpgrp()}:
        with contextlib.suppress(OSError):
            os.killpg(group, signal.SIGKILL)
    assert left == {}, f"{script} left these running: {left}"
    assert harness.returncode == 128 + signum, out
    assert f"stopped by {signal.Signals(signum).name}" in out, out
