"""A full disk stops a build with one line naming what still serves (``DiskFull``), whichever
writer met it first: a step, Dagster's SQLite run storage or the catalog (the fault test's
``disk`` case runs a whole `aimi build` on a full tmpfs)."""

from __future__ import annotations

import errno
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest

from pipelines import build as build_module
from pipelines.build import BuildError, DiskFull, _full_disk_stops_the_run
from warehouse.paths import DataDir
from warehouse.snapshot import publish_snapshot


def test_a_full_disk_is_one_clear_error_naming_the_served_snapshot(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    served = publish_snapshot(
        data, {"signals": pl.DataFrame({"id": ["a"]})}, as_of=datetime(2026, 1, 1, tzinfo=UTC)
    )
    with pytest.raises(DiskFull) as caught, _full_disk_stops_the_run(data):
        try:
            raise OSError(errno.ENOSPC, "No space left on device")
        except OSError as exc:  # what Dagster's storage raises while handling it
            raise RuntimeError("could not record the step's failure") from exc
    message = str(caught.value)
    assert "No space left on device" in message
    assert f"CURRENT still names {served.snapshot_id}" in message
    assert str(tmp_path) not in message  # an admin refresh's answer carries it: no path
    assert "\n" not in message


def test_sqlite_disk_io_error_counts_only_when_the_disk_has_no_room(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = DataDir(tmp_path)
    io_error = sqlite3.OperationalError("disk I/O error")
    with pytest.raises(sqlite3.OperationalError), _full_disk_stops_the_run(data):
        raise io_error  # this disk has room: some other fault, raised as it is
    monkeypatch.setattr(build_module, "_free_bytes", lambda _data: 0)
    with pytest.raises(DiskFull, match="no snapshot was published"), _full_disk_stops_the_run(data):
        raise io_error


def test_other_errors_pass_through_unchanged(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    with pytest.raises(ValueError, match="a bug"), _full_disk_stops_the_run(data):
        raise ValueError("a bug")
    with pytest.raises(BuildError, match="step x"), _full_disk_stops_the_run(data):
        raise BuildError("build failed at step(s): step x: No space left on device")


def test_a_terminal_build_prints_each_error_without_its_stack_trace() -> None:
    """Dagster's record of a failed step, as its console logger writes it (one call): the
    terminal keeps the errors' lines, the run's event log the stack traces."""
    import io

    from pipelines.options import _StackTracesLeftOut

    record = (
        "2026-11-28 09:50:17 +0000 - dagster - ERROR - run - static_site - STEP_FAILURE - "
        'Execution of step "static_site" failed.\n\n'
        "dagster._core.errors.DagsterExecutionStepExecutionError: Error occurred while "
        'executing op "static_site"::\n\n'
        "RuntimeError: the static site for x failed: OSError: [Errno 28] No space left\n\n"
        "Stack Trace:\n"
        '  File "/x/dagster/_core/execution/plan/utils.py", line 57, in boundary\n'
        "    yield\n"
        '  File "/x/pipelines/publishing.py", line 193, in write_static_site\n'
        '    raise RuntimeError(f"the static site for {folder.name} failed: {tail}")\n'
        "\n"
    )
    out = io.StringIO()
    _StackTracesLeftOut(out).write(record)
    written = out.getvalue()
    assert "STEP_FAILURE" in written and "[Errno 28] No space left" in written
    assert "Stack Trace" not in written and 'File "' not in written
    plain = "2026-11-28 - dagster - INFO - snapshot - staged: 3 signals\n"
    _StackTracesLeftOut(out := io.StringIO()).write(plain)
    assert out.getvalue() == plain
