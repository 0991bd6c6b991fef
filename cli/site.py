"""``aimi site export DIR``: copy the current snapshot's static JSON tree and market-pulse site
to a folder, for any static host or CDN."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Annotated

import typer

from cli.common import DataDirOption, data_dir_of, echo

site_app = typer.Typer(
    help="The static market-pulse site and JSON tree each snapshot publishes.",
    no_args_is_help=True,
)


@site_app.command("export")
def export(
    out: Annotated[Path, typer.Argument(metavar="DIR", help="Folder to write to: new or empty.")],
    data_dir: DataDirOption = None,
) -> None:
    """Copy the current snapshot's site (HTML pages, `site.css`, the Pagefind index) and its
    JSON tree (`json/v1/…`, byte-identical to the API's answers) into DIR, after verifying the
    snapshot's checksums. Exit status 1 when there is no snapshot with a site, 2 when DIR is
    not empty."""
    from warehouse.snapshot import SITE_DIR, SnapshotError, open_current

    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        echo(f"{out} exists and is not an empty folder; give a new or empty one", err=True)
        raise typer.Exit(2)
    try:
        opened = open_current(data_dir_of(data_dir), verify=True)
    except SnapshotError as exc:
        echo(f"site export: {exc}", err=True)
        raise typer.Exit(1) from None
    if opened is None or not (opened.path / SITE_DIR).is_dir():
        echo("no published snapshot has a site yet: run `aimi build`", err=True)
        raise typer.Exit(1)
    site = opened.path / SITE_DIR
    shutil.copytree(site, out, dirs_exist_ok=True)
    files = sum(1 for path in out.rglob("*") if path.is_file())
    echo(f"site export: {files} files of snapshot {opened.snapshot_id} in {out}")
    echo(f"  open {out / 'index.html'}; search needs it served over HTTP")
