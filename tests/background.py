"""Work the suite starts in other processes as soon as it knows it will need it, so it runs on
the second core while the tests that do not need it run on the first: the demo snapshot's build
(about two minutes), the build of real AINews records when ``../shared`` is present (about
two), and ``mypy --strict`` (about a minute).

``python -m tests.background demo DIR`` builds the demo snapshot into the data dir ``DIR``;
``python -m tests.background real SHARED_DATA DIR`` ingests the first ``REAL_RECORDS`` AINews
2025 records into ``DIR`` and builds them, writing the ingest report to ``DIR/ingest.json``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Real records, not all of them: a cold build of the whole file (6,236 signals) takes about 5
# minutes on a quiet 2-core machine, a third of the suite's budget. The two tests that read the
# build check properties of any size (every record paged through exactly once, profiles equal to
# a recount of the cards; the editors' labels never change a story), so the first 500 records
# (two weeks of issues, stories of several posts among them) go through every stage for about a
# third of what 1,500 cost (issue 28: the suite on slower machines).
REAL_RECORDS = 500
REAL_AS_OF = "2026-01-01"
INGEST_REPORT = "ingest.json"
DEMO_BUILD_REPORT = "demo-build.json"
_ONE_THREAD = {"OMP_NUM_THREADS": "1", "AIMI_BUILD_THREADS": "1", "HF_HUB_OFFLINE": "1"}


class BackgroundError(RuntimeError):
    """The background command failed; the message carries its output."""


class Background:
    """One command running detached in its own process group, kept in a folder of the session's
    board (``tests/conftest.py``): its output (``log``), its process group (``pgid``) and, once
    it has finished, its exit status (``status``). Any process of the session may wait on it —
    under pytest-xdist the worker that needs it first starts it and every worker reads the same
    folder — and the process that owns the board stops it at the session's end.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.name = folder.name
        self.log = folder / "log"

    @classmethod
    def start(
        cls,
        folder: Path,
        command: list[str],
        *,
        env: dict[str, str] | None = None,
        nice: int = 0,
    ) -> Background:
        """Start ``command`` for the folder ``folder`` (which the caller has just created: its
        creation is the claim that no other process starts the same work)."""
        work = cls(folder)
        status = folder / "status"
        # the outer shell returns at once; the subshell that runs the command and then records
        # its status outlives it, so no process of the session holds a child it must reap
        script = (
            '( "$@" > "$AIMI_BG_LOG" 2>&1; echo $? > "$AIMI_BG_STATUS.part"; '
            'mv "$AIMI_BG_STATUS.part" "$AIMI_BG_STATUS" ) < /dev/null &'
        )
        launcher = subprocess.Popen(
            ["sh", "-c", script, "sh", *command],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            env={
                **os.environ,
                **(env or {}),
                "AIMI_BG_LOG": str(work.log),
                "AIMI_BG_STATUS": str(status),
            },
            # the subshell and the command share its process group (not a new session: the
            # scheduler's autogroups are per session, and the priority below must count)
            process_group=0,
            # a lower priority lets the work the tests wait on first have the cores first
            preexec_fn=(lambda: os.nice(nice)) if nice else None,
        )
        (folder / "pgid").write_text(str(launcher.pid), encoding="utf-8")
        launcher.wait()
        return work

    def wait(self, timeout: float = 1200) -> str:
        """Its output, once it has finished; ``BackgroundError`` when it failed or did not
        finish within ``timeout`` seconds."""
        status = self.folder / "status"
        deadline = time.monotonic() + timeout
        while not status.exists():
            if time.monotonic() > deadline:
                raise BackgroundError(f"{self.name} did not finish in {timeout:.0f} s")
            time.sleep(0.2)
        code = int(status.read_text(encoding="utf-8"))
        output = self.log.read_text(encoding="utf-8", errors="replace")
        if code != 0:
            raise BackgroundError(f"{self.name} exited with {code}:\n{output[-6000:]}")
        return output

    def stop(self) -> None:
        """Kill it if it is still running (its whole process group)."""
        try:
            pgid = int((self.folder / "pgid").read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)


def start_demo_build(folder: Path) -> Background:
    # one encoder thread: the other core runs the rest of the suite meanwhile (two threads
    # spinning against a busy core are slower than one)
    return Background.start(
        folder,
        [sys.executable, "-m", "tests.background", "demo", str(folder / "data")],
        env=_ONE_THREAD,
    )


def start_real_build(shared_data: Path, folder: Path) -> Background:
    # the one test that needs it runs last: it takes whatever the other work leaves
    return Background.start(
        folder,
        [sys.executable, "-m", "tests.background", "real", str(shared_data), str(folder / "data")],
        env=_ONE_THREAD,
        nice=10,
    )


def start_mypy(folder: Path) -> Background:
    return Background.start(folder, [str(Path(sys.executable).parent / "mypy")], nice=5)


def build_demo(data_root: Path) -> None:
    """Write the demo corpus into the inbox of ``data_root`` and build its snapshot through the
    pipeline, with the demo's pinned clock."""
    from demo import DEMO_AS_OF, generate_demo_corpus
    from demo.files import write_demo_corpus
    from pipelines.build import build
    from warehouse.paths import DataDir

    data = DataDir(data_root)
    write_demo_corpus(generate_demo_corpus(), data.inbox / "demo")
    build(data, as_of=DEMO_AS_OF, persistent=False)
    # what the build's process held at its end, for the tests that check how it built (beside
    # the data dir, not in it)
    report = {"torch_imported": "torch" in sys.modules}
    (data_root.parent / DEMO_BUILD_REPORT).write_text(json.dumps(report), encoding="utf-8")


def build_real(shared_data: Path, data_root: Path) -> None:
    """Ingest the first ``REAL_RECORDS`` AINews 2025 records (through a temporary file beside
    the data dir, never in the project) and build them with the clock at ``REAL_AS_OF``."""
    from itertools import islice

    from pipelines.build import build
    from warehouse.ingest import ingest_paths
    from warehouse.paths import DataDir
    from warehouse.settings import parse_as_of

    with (shared_data / "ainews" / "ainews-2025.jsonl").open(encoding="utf-8") as fh:
        lines = list(islice((line for line in fh if line.strip()), REAL_RECORDS))
    data = DataDir(data_root)
    data.root.mkdir(parents=True, exist_ok=True)
    source = data.root.parent / "ainews-2025-head.jsonl"
    source.write_text("".join(lines), encoding="utf-8")
    report = ingest_paths(data, [source], progress=False)
    summary = {"inserted": report.inserted, "quarantined": len(report.quarantined)}
    (data.root / INGEST_REPORT).write_text(json.dumps(summary), encoding="utf-8")
    build(data, as_of=parse_as_of(REAL_AS_OF), persistent=False)


if __name__ == "__main__":
    match sys.argv[1:]:
        case ["demo", data_root]:
            build_demo(Path(data_root))
        case ["real", shared_data, data_root]:
            build_real(Path(shared_data), Path(data_root))
        case _:
            sys.exit("usage: python -m tests.background demo DATA_DIR | real SHARED_DATA DATA_DIR")
