from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

from analytics import schema
from pipelines.build import BuildError, build, build_run
from pipelines.definitions import ASSETS, CHECKS, defs
from pipelines.defs.automation.jobs import inbox_fingerprint, inbox_sensor
from pipelines.resources import AimiResource
from warehouse import locks
from warehouse.ingest import ingest_paths, unlogged_files
from warehouse.paths import DataDir
from warehouse.snapshot import current_snapshot_id, open_staged
from warehouse.tables import TABLE_NAMES

# Every warehouse table is an asset but `change_state`, the change feed's numbering, which the
# snapshot step keeps as its own bookkeeping
# (docs/decisions/0069-every-table-an-asset-checks-that-watch-the-data-run-tags.md), and
# `source_versions`, the ingest step's memory of versions seen (warehouse.versions).
TABLES = set(TABLE_NAMES) - {"change_state", "source_versions"}


def test_definitions_load_with_every_stage() -> None:
    repo = defs.get_repository_def()
    keys = {key.to_user_string() for key in repo.asset_graph.get_all_asset_keys()}
    # every warehouse table is an asset, besides the snapshot, its static site, the
    # webhook deliveries that follow a publish and the fetches of the followed sources
    assert keys == {*TABLES, "snapshot", "static_site", "webhook_deliveries", "fetched_items"}
    groups = {repo.asset_graph.get(dg.AssetKey(k)).group_name for k in keys}
    assert groups == {
        "ingest",
        "decompose",
        "tag",
        "analytics",
        "search",
        "publish",
        "notify",
        "sources",
    }
    # the deliveries and the fetches (one partition per source) run in their own jobs, never
    # inside a build or a refresh, which stays unpartitioned
    refresh_job = repo.get_job("refresh")
    refresh = {key.to_user_string() for key in refresh_job.asset_layer.executable_asset_keys}
    assert refresh.isdisjoint({"webhook_deliveries", "fetched_items"})
    assert "static_site" in refresh and refresh_job.partitions_def is None
    assert repo.get_job("deliver_webhooks").asset_layer.executable_asset_keys == {
        dg.AssetKey("webhook_deliveries")
    }
    fetch = repo.get_job("fetch_sources")
    assert fetch.asset_layer.executable_asset_keys == {dg.AssetKey("fetched_items")}
    assert isinstance(fetch.partitions_def, dg.DynamicPartitionsDefinition)
    assert fetch.partitions_def.name == "sources"
    for key in keys:
        node = repo.asset_graph.get(dg.AssetKey(key))
        assert node.description, key
        assert node.owners and all(o.startswith("team:") for o in node.owners), key
        assert node.kinds, key


# the declared schema of each table that has one (analytics.schema); the trend tables' columns
# are computed, and their materializations carry the schema of what was written
DECLARED = {
    "sources": schema.SOURCES,
    "quarantine": schema.QUARANTINE,
    "ingest_log": schema.INGEST_LOG,
    "signals": schema.SIGNALS,
    "extractions": schema.EXTRACTIONS,
    "llm_answers": schema.LLM_ANSWERS,
    "extracted_units": schema.UNITS,
    "units": schema.UNITS,
    "unit_rejections": schema.UNIT_REJECTIONS,
    "entities": schema.ENTITIES,
    "signal_entities": schema.SIGNAL_ENTITIES,
    "unit_entities": schema.UNIT_ENTITIES,
    "signal_themes": schema.SIGNAL_THEMES,
    "unit_embeddings": schema.UNIT_EMBEDDINGS,
    "entity_profiles": schema.ENTITY_PROFILES,
    "theme_profiles": schema.THEME_PROFILES,
    "stories": schema.STORIES,
    "claim_links": schema.CLAIM_LINKS,
}


def test_tables_with_a_declared_schema_carry_it_as_their_column_schema() -> None:
    repo = defs.get_repository_def()
    for table in TABLES:
        metadata = repo.asset_graph.get(dg.AssetKey(table)).metadata
        if table not in DECLARED:
            assert "dagster/column_schema" not in metadata, table
            continue
        columns = metadata["dagster/column_schema"].columns
        expected = DECLARED[table]
        assert [(c.name, c.type) for c in columns] == [(n, str(t)) for n, t in expected.items()]


