"""The signal list against its yardstick: ``GET /v1/signals`` (first page, a cursor page, each
with and without filters) on one uvicorn worker, 8 connections from ``wrk``, beside a bare
FastAPI + orjson endpoint returning the very same body (``bare_app.py``), the two taking turns
request kind by request kind, round by round.

Usage:
    .venv/bin/python -m bench.api.speed.signals [--data-dir DIR] [--seconds 10] [--rounds 3]

Reported: medians over rounds of requests/s, p50 and p99 of ours and the bare app, and their
ratio (issue 20's target: ≥ 0.8). ``--data-dir`` is built from the demo corpus when it has no
snapshot (as ``bench/api/speed/run.py``). Needs ``wrk``.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from bench.api.speed.run import (
    BIN,
    ROOT,
    _bench_env,
    _ensure_snapshot,
    _port,
    _start,
    _stop,
    _wait,
    _wrk,
)

FILTERS = {"content_type": "analysis", "window": "8w"}


def _requests(base: str, key: str) -> dict[str, str]:
    """Name → path and query of each request kind; the cursors are real, two pages deep."""
    headers = {"X-API-Key": key}

    def third_page_cursor(params: dict[str, str]) -> str:
        cursor = ""
        for _ in range(2):
            page = httpx.get(
                f"{base}/v1/signals", params={**params, "cursor": cursor}, headers=headers
            ).json()
            cursor = page["next_cursor"]
        return cursor

    filters = "&".join(f"{k}={v}" for k, v in FILTERS.items())
    return {
        "first_page": "/v1/signals",
        "cursor_page": f"/v1/signals?cursor={third_page_cursor({})}",
        "filtered_first_page": f"/v1/signals?{filters}",
        "filtered_cursor_page": f"/v1/signals?{filters}&cursor={third_page_cursor(FILTERS)}",
    }


Requests = Callable[[str, str], dict[str, str]]
Runs = dict[str, list[dict[str, float]]]


def race(data: Path, key_name: str, requests_of: Requests, seconds: int, rounds: int) -> None:
    """Each request kind of ``requests_of(base, key)`` against the bare app returning its very
    body, taking turns kind by kind, round by round, on one worker and 8 connections; prints
    the table (medians over rounds; the ratio is the median of the rounds' ratios)."""
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is missing: apt-get install wrk")
    _ensure_snapshot(data)
    env, key = _bench_env(data, key_name)
    bodies = Path(tempfile.mkdtemp(prefix="aimi-api-bench-bodies-"))
    ours: Runs = {}
    bare: Runs = {}
    load_before = os.getloadavg()
    try:
        for round_ in range(rounds):
            port = _port()
            server = _start(
                [str(BIN / "aimi"), "serve", "--port", str(port), "--workers", "1",
                 "--no-access-log"],
                env,
            )  # fmt: skip
            base = f"http://127.0.0.1:{port}"
            try:
                _wait(f"{base}/v1/health")
                requests = requests_of(base, key)
                for name, path in requests.items():
                    body = httpx.get(base + path, headers={"X-API-Key": key})
                    body.raise_for_status()
                    (bodies / f"{name}.json").write_bytes(body.content)
                bare_port = _port()
                bare_server = _start(
                    [str(BIN / "uvicorn"), "--factory", "bench.api.speed.bare_app:create_app",
                     "--port", str(bare_port), "--workers", "1", "--log-level", "warning",
                     "--no-access-log"],
                    {**env, "AIMI_BENCH_PAYLOAD": str(bodies), "PYTHONPATH": str(ROOT)},
                )  # fmt: skip
                try:
                    _wait(f"http://127.0.0.1:{bare_port}/bare/{next(iter(requests))}")
                    for name, path in requests.items():
                        mine = _wrk(base + path, key, seconds, 8)
                        yard = _wrk(f"http://127.0.0.1:{bare_port}/bare/{name}", None, seconds, 8)
                        ours.setdefault(name, []).append(mine)
                        bare.setdefault(name, []).append(yard)
                        print(f"round {round_ + 1} {name}: ours {mine}, bare {yard}", flush=True)
                finally:
                    _stop(bare_server)
            finally:
                _stop(server)
    finally:
        shutil.rmtree(bodies, ignore_errors=True)
    load_after = os.getloadavg()
    print(
        f"\n{platform.machine()}, {os.cpu_count()} cpus, python {platform.python_version()}; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; 1 worker, 8 connections, "
        f"{seconds} s per run, medians of {rounds} rounds; load average "
        f"{[round(x, 2) for x in load_before]} before, {[round(x, 2) for x in load_after]} "
        "after\n"
    )
    print("| request | ours req/s | p50 ms | p99 ms | bare req/s | ÷ bare | non-2xx |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in ours:

        def med(runs: list[dict[str, float]], field: str) -> float:
            return statistics.median(run[field] for run in runs)

        ratio = statistics.median(
            m["rps"] / b["rps"] for m, b in zip(ours[name], bare[name], strict=True)
        )
        print(
            f"| {name} | {med(ours[name], 'rps'):,.0f} | {med(ours[name], 'p50_ms'):.2f} | "
            f"{med(ours[name], 'p99_ms'):.2f} | {med(bare[name], 'rps'):,.0f} | {ratio:.2f} | "
            f"{int(sum(r['non_2xx'] for r in ours[name]))} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/aimi-api-bench"))
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    race(args.data_dir.resolve(), "bench-signals", _requests, args.seconds, args.rounds)


if __name__ == "__main__":
    main()
