"""``POST /v1/admin/refresh`` (docs/api.md §4.10, §5): only the admin secret opens it; it
re-materializes the derived views, embeds the units not embedded yet, publishes and serves the new
snapshot, and reports what it did; a refresh while another build runs is refused with 503."""

from __future__ import annotations

import hashlib
import json
import shutil
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr, ValidationError

from analytics.schema import UNIT_EMBEDDINGS
from pipelines.build import REFRESHED_VIEWS, build_lock
from publishing.watch import Watchlist, WatchStore, now_text
from readmodel.errors import RateLimited, Unauthorized
from serving.app import create_app
from serving.routers.admin import ADMIN_FAILURES_PER_MINUTE, AdminGuard
from tests.serving.conftest import DEV_KEY, make_settings
from warehouse.paths import DataDir
from warehouse.settings import Settings
from warehouse.snapshot import open_current
from warehouse.tables import read_table, write_table

SECRET = "admin-secret-for-tests"
DROPPED = 5


@pytest.fixture
def data(demo_data_dir: DataDir, tmp_path: Path) -> DataDir:
    """A copy of the demo data dir with the embeddings of ``DROPPED`` units removed."""
    copy = DataDir(tmp_path / "data")
    shutil.copytree(demo_data_dir.root, copy.root, ignore=shutil.ignore_patterns("dagster"))
    cached = read_table(copy, "unit_embeddings", UNIT_EMBEDDINGS)
    write_table(copy, "unit_embeddings", cached.slice(DROPPED))
    return copy


@pytest.fixture
def admin(data: DataDir) -> Iterator[TestClient]:
    settings = make_settings(data.root).model_copy(update={"admin_secret": SecretStr(SECRET)})
    with TestClient(create_app(settings)) as client:
        yield client


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"X-API-Key": DEV_KEY},  # a valid API key is not an admin secret
        {"X-Admin-Secret": DEV_KEY},
        {"X-Admin-Secret": SECRET + "x"},
        {"X-Admin-Secret": SECRET[:-1]},
    ],
)
def test_only_the_admin_secret_opens_the_endpoint(
    admin: TestClient, headers: dict[str, str]
) -> None:
    response = admin.post("/v1/admin/refresh", headers=headers)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"


def test_without_a_configured_secret_the_endpoint_is_closed(data: DataDir) -> None:
    with TestClient(create_app(make_settings(data.root))) as client:
        response = client.post("/v1/admin/refresh", headers={"X-Admin-Secret": ""})
        assert response.status_code == 401
        assert "AIMI_ADMIN_SECRET" in response.json()["error"]["message"]


def test_a_refresh_while_a_build_runs_is_refused_at_once(admin: TestClient, data: DataDir) -> None:
    with build_lock(data, wait=False):
        response = admin.post("/v1/admin/refresh", headers={"X-Admin-Secret": SECRET})
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["code"] == "unavailable" and error["retry_after"] == 30
    assert response.headers["retry-after"] == "30"
    assert "another build or refresh is running" in error["message"]


