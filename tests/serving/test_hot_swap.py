"""Hot swap under load (docs/design.md §10): a real ``aimi serve`` answers a bounded loopback load
while new snapshots are published under it, with zero failed requests; a cursor minted on a snapshot
that has since been retired keeps working (keyset cursors name a position, not a snapshot)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest

from tests.serving.conftest import DEV_KEY, Corpus, free_port, publish, stop_process

LOAD_SECONDS_MIN = 10
LOAD_SECONDS_MAX = 60
URLS = (
    "/v1/signals?limit=10",
    "/v1/signals?sort=changed&limit=5",
    "/v1/themes",
    "/v1/entities?limit=5",
    "/v1/search?q=data%20center%20funding&limit=5",
    "/v1/health",
)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_publishing_under_load_fails_no_request(tmp_path: Path, corpus: Corpus) -> None:
    root = tmp_path / "data"
    first = publish(root, corpus.tables)
    port = free_port()
    env = {
        **os.environ,
        "AIMI_DATA_DIR": str(root),
        "AIMI_DEV_API_KEY": DEV_KEY,
        "AIMI_SNAPSHOT_POLL_SECONDS": "0.2",
        "HF_HUB_OFFLINE": "1",
    }
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "aimi"), "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_for(base, first)
        with httpx.Client(base_url=base, headers={"X-API-Key": DEV_KEY}, timeout=30) as c:
            page = c.get("/v1/signals", params={"limit": 3}).json()
            old_cursor = page["next_cursor"]
            served_before = [s["signal_id"] for s in page["signals"]]
        stop = threading.Event()
        statuses: Counter[int] = Counter()
        failures: list[str] = []
        seen: set[str] = set()
        lock = threading.Lock()

        def load() -> None:
            with httpx.Client(base_url=base, headers={"X-API-Key": DEV_KEY}, timeout=30) as c:
                i = 0
                while not stop.is_set():
                    url = URLS[i % len(URLS)]
                    i += 1
                    try:
                        response = c.get(url)
                    except httpx.HTTPError as exc:
                        with lock:
                            failures.append(f"{url}: {exc!r}")
                        continue
                    with lock:
                        statuses[response.status_code] += 1
                        if response.status_code != 200:
                            failures.append(f"{url}: {response.status_code} {response.text[:200]}")
                        elif url == "/v1/health":
                            seen.add(response.json()["snapshot"]["id"])

        def seen_by_load(snapshot_id: str, timeout: float = 30.0) -> None:
            """Wait until the load itself was answered from ``snapshot_id`` (a fixed sleep is
            too short on a busy machine)."""
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                with lock:
                    if snapshot_id in seen:
                        return
                time.sleep(0.1)

        threads = [threading.Thread(target=load) for _ in range(4)]
        started = time.monotonic()
        for t in threads:
            t.start()
        try:
            time.sleep(1)
            second = publish(root, corpus.extended)
            _wait_for(base, second)
            seen_by_load(second)
            third = publish(root, corpus.tables)
            _wait_for(base, third)
            seen_by_load(third)
            time.sleep(max(1.0, LOAD_SECONDS_MIN - (time.monotonic() - started)))
        finally:
            stop.set()
            for t in threads:
                t.join(timeout=30)
        assert time.monotonic() - started < LOAD_SECONDS_MAX
        assert failures == []
        assert sum(statuses.values()) >= 100, statuses
        # the first was serving when the load began (_wait_for); both new ones came in under it
        assert {second, third} <= seen
        # the cursor from the first snapshot, two swaps later: the next page, no repeat
        with httpx.Client(base_url=base, headers={"X-API-Key": DEV_KEY}, timeout=30) as c:
            after = c.get("/v1/signals", params={"limit": 3, "cursor": old_cursor})
        assert after.status_code == 200
        assert not {s["signal_id"] for s in after.json()["signals"]} & set(served_before)
    finally:
        stop_process(server)


def _wait_for(base: str, snapshot_id: str, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            body = httpx.get(f"{base}/v1/health", timeout=2).json()
            if (body.get("snapshot") or {}).get("id") == snapshot_id:
                return
        except (httpx.HTTPError, ValueError):
            pass
        time.sleep(0.1)
    raise AssertionError(f"the server did not serve snapshot {snapshot_id} within {timeout} s")
