"""The sources group: a partition per source fetched against a real loopback site, its
materialization's counts and failures, a feed that cannot be read failing its partition, and
``sources_sensor``'s partition sync and due logic."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

from fetch.sources import Source, add_source, remove_source, sources_path
from fetch.state import FetchState, LastRun
from pipelines import resources
from pipelines.build import DAGSTER_YAML
from pipelines.definitions import defs
from pipelines.defs.automation.jobs import inbox_fingerprint, inbox_sensor
from pipelines.defs.automation.sources import (
    FETCH_HOST_TAG,
    due_run_key,
    partitions_in_flight,
    sources_sensor,
)
from pipelines.defs.sources.assets import FETCH_JOB, SOURCE_PARTITIONS_NAME, fetched_items
from pipelines.defs.sources.resource import FetchResource
from pipelines.resources import AimiResource
from warehouse import locks
from warehouse.ingest import ingest_paths
from warehouse.paths import DataDir

ARTICLE = (
    "<html><head><title>{title}</title></head><body><nav>Home | About</nav><article>"
    "<h1>{title}</h1><p>{text}</p></article><footer>Footer</footer></body></html>"
)
PARAGRAPH = (
    "Acme signed a multi-year compute agreement with Beta Cloud on Monday, the company said, "
    "adding capacity for training its next models across three regions. "
)


@dataclass
class Site:
    """A tiny site on loopback: robots.txt, an RSS feed of four items (two pages, one that is
    gone, one robots.txt disallows), the pages; ETags so a second fetch costs 304s."""

    pages: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    base: str = ""

    def feed(self) -> bytes:
        items = "".join(
            f"<item><title>{title}</title><link>{self.base}{path}</link>"
            f"<guid>{self.base}{path}</guid><pubDate>Mon, 02 Nov 2026 09:00:00 GMT</pubDate>"
            "<description>A short teaser...</description></item>"
            for path, title in (
                ("/a", "Acme and Beta Cloud"),
                ("/b", "Beta Cloud expands"),
                ("/gone", "A page that is gone"),
                ("/private/c", "Disallowed"),
            )
        )
        return (
            '<?xml version="1.0"?><rss version="2.0"><channel><title>Loopback news</title>'
            f"<link>{self.base}/</link><description>d</description>{items}</channel></rss>"
        ).encode()


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            with site.lock:
                site.requests.append(self.path)
            found = site.pages.get(self.path)
            if found is None:
                self.send_response(404)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.write(b"not found")
                return
            content_type, body = found
            etag = f'"{hash(body) & 0xFFFFFFFF:x}"'
            if self.headers.get("If-None-Match") == etag:
                self.send_response(304)
                self.send_header("ETag", etag)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("ETag", etag)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: object) -> None:
            return  # quiet: the test reads the requests it records

    return Handler


@pytest.fixture
def site(monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    # the fetcher refuses loopback addresses unless allowed; a short delay keeps the test fast
    monkeypatch.setenv("AIMI_FETCH_ALLOW_PRIVATE", "1")
    monkeypatch.setenv("AIMI_FETCH_DELAY_S", "0.01")
    made = Site()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(made))
    made.base = f"http://127.0.0.1:{server.server_address[1]}"
    made.pages = {
        "/robots.txt": ("text/plain", b"User-agent: *\nDisallow: /private/\n"),
        "/feed.xml": ("application/rss+xml", made.feed()),
        "/a": (
            "text/html; charset=utf-8",
            ARTICLE.format(title="Acme and Beta Cloud", text=PARAGRAPH * 6).encode(),
        ),
        "/b": (
            "text/html; charset=utf-8",
            ARTICLE.format(title="Beta Cloud expands", text=PARAGRAPH * 5).encode(),
        ),
    }
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield made
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def instance() -> Iterator[dg.DagsterInstance]:
    with dg.DagsterInstance.ephemeral() as made:
        yield made


def _follow(data: DataDir, site: Site, name: str = "loopback", feed: str = "/feed.xml") -> Source:
    return add_source(
        data, Source(name=name, url=site.base + "/", feed=site.base + feed, kind="news")
    )


def _materialize(
    data: DataDir, instance: dg.DagsterInstance, key: str
) -> dg.ExecuteInProcessResult:
    return dg.materialize(
        [fetched_items],
        partition_key=key,
        instance=instance,
        resources={"fetch": FetchResource(data_dir=str(data.root))},
        raise_on_error=False,
    )


def _metadata(result: dg.ExecuteInProcessResult) -> dict[str, object]:
    [event] = result.get_asset_materialization_events()
    return {k: v.value for k, v in event.materialization.metadata.items()}


def test_a_partition_fetches_its_source_into_the_inbox_and_shows_counts_and_failures(
    tmp_path: Path, site: Site, instance: dg.DagsterInstance
) -> None:
    data = DataDir(tmp_path / "data")
    data.inbox.mkdir(parents=True)
    _follow(data, site)
    instance.add_dynamic_partitions(SOURCE_PARTITIONS_NAME, ["loopback"])
    before, _ = inbox_fingerprint(data.inbox)

    result = _materialize(data, instance, "loopback")
    # two items failed (a 404, a disallowed path): reported, not fatal to the run
    assert result.success
    [event] = result.get_asset_materialization_events()
    assert event.partition == "loopback"
    shown = _metadata(result)
    assert {k: shown[k] for k in ("items", "new", "updated", "unchanged", "failed")} == {
        "items": 4,
        "new": 2,
        "updated": 0,
        "unchanged": 0,
        "failed": 2,
    }
    assert shown["dagster/row_count"] == 2 and shown["error"] == ""
    assert shown["kind"] == "news" and shown["every"] == "1d"
    failures = event.materialization.metadata["failures"]
    assert isinstance(failures, dg.TableMetadataValue)
    rows = {row.data["url"]: row.data["reason"] for row in failures.records}
    assert set(rows) == {site.base + "/gone", site.base + "/private/c"}
    assert "404" in str(rows[site.base + "/gone"])
    assert "robots.txt" in str(rows[site.base + "/private/c"])
    assert "/private/c" not in site.requests  # the disallowed page was never asked for
    warnings = [
        e.message
        for e in instance.all_logs(result.run_id)
        if e.level == 30 and "loopback:" in (e.message or "")
    ]
    assert len(warnings) == 2
    # next due a day after this fetch
    fetched_at = datetime.fromtimestamp(float(str(shown["fetched_at"])), UTC)
    next_due = datetime.fromtimestamp(float(str(shown["next_due"])), UTC)
    assert next_due - fetched_at == timedelta(days=1)

    # the files are in the inbox, not ingested (the inbox sensor's refresh ingests them) ...
    folder = data.inbox / "fetched" / "loopback"
    assert len([p for p in folder.iterdir() if p.suffix == ".html"]) == 2
    assert not data.table_path("sources").exists()
    with dg.build_sensor_context(
        cursor=before, resources={"aimi": AimiResource(data_dir=str(data.root))}
    ) as context:
        started = inbox_sensor(context)
    assert isinstance(started, dg.SensorResult) and len(started.run_requests or []) == 1
    # ... and the ingest they wait for makes them sources, with the pages' canonical URLs
    ingested = ingest_paths(data, [data.inbox], skip_unchanged_files=True, progress=False)
    assert ingested.inserted == 2 and not ingested.quarantined
    urls = pl.read_parquet(data.table_path("sources"))["url"].to_list()
    assert sorted(urls) == [site.base + "/a", site.base + "/b"]

    # fetched again: the feed answers 304, nothing is new, the partition has two
    # materializations
    again = _materialize(data, instance, "loopback")
    assert again.success
    shown = _metadata(again)
    assert (shown["items"], shown["new"], shown["failed"], shown["not_modified"]) == (0, 0, 0, 1)
    assert shown["dagster/row_count"] == 2  # what the source holds stays
    records = instance.fetch_materializations(dg.AssetKey("fetched_items"), limit=10).records
    assert [r.partition_key for r in records] == ["loopback", "loopback"]


def test_a_feed_that_cannot_be_read_fails_its_partition_with_the_reason(
    tmp_path: Path, site: Site, instance: dg.DagsterInstance
) -> None:
    data = DataDir(tmp_path / "data")
    _follow(data, site, name="broken", feed="/missing-feed.xml")
    instance.add_dynamic_partitions(SOURCE_PARTITIONS_NAME, ["broken"])
    result = _materialize(data, instance, "broken")
    assert not result.success
    assert not result.get_asset_materialization_events()
    [failure] = [e for e in result.all_events if e.is_step_failure]
    data_ = failure.step_failure_data
    assert data_ is not None and data_.user_failure_data is not None
    assert "the source could not be read: broken: feed" in (
        data_.user_failure_data.description or ""
    )
    metadata = {k: v.value for k, v in data_.user_failure_data.metadata.items()}
    assert "404" in str(metadata["error"]) and metadata["items"] == 0
    # the attempt is recorded: the source is due again a day later, not on the next tick
    with FetchState(data) as state:
        last = state.last_run("broken")
    assert last is not None and last.error


def test_a_sitemap_only_source_whose_sitemaps_cannot_be_read_fails_its_partition(
    tmp_path: Path, site: Site, instance: dg.DagsterInstance
) -> None:
    data = DataDir(tmp_path / "data")
    add_source(
        data,
        Source(name="maps", url=site.base + "/", sitemaps=(site.base + "/sitemap.xml",)),
    )
    instance.add_dynamic_partitions(SOURCE_PARTITIONS_NAME, ["maps"])
    result = _materialize(data, instance, "maps")
    assert not result.success
    [failure] = [e for e in result.all_events if e.is_step_failure]
    data_ = failure.step_failure_data
    assert data_ is not None and data_.user_failure_data is not None
    error = str(data_.user_failure_data.metadata["error"].value)
    assert error.startswith("maps: sitemap " + site.base + "/sitemap.xml") and "404" in error


def test_a_partition_whose_source_was_removed_fails_and_names_it(
    tmp_path: Path, site: Site, instance: dg.DagsterInstance
) -> None:
    data = DataDir(tmp_path / "data")
    _follow(data, site)
    instance.add_dynamic_partitions(SOURCE_PARTITIONS_NAME, ["loopback", "gone"])
    result = _materialize(data, instance, "gone")
    assert not result.success
    [failure] = [e for e in result.all_events if e.is_step_failure]
    assert "no source named gone" in str(failure.step_failure_data)
    assert "loopback" in str(failure.step_failure_data)


def test_a_fetch_run_does_not_wait_for_a_build(
    tmp_path: Path, site: Site, instance: dg.DagsterInstance, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fetch writes only the inbox and the fetcher's state: its job (the sensor's runs)
    needs no `aimi` resource, so it takes no build lock, and a slow site never delays a build
    nor a build a fetch."""
    data = DataDir(tmp_path / "data")
    monkeypatch.setenv("AIMI_DATA_DIR", str(data.root))  # the definitions' resources read it
    _follow(data, site)
    instance.add_dynamic_partitions(SOURCE_PARTITIONS_NAME, ["loopback"])
    job = defs.resolve_job_def(FETCH_JOB)

    def run() -> dg.ExecuteInProcessResult:
        return job.execute_in_process(partition_key="loopback", instance=instance)

    with locks.build_lock(data):  # held here; the run goes on in another thread
        result = ThreadPoolExecutor(1).submit(run).result(60)
    assert result.success and _metadata(result)["new"] == 2


