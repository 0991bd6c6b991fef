"""``python -m pipelines build [--as-of ISO | --wall-clock] [--data-dir DIR] [--reextract]
[--decomposer deterministic|llm]``: the build ``aimi build`` runs, with the same options and
checks (``pipelines.options``);
``python -m pipelines refresh [--as-of ISO] [--data-dir DIR]``: what ``POST /v1/admin/refresh``
runs in a child interpreter, printing its report as one JSON line (exit status 75 when another
build is running), so that the API process never imports Dagster.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from typing import Annotated

import typer

from pipelines.options import (
    LOG_FORMAT,
    AsOfOption,
    DataDirOption,
    DecomposerOption,
    ProcessesOption,
    ReextractOption,
    WallClockOption,
    check_build,
    run_build,
)
from warehouse.paths import DataDir
from warehouse.settings import parse_as_of

app = typer.Typer(
    help="Materialize the asset graph in-process and publish a snapshot.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.command()
def build(
    as_of: AsOfOption = None,
    wall_clock: WallClockOption = False,
    reextract: ReextractOption = False,
    decomposer: DecomposerOption = None,
    processes: ProcessesOption = 1,
    data_dir: DataDirOption = None,
) -> None:
    """Materialize every asset and publish a snapshot (what `aimi build` runs)."""
    data = DataDir.from_env(data_dir)
    request = check_build(
        data,
        as_of,
        wall_clock=wall_clock,
        reextract=reextract,
        decomposer=decomposer,
        processes=processes,
    )
    raise typer.Exit(run_build(data, request))


@app.command()
def refresh(
    as_of: Annotated[
        str | None,
        typer.Option(
            "--as-of", help="The run's clock: ISO 8601 date or date-time (UTC); not remembered."
        ),
    ] = None,
    data_dir: DataDirOption = None,
) -> None:
    """Re-materialize the derived views and new embeddings, then publish (what `POST
    /v1/admin/refresh` runs)."""
    from pipelines.build import BuildBusy, BuildError
    from pipelines.build import refresh as refresh_views

    logging.basicConfig(level=logging.WARNING, format=LOG_FORMAT)

    try:
        fixed = parse_as_of(as_of) if as_of is not None else None
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--as-of") from None
    try:
        report = refresh_views(DataDir.from_env(data_dir), as_of=fixed)
    except BuildBusy as exc:
        sys.stderr.write(f"aimi refresh: {exc}\n")
        raise typer.Exit(os.EX_TEMPFAIL) from None
    except BuildError as exc:
        sys.stderr.write(f"aimi refresh: {exc}\n")
        raise typer.Exit(1) from None
    snapshot = report.snapshot
    line = {
        "views": list(report.views),
        "units_embedded": report.units_embedded,
        "snapshot": {
            "id": snapshot.snapshot_id,
            "as_of": snapshot.manifest.as_of.isoformat(),
            "built_at": snapshot.manifest.built_at.isoformat(),
        },
    }
    sys.stdout.write(json.dumps(line) + "\n")


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns its exit status (2 for options it refuses)."""
    try:
        app(args=argv, prog_name="python -m pipelines")
    except SystemExit as stopped:
        code = stopped.code
        return code if isinstance(code, int) else 0 if code is None else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
