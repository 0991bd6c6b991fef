"""Rebuilds do only the work they must: unchanged signals keep their units and their place in
the change feed; an edit moves exactly one signal; early sources keep the earlier extraction."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from analytics.decompose import CURRENT_EXTRACTION_VERSION
from pipelines.build import build
from warehouse.ingest import ingest_paths
from warehouse.paths import DataDir
from warehouse.snapshot import open_current

AS_OF = datetime(2026, 7, 1, tzinfo=UTC)
ESSAY_PARAGRAPHS = [
    "The market still prices AI labs as software companies, and that is a mistake. Training "
    "frontier models is a capital business closer to chip fabrication than to SaaS.",
    "Consider the spending. The four largest cloud providers guided to more than $300 billion "
    "of capital expenditure this year, most of it for accelerators and the buildings around them.",
    "Power is the next constraint. New campuses ask utilities for a gigawatt or more, and grid "
    "interconnection queues in Texas and Virginia now run past four years.",
    "Depreciation follows. Servers bought today lose most of their value within five years, so "
    "the revenue that justifies them has to arrive quickly.",
    "Pricing pressure makes that harder. Token prices for frontier-level models fell by more "
    "than 80 percent in a year as open-weight competitors matched their benchmarks.",
    "Some argue that inference demand will grow fast enough to fill every data center. It may, "
    "but demand that grows because prices collapse does not pay back fixed costs on its own.",
    "The winners will be the companies that own distribution. A lab that sells through its own "
    "products keeps the margin that a lab selling raw tokens gives away.",
    "So treat every capex announcement as a bet on distribution, not on models. The models are "
    "becoming a commodity; the customers are not.",
]


def record(n: int, **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "kind": "essay",
        "title": f"Capex is a bet on distribution ({n})",
        "url": f"https://essays.example.org/capex-{n}",
        "published_at": f"2026-06-{n + 1:02d}T08:00:00Z",
        "text": "\n\n".join(ESSAY_PARAGRAPHS),
    }
    base.update(extra)
    return base


def news(n: int) -> dict[str, Any]:
    return {
        "kind": "news",
        "title": f"Acme raises round {n}",
        "url": f"https://news.example.com/acme-{n}",
        "published_at": f"2026-06-{n + 10:02d}T08:00:00Z",
        "text": f"Acme raised ${n + 1} billion on Monday. The round was led by Beta Capital.",
    }


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return path


def served(data: DataDir) -> pl.DataFrame:
    opened = open_current(data)
    assert opened is not None
    return opened.read_table("signals")


def extractions(data: DataDir) -> dict[str, str]:
    frame = pl.read_parquet(data.table_path("extractions"))
    return dict(frame.select("signal_id", "extraction_version").iter_rows())


@pytest.mark.slow
def test_rebuilds_reuse_work_and_number_only_real_changes(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data")
    early = write(tmp_path / "early.jsonl", [record(0), news(0)])
    late = write(tmp_path / "late.jsonl", [record(1), news(1)])
    # the first file was ingested before the 2026-04-28 cutover, the second after it
    ingest_paths(data, [early], progress=False, now=datetime(2026, 4, 1, tzinfo=UTC))
    ingest_paths(data, [late], progress=False, now=datetime(2026, 6, 20, tzinfo=UTC))
    build(data, as_of=AS_OF, persistent=False)
    first = served(data)
    versions = extractions(data)
    by_title = dict(first.select("title", "signal_id").iter_rows())
    assert versions[by_title["Capex is a bet on distribution (0)"]] == "lexical-1"
    assert versions[by_title["Capex is a bet on distribution (1)"]] == CURRENT_EXTRACTION_VERSION
    units = pl.read_parquet(data.table_path("units"))
    late_roles = units.filter(pl.col("signal_id") == by_title["Capex is a bet on distribution (1)"])
    early_roles = units.filter(
        pl.col("signal_id") == by_title["Capex is a bet on distribution (0)"]
    )
    assert 3 <= late_roles.filter(pl.col("role") == "argument")["argument_id"].n_unique() <= 6
    assert early_roles.filter(pl.col("role") == "argument").is_empty()

    # re-ingesting the same corpus: nothing decomposed again, no new change_seq
    ingest_paths(data, [early, late], progress=False)
    build(data, as_of=AS_OF, persistent=False)
    again = served(data)
    assert (
        again.select("signal_id", "change_seq")
        .sort("signal_id")
        .equals(first.select("signal_id", "change_seq").sort("signal_id"))
    )

    # editing one source's text: exactly one new change_seq
    edited = record(1, text="\n\n".join([*ESSAY_PARAGRAPHS[:-1], "Distribution wins, again."]))
    ingest_paths(data, [write(tmp_path / "edit.jsonl", [edited])], progress=False)
    build(data, as_of=AS_OF, persistent=False)
    after = served(data)
    old = dict(first.select("signal_id", "change_seq").iter_rows())
    new = dict(after.select("signal_id", "change_seq").iter_rows())
    moved = [s for s in new if new[s] != old[s]]
    assert moved == [by_title["Capex is a bet on distribution (1)"]]
    assert new[moved[0]] == max(old.values()) + 1

    # a forced re-extraction upgrades the early source, and it reappears in the feed once
    build(data, as_of=AS_OF, persistent=False, force_reextract=True)
    assert set(extractions(data).values()) == {CURRENT_EXTRACTION_VERSION}
    forced = dict(served(data).select("signal_id", "change_seq").iter_rows())
    assert forced[by_title["Capex is a bet on distribution (0)"]] > new[moved[0]]
