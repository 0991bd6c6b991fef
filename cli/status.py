"""``aimi status``: what a data dir serves and why — the current snapshot and its counts, the
clock the next run will use, and the last build or refresh with its checks (docs/design.md §10)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Annotated, Any

import typer

from cli.common import DataDirOption, data_dir_of, echo
from publishing.watch import WatchError, WatchStore, delivery_line
from warehouse.build_record import read_build_record
from warehouse.clock import ClockFileError, effective_clock
from warehouse.paths import DataDir
from warehouse.snapshot import (
    SnapshotError,
    current_snapshot_id,
    open_current,
    staged_snapshot_id,
)


def status_report(data: DataDir) -> dict[str, Any]:
    """Everything ``aimi status`` shows, as plain data (``--json`` prints it as is)."""
    return {
        "data_dir": str(data.root),
        "snapshot": _snapshot(data),
        "staged_unpublished": _staged_unpublished(data),
        "clock": _clock(data),
        "last_build": _last_build(data),
        "watchlists": _watchlists(data),
    }


def _watchlists(data: DataDir) -> list[dict[str, Any]] | dict[str, str]:
    """Each watchlist's state and last delivery (``aimi watch``), secrets left out."""
    try:
        items = WatchStore(data).list()
    except WatchError as exc:
        return {"error": str(exc)}
    return [
        {
            "name": item.name,
            "state": item.state,
            "last_delivery": None if item.last_delivery is None else item.last_delivery.to_json(),
            # a dead letter, or a batch waiting for its next attempt: what the operator acts on
            "dead": None if item.dead is None else item.dead.to_json(),
            "pending": None if item.pending is None else item.pending.to_json(),
        }
        for item in items
    ]


def _snapshot(data: DataDir) -> dict[str, Any] | None:
    try:
        # a report: the sizes and checksums were verified when the snapshot was published
        opened = open_current(data, verify=False)
    except SnapshotError as exc:
        return {"error": str(exc)}
    if opened is None:
        return None
    manifest = opened.manifest
    return {
        "id": manifest.snapshot_id,
        "as_of": manifest.as_of.isoformat(),
        "built_at": manifest.built_at.isoformat(),
        "rows": {name: entry.rows for name, entry in manifest.tables.items()},
    }


def _staged_unpublished(data: DataDir) -> str | None:
    """The snapshot written last when ``CURRENT`` does not name it (a build that stopped, or
    whose checks failed, between writing and publishing)."""
    staged = staged_snapshot_id(data)
    return staged if staged and staged != current_snapshot_id(data) else None


def _clock(data: DataDir) -> dict[str, Any]:
    """The clock a run started now would take (``warehouse.clock.effective_clock``)."""
    try:
        clock = effective_clock(data)
    except ClockFileError as exc:
        return {"mode": "error", "error": str(exc)}
    if clock.as_of is None:
        return {"mode": "wall"}
    if clock.pinned is None:
        return {"mode": clock.source, "as_of": clock.as_of.isoformat()}
    return {
        "mode": clock.source,
        "as_of": clock.as_of.isoformat(),
        "pinned_at": clock.pinned.pinned_at.isoformat(),
        "by": clock.pinned.by,
    }


def _last_build(data: DataDir) -> dict[str, Any] | None:
    record = read_build_record(data)
    return None if record is None else asdict(record)


def render_status(report: dict[str, Any]) -> str:
    lines = [f"data dir    {report['data_dir']}"]
    snapshot = report["snapshot"]
    if snapshot is None:
        lines.append("snapshot    none published yet: run `aimi build`")
    elif "error" in snapshot:
        lines.append(f"snapshot    unreadable: {snapshot['error']}")
    else:
        when = f"as_of {snapshot['as_of']}, built {snapshot['built_at']}"
        lines.append(f"snapshot    {snapshot['id']} ({when})")
        rows = snapshot["rows"]
        for name in ("signals", "units", "search_units", "entity_profiles", "theme_profiles"):
            if name in rows:
                lines.append(f"            {name:<16} {rows[name]:>10,}")
    if report["staged_unpublished"]:
        lines.append(
            f"staged      {report['staged_unpublished']} was written but not published "
            "(see the last build)"
        )
    lines.append("clock       " + _clock_line(report["clock"]))
    lines.append("last build  " + _build_line(report["last_build"]))
    watchlists = report["watchlists"]
    if isinstance(watchlists, dict):
        lines.append(f"watchlists  unreadable: {watchlists['error']}")
    for item in watchlists if isinstance(watchlists, list) else []:
        last = delivery_line(item["last_delivery"])
        lines.append(f"watch       {item['name']} ({item['state']}): {last}")
        dead = item.get("dead")
        if dead:
            lines.append(
                f"            dead letter: batch {dead['batch_id']} ({dead['signals']} signals) "
                f"after {dead['attempts']} attempts: {dead['error']}; "
                f"`aimi watch retry {item['name']}` sends it again"
            )
        elif item.get("pending") and item["pending"].get("next_attempt_at"):
            pending = item["pending"]
            lines.append(
                f"            waiting: {pending['attempts']} attempts, last error "
                f"{pending['error']}; next attempt {pending['next_attempt_at']}"
            )
    return "\n".join(lines)


def _clock_line(clock: dict[str, Any]) -> str:
    mode = clock["mode"]
    if mode == "environment":
        return f"{clock['as_of']} from AIMI_AS_OF (overrides the data dir's clock)"
    if mode == "pinned":
        return (
            f"{clock['as_of']}, pinned by `{clock['by']}` at {clock['pinned_at']}: every run "
            "keeps it; `aimi build --wall-clock` returns to the wall clock"
        )
    if mode == "error":
        return f"unreadable: {clock['error']}"
    return "the wall clock (pin one with `aimi build --as-of DATE`)"


def _build_line(build: dict[str, Any] | None) -> str:
    if build is None:
        return "none recorded (builds by `aimi build` and admin refreshes are)"
    checks = build["checks"]
    failed = [check["name"] for check in checks if not check["passed"]]
    outcome = "succeeded" if build["success"] else f"FAILED: {build['error']}"
    summary = f"{len(checks) - len(failed)} of {len(checks)} checks passed"
    if failed:
        summary += f" (failed: {', '.join(failed)})"
    return (
        f"{build['kind']} {build['started_at']} → {build['finished_at']}, as_of "
        f"{build['as_of']}: {outcome}; {summary}"
    )


def status(
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    data_dir: DataDirOption = None,
) -> None:
    """The current snapshot and its counts, the clock the next run uses, and the last build
    or refresh with its checks."""
    report = status_report(data_dir_of(data_dir))
    echo(json.dumps(report, indent=2) if as_json else render_status(report))