def test_a_step_that_writes_several_tables_is_one_multi_asset() -> None:
    """Each table is computed once, by the step that writes it, which materializes it. The
    trend steps compute only the tables a run selects (`key:theme_trends+` is a valid UI
    selection); ingest and decomposition write their tables together and run whole."""
    multi = [
        assets
        for assets in defs.get_repository_def().asset_graph.assets_defs
        if len(assets.keys) > 1
    ]
    steps = {",".join(sorted(k.to_user_string() for k in a.keys)): a.node_def.name for a in multi}
    assert steps == {
        "ingest_log,quarantine,sources": "sources",
        "extracted_units,extractions,llm_answers,unit_rejections,units": "units",
        "entities,signal_entities,unit_entities": "entity_mentions",
        "entity_cooccurrence,entity_tag_mix,entity_trends,entity_weekly_counts": "entity_trends",
        "theme_cooccurrence,theme_trends,theme_weekly_counts": "theme_trends",
    }
    assert {a.node_def.name for a in multi if a.can_subset} == {"entity_trends", "theme_trends"}


def test_every_check_is_described_and_shows_under_its_asset() -> None:
    repo = defs.get_repository_def()
    specs = {
        spec.name: spec
        for checks in repo.asset_checks_defs_by_key.values()
        for spec in checks.check_specs
    }
    assert {name: spec.asset_key.to_user_string() for name, spec in specs.items()} == {
        "quarantine_rate_is_low": "quarantine",
        "unit_rejection_rate_is_low": "unit_rejections",
        "entity_trends_hold": "entity_trends",
        "theme_trends_hold": "theme_trends",
        "snapshot_verifies": "snapshot",
        "served_signals_are_complete": "snapshot",
        "profiles_agree_with_cards": "snapshot",
        "stories_hold": "stories",
    }
    assert all(spec.description for spec in specs.values())
    # a broken trend or stories table must not reach the profiles and the snapshot, and a
    # snapshot that fails a check is never published (static_site moves CURRENT); the rates
    # only warn
    assert {name for name, spec in specs.items() if spec.blocking} == {
        "entity_trends_hold",
        "theme_trends_hold",
        "stories_hold",
        "snapshot_verifies",
        "served_signals_are_complete",
        "profiles_agree_with_cards",
    }
    for spec in specs.values():
        assert spec.key in repo.asset_graph.get(spec.asset_key).check_keys


def test_the_snapshot_is_fresh_for_a_day_and_stale_after_two() -> None:
    node = defs.get_repository_def().asset_graph.get(dg.AssetKey("snapshot"))
    # judged on when it was last materialized, not on its as_of (a pinned clock stays fresh)
    assert node.freshness_policy == dg.FreshnessPolicy.time_window(
        fail_window=timedelta(hours=48), warn_window=timedelta(hours=26)
    )


