"""The build's command-line options, the checks on them and the run, declared once for both
entry points: ``aimi build`` (``cli.build``) and ``python -m pipelines build``
(``pipelines.__main__``). Importing this module imports no Dagster; ``run_build`` does.
"""

from __future__ import annotations

import contextlib
import logging
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from warehouse.clock import ClockFileError, effective_clock
from warehouse.paths import DataDir
from warehouse.settings import DecomposerChoice, llm_not_configured, load_settings, parse_as_of

LOG_FORMAT = "%(levelname)s %(name)s: %(message)s"

DataDirOption = Annotated[
    Path | None,
    typer.Option(
        "--data-dir", help="Data dir (default: AIMI_DATA_DIR or ./data).", show_default=False
    ),
]
AsOfOption = Annotated[
    str | None,
    typer.Option(
        "--as-of",
        help="Fix the clock: ISO 8601 date or date-time (UTC). The data dir remembers it: "
        "every later run (a build, a Dagster UI run, the schedule, the sensor, an admin "
        "refresh) keeps it until --as-of or --wall-clock changes it.",
    ),
]
WallClockOption = Annotated[
    bool,
    typer.Option(
        "--wall-clock", help="Forget the fixed clock: this and later runs use the wall clock."
    ),
]
ReextractOption = Annotated[
    bool,
    typer.Option(
        "--reextract",
        help="Decompose every signal with the current extractor, also sources ingested "
        "before 2026-04-28 (which otherwise keep their earlier extraction).",
    ),
]
DecomposerOption = Annotated[
    DecomposerChoice | None,
    typer.Option(
        "--decomposer",
        help="llm: decompose with the OpenAI-compatible endpoint of AIMI_LLM_BASE_URL and "
        "AIMI_LLM_MODEL (the kinds in AIMI_LLM_KINDS, every kind when unset); a signal "
        "whose answer fails or does not verify falls back to the deterministic extractor.",
        show_default="AIMI_DECOMPOSER, else deterministic",
    ),
]

ProcessesOption = Annotated[
    int,
    typer.Option(
        "--processes",
        min=1,
        help="Run the build's steps on Dagster's multiprocess executor, this many at a time, "
        "each in its own process; decomposition, theme tagging and unit embeddings each split "
        "into this many chunks, the cores shared between the processes' encoders. The same "
        "snapshot as 1 (the default: every step in this process, faster on two cores; "
        "docs/benchmarks.md).",
    ),
]


@dataclass(frozen=True)
class BuildRequest:
    """A build's options, checked: what ``run_build`` runs."""

    as_of: datetime | None = None
    wall_clock: bool = False
    reextract: bool = False
    decomposer: DecomposerChoice | None = None
    processes: int = 1


def check_build(
    data: DataDir,
    as_of: str | None,
    *,
    wall_clock: bool = False,
    reextract: bool = False,
    decomposer: DecomposerChoice | None = None,
    other_clock_options: tuple[str, ...] = (),
    processes: int = 1,
) -> BuildRequest:
    """The options checked before anything runs; ``typer.BadParameter`` (exit status 2) names
    the fix. ``other_clock_options``: the caller's own options that also set the clock and
    were given (``aimi build --demo``), so that only one of them all is."""
    given = [
        *(("--as-of",) if as_of is not None else ()),
        *other_clock_options,
        *(("--wall-clock",) if wall_clock else ()),
    ]
    if len(given) > 1:
        raise typer.BadParameter(f"{' and '.join(given)} each set the clock: give only one of them")
    try:
        parsed = parse_as_of(as_of) if as_of is not None else None
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--as-of") from None
    settings = load_settings()
    if wall_clock:
        try:
            clock = effective_clock(data, settings=settings)
        except ClockFileError:
            clock = None  # --wall-clock is the fix for an unreadable clock file
        if clock is not None and clock.source == "environment":
            assert clock.as_of is not None
            raise typer.BadParameter(
                f"AIMI_AS_OF is set ({clock.as_of.isoformat()}) and overrides any clock: unset "
                "it to build on the wall clock",
                param_hint="--wall-clock",
            )
    if (decomposer or settings.decomposer) == "llm":
        problem = llm_not_configured(settings)
        if problem is not None:
            raise typer.BadParameter(problem, param_hint="--decomposer / AIMI_DECOMPOSER")
    if processes < 1:
        raise typer.BadParameter(
            f"{processes} is not a number of processes", param_hint="--processes"
        )
    return BuildRequest(parsed, wall_clock, reextract, decomposer, processes)


def run_build(data: DataDir, request: BuildRequest) -> int:
    """Materialize every asset in-process and publish a snapshot; print what was published.
    Returns the exit status: 0, or 1 when the build failed (the reason on stderr)."""
    from pipelines.build import BuildError, build

    logging.basicConfig(level=logging.WARNING, format=LOG_FORMAT)
    try:
        with _without_stack_traces():
            opened = build(
                data,
                as_of=request.as_of,
                log_level="INFO",
                force_reextract=request.reextract,
                decomposer=request.decomposer,
                wall_clock=request.wall_clock,
                processes=request.processes,
            )
    except BuildError as exc:
        sys.stderr.write(f"aimi build: {exc}\n")
        return 1
    counts = ", ".join(f"{name} {e.rows:,}" for name, e in opened.manifest.tables.items())
    sys.stdout.write(
        f"published snapshot {opened.snapshot_id} (as_of {opened.manifest.as_of:%Y-%m-%d %H:%M}Z): "
        f"{counts}\n"
    )
    return 0


# a Dagster log record's stack trace: "Stack Trace:" and the indented lines after it
_STACK_TRACE = re.compile(r"\n*Stack Trace:\n(?:[ \t]+[^\n]*\n?)*")


class _StackTracesLeftOut:
    """stderr for a terminal build: Dagster's console logger writes each record in one call
    (it looks ``sys.stderr`` up every time), and a failed step's record carries the stack
    trace of every exception in its chain. The run's event log keeps them (the Dagster UI's
    run page); the terminal gets each error's own line, and the build's last line says why it
    stopped."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(_STACK_TRACE.sub("\n", text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def _without_stack_traces() -> Iterator[None]:
    stderr = sys.stderr
    sys.stderr = _StackTracesLeftOut(stderr)
    try:
        yield
    finally:
        sys.stderr = stderr
