"""Work the suite starts in other processes as soon as it knows it will need it, so it runs on
the second core while the tests that do not need it run on the first: the demo snapshot's build
(about two minutes) and ``mypy --strict`` (about a minute).

``python -m tests.background demo DIR`` builds the demo snapshot into the data dir ``DIR``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class BackgroundError(RuntimeError):
    """The background command failed; the message carries its output."""


class Background:
    """One command running in its own process, its output kept in a file."""

    def __init__(self, name: str, command: list[str], *, env: dict[str, str] | None = None) -> None:
        self.name = name
        self.command = command
        self.log = Path(tempfile.mkstemp(prefix=f"aimi-{name}-", suffix=".log")[1])
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(
                command,
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, **(env or {})},
            )

    def wait(self, timeout: float = 1200) -> str:
        """Its output, once it has finished; ``BackgroundError`` when it failed."""
        code = self.process.wait(timeout=timeout)
        output = self.log.read_text(encoding="utf-8", errors="replace")
        if code != 0:
            raise BackgroundError(f"{self.name} exited with {code}:\n{output[-6000:]}")
        return output

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.log.unlink(missing_ok=True)


def start_demo_build(data_root: Path) -> Background:
    # one torch thread: the other core runs the rest of the suite meanwhile (two threads
    # spinning against a busy core are slower than one)
    return Background(
        "demo-build",
        [sys.executable, "-m", "tests.background", "demo", str(data_root)],
        env={"OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"},
    )


def start_mypy() -> Background:
    return Background("mypy", [str(Path(sys.executable).parent / "mypy")])


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


if __name__ == "__main__":
    if sys.argv[1:2] != ["demo"] or len(sys.argv) != 3:
        sys.exit("usage: python -m tests.background demo DATA_DIR")
    build_demo(Path(sys.argv[2]))
