"""What the ``aimi`` command modules share: the data dir option (the one ``python -m pipelines``
takes too), output, the reviewer's name."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from pipelines.options import DataDirOption
from warehouse.paths import DataDir

__all__ = ["DataDirOption", "data_dir_of", "echo", "reviewer"]


def data_dir_of(data_dir: Path | None) -> DataDir:
    return DataDir.from_env(data_dir)


def echo(message: str, *, err: bool = False) -> None:
    typer.echo(message, err=err)


def reviewer() -> str:
    """Who takes a review decision: the login name."""
    return os.environ.get("USER") or os.environ.get("USERNAME") or "unknown"
