"""Rate limits (docs/api.md §8, docs/design.md §9): the two windows and their resets, the headers on
every authenticated response, 429 with ``Retry-After``, ``retry_after`` and ``reset``; exact counts
across processes, kept over a restart, and the same behaviour on a real ``redis-server``."""

from __future__ import annotations

import calendar
import multiprocessing
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from serving.app import create_app
from serving.auth import ThrottledLog
from serving.keys import KeyStore
from serving.ratelimit import (
    FileCounters,
    RateLimiter,
    RateLimitError,
    RedisCounters,
    Windows,
    open_limiter,
)
from tests.serving.conftest import DEV_KEY, free_port, make_settings, stop_process
from warehouse.settings import DEFAULT_TIERS, Quota, Settings, redact_url

# 2026-11-21 10:15:30 UTC: mid-minute, mid-month
NOW = calendar.timegm((2026, 11, 21, 10, 15, 30))
TINY = Quota(per_minute=3, per_month=5)
HEADERS = (
    "x-ratelimit-limit-minute",
    "x-ratelimit-remaining-minute",
    "x-ratelimit-reset-minute",
    "x-ratelimit-limit-monthly",
    "x-ratelimit-remaining-monthly",
    "x-ratelimit-reset-monthly",
)


def test_windows_align_to_the_utc_minute_and_calendar_month() -> None:
    w = Windows.at(NOW + 0.9)
    assert w.minute_start == NOW - 30 and w.minute_reset == NOW + 30
    assert w.month_start == calendar.timegm((2026, 11, 1, 0, 0, 0))
    assert w.month_reset == calendar.timegm((2026, 12, 1, 0, 0, 0))
    december = Windows.at(calendar.timegm((2026, 12, 31, 23, 59, 59)))
    assert december.month_reset == calendar.timegm((2027, 1, 1, 0, 0, 0))
    assert december.minute_reset == december.month_reset


def test_file_counters_admit_the_quota_then_refuse_without_counting(tmp_path: Path) -> None:
    limiter = RateLimiter(FileCounters(tmp_path / "rl.bin"), {"tiny": TINY})
    decisions = [limiter.check("k1", "tiny", NOW) for _ in range(5)]
    assert [d.admitted for d in decisions] == [True, True, True, False, False]
    refused = decisions[-1]
    assert refused.minute_exceeded and not refused.month_exceeded
    assert refused.minute_count == 3 and refused.month_count == 3  # refusals not counted
    assert refused.retry_after == 30 and refused.reset == NOW + 30
    assert refused.headers()["X-RateLimit-Remaining-Minute"] == "0"
    assert refused.headers()["X-RateLimit-Remaining-Monthly"] == "2"
    # another key has its own counters
    assert limiter.check("k2", "tiny", NOW).minute_count == 1
    # the next minute: two more fit the month, then the month is full until December
    later = NOW + 60
    assert [limiter.check("k1", "tiny", later).admitted for _ in range(3)] == [True, True, False]
    full = limiter.check("k1", "tiny", later + 61)
    assert not full.admitted and full.month_exceeded
    december = calendar.timegm((2026, 12, 1, 0, 0, 0))
    assert full.reset == december and full.retry_after == december - (later + 61)
    assert limiter.check("k1", "tiny", december).admitted  # a new month


def test_retry_after_stays_within_one_to_sixty_seconds(tmp_path: Path) -> None:
    limiter = RateLimiter(
        FileCounters(tmp_path / "rl.bin"), {"one": Quota(per_minute=1, per_month=99)}
    )
    for offset in (0.0, 0.2, 29.5, 59.0, 59.999):
        moment = NOW - 30 + 60 * 10 * (1 + int(offset * 1000)) + offset  # a fresh minute each
        assert limiter.check("k", "one", moment).admitted
        refused = limiter.check("k", "one", moment)
        assert not refused.admitted and 1 <= refused.retry_after <= 60


def test_counts_survive_a_restart(tmp_path: Path) -> None:
    first = FileCounters(tmp_path / "rl.bin")
    limiter = RateLimiter(first, {"tiny": TINY})
    limiter.check("k1", "tiny", NOW)
    limiter.check("k1", "tiny", NOW)
    limiter.close()
    again = RateLimiter(FileCounters(tmp_path / "rl.bin"), {"tiny": TINY})
    assert again.check("k1", "tiny", NOW).minute_count == 3


def test_a_foreign_file_is_refused_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "rl.bin"
    path.write_bytes(b"something else entirely")
    with pytest.raises(RateLimitError, match="not a rate-limit file"):
        FileCounters(path)
    assert path.read_bytes() == b"something else entirely"


