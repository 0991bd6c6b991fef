"""The notify group: ``publish_sensor`` starts ``deliver_webhooks`` once per new snapshot when
watchlists exist, and ``webhook_deliveries`` delivers (``publishing.webhooks``) and shows each
watchlist's outcome in its metadata. The receiver is a real HTTP server on this machine."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import dagster as dg
import pytest

from pipelines.defs.notify.assets import deliver_job, publish_sensor, webhook_deliveries
from pipelines.resources import DELIVER_JOB, AimiResource
from publishing.watch import Watchlist, WatchStore, now_text
from tests.serving.conftest import EXTRA_RECORDS, RECORDS, build_tables, publish
from tests.warehouse.test_locks import HeldElsewhere
from warehouse.paths import DataDir
from warehouse.snapshot import current_snapshot_id


@pytest.fixture
def receiver() -> Iterator[tuple[str, list[bytes]]]:
    received: list[bytes] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            received.append(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook", received
    server.shutdown()
    server.server_close()


def evaluate(aimi: AimiResource, cursor: str | None) -> dg.SensorResult | dg.SkipReason:
    with dg.build_sensor_context(cursor=cursor, resources={"aimi": aimi}) as context:
        result = publish_sensor(context)
    assert isinstance(result, dg.SensorResult | dg.SkipReason)
    return result


def test_each_new_snapshot_starts_one_delivery_run_that_reports_per_watchlist(
    tmp_path: Path, receiver: tuple[str, list[bytes]]
) -> None:
    url, received = receiver
    data = DataDir(tmp_path / "data")
    aimi = AimiResource(data_dir=str(data.root))
    assert isinstance(evaluate(aimi, None), dg.SkipReason)  # nothing published yet
    publish(data.root, build_tables(RECORDS))
    first = current_snapshot_id(data)
    quiet = evaluate(aimi, None)
    assert isinstance(quiet, dg.SensorResult) and not quiet.run_requests  # no watchlists
    assert quiet.cursor == first
    WatchStore(data).add(Watchlist(name="all", url=url, secret="s", created_at=now_text()))
    assert isinstance(evaluate(aimi, first), dg.SkipReason)  # the same snapshot again
    publish(data.root, build_tables(RECORDS + EXTRA_RECORDS))
    second = current_snapshot_id(data)
    started = evaluate(aimi, first)
    assert isinstance(started, dg.SensorResult) and started.cursor == second
    [request] = started.run_requests or []
    assert request.run_key == f"deliver-{second}"

    result = dg.materialize([webhook_deliveries], resources={"aimi": aimi})
    [event] = result.get_asset_materialization_events()
    metadata = event.materialization.metadata
    assert metadata["batches"] == dg.IntMetadataValue(1)  # from the start: every signal
    assert metadata["signals"] == dg.IntMetadataValue(len(RECORDS + EXTRA_RECORDS))
    assert metadata["dead"] == dg.IntMetadataValue(0)
    assert metadata["dead_letters"] == dg.TextMetadataValue("none")
    assert metadata["snapshot_id"] == dg.TextMetadataValue(second or "")
    assert isinstance(metadata["watchlists"], dg.TableMetadataValue)
    assert len(received) == 1


@pytest.mark.parametrize("as_job", [True, False])
def test_deliveries_never_wait_for_a_build(
    tmp_path: Path, receiver: tuple[str, list[bytes]], as_job: bool
) -> None:
    # a build holds the data dir (in another thread: the lock is per open file, as another
    # process's would be); the deliveries' run, as the sensor's job or the asset alone, goes on
    url, received = receiver
    data = DataDir(tmp_path / "data")
    aimi = AimiResource(data_dir=str(data.root))
    publish(data.root, build_tables(RECORDS))
    WatchStore(data).add(Watchlist(name="all", url=url, secret="s", created_at=now_text()))
    defs = dg.Definitions(assets=[webhook_deliveries], jobs=[deliver_job], resources={"aimi": aimi})
    with HeldElsewhere(data) as build:
        started = time.monotonic()
        if as_job:  # the sensor's run
            result = defs.resolve_job_def(DELIVER_JOB).execute_in_process()
        else:  # "Materialize" on the asset in the UI: the global asset job, this asset selected
            result = defs.resolve_implicit_global_asset_job_def().execute_in_process(
                asset_selection=[webhook_deliveries.key]
            )
        assert result.success and len(received) == 1
        assert build.released_at == 0.0  # done while the build still held the lock
        assert time.monotonic() - started < 60


def test_the_retry_sensor_starts_a_run_when_a_scheduled_retry_comes_due(tmp_path: Path) -> None:
    """Issue 46: retries resume on schedule, also after a restart, with no publish to start
    them: the sensor reads the next due time a delivery run left."""
    from pipelines.defs.notify.assets import retry_sensor

    data = DataDir(tmp_path / "data")
    aimi = AimiResource(data_dir=str(data.root))

    def tick(cursor: str | None) -> dg.SensorResult | dg.SkipReason:
        with dg.build_sensor_context(cursor=cursor, resources={"aimi": aimi}) as context:
            result = retry_sensor(context)
        assert isinstance(result, dg.SensorResult | dg.SkipReason)
        return result

    assert isinstance(tick(None), dg.SkipReason)  # no schedule yet
    schedule = data.watch_dir / "schedule.json"
    schedule.parent.mkdir(parents=True)
    schedule.write_text('{"next_due_at": "2999-01-01T00:00:00Z", "dead": []}')
    assert isinstance(tick(None), dg.SkipReason)  # not due
    schedule.write_text('{"next_due_at": "2026-01-01T00:00:00Z", "dead": []}')
    due = tick(None)
    assert isinstance(due, dg.SensorResult)
    [request] = due.run_requests or []
    assert request.run_key == "retry-2026-01-01T00:00:00+00:00"
    assert isinstance(tick(due.cursor), dg.SkipReason)  # started for that time already


def test_a_dead_letter_is_named_in_the_run_s_metadata(tmp_path: Path) -> None:
    """Issue 46: the operator sees a dead-lettered watchlist in the Dagster UI."""

    class Refusing(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(401)  # final at once: dead-lettered in this run
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Refusing)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        data = DataDir(tmp_path / "data")
        aimi = AimiResource(data_dir=str(data.root))
        publish(data.root, build_tables(RECORDS))
        url = f"http://127.0.0.1:{server.server_address[1]}/hook"
        WatchStore(data).add(Watchlist(name="gone", url=url, secret="s", created_at=now_text()))
        result = dg.materialize([webhook_deliveries], resources={"aimi": aimi})
    finally:
        server.shutdown()
        server.server_close()
    [event] = result.get_asset_materialization_events()
    metadata = event.materialization.metadata
    assert metadata["dead"] == dg.IntMetadataValue(1)
    assert metadata["dead_letters"] == dg.TextMetadataValue("gone")
