from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

from pipelines.build import BuildError, build, build_run
from pipelines.definitions import defs
from pipelines.defs.automation.jobs import inbox_fingerprint, inbox_sensor
from pipelines.resources import AimiResource
from warehouse import locks
from warehouse.paths import DataDir
from warehouse.snapshot import current_snapshot_id, open_staged


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
        "entity_profiles",
        "theme_profiles",
        "unit_embeddings",
        "snapshot",
        "static_site",
    }
    groups = {repo.asset_graph.get(dg.AssetKey(k)).group_name for k in keys}
    assert groups == {"ingest", "decompose", "tag", "analytics", "search", "publish"}
    for key in keys:
        node = repo.asset_graph.get(dg.AssetKey(key))
        assert node.description, key
        assert node.owners and all(o.startswith("team:") for o in node.owners), key
        assert node.kinds, key


def test_every_check_is_described_and_shows_under_its_asset() -> None:
    repo = defs.get_repository_def()
    specs = {
        spec.name: spec
        for checks in repo.asset_checks_defs_by_key.values()
        for spec in checks.check_specs
    }
    assert {name: spec.asset_key.to_user_string() for name, spec in specs.items()} == {
        "entity_trends_hold": "entity_trends",
        "theme_trends_hold": "theme_trends",
        "snapshot_verifies": "snapshot",
        "served_signals_are_complete": "snapshot",
        "profiles_agree_with_cards": "snapshot",
    }
    assert all(spec.description for spec in specs.values())
    # a broken trend table must not reach the profiles and the snapshot, and a snapshot that
    # fails a check is never published (static_site moves CURRENT)
    assert {name for name, spec in specs.items() if spec.blocking} == {
        "entity_trends_hold",
        "theme_trends_hold",
        "snapshot_verifies",
        "served_signals_are_complete",
        "profiles_agree_with_cards",
    }
    for spec in specs.values():
        assert spec.key in repo.asset_graph.get(spec.asset_key).check_keys


def test_build_ingests_the_inbox_applies_the_clock_and_publishes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
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
    run = build_run(data, as_of=datetime(2026, 5, 4, 12, tzinfo=UTC), persistent=False)
    opened = run.snapshot
    assert opened.manifest.as_of == datetime(2026, 5, 4, 12, tzinfo=UTC)
    served = opened.read_table("signals")
    # sources published after as_of (May 5 and 6) are not served
    assert served.height == 4
    assert pl.read_parquet(data.table_path("quarantine")).height == 1
    assert_every_materialization_carries_its_metadata(run.result, served=4)

    # a second build reads no unchanged inbox file again and serves the same signals
    again = build(data, as_of=datetime(2026, 5, 4, 12, tzinfo=UTC), persistent=False)
    assert again.snapshot_id != opened.snapshot_id
    assert again.read_table("signals")["signal_id"].to_list() == served["signal_id"].to_list()
    assert pl.read_parquet(data.table_path("quarantine")).height == 1
    assert (again.path / "site" / "index.html").is_file()

    # a snapshot that fails a check is never published: the previous one keeps serving
    monkeypatch.setattr(
        "pipelines.defs.publish.checks.profile_recount_problems", lambda *_: ["planted"]
    )
    with pytest.raises(BuildError, match="profiles_agree_with_cards"):
        build(data, as_of=datetime(2026, 5, 4, 12, tzinfo=UTC), persistent=False)
    staged = open_staged(data)
    assert staged is not None and staged.snapshot_id != again.snapshot_id
    assert current_snapshot_id(data) == again.snapshot_id
    assert not (staged.path / "site").exists()  # static_site did not run


