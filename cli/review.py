"""``aimi review``: human review of units — list the pending ones, approve, reject; decisions
go to the data dir's reviews file (``warehouse.reviews``) and apply at the next build."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from analytics.schema import ReviewDecision, UnitRole
from cli.common import DataDirOption, data_dir_of, echo, reviewer

review_app = typer.Typer(
    help="Human review of units: list pending, approve, reject (applied at the next build).",
    no_args_is_help=True,
)


@review_app.command("list")
def review_list(
    limit: Annotated[int, typer.Option(min=1, help="How many to show.")] = 20,
    signal: Annotated[str | None, typer.Option(help="Only units of this signal_id.")] = None,
    role: Annotated[UnitRole | None, typer.Option(help="Only units of this role.")] = None,
    data_dir: DataDirOption = None,
) -> None:
    """Units no one has reviewed yet, newest signals first."""
    import polars as pl

    from analytics.review import latest_decisions
    from analytics.schema import SIGNALS, UNITS
    from warehouse.reviews import read_reviews
    from warehouse.tables import read_table

    data = data_dir_of(data_dir)
    units = read_table(data, "units", UNITS)
    if units.is_empty():
        echo("no units yet: ingest sources and run `aimi build` first", err=True)
        raise typer.Exit(1)
    decided = latest_decisions(read_reviews(data)).select("unit_id")
    pending = units.join(decided, on="unit_id", how="anti").join(
        read_table(data, "signals", SIGNALS).select("signal_id", "title", "published_at"),
        on="signal_id",
    )
    if signal:
        pending = pending.filter(pl.col("signal_id") == signal)
    if role:
        pending = pending.filter(pl.col("role") == role)
    pending = pending.sort(
        ["published_at", "signal_id", "position"], descending=[True, True, False]
    )
    echo(f"{pending.height} unit(s) pending review", err=True)
    for row in pending.head(limit).iter_rows(named=True):
        snippets = " | ".join(e["text"] for e in row["evidence"])
        echo(f"{row['unit_id']}  {row['role']:<8} {row['title']}")
        echo(f"    {row['text']}")
        echo(f"    evidence: {snippets}")


def _review(
    unit_ids: list[str], decision: ReviewDecision, note: str | None, data_dir: Path | None
) -> None:
    from analytics.schema import UNITS
    from warehouse.reviews import append_reviews
    from warehouse.tables import read_table

    data = data_dir_of(data_dir)
    known = set(read_table(data, "units", UNITS)["unit_id"].to_list())
    unknown = [u for u in unit_ids if u not in known]
    if unknown:
        echo(f"unknown unit id(s): {', '.join(unknown)} (see `aimi review list`)", err=True)
        raise typer.Exit(1)
    count = append_reviews(data, unit_ids, decision, reviewer=reviewer(), note=note)
    verb = "approved" if decision == "approve" else "rejected"
    echo(f"{verb} {count} unit(s); the next `aimi build` publishes it")


@review_app.command("approve")
def review_approve(
    unit_ids: Annotated[list[str], typer.Argument(help="Unit ids (from `aimi review list`).")],
    note: Annotated[str | None, typer.Option(help="Why, for the record.")] = None,
    data_dir: DataDirOption = None,
) -> None:
    """Approve units: they are served with `verification: {human_reviewed: true}`."""
    _review(unit_ids, "approve", note, data_dir)


@review_app.command("reject")
def review_reject(
    unit_ids: Annotated[list[str], typer.Argument(help="Unit ids (from `aimi review list`).")],
    note: Annotated[str | None, typer.Option(help="Why, for the record.")] = None,
    data_dir: DataDirOption = None,
) -> None:
    """Reject units: they are never served (a rejected central statement hides its signal)."""
    _review(unit_ids, "reject", note, data_dir)