@pytest.fixture
def receiver() -> Iterator[tuple[str, list[bytes]]]:
    """A webhook receiver on this machine: the bodies it was sent."""
    received: list[bytes] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            received.append(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook", received
    server.shutdown()
    server.server_close()


def test_refresh_embeds_the_missing_units_publishes_and_serves(
    data: DataDir, admin: TestClient, receiver: tuple[str, list[bytes]]
) -> None:
    before = open_current(data)
    assert before is not None
    url, received = receiver
    # a watchlist from the feed's start: the refresh's publish sends it its batch, as a build does
    WatchStore(data).add(Watchlist(name="all", url=url, secret="s" * 16, created_at=now_text()))
    response = admin.post("/v1/admin/refresh", headers={"X-Admin-Secret": SECRET})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "ok"
    assert body["materialized_views"] == {
        "views_refreshed": len(REFRESHED_VIEWS),
        "views": list(REFRESHED_VIEWS),
    }
    assert body["embeddings"] == {"units_embedded": DROPPED}
    published = body["snapshot"]["id"]
    assert published != before.snapshot_id
    assert admin.get("/v1/health").json()["snapshot"]["id"] == published  # served already
    deadline = time.monotonic() + 120  # the deliveries run in a process of their own
    while not received and time.monotonic() < deadline:
        time.sleep(0.2)
    assert received and json.loads(received[0])["snapshot_id"] == published
    entities = admin.get("/v1/entities", headers={"X-API-Key": DEV_KEY}).json()["entities"]
    assert entities  # the refreshed profiles serve
    # nothing left to embed: a second refresh embeds none; two at once: one runs, one is refused
    with ThreadPoolExecutor(2) as pool:
        results = list(
            pool.map(
                lambda _: admin.post("/v1/admin/refresh", headers={"X-Admin-Secret": SECRET}),
                range(2),
            )
        )
    statuses = sorted(r.status_code for r in results)
    assert statuses == [200, 503], [r.text for r in results]
    ran = next(r for r in results if r.status_code == 200).json()
    assert ran["embeddings"]["units_embedded"] == 0
    assert open_current(data) is not None  # the snapshot the winner published verifies


def test_a_hashed_secret_works_as_well(data: DataDir) -> None:
    digest = hashlib.sha256(SECRET.encode()).hexdigest()
    settings = make_settings(data.root).model_copy(
        update={"admin_secret_sha256": SecretStr(digest)}
    )
    with TestClient(create_app(settings)) as client, build_lock(data, wait=False):
        # the secret is accepted (503: the test holds the build lock, so nothing runs)
        assert (
            client.post("/v1/admin/refresh", headers={"X-Admin-Secret": SECRET}).status_code == 503
        )
        assert (
            client.post("/v1/admin/refresh", headers={"X-Admin-Secret": digest}).status_code == 401
        )


@pytest.mark.parametrize("digest", ["not-hex", "abcd", "0" * 63, "g" * 64])
def test_a_malformed_hashed_secret_stops_the_server_from_starting(digest: str) -> None:
    with pytest.raises(ValidationError, match="AIMI_ADMIN_SECRET_SHA256 must be the 64 hex"):
        Settings(_env_file=None, admin_secret_sha256=SecretStr(digest))


def test_an_empty_hashed_secret_is_unset() -> None:
    assert Settings(_env_file=None, admin_secret_sha256=SecretStr(" ")).admin_secret_sha256 is None


def test_failed_attempts_are_limited_per_minute_and_logged_without_the_secret(
    fresh_root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Brute force: past ``ADMIN_FAILURES_PER_MINUTE`` failures, every attempt gets 429 with
    Retry-After until the minute ends, the right secret too, before any secret is compared;
    the log names the failures and never what was presented."""
    settings = make_settings(fresh_root).model_copy(update={"admin_secret": SecretStr(SECRET)})
    app = create_app(settings)
    guesses = [f"guess-{n}-of-the-secret" for n in range(ADMIN_FAILURES_PER_MINUTE)]
    with TestClient(app) as client, caplog.at_level("WARNING", logger="aimi.serving"):
        # a fixed clock: the minute cannot end in the middle of the test
        guard = AdminGuard(clock=lambda: 1_800_000_000.0)
        app.state.admin_guard = guard
        statuses = [
            client.post("/v1/admin/refresh", headers={"X-Admin-Secret": g}).status_code
            for g in guesses
        ]
        locked = client.post("/v1/admin/refresh", headers={"X-Admin-Secret": SECRET})
        missing = client.post("/v1/admin/refresh")
    assert statuses == [401] * ADMIN_FAILURES_PER_MINUTE
    assert locked.status_code == 429 and missing.status_code == 429
    assert locked.headers["Retry-After"] == "60"  # 1_800_000_000 is a minute's first second
    assert locked.json()["error"]["code"] == "rate_limited"
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "admin refresh refused: invalid admin secret" in logged
    assert not any(g in logged for g in guesses) and SECRET not in logged


def test_the_admin_guard_opens_again_with_the_next_minute() -> None:
    now = [1_800_000_000.0]
    guard = AdminGuard(limit=2, clock=lambda: now[0])
    for _ in range(2):
        guard.check()
        guard.failed(Unauthorized("invalid admin secret"))
    with pytest.raises(RateLimited) as refused:
        guard.check()
    assert refused.value.retry_after == 60
    now[0] += 59.5
    with pytest.raises(RateLimited) as refused:
        guard.check()
    assert refused.value.retry_after == 1
    now[0] += 0.5  # the next minute
    guard.check()
