"""What the ``aimi`` command modules share: the data dir option, output, the reviewer's name."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from warehouse.paths import DataDir

DataDirOption = Annotated[
    Path | None,
    typer.Option(
        "--data-dir", help="Data dir (default: AIMI_DATA_DIR or ./data).", show_default=False
    ),
]


def data_dir_of(data_dir: Path | None) -> DataDir:
    return DataDir.from_env(data_dir)


def echo(message: str, *, err: bool = False) -> None:
    typer.echo(message, err=err)


def reviewer() -> str:
    """Who takes a review decision: the login name."""
    return os.environ.get("USER") or os.environ.get("USERNAME") or "unknown"
