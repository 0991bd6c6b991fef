"""A real API server for the client tests: uvicorn in a thread on a loopback port, over the
session's demo snapshot, with the dev key and a key of a 2-a-minute tier whose rate-limit
clock the tests can move."""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import uvicorn

from serving.app import create_app
from serving.keys import KeyStore
from serving.ratelimit import FileCounters, RateLimiter
from tests.serving.conftest import DEV_KEY, make_settings
from warehouse.paths import DataDir
from warehouse.settings import DEFAULT_TIERS, Quota

# the generated client is a project of its own (clients/python), not installed in .venv
CLIENT_PROJECT = Path(__file__).resolve().parents[2] / "clients" / "python"
TINY = Quota(per_minute=2, per_month=1000)


@dataclass
class Server:
    """A running server: its base URL, the dev key, a `tiny`-tier key, and the offset added to
    the wall clock by the rate limiter (seconds)."""

    url: str
    dev_key: str
    tiny_key: str
    clock_offset: list[float]

    def seconds_to_next_minute(self) -> float:
        """Seconds until the rate limiter's minute window resets."""
        return 60 - (time.time() + self.clock_offset[0]) % 60

    def move_clock_to(self, seconds_before_reset: float) -> None:
        """Shift the limiter's clock so its minute resets ``seconds_before_reset`` from now,
        in a minute no request has counted in yet."""
        self.clock_offset[0] += self.seconds_to_next_minute() + 60 - seconds_before_reset


@pytest.fixture(scope="session")
def client_project() -> Path:
    if str(CLIENT_PROJECT) not in sys.path:
        sys.path.insert(0, str(CLIENT_PROJECT))
    return CLIENT_PROJECT


@pytest.fixture(scope="module")
def server(demo_data_dir: DataDir, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    own = tmp_path_factory.mktemp("client-server")
    settings = make_settings(demo_data_dir.root).model_copy(
        update={"rate_limit_tiers": {**DEFAULT_TIERS, "tiny": TINY}}
    )
    keys = KeyStore(own / "keys.json")
    _, tiny_key = keys.create("recipes", "tiny")
    app = create_app(settings)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    offset = [0.0]
    # this module's keys and counters (the demo data dir's would carry counts across tests)
    app.state.keys = keys
    app.state.limiter = RateLimiter(FileCounters(own / "rl.bin"), settings.rate_limit_tiers)
    app.state.clock = lambda: time.time() + offset[0]
    yield Server(f"http://127.0.0.1:{port}", DEV_KEY, tiny_key, offset)
    server.should_exit = True
    thread.join(timeout=30)
    app.state.limiter.close()  # the lifespan closed the one it opened
    sock.close()
