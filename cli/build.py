"""``aimi build``: materialize every Dagster asset (in-process, or on the multiprocess executor
with ``--processes N``) and publish a snapshot. Its
options, their checks and the run are ``python -m pipelines build``'s (``pipelines.options``);
``--demo`` is the one option of its own."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

import typer

from cli.common import DataDirOption, data_dir_of, echo
from pipelines.options import (
    AsOfOption,
    DecomposerOption,
    ProcessesOption,
    ReextractOption,
    WallClockOption,
    check_build,
    run_build,
)
from warehouse.paths import DataDir


def build(
    as_of: AsOfOption = None,
    demo: Annotated[
        bool,
        typer.Option("--demo", help="Fix the clock at the demo corpus's as_of (remembered)."),
    ] = False,
    wall_clock: WallClockOption = False,
    reextract: ReextractOption = False,
    decomposer: DecomposerOption = None,
    processes: ProcessesOption = 1,
    data_dir: DataDirOption = None,
) -> None:
    """Materialize every Dagster asset (in-process, or in --processes N) and publish a snapshot."""
    data = data_dir_of(data_dir)
    request = check_build(
        data,
        as_of,
        wall_clock=wall_clock,
        reextract=reextract,
        decomposer=decomposer,
        other_clock_options=("--demo",) if demo else (),
        processes=processes,
    )
    if demo:
        from demo import DEMO_AS_OF

        request = replace(request, as_of=DEMO_AS_OF)
    status = run_build(data, request)
    if status == 0:
        _deliver_in_background(data)
    raise typer.Exit(status)


def _deliver_in_background(data: DataDir) -> None:
    """After a publish, the watchlists' webhook deliveries in a process of their own: a slow or
    dead endpoint never holds up the build (docs/notifications.md)."""
    from publishing.webhooks import start_in_background

    process = start_in_background(data)
    if process is not None:
        echo(
            f"webhook deliveries started in the background (pid {process.pid}); `aimi watch list` "
            "shows how they went",
            err=True,
        )