def assert_every_materialization_carries_its_metadata(
    result: dg.ExecuteInProcessResult, *, served: int
) -> None:
    """What the UI shows of a run through Dagster's API: every asset materialized once, with a
    row count and a Markdown preview; the signals plot; every check evaluated and passed."""
    events = result.get_asset_materialization_events()
    by_asset = {e.asset_key.to_user_string(): e.materialization.metadata for e in events}
    assert len(events) == len(by_asset) == 12
    for asset, metadata in by_asset.items():
        row_count = metadata.get("dagster/row_count")
        assert isinstance(row_count, dg.IntMetadataValue), asset
        assert any(isinstance(v, dg.MarkdownMetadataValue) for v in metadata.values()), asset
    assert by_asset["snapshot"]["dagster/row_count"] == dg.IntMetadataValue(served)
    site = by_asset["static_site"]
    assert site["preview"].value.endswith("/site/index.html")
    assert {"pages", "bytes", "seconds", "json_files"} <= set(site)
    plot = by_asset["signals"]["weekly_volume"]
    assert isinstance(plot, dg.MarkdownMetadataValue) and plot.value
    assert plot.value.startswith("![signals per week](data:image/png;base64,")
    checks = result.get_asset_check_evaluations()
    assert len(checks) == 5 and all(check.passed for check in checks)


def test_daily_schedule_and_inbox_sensor_are_defined_and_on() -> None:
    repo = defs.get_repository_def()
    schedule = repo.get_schedule_def("daily_refresh")
    assert schedule.cron_schedule == "0 6 * * *" and schedule.job_name == "refresh"
    assert schedule.execution_timezone == "UTC"
    assert schedule.default_status == dg.DefaultScheduleStatus.RUNNING
    sensor = repo.get_sensor_def("inbox_sensor")
    assert sensor.default_status == dg.DefaultSensorStatus.RUNNING
    assert sensor.job_name == "refresh" and sensor.minimum_interval_seconds == 60
    # UI runs execute in one process, as `aimi build` does (minutes otherwise: see definitions)
    assert repo.get_job("refresh").executor_def.name == "in_process"
    assert repo.get_implicit_global_asset_job_def().executor_def.name == "in_process"


def test_inbox_sensor_requests_a_run_only_when_the_inbox_changes(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data")
    data.inbox.mkdir(parents=True)
    aimi = AimiResource(data_dir=str(data.root))
    empty, files = inbox_fingerprint(data.inbox)
    assert files == 0

    def evaluate(cursor: str | None) -> dg.SensorResult | dg.SkipReason:
        with dg.build_sensor_context(cursor=cursor, resources={"aimi": aimi}) as context:
            result = inbox_sensor(context)
        assert isinstance(result, dg.SensorResult | dg.SkipReason)
        return result

    assert isinstance(evaluate(empty), dg.SkipReason)
    (data.inbox / "day1.jsonl").write_text("{}\n")
    first = evaluate(empty)
    assert isinstance(first, dg.SensorResult) and len(first.run_requests or []) == 1
    assert isinstance(evaluate(first.cursor), dg.SkipReason)  # nothing new since
    (data.inbox / "day1.jsonl").write_text("{}\n{}\n")  # replaced: new size
    second = evaluate(first.cursor)
    assert isinstance(second, dg.SensorResult) and second.cursor != first.cursor
    assert second.run_requests and first.run_requests
    assert second.run_requests[0].run_key != first.run_requests[0].run_key
    with locks.build_lock(data):  # a build runs: the sensor still decides, without waiting
        third = ThreadPoolExecutor(1).submit(evaluate, second.cursor).result(30)
    assert isinstance(third, dg.SkipReason)


def test_the_build_clock_comes_from_as_of_then_aimi_as_of_then_now(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AIMI_DATA_DIR", str(tmp_path))  # no remembered clock
    monkeypatch.setenv("AIMI_AS_OF", "2026-01-01")
    assert AimiResource().clock() == datetime(2026, 1, 1, tzinfo=UTC)
    pinned = AimiResource(as_of="2025-06-30T12:00:00+02:00").clock()
    assert pinned == datetime(2025, 6, 30, 10, tzinfo=UTC)
    monkeypatch.delenv("AIMI_AS_OF")
    before = datetime.now(UTC)
    assert before <= AimiResource().clock() <= datetime.now(UTC)
    monkeypatch.setenv("AIMI_AS_OF", "last tuesday")
    with pytest.raises(ValueError, match="not an ISO 8601"):
        AimiResource().clock()