def test_a_full_table_is_an_error(tmp_path: Path) -> None:
    counters = FileCounters(tmp_path / "rl.bin", slots=4)
    for i in range(4):
        counters.hit(f"k{i}", TINY, Windows.at(NOW))
    with pytest.raises(RateLimitError, match="slots are in use"):
        counters.hit("k4", TINY, Windows.at(NOW))


def _hammer(path: str, count: int, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    limiter = RateLimiter(FileCounters(Path(path)), {"q": Quota(per_minute=10**6, per_month=700)})
    out.put(sum(limiter.check("shared", "q", NOW).admitted for _ in range(count)))


def test_a_second_close_never_closes_the_number_another_file_took_since(tmp_path: Path) -> None:
    """Issue 28: the app's lifespan closed a limiter a test had already closed; by then the
    descriptor number could belong to another file, which the second close silently broke."""
    counters = FileCounters(tmp_path / "rl.bin", slots=8)
    number = counters._fd
    counters.close()
    assert counters.closed
    other = os.open(tmp_path / "other", os.O_RDWR | os.O_CREAT, 0o600)
    if other != number:  # make the reuse certain: the number now names the other file
        os.dup2(other, number)
        os.close(other)
    try:
        counters.close()
        os.fstat(number)  # EBADF had the second close reached it
    finally:
        os.close(number)


def test_the_app_closes_the_limiter_it_holds_once(shared_root: Path, tmp_path: Path) -> None:
    """At shutdown the lifespan closes the limiter the app holds then, not the one it opened:
    whoever replaced that one closed it (as ``tiny_api`` does)."""
    app = create_app(make_settings(shared_root))
    with TestClient(app):
        opened = app.state.limiter
        opened.close()
        replacement = FileCounters(tmp_path / "rl.bin", slots=8)
        app.state.limiter = RateLimiter(replacement, DEFAULT_TIERS)
        assert not replacement.closed
    assert replacement.closed and opened.store.closed


@pytest.mark.slow
def test_processes_share_exact_counts(tmp_path: Path) -> None:
    """Three processes race 400 requests each at a monthly quota of 700: exactly 700 pass."""
    ctx = multiprocessing.get_context("spawn")
    out: multiprocessing.Queue = ctx.Queue()  # type: ignore[type-arg]
    workers = [
        ctx.Process(target=_hammer, args=(str(tmp_path / "rl.bin"), 400, out)) for _ in range(3)
    ]
    for w in workers:
        w.start()
    admitted = sum(out.get(timeout=120) for _ in workers)
    for w in workers:
        w.join(timeout=30)
    assert admitted == 700


def test_settings_merge_configured_tiers_over_the_defaults() -> None:
    settings = Settings(
        _env_file=None, rate_limit_tiers={"free": {"per_minute": 7, "per_month": 70}}
    )
    assert settings.rate_limit_tiers["free"] == Quota(per_minute=7, per_month=70)
    assert settings.rate_limit_tiers["pro"] == DEFAULT_TIERS["pro"]
    with pytest.raises(RateLimitError, match="redis://"):
        open_limiter("memcached://x", Path("/nonexistent"), DEFAULT_TIERS)


# -- through the API ------------------------------------------------------------------------------


@pytest.fixture
def tiny_api(shared_root: Path, tmp_path: Path) -> Iterator[tuple[TestClient, str, list[float]]]:
    """An app over the shared snapshot whose key has the 3/minute, 5/month tier; its rate-limit
    clock is the list's first item, which the test moves."""
    settings = make_settings(shared_root).model_copy(
        update={"rate_limit_tiers": {**DEFAULT_TIERS, "tiny": TINY}}
    )
    _, key = KeyStore(tmp_path / "keys.json").create("tiny client", "tiny")
    app = create_app(settings)
    clock = [float(NOW)]
    with TestClient(app) as client:
        app.state.keys = KeyStore(tmp_path / "keys.json")
        # counters of this test only: the shared data dir's file would carry counts over
        app.state.limiter.close()
        app.state.limiter = RateLimiter(
            FileCounters(tmp_path / "rl.bin"), settings.rate_limit_tiers
        )
        app.state.clock = lambda: clock[0]
        yield client, key, clock


def test_every_authenticated_response_carries_the_headers(
    tiny_api: tuple[TestClient, str, list[float]],
) -> None:
    client, key, _ = tiny_api
    ok = client.get("/v1/themes", headers={"X-API-Key": key})
    assert ok.status_code == 200
    assert {h: ok.headers[h] for h in HEADERS} == {
        "x-ratelimit-limit-minute": "3",
        "x-ratelimit-remaining-minute": "2",
        "x-ratelimit-reset-minute": str(NOW + 30),
        "x-ratelimit-limit-monthly": "5",
        "x-ratelimit-remaining-monthly": "4",
        "x-ratelimit-reset-monthly": str(calendar.timegm((2026, 12, 1, 0, 0, 0))),
    }
    missing = client.get("/v1/signals/sig_doesnotexist", headers={"X-API-Key": key})
    assert missing.status_code == 404 and missing.headers["x-ratelimit-remaining-minute"] == "1"
    # not authenticated: no quota to report
    assert not any(h in client.get("/v1/health").headers for h in HEADERS)
    unauthorized = client.get("/v1/themes", headers={"X-API-Key": "aimi_000000000000_nope"})
    assert unauthorized.status_code == 401
    assert not any(h in unauthorized.headers for h in HEADERS)


def test_429_carries_retry_after_reset_and_the_headers(
    tiny_api: tuple[TestClient, str, list[float]],
) -> None:
    client, key, clock = tiny_api
    clock[0] = NOW + 12.4  # 17.6 s before the minute resets
    for _ in range(3):
        assert client.get("/v1/themes", headers={"X-API-Key": key}).status_code == 200
    refused = client.get("/v1/themes", headers={"X-API-Key": key})
    assert refused.status_code == 429
    error = refused.json()["error"]
    assert error["code"] == "rate_limited" and error["status"] == 429
    assert error["retry_after"] == 18 and refused.headers["retry-after"] == "18"
    assert error["reset"] == NOW + 30 and error["request_id"] == refused.headers["x-request-id"]
    assert all(h in refused.headers for h in HEADERS)
    assert refused.headers["x-ratelimit-remaining-minute"] == "0"
    # the next minute has room; the month does not after two more
    clock[0] = NOW + 31
    assert [client.get("/v1/themes", headers={"X-API-Key": key}).status_code for _ in range(3)] == [
        200,
        200,
        429,
    ]
    month = client.get("/v1/themes", headers={"X-API-Key": key})
    december = calendar.timegm((2026, 12, 1, 0, 0, 0))
    assert month.json()["error"]["reset"] == december
    assert int(month.headers["retry-after"]) == december - int(NOW + 31)
    assert "monthly quota of 5" in month.json()["error"]["message"]


def test_the_dev_key_is_counted_in_its_own_tier(client: TestClient) -> None:
    response = client.get("/v1/themes", headers={"X-API-Key": DEV_KEY})
    assert response.headers["x-ratelimit-limit-minute"] == str(DEFAULT_TIERS["dev"].per_minute)


# -- several uvicorn workers, and a restart --------------------------------------------------------


def _serve(root: Path, port: int, workers: int) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "AIMI_DATA_DIR": str(root),
        "AIMI_RATE_LIMIT_TIERS": '{"burst": {"per_minute": 1000000, "per_month": 60}}',
        "HF_HUB_OFFLINE": "1",
    }
    process = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "aimi"),
            "serve",
            "--port",
            str(port),
            "--workers",
            str(workers),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.3)
    process.kill()
    raise AssertionError("aimi serve did not come up within 90 s")


