from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import polars as pl

from pipelines.build import build
from pipelines.definitions import defs
from warehouse.paths import DataDir


def test_definitions_load_with_every_stage() -> None:
    repo = defs.get_repository_def()
    keys = {key.to_user_string() for key in repo.asset_graph.get_all_asset_keys()}
    assert keys == {
        "sources",
        "signals",
        "units",
        "entity_mentions",
        "signal_themes",
        "entity_trends",
        "theme_trends",
        "snapshot",
    }
    groups = {repo.asset_graph.get(dg.AssetKey(k)).group_name for k in keys}
    assert groups == {"ingest", "decompose", "tag", "analytics", "publish"}
    for key in keys:
        assert repo.asset_graph.get(dg.AssetKey(key)).description


def test_build_ingests_the_inbox_applies_the_clock_and_publishes(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data")
    data.inbox.mkdir(parents=True)
    records = [
        {
            "kind": "news",
            "title": f"Deal {i}",
            "url": f"https://example.com/deal/{i}",
            "published_at": f"2026-05-{i + 1:02d}T09:00:00Z",
            "text": f"Acme signed a ${i + 1} billion compute deal with Beta Cloud on Monday.",
        }
        for i in range(6)
    ]
    (data.inbox / "batch.jsonl").write_text(
        "\n".join(json.dumps(r) for r in records) + "\n{broken\n"
    )
    opened = build(data, as_of=datetime(2026, 5, 4, 12, tzinfo=UTC), persistent=False)
    assert opened.manifest.as_of == datetime(2026, 5, 4, 12, tzinfo=UTC)
    served = opened.read_table("signals")
    # sources published after as_of (May 5 and 6) are not served
    assert served.height == 4
    assert pl.read_parquet(data.table_path("quarantine")).height == 1

    # a second build reads no unchanged inbox file again and serves the same signals
    again = build(data, as_of=datetime(2026, 5, 4, 12, tzinfo=UTC), persistent=False)
    assert again.snapshot_id != opened.snapshot_id
    assert again.read_table("signals")["signal_id"].to_list() == served["signal_id"].to_list()
    assert pl.read_parquet(data.table_path("quarantine")).height == 1
