"""API throughput: ``GET /v1/entities/{id}``, ``/v1/signals`` and ``/v1/search`` under a bounded
loopback load from ``wrk``, with 1 and 2 uvicorn workers, beside a bare FastAPI + orjson
endpoint (``bare_app.py``) returning a body of the same size, measured in the same run.

Usage:
    .venv/bin/python -m bench.api.speed.run [--data-dir DIR] [--seconds 15] [--connections 8]

``--data-dir`` defaults to /tmp/aimi-api-bench, where the demo corpus is built once (``aimi
demo-data`` + ``aimi build --demo``) when it has no snapshot. Every request carries a real API
key (tier ``bench``: quotas far above the load, so rate limiting counts every request but never
refuses one). Both servers run without an access log; one extra run measures ours with it, and
one measures search with a single connection (its latency without queueing). Needs ``wrk``
(Debian's package). Prints a Markdown table for docs/benchmarks.md and writes the raw figures
to ``<data dir>/api-bench.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
BENCH_TIER = '{"bench": {"per_minute": 1000000000, "per_month": 1000000000000}}'
SEARCH_QUERY = "data center funding"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait(url: str, headers: dict[str, str] | None = None, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, headers=headers, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise SystemExit(f"{url} did not answer within {timeout} s")


def _ensure_snapshot(data: Path) -> None:
    if (data / "snapshots" / "CURRENT").is_file():
        return
    env = {**os.environ, "AIMI_DATA_DIR": str(data)}
    subprocess.run([BIN / "aimi", "demo-data", "--if-absent"], env=env, check=True)
    subprocess.run([BIN / "aimi", "build", "--demo"], env=env, check=True)


def _bench_env(data: Path, key_name: str) -> tuple[dict[str, str], str]:
    """The servers' environment over ``data`` (a tier whose quotas the load never reaches) and a
    new API key of that tier named ``key_name``."""
    env = {
        **os.environ,
        "AIMI_DATA_DIR": str(data),
        "AIMI_RATE_LIMIT_TIERS": BENCH_TIER,
        "HF_HUB_OFFLINE": "1",
    }
    created = subprocess.run(
        [BIN / "aimi", "keys", "create", "--name", key_name, "--tier", "bench"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return env, created.stdout.strip().splitlines()[-1]


def _wrk(
    url: str, key: str | None, seconds: int, connections: int, script: Path | None = None
) -> dict[str, float]:
    """One ``wrk`` run (one thread; ``script``: a Lua script choosing each request)."""
    command = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", url]
    if script is not None:
        command[1:1] = ["-s", str(script)]
    if key:
        command[1:1] = ["-H", f"X-API-Key: {key}"]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    result = {
        "connections": float(connections),
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
    }  # type: ignore[union-attr]
    for label in ("50", "99"):
        value, unit = re.search(rf"\s{label}%\s+([\d.]+)(us|ms|s)", out).groups()  # type: ignore[union-attr]
        result[f"p{label}_ms"] = float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: (.*)", out)
    result["non_2xx"] = float(errors.group(1)) if errors else 0.0
    result["socket_errors"] = 1.0 if socket_errors else 0.0
    return result


def _start(command: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/aimi-api-bench"))
    parser.add_argument("--seconds", type=int, default=15, help="per wrk run (bounded load)")
    parser.add_argument("--connections", type=int, default=8)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is missing: apt-get install wrk")
    data: Path = args.data_dir.resolve()
    _ensure_snapshot(data)
    env, key = _bench_env(data, "api bench")
    results: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cpus, "
        f"python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "seconds": args.seconds,
        "connections": args.connections,
        "runs": [],
    }
    payload = data / "bench-payload.json"
    for workers in (1, 2):
        port = _port()
        serve = [str(BIN / "aimi"), "serve", "--port", str(port), "--workers", str(workers)]
        # the bare app runs without an access log too; the cost of ours is measured below
        server = _start([*serve, "--no-access-log"], env)
        base = f"http://127.0.0.1:{port}"
        try:
            _wait(f"{base}/v1/health")
            headers = {"X-API-Key": key}
            entity = httpx.get(f"{base}/v1/entities?limit=1", headers=headers).json()
            entity_id = entity["entities"][0]["entity_id"]
            profile = httpx.get(f"{base}/v1/entities/{entity_id}", headers=headers)
            payload.write_bytes(profile.content)
            # the query embedder warms up in the background: wait until search answers fast
            for _ in range(50):
                started = time.perf_counter()
                httpx.get(f"{base}/v1/search", params={"q": SEARCH_QUERY}, headers=headers)
                if time.perf_counter() - started < 0.1:
                    break
            targets = {
                "entity profile": f"{base}/v1/entities/{entity_id}",
                "signals (first page)": f"{base}/v1/signals",
                "search": f"{base}/v1/search?q={SEARCH_QUERY.replace(' ', '%20')}",
            }
            for name, url in targets.items():
                figures = _wrk(url, key, args.seconds, args.connections)
                results["runs"].append({"endpoint": name, "workers": workers, **figures})
                print(f"{workers} worker(s) {name}: {figures}", flush=True)
            # one client at a time: the latency of a search without queueing behind others
            figures = _wrk(targets["search"], key, args.seconds, 1)
            results["runs"].append(
                {"endpoint": "search, 1 connection", "workers": workers, **figures}
            )
            print(f"{workers} worker(s) search, 1 connection: {figures}", flush=True)
        finally:
            _stop(server)
        if workers == 1:
            port = _port()
            server = _start(
                [str(BIN / "aimi"), "serve", "--port", str(port), "--workers", "1"], env
            )
            try:
                _wait(f"http://127.0.0.1:{port}/v1/health")
                url = f"http://127.0.0.1:{port}/v1/entities/{entity_id}"
                figures = _wrk(url, key, args.seconds, args.connections)
                results["runs"].append(
                    {"endpoint": "entity profile, access log on", "workers": 1, **figures}
                )
                print(f"1 worker entity profile, access log on: {figures}", flush=True)
            finally:
                _stop(server)
        port = _port()
        bare = _start(
            [
                str(BIN / "uvicorn"),
                "--factory",
                "bench.api.speed.bare_app:create_app",
                "--port",
                str(port),
                "--workers",
                str(workers),
                "--log-level",
                "warning",
                "--no-access-log",
            ],
            {**env, "AIMI_BENCH_PAYLOAD": str(payload), "PYTHONPATH": str(ROOT)},
        )
        try:
            _wait(f"http://127.0.0.1:{port}/bare")
            figures = _wrk(f"http://127.0.0.1:{port}/bare", None, args.seconds, args.connections)
            results["runs"].append(
                {"endpoint": "bare FastAPI + orjson", "workers": workers, **figures}
            )
            print(f"{workers} worker(s) bare: {figures}", flush=True)
        finally:
            _stop(bare)
    (data / "api-bench.json").write_text(json.dumps(results, indent=1) + "\n")
    _report(results)


def _report(results: dict[str, Any]) -> None:
    print(
        f"\n{results['machine']}; {results['date']}; wrk -t1 -c{results['connections']} "
        f"-d{results['seconds']}s\n"
    )
    print("| workers | endpoint | connections | requests/s | ÷ bare | p50 ms | p99 ms | non-2xx |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for workers in (1, 2):
        runs = [r for r in results["runs"] if r["workers"] == workers]
        bare = next(r for r in runs if r["endpoint"].startswith("bare"))
        for r in runs:
            print(
                f"| {workers} | {r['endpoint']} | {int(r['connections'])} | {r['rps']:,.0f} | "
                f"{r['rps'] / bare['rps']:.2f} | "
                f"{r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {int(r['non_2xx'])} |"
            )


if __name__ == "__main__":
    main()