@pytest.mark.slow
def test_two_workers_count_exactly_and_a_restart_keeps_the_month(
    tmp_path: Path, shared_root: Path
) -> None:
    root = tmp_path / "data"
    shutil.copytree(shared_root / "snapshots", root / "snapshots")
    _, key = KeyStore(root / "keys.json").create("burst client", "burst")
    port = free_port()
    server = _serve(root, port, workers=2)
    try:
        base = f"http://127.0.0.1:{port}"
        # 90 requests from 6 threads; the workers share the listening socket
        with (
            httpx.Client(base_url=base, headers={"X-API-Key": key}) as c,
            ThreadPoolExecutor(6) as pool,
        ):
            statuses = list(pool.map(lambda _: c.get("/v1/themes").status_code, range(90)))
        assert statuses.count(200) == 60 and statuses.count(429) == 30
    finally:
        stop_process(server)
    server = _serve(root, port, workers=1)
    try:
        response = httpx.get(f"http://127.0.0.1:{port}/v1/themes", headers={"X-API-Key": key})
        assert response.status_code == 429  # the month's 60 were used before the restart
        assert response.headers["x-ratelimit-remaining-monthly"] == "0"
    finally:
        stop_process(server)


# -- Redis ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real redis-server on a free port (scripts/ensure-redis installs it for `make test`)."""
    binary = shutil.which("redis-server")
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("redis-server is missing: `make test` runs scripts/ensure-redis first")
        pytest.skip("redis-server is not installed (scripts/ensure-redis installs it)")
    port = free_port()
    folder = tmp_path_factory.mktemp("redis")
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(folder)],
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    import redis

    deadline = time.monotonic() + 20
    while True:
        try:
            redis.Redis.from_url(url).ping()
            break
        except redis.ConnectionError:
            if time.monotonic() > deadline:
                process.kill()
                raise
            time.sleep(0.1)
    yield url
    process.terminate()
    process.wait(timeout=10)


