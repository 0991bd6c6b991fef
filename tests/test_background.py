"""The suite's background work (``tests/background.py``): started once, waited on by any process
that reads its folder, its failure reported with its output, stopped with its whole group."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from tests.background import Background, BackgroundError


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_any_reader_of_the_folder_gets_the_output_once_it_has_finished(tmp_path: Path) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    Background.start(folder, _python("import time; time.sleep(0.5); print('built')"))
    assert not (folder / "status").exists()  # the start returned before the work finished
    # another process of the session knows only the folder
    assert Background(folder).wait(timeout=30).strip() == "built"
    assert (folder / "status").read_text(encoding="utf-8").strip() == "0"


def test_a_failure_carries_the_exit_status_and_the_output(tmp_path: Path) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    work = Background.start(folder, _python("import sys; print('no room'); sys.exit(3)"))
    with pytest.raises(BackgroundError, match=r"exited with 3:\nno room"):
        work.wait(timeout=30)


def test_waiting_past_the_timeout_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    work = Background.start(folder, _python("import time; time.sleep(30)"))
    try:
        with pytest.raises(BackgroundError, match="did not finish in 0 s"):
            work.wait(timeout=0.3)
    finally:
        work.stop()


def test_stop_kills_the_whole_group_and_a_second_stop_is_harmless(tmp_path: Path) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    # the command starts a grandchild of its own: the stop must reach it too
    pid_file = tmp_path / "grandchild.pid"
    code = (
        "import subprocess, sys, time; "
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        f"open({str(pid_file)!r}, 'w').write(str(p.pid)); time.sleep(60)"
    )
    work = Background.start(folder, _python(code))
    deadline = time.monotonic() + 30
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline, "the grandchild never started"
        time.sleep(0.05)
    grandchild = int(pid_file.read_text())
    work.stop()
    deadline = time.monotonic() + 10
    while _alive(grandchild):
        assert time.monotonic() < deadline, "the grandchild outlived the stop"
        time.sleep(0.05)
    work.stop()
    Background(tmp_path / "never-started").stop()


def test_the_work_keeps_the_session_and_takes_its_priority(tmp_path: Path) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    code = "import os; print(os.getsid(0), os.nice(0))"
    session, niceness = Background.start(folder, _python(code), nice=5).wait(30).split()
    assert int(session) == os.getsid(0)  # a new session would be an autogroup of its own
    assert int(niceness) == min(os.nice(0) + 5, 19)  # 19 is the lowest priority there is


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
            return fh.read().split()[2] != "Z"  # a zombie has been killed, not yet reaped
    except FileNotFoundError:
        return False
