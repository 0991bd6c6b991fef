"""A local S3 server for the object-store tests: moto's server (``moto[server]``, a dev
dependency) on a free loopback port, in its own process, with a bucket made for the test.

docs/design.md §11 has the snapshot store tested against a local S3 server; aimi talks to it through
boto3 exactly as to any S3-compatible store, over real HTTP. ``s3_env`` is what a process
needs to reach it (boto3's own variables: any credentials, this endpoint).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

MOTO_SERVER = Path(sys.executable).parent / "moto_server"


@dataclass(frozen=True)
class S3Server:
    endpoint: str
    bucket: str

    def env(self) -> dict[str, str]:
        """boto3's variables for a process that should use this server."""
        return {
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_ENDPOINT_URL_S3": self.endpoint,
        }

    def client(self) -> Any:
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
            region_name="us-east-1",
        )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def moto_server(bucket: str = "aimi-snapshots", log: Path | None = None) -> Iterator[S3Server]:
    """moto's S3 server on a free port, with ``bucket`` created; stopped on exit."""
    port = free_port()
    out = log.open("wb") if log is not None else subprocess.DEVNULL
    process = subprocess.Popen(
        [str(MOTO_SERVER), "-H", "127.0.0.1", "-p", str(port)],
        stdout=out,
        stderr=subprocess.STDOUT,
        env={**os.environ, "MOTO_ALLOW_NONEXISTENT_REGION": "true"},
    )
    server = S3Server(f"http://127.0.0.1:{port}", bucket)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"moto_server did not start (exit {process.poll()})"
                    ) from None
                time.sleep(0.1)
        server.client().create_bucket(Bucket=bucket)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if log is not None and hasattr(out, "close"):
            out.close()


@contextmanager
def warehouse_on(server: S3Server, monkeypatch: pytest.MonkeyPatch, prefix: str) -> Iterator[str]:
    """``AIMI_WAREHOUSE_URL`` set to ``prefix`` in the server's bucket and boto3's variables
    pointed at the server (the variables a step's process inherits too), the process's cached
    S3 clients (the tables' and the build lease's) dropped before and after."""
    from warehouse import lease, tables

    url = f"s3://{server.bucket}/{prefix}"
    for name, value in {**server.env(), "AIMI_WAREHOUSE_URL": url}.items():
        monkeypatch.setenv(name, value)
    tables._s3_tables.cache_clear()
    lease._client.cache_clear()
    try:
        yield url
    finally:
        tables._s3_tables.cache_clear()
        lease._client.cache_clear()


def module_server(bucket: str) -> Any:
    """A module-scoped fixture: one moto server with ``bucket`` for every test of the module
    that declares it (``s3 = module_server("aimi-…")``)."""

    @pytest.fixture(scope="module")
    def s3() -> Iterator[S3Server]:
        with moto_server(bucket=bucket) as server:
            yield server

    return s3