def test_redis_counts_like_the_file(redis_url: str, tmp_path: Path) -> None:
    redis_limiter = RateLimiter(RedisCounters(redis_url), {"tiny": TINY})
    file_limiter = RateLimiter(FileCounters(tmp_path / "rl.bin"), {"tiny": TINY})
    moments = [NOW, NOW, NOW, NOW, NOW + 60, NOW + 60, NOW + 61, NOW + 121]
    for moment in moments:
        a = redis_limiter.check("rk", "tiny", moment)
        b = file_limiter.check("rk", "tiny", moment)
        assert (a.admitted, a.minute_count, a.month_count) == (
            b.admitted,
            b.minute_count,
            b.month_count,
        )
    redis_limiter.close()


def test_redis_through_the_api_and_an_outage_is_a_503(
    redis_url: str, shared_root: Path, tmp_path: Path
) -> None:
    settings = make_settings(shared_root).model_copy(
        update={
            "rate_limit_storage": redis_url,
            "rate_limit_tiers": {**DEFAULT_TIERS, "tiny": TINY},
        }
    )
    _, key = KeyStore(tmp_path / "keys.json").create("redis client", "tiny")
    app = create_app(settings)
    with TestClient(app) as client:
        app.state.keys = KeyStore(tmp_path / "keys.json")
        app.state.clock = lambda: float(NOW)
        statuses = [
            client.get("/v1/themes", headers={"X-API-Key": key}).status_code for _ in range(4)
        ]
        assert statuses == [200, 200, 200, 429]
        app.state.limiter.close()
        app.state.limiter = RateLimiter(
            RedisCounters("redis://127.0.0.1:1/0"), settings.rate_limit_tiers
        )
        down = client.get("/v1/themes", headers={"X-API-Key": key})
        assert down.status_code == 503 and down.json()["error"]["retry_after"] == 5


def test_an_outage_names_no_url_password_or_path_to_the_client(
    shared_root: Path, free_port_number: int, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 34: the 503 body carried the configured storage URL, password included. No Redis
    listens on the port here: the client learns the service is unavailable, the log names the
    storage with its password redacted."""
    url = f"redis://:s3cret-pw@127.0.0.1:{free_port_number}/0"
    settings = make_settings(shared_root).model_copy(update={"rate_limit_storage": url})
    with caplog.at_level("ERROR", logger="aimi.ratelimit"), TestClient(create_app(settings)) as c:
        down = c.get("/v1/themes", headers={"X-API-Key": DEV_KEY})
    assert down.status_code == 503 and down.headers["retry-after"] == "5"
    body = down.text
    assert "s3cret" not in body and "redis://" not in body and str(shared_root) not in body
    assert "unavailable" in down.json()["error"]["message"]
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "s3cret" not in logged and f"redis://:***@127.0.0.1:{free_port_number}/0" in logged


def test_an_outage_is_logged_once_per_interval_with_the_refusals_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = [0.0]
    log = ThrottledLog(every=30.0, clock=lambda: now[0])
    with caplog.at_level("ERROR", logger="aimi.ratelimit"):
        for _ in range(100):  # a burst of keyed requests while the storage is down
            log.error("rate limiting is unavailable", "storage down")
        now[0] = 29.0
        log.error("rate limiting is unavailable", "storage down")
        now[0] = 30.0
        log.error("rate limiting is unavailable", "storage down")
    assert [r.getMessage() for r in caplog.records] == [
        "rate limiting is unavailable: storage down",
        "rate limiting is unavailable: storage down (100 more refused since the last line)",
    ]


def test_the_app_logs_an_outage_once_for_a_burst_of_requests(
    shared_root: Path, free_port_number: int, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"redis://127.0.0.1:{free_port_number}/0"  # nothing listens there
    settings = make_settings(shared_root).model_copy(update={"rate_limit_storage": url})
    with caplog.at_level("ERROR", logger="aimi.ratelimit"), TestClient(create_app(settings)) as c:
        statuses = {
            c.get("/v1/themes", headers={"X-API-Key": DEV_KEY}).status_code for _ in range(20)
        }
    assert statuses == {503}
    assert len([r for r in caplog.records if "unavailable" in r.getMessage()]) == 1


@pytest.fixture
def free_port_number() -> int:
    return free_port()


def test_redact_url_hides_passwords_only() -> None:
    assert redact_url("redis://:pw@h:6379/0") == "redis://:***@h:6379/0"
    assert redact_url("redis://user:pw@h/0 failed") == "redis://user:***@h/0 failed"
    assert redact_url("rediss://user@h/0") == "rediss://user@h/0"
    assert redact_url("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/0"