@pytest.mark.slow  # a whole build, or MiniLM over a corpus sample
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
    assert_every_materialization_carries_its_metadata(run.result, data, served=4)
    # 1 of the 7 records quarantined: over the threshold, a warning, and published all the same
    [rate] = [
        c for c in run.result.get_asset_check_evaluations() if c.asset_key.path == ["quarantine"]
    ]
    assert not rate.passed and rate.severity == dg.AssetCheckSeverity.WARN
    assert rate.metadata["batch_rate"].value == round(1 / 7, 4)
    assert {k: v for k, v in run.result.dagster_run.tags.items() if k.startswith("aimi/")} == {
        "aimi/trigger": "aimi-build",
        "aimi/as_of": "2026-05-04T12:00:00+00:00",
        "aimi/decomposer": "deterministic",
    }

    # a second build reads no unchanged inbox file again and serves the same signals
    again = build(data, as_of=datetime(2026, 5, 4, 12, tzinfo=UTC), persistent=False)
    assert again.snapshot_id != opened.snapshot_id
    assert again.read_table("signals")["signal_id"].to_list() == served["signal_id"].to_list()
    assert pl.read_parquet(data.table_path("quarantine")).height == 1
    assert (again.path / "site" / "index.html").is_file()

    # a run that selects one table of a trend step computes and writes that table only
    data.table_path("theme_weekly_counts").unlink()
    subset = dg.materialize(
        [*ASSETS, *CHECKS],
        selection=["theme_trends"],
        resources={"aimi": AimiResource(data_dir=str(data.root))},
    )
    materialized = {e.asset_key.to_user_string() for e in subset.get_asset_materialization_events()}
    assert materialized == {"theme_trends"}
    assert not data.table_path("theme_weekly_counts").exists()

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
    result: dg.ExecuteInProcessResult, data: DataDir, *, served: int
) -> None:
    """What the UI shows of a run through Dagster's API: every asset materialized once (all
    but `llm_answers`, which only an LLM run writes), with a row count, the column schema of
    every table, and a preview (a native table or Markdown); the plots; every check
    evaluated, the blocking ones passed."""
    events = result.get_asset_materialization_events()
    by_asset = {e.asset_key.to_user_string(): e.materialization.metadata for e in events}
    assert set(by_asset) == {*TABLES, "snapshot", "static_site"} - {"llm_answers"}
    assert len(events) == len(by_asset)
    for asset, metadata in by_asset.items():
        row_count = metadata.get("dagster/row_count")
        assert isinstance(row_count, dg.IntMetadataValue), asset
        if asset in TABLES:
            written = pl.read_parquet(data.table_path(asset))
            columns = metadata["dagster/column_schema"].value.columns
            assert [c.name for c in columns] == written.columns, asset
            assert row_count.value == written.height, asset
    previews = (dg.MarkdownMetadataValue, dg.TableMetadataValue)
    for asset in ("sources", "signals", "units", "entities", "signal_themes", "entity_trends"):
        assert any(isinstance(v, previews) for v in by_asset[asset].values()), asset
    assert by_asset["snapshot"]["dagster/row_count"] == dg.IntMetadataValue(served)
    tables = by_asset["snapshot"]["tables"]
    assert isinstance(tables, dg.TableMetadataValue) and tables.records
    site = by_asset["static_site"]
    assert site["preview"].value.endswith("/site/index.html")
    assert {"pages", "bytes", "seconds", "json_files"} <= set(site)
    plot = by_asset["signals"]["weekly_volume"]
    assert isinstance(plot, dg.MarkdownMetadataValue) and plot.value
    assert plot.value.startswith("![signals per week](data:image/png;base64,")
    themes = by_asset["theme_weekly_counts"]["weekly_volume"]
    assert isinstance(themes, dg.MarkdownMetadataValue) and themes.value
    assert themes.value.startswith("![signals per theme](data:image/png;base64,")
    for trends in ("entity_trends", "theme_trends"):
        assert isinstance(by_asset[trends]["top_movers"], dg.MarkdownMetadataValue)
    checks = {check.check_name: check for check in result.get_asset_check_evaluations()}
    assert len(checks) == 8
    blocking = set(checks) - {"quarantine_rate_is_low", "unit_rejection_rate_is_low"}
    assert all(checks[name].passed for name in blocking)


def test_a_run_launched_without_tags_is_tagged_with_what_it_used(tmp_path: Path) -> None:
    """A run from the UI's Materialize button or the Launchpad comes without our tags: the
    resource adds the trigger (`ui`, or `schedule`/`sensor` from Dagster's own tags), and the
    as_of and decomposer the run used."""

    @dg.asset
    def probe(aimi: AimiResource) -> None:
        aimi.clock()

    with dg.DagsterInstance.ephemeral() as instance:
        for tags, trigger in (({}, "ui"), ({"dagster/schedule_name": "daily_refresh"}, "schedule")):
            result = dg.materialize(
                [probe],
                resources={"aimi": AimiResource(data_dir=str(tmp_path), as_of="2026-01-05")},
                instance=instance,
                tags=tags,
            )
            run = instance.get_run_by_id(result.run_id)
            assert run is not None
            assert run.tags["aimi/trigger"] == trigger
            assert run.tags["aimi/as_of"] == "2026-01-05T00:00:00+00:00"
            assert run.tags["aimi/decomposer"] in ("deterministic", "llm")


