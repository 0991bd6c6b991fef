"""Human review end to end: `aimi review` writes decisions, the next build applies them, and the
reviewed signal moves in the change feed."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import orjson
import polars as pl
import pytest
from typer.testing import CliRunner

from cli.app import app
from pipelines.build import build
from warehouse.paths import DataDir

AS_OF = datetime(2026, 6, 1, tzinfo=UTC)


def served(data: DataDir) -> pl.DataFrame:
    from warehouse.snapshot import open_current

    opened = open_current(data)
    assert opened is not None
    return opened.read_table("signals")


def detail(frame: pl.DataFrame, signal_id: str) -> dict[str, object]:
    row = frame.filter(pl.col("signal_id") == signal_id)
    return dict(orjson.loads(row["detail_json"][0]))


@pytest.mark.slow  # a whole build, or MiniLM over a corpus sample
def test_review_cli_and_rebuild(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data")
    data.inbox.mkdir(parents=True)
    records = [
        {
            "kind": "news",
            "title": f"Chip deal {i}",
            "url": f"https://example.com/deal/{i}",
            "published_at": f"2026-05-{i + 1:02d}T09:00:00Z",
            "text": (
                f"Acme signed a ${i + 1} billion chip supply deal with Beta Foundry on Monday. "
                f"Deliveries of {i + 3} million accelerators start in 2027, the companies said. "
                "Beta Foundry will expand its Arizona plant to meet the order."
            ),
        }
        for i in range(3)
    ]
    (data.inbox / "batch.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    build(data, as_of=AS_OF, persistent=False)
    before = served(data)

    runner = CliRunner()
    listed = runner.invoke(app, ["review", "list", "--data-dir", str(data.root), "--limit", "50"])
    assert listed.exit_code == 0, listed.output
    units = pl.read_parquet(data.table_path("units"))
    signal_id = before["signal_id"][0]
    mine = units.filter(pl.col("signal_id") == signal_id).sort("position")
    central, claim = mine["unit_id"][0], mine["unit_id"][1]
    assert central in listed.output

    approved = runner.invoke(app, ["review", "approve", central, "--data-dir", str(data.root)])
    assert approved.exit_code == 0, approved.output
    rejected = runner.invoke(
        app, ["review", "reject", claim, "--note", "not atomic", "--data-dir", str(data.root)]
    )
    assert rejected.exit_code == 0, rejected.output
    unknown = runner.invoke(app, ["review", "approve", "u_nope", "--data-dir", str(data.root)])
    assert unknown.exit_code == 1 and "unknown unit id" in unknown.output

    build(data, as_of=AS_OF, persistent=False)
    after = served(data)
    got = detail(after, signal_id)
    unit_list = got["units"]
    assert isinstance(unit_list, list)
    assert unit_list[0]["id"] == central
    assert unit_list[0]["verification"] == {"human_reviewed": True}
    assert claim not in {u["id"] for u in unit_list}
    assert got["verified_unit_count"] == len(unit_list) == mine.height - 1

    seq = dict(zip(after["signal_id"], after["change_seq"], strict=True))
    old = dict(zip(before["signal_id"], before["change_seq"], strict=True))
    assert seq[signal_id] > max(old.values()), "the reviewed signal moves in the change feed"
    assert all(seq[s] == old[s] for s in old if s != signal_id), "the others do not"

    # a rejected central statement hides its signal
    runner.invoke(app, ["review", "reject", central, "--data-dir", str(data.root)])
    build(data, as_of=AS_OF, persistent=False)
    assert signal_id not in served(data)["signal_id"].to_list()
