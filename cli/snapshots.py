"""``aimi snapshots``: list the snapshots a data dir keeps, roll ``CURRENT`` back to a verified
one, prune old ones (``warehouse.snapshot_history``)."""

from __future__ import annotations

import json
from functools import partial
from typing import Annotated

import typer

from cli.common import DataDirOption, data_dir_of, echo
from warehouse.snapshot import SnapshotError
from warehouse.snapshot_history import list_snapshots, prune, rollback

snapshots_app = typer.Typer(
    help="The snapshots a data dir keeps: list, roll back to one, prune old ones, push the "
    "current one to the object store (AIMI_SNAPSHOT_STORE).",
    no_args_is_help=True,
)


@snapshots_app.command("list")
def snapshots_list(
    as_json: Annotated[bool, typer.Option("--json", help="Print them as JSON.")] = False,
    data_dir: DataDirOption = None,
) -> None:
    """Every snapshot, oldest first: id, as_of, built_at, signals, units, size; the current
    one marked `*`, one written but not published marked `staged`."""
    found = list_snapshots(data_dir_of(data_dir))
    if as_json:
        rows = [
            {
                "snapshot_id": s.snapshot_id,
                "as_of": s.as_of.isoformat() if s.as_of else None,
                "built_at": s.built_at.isoformat() if s.built_at else None,
                "rows": s.rows,
                "bytes": s.bytes,
                "current": s.current,
                "staged": s.staged,
                "problem": s.problem,
            }
            for s in found
        ]
        echo(json.dumps(rows, indent=2))
        return
    if not found:
        echo("no snapshots yet: run `aimi build`")
        return
    for s in found:
        mark = "*" if s.current else " "
        if s.problem is not None:
            echo(f"{mark} {s.snapshot_id}  unreadable: {s.problem}")
            continue
        assert s.as_of is not None and s.built_at is not None
        note = "  staged, not published" if s.staged and not s.current else ""
        echo(
            f"{mark} {s.snapshot_id}  as_of {s.as_of:%Y-%m-%d}  built {s.built_at:%Y-%m-%d %H:%M}Z"
            f"  signals {s.rows.get('signals', 0):,}  units {s.rows.get('units', 0):,}"
            f"  {s.bytes / 1e6:,.1f} MB{note}"
        )


@snapshots_app.command("rollback")
def snapshots_rollback(
    snapshot_id: Annotated[str, typer.Argument(help="The snapshot to serve again.")],
    data_dir: DataDirOption = None,
) -> None:
    """Serve an earlier snapshot again, after verifying every table and file of it; a running
    API swaps to it within seconds, as to a new one. The next build publishes over it. With
    AIMI_SNAPSHOT_STORE, the store's CURRENT moves too, and every replica follows."""
    from warehouse.object_store import open_object_store, push_snapshot
    from warehouse.s3 import ObjectStoreError
    from warehouse.settings import load_settings

    data = data_dir_of(data_dir)
    # a server with the store set follows the store's pointer: the store moves first, so that
    # no poll during the upload brings this data dir back to the store's snapshot
    store = open_object_store(load_settings().snapshot_store)
    try:
        rollback(
            data,
            snapshot_id,
            before_switch=None if store is None else partial(push_snapshot, store),
        )
    except SnapshotError as exc:
        echo(f"aimi snapshots rollback: {exc}", err=True)
        raise typer.Exit(1) from None
    except ObjectStoreError as exc:
        echo(f"aimi snapshots rollback: not rolled back: {exc}", err=True)
        raise typer.Exit(1) from None
    if store is not None:
        echo(f"{store.url}: CURRENT → {snapshot_id}")
    echo(f"CURRENT → {snapshot_id}")


@snapshots_app.command("prune")
def snapshots_prune(
    keep: Annotated[
        int, typer.Option("--keep", min=1, help="How many of the newest snapshots to keep.")
    ],
    data_dir: DataDirOption = None,
) -> None:
    """Delete all but the newest KEEP snapshots, never the current one (no reader needs an
    old snapshot: cursors are positions valid on any snapshot)."""
    try:
        removed = prune(data_dir_of(data_dir), keep)
    except SnapshotError as exc:
        echo(f"aimi snapshots prune: {exc}", err=True)
        raise typer.Exit(1) from None
    echo(f"removed {len(removed)} snapshot(s)" + "".join(f"\n  {sid}" for sid in removed))


@snapshots_app.command("push")
def snapshots_push(data_dir: DataDirOption = None) -> None:
    """Upload the current snapshot to the object store AIMI_SNAPSHOT_STORE names (verified
    first; a snapshot already there is not sent again, and a large file the store's current
    snapshot has is copied there, not sent) and point the store's CURRENT at it: the replicas
    pull it within a poll. A build and a rollback publish there by themselves; push
    to seed a new store, or after an upload that failed."""
    from warehouse.object_store import open_object_store, push_snapshot
    from warehouse.s3 import ObjectStoreError
    from warehouse.settings import load_settings
    from warehouse.snapshot import open_current

    store = open_object_store(load_settings().snapshot_store)
    if store is None:
        echo("aimi snapshots push: set AIMI_SNAPSHOT_STORE=s3://bucket/prefix first", err=True)
        raise typer.Exit(1)
    try:
        opened = open_current(data_dir_of(data_dir))
        if opened is None:
            echo("aimi snapshots push: nothing is published yet: run `aimi build`", err=True)
            raise typer.Exit(1)
        sent = push_snapshot(store, opened)
    except (SnapshotError, ObjectStoreError) as exc:
        echo(f"aimi snapshots push: {exc}", err=True)
        raise typer.Exit(1) from None
    copied = f", {sent.copied} copied in the store" if sent.copied else ""
    echo(
        f"{store.url}: CURRENT → {opened.snapshot_id} ({sent.files} files, "
        f"{sent.bytes / 1e6:,.1f} MB sent{copied} in {sent.seconds:.1f} s)"
    )