def test_daily_schedule_and_inbox_sensor_are_defined_and_on() -> None:
    repo = defs.get_repository_def()
    schedule = repo.get_schedule_def("daily_refresh")
    assert schedule.cron_schedule == "0 6 * * *" and schedule.job_name == "refresh"
    assert schedule.execution_timezone == "UTC"
    assert schedule.default_status == dg.DefaultScheduleStatus.RUNNING
    with dg.build_schedule_context(resources={"aimi": AimiResource(as_of="2026-10-28")}) as ctx:
        request = schedule.evaluate_tick(ctx).run_requests
    assert request
    assert request[0].tags["aimi/trigger"] == "schedule"
    assert request[0].tags["aimi/as_of"] == "2026-10-28T00:00:00+00:00"
    assert request[0].tags["aimi/decomposer"] in ("deterministic", "llm")
    sensor = repo.get_sensor_def("inbox_sensor")
    assert sensor.default_status == dg.DefaultSensorStatus.RUNNING
    assert sensor.job_name == "refresh" and sensor.minimum_interval_seconds == 60
    fetches = repo.get_sensor_def("sources_sensor")
    assert fetches.default_status == dg.DefaultSensorStatus.RUNNING
    assert fetches.job_name == "fetch_sources" and fetches.minimum_interval_seconds == 60
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
    # tagged with its trigger and the as_of (here the wall clock: nothing pinned) a run uses
    tags = second.run_requests[0].tags
    assert tags["aimi/trigger"] == "sensor" and tags["inbox_files"] == "1"
    assert datetime.fromisoformat(tags["aimi/as_of"]) <= datetime.now(UTC)
    with locks.build_lock(data):  # a build runs: the sensor still decides, without waiting
        third = ThreadPoolExecutor(1).submit(evaluate, second.cursor).result(30)
    assert isinstance(third, dg.SkipReason)


def test_the_sensors_first_evaluation_starts_nothing_over_a_built_data_dir(
    demo_data_dir: DataDir,
) -> None:
    """Issue 28: `make dagster` over a data dir `aimi build` had just published started a full
    refresh on the sensor's first tick. With no cursor yet, the inbox is compared with what the
    ingest log holds: all of it, with the same bytes, so the tick skips and keeps a cursor."""
    aimi = AimiResource(data_dir=str(demo_data_dir.root))
    with dg.build_sensor_context(cursor=None, resources={"aimi": aimi}) as context:
        result = inbox_sensor(context)
        assert isinstance(result, dg.SkipReason), result
        assert "already built" in (result.skip_message or "")
        assert context.cursor == inbox_fingerprint(demo_data_dir.inbox)[0]


def test_a_file_the_ingest_log_lacks_or_holds_with_other_bytes_is_unlogged(
    tmp_path: Path,
) -> None:
    data = DataDir(tmp_path / "data")
    data.inbox.mkdir(parents=True)
    record = json.dumps(
        {
            "source_id": "s1",
            "kind": "article",
            "title": "A title",
            "text": "Some text about models.",
            "url": "https://example.com/a",
            "published_at": "2026-01-01T00:00:00Z",
        }
    )
    day = data.inbox / "day1.jsonl"
    day.write_text(record + "\n")
    assert unlogged_files(data, [data.inbox]) == [day]
    ingest_paths(data, [data.inbox], progress=False, skip_unchanged_files=True)
    assert unlogged_files(data, [data.inbox]) == []
    day.write_text(record + "\n" + record.replace("s1", "s2") + "\n")
    assert unlogged_files(data, [data.inbox]) == [day]
    # no snapshot yet: the first evaluation asks for a run
    with dg.build_sensor_context(
        cursor=None, resources={"aimi": AimiResource(data_dir=str(data.root))}
    ) as context:
        assert isinstance(inbox_sensor(context), dg.SensorResult)


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
