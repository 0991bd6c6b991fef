"""``aimi demo-data``: write the generated demo corpus (``demo``) into a data dir's inbox."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.common import DataDirOption, data_dir_of, echo


def demo_data(
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Folder to write to (default: inbox/demo in the data dir).",
            show_default=False,
        ),
    ] = None,
    if_absent: Annotated[
        bool,
        typer.Option("--if-absent", help="Do nothing when the data dir already has sources."),
    ] = False,
    data_dir: DataDirOption = None,
) -> None:
    """Write the generated demo corpus (deterministic) and its planted ground truth."""
    from demo import generate_demo_corpus
    from demo.files import GROUND_TRUTH_FILE, write_demo_corpus

    data = data_dir_of(data_dir)
    target = out or data.inbox / "demo"
    if if_absent and (data.table_path("sources").exists() or (target / GROUND_TRUTH_FILE).exists()):
        echo(f"demo data: {data.root} already has data; nothing written")
        return
    try:
        counts = write_demo_corpus(generate_demo_corpus(), target)
    except OSError as exc:
        echo(
            f"demo data: cannot write to {target} ({exc.strerror}); give --out a folder you "
            "can write",
            err=True,
        )
        raise typer.Exit(1) from None
    echo(
        f"demo data: {counts['records']} records and {counts['markdown']} Markdown documents "
        f"in {target} (ground truth: {target / GROUND_TRUTH_FILE})"
    )
