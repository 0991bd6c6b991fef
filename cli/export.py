"""``aimi export --format parquet|csv|jsonl DIR``: the current snapshot's served tables as files,
with a README of their columns and an index of sizes and checksums (``publishing.export``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from cli.common import DataDirOption, data_dir_of, echo

# publishing.export.FORMATS, spelled out: importing publishing.export here would load the service
# (and polars) on every `aimi` command; tests/cli/test_export.py holds the two equal
Format = Literal["parquet", "csv", "jsonl"]


def export(
    out: Annotated[Path, typer.Argument(metavar="DIR", help="Folder to write to: new or empty.")],
    fmt: Annotated[Format, typer.Option("--format", help="File format of the tables.")] = "parquet",
    data_dir: DataDirOption = None,
) -> None:
    """Write the current snapshot's served tables (signals, units with their evidence,
    entities, themes, trends) into DIR as `<table>.<format>`, with `README.md` (every column)
    and `index.json` (the snapshot, each file's rows, bytes and SHA-256). Every row is the
    API's own object. Exit status 1 when no snapshot is published, 2 for an unknown format or a DIR
    that is not empty."""
    from tqdm import tqdm

    from publishing.export import (
        EXPORT_TABLES,
        INDEX_FILE,
        README_FILE,
        ExportError,
        ExportSource,
        export_files,
        index_body,
        readme,
    )
    from readmodel.store import LoadedSnapshot
    from warehouse.snapshot import SnapshotError, open_current

    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        echo(f"export: {out} exists and is not an empty folder; give a new or empty one", err=True)
        raise typer.Exit(2)
    try:
        opened = open_current(data_dir_of(data_dir), verify=True)
    except SnapshotError as exc:
        echo(f"export: {exc}", err=True)
        raise typer.Exit(1) from None
    if opened is None:
        echo("export: no snapshot is published yet: run `aimi build`", err=True)
        raise typer.Exit(1)
    source = ExportSource(LoadedSnapshot.from_opened(opened), opened)
    out.mkdir(parents=True, exist_ok=True)
    files = []
    with tqdm(
        total=len(EXPORT_TABLES), desc="export", unit="table", leave=False, disable=None
    ) as bar:
        try:
            for item in export_files(source, [fmt], on_table=lambda _: bar.update()):
                (out / item.name).write_bytes(item.body)
                files.append(item)
        except ExportError as exc:
            echo(f"export: {exc}", err=True)
            raise typer.Exit(1) from None
    (out / README_FILE).write_bytes(readme())
    (out / INDEX_FILE).write_bytes(index_body(source, files))
    for item in files:
        echo(f"  {item.name:<20} {item.rows:>9,} rows {len(item.body):>12,} bytes")
    echo(f"export: {len(files)} tables of snapshot {opened.snapshot_id} in {out} ({fmt})")