def _evaluate(data: DataDir, instance: dg.DagsterInstance) -> dg.SensorResult | dg.SkipReason:
    with dg.build_sensor_context(
        instance=instance, resources={"fetch": FetchResource(data_dir=str(data.root))}
    ) as context:
        result = sources_sensor(context)
    assert isinstance(result, dg.SensorResult | dg.SkipReason)
    return result


def _apply(instance: dg.DagsterInstance, result: dg.SensorResult) -> None:
    """What the daemon does with a tick's partition requests."""
    for request in result.dynamic_partitions_requests or []:
        if isinstance(request, dg.AddDynamicPartitionsRequest):
            instance.add_dynamic_partitions(request.partitions_def_name, request.partition_keys)
        else:
            for key in request.partition_keys:
                instance.delete_dynamic_partition(request.partitions_def_name, key)


def _record(data: DataDir, name: str, started: datetime) -> None:
    with FetchState(data) as state:
        state.record_run(LastRun(name, started, started, 1, 1, 0, 0, 0, None))


def test_the_sensor_keeps_a_partition_per_source_and_requests_the_due_ones(
    tmp_path: Path, instance: dg.DagsterInstance, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = DataDir(tmp_path / "data")
    data.root.mkdir(parents=True)
    empty = _evaluate(data, instance)
    assert isinstance(empty, dg.SkipReason) and "no sources" in (empty.skip_message or "")
    assert not (data.root / "fetch").exists()  # nothing followed: no state made

    added = datetime(2026, 12, 1, 8, tzinfo=UTC)
    for name, every in (("daily", "1d"), ("hourly", "6h")):
        add_source(
            data,
            Source(
                name=name,
                url=f"https://{name}.example/",
                feed=f"https://{name}.example/feed.xml",
                every=every,
                added=added,
            ),
        )
    now = datetime(2026, 12, 7, 12, tzinfo=UTC)
    monkeypatch.setattr(resources, "wall_clock", lambda: now)
    first = _evaluate(data, instance)
    assert isinstance(first, dg.SensorResult)
    [add] = first.dynamic_partitions_requests or []
    assert isinstance(add, dg.AddDynamicPartitionsRequest)
    assert add.partitions_def_name == "sources" and list(add.partition_keys) == ["daily", "hourly"]
    # never fetched: both due, one run each, tagged with the host the run queue limits
    requests = first.run_requests or []
    assert [r.partition_key for r in requests] == ["daily", "hourly"]
    assert [r.tags[FETCH_HOST_TAG] for r in requests] == ["daily.example", "hourly.example"]
    assert all(r.tags["aimi/trigger"] == "sensor" for r in requests)
    _apply(instance, first)
    assert instance.get_dynamic_partitions("sources") == ["daily", "hourly"]

    # the same tick again: the same run keys (the daemon starts each run once)
    again = _evaluate(data, instance)
    assert isinstance(again, dg.SensorResult) and not again.dynamic_partitions_requests
    assert [r.run_key for r in again.run_requests or []] == [r.run_key for r in requests]

    # fetched 3 hours ago: the daily one is not due, the 6-hourly one neither
    _record(data, "daily", now - timedelta(hours=3))
    _record(data, "hourly", now - timedelta(hours=3))
    idle = _evaluate(data, instance)
    assert isinstance(idle, dg.SkipReason)
    assert "2 source(s), none due; next: hourly at 2026-12-07 15:00 UTC" in (
        idle.skip_message or ""
    )
    # 7 hours later the 6-hourly one is due, with a new run key
    monkeypatch.setattr(resources, "wall_clock", lambda: now + timedelta(hours=4))
    later = _evaluate(data, instance)
    assert isinstance(later, dg.SensorResult)
    [hourly] = later.run_requests or []
    assert hourly.partition_key == "hourly" and hourly.run_key not in {r.run_key for r in requests}

    # a source removed from sources.yaml loses its partition (its signals stay)
    remove_source(data, "daily")
    removed = _evaluate(data, instance)
    assert isinstance(removed, dg.SensorResult)
    [delete] = removed.dynamic_partitions_requests or []
    assert isinstance(delete, dg.DeleteDynamicPartitionsRequest)
    assert list(delete.partition_keys) == ["daily"]
    _apply(instance, removed)
    assert instance.get_dynamic_partitions("sources") == ["hourly"]

    # a broken sources.yaml changes nothing, and says why
    sources_path(data).write_text("sources:\n  - name: Bad Name\n    url: nope\n")
    broken = _evaluate(data, instance)
    assert isinstance(broken, dg.SkipReason)
    assert "not valid; partitions left as they are" in (broken.skip_message or "")
    assert instance.get_dynamic_partitions("sources") == ["hourly"]


def test_a_source_being_fetched_is_not_requested_again(
    tmp_path: Path, instance: dg.DagsterInstance
) -> None:
    data = DataDir(tmp_path / "data")
    add_source(
        data, Source(name="busy", url="https://busy.example/", feed="https://busy.example/f")
    )
    instance.add_dynamic_partitions("sources", ["busy"])
    instance.add_run(
        dg.DagsterRun(
            job_name=FETCH_JOB,
            run_id="00000000-0000-0000-0000-000000000001",
            status=dg.DagsterRunStatus.STARTED,
            tags={"dagster/partition": "busy"},
        )
    )
    assert partitions_in_flight(instance) == {"busy"}
    waiting = _evaluate(data, instance)
    assert isinstance(waiting, dg.SkipReason)
    assert "fetching: busy" in (waiting.skip_message or "")


def test_a_run_that_recorded_no_fetch_is_retried_one_interval_later() -> None:
    source = Source(name="s", url="https://s.example/", feed="https://s.example/f", every="6h")
    fetched = datetime(2026, 12, 7, 0, tzinfo=UTC)
    last = LastRun("s", fetched, fetched, 1, 1, 0, 0, 0, None)
    due = datetime(2026, 12, 7, 6, tzinfo=UTC)
    keys = [due_run_key(source, last, due + timedelta(minutes=m)) for m in (0, 1, 359, 360)]
    # the same while its run waits or runs; a new one 6 hours on if no fetch was recorded
    assert keys[0] == keys[1] == keys[2] != keys[3]
    never = due_run_key(source, None, due)
    assert never.startswith("fetch:s:never:")


def test_the_run_queue_holds_fetch_runs_to_one_per_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The repository's dagster.yaml (what `make dagster` and `aimi build` use) limits the
    runs that carry the sensor's host tag to one per host, whatever max_concurrent_runs."""
    home = tmp_path / "dagster"
    home.mkdir()
    shutil.copyfile(DAGSTER_YAML, home / "dagster.yaml")
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    with dg.DagsterInstance.get() as made:
        queue = made.get_concurrency_config().run_queue_config
    assert queue is not None
    limits = queue.tag_concurrency_limits
    assert {"key": FETCH_HOST_TAG, "value": {"applyLimitPerUniqueValue": True}, "limit": 1} in (
        limits
    )
