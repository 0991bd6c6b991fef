"""The story list against its yardstick (issue 31: ≥ 0.8× a bare endpoint of the same body):
``GET /v1/stories`` (first page, a cursor page, a filtered page as the site's top stories ask for
it) and ``GET /v1/stories/{story_id}`` on one uvicorn worker, 8 connections from ``wrk``, beside
a bare FastAPI + orjson endpoint returning the very same body (``bare_app.py``), the two taking
turns request kind by request kind, round by round (``bench/api/speed/signals.py``'s race).

Usage:
    .venv/bin/python -m bench.api.speed.stories [--data-dir DIR] [--seconds 10] [--rounds 3]
    .venv/bin/python -m bench.api.speed.stories --in-process 5000 [--data-dir DIR] [--rounds 3]

``--data-dir`` is built from the demo corpus when it has no snapshot (as
``bench/api/speed/run.py``). Needs ``wrk``. ``--in-process N``: no sockets and no ``wrk``; each
request kind is one ASGI call into our app (its lifespan started, a real key) and into the bare app,
N times each, and the CPU time per call (``time.process_time``) is compared, the two taking turns
round by round: the work itself, which a busy machine does not inflate the way it inflates requests
per second.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.api.speed.run import _bench_env, _ensure_snapshot
from bench.api.speed.signals import race


def _requests(base: str, key: str, client: Any = httpx) -> dict[str, str]:
    """Name → path and query of each request kind; the cursor is real, two pages deep, and the
    story the one the first page names first (``client``: httpx, or a ``TestClient``)."""
    headers = {"X-API-Key": key}
    cursor = ""
    for _ in range(2):
        page = client.get(f"{base}/v1/stories", params={"cursor": cursor}, headers=headers).json()
        cursor = page["next_cursor"]
    if not cursor:
        raise SystemExit("the snapshot has fewer than three pages of stories")
    first = client.get(f"{base}/v1/stories", headers=headers).json()["stories"][0]["story_id"]
    return {
        "first_page": "/v1/stories",
        "cursor_page": f"/v1/stories?cursor={cursor}",
        "top_this_week": "/v1/stories?window=7d&min_sources=2&limit=50",
        "story": f"/v1/stories/{first}",
    }


async def _calls(
    app: Any, path: str, query: str, headers: list[tuple[bytes, bytes]], n: int
) -> int:
    """``n`` GETs of ``path?query`` into the ASGI ``app``; the last answer's status."""
    status = 0

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    for _ in range(n):
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8000),
            "app": app,
        }
        await app(scope, receive, send)
    return status


def in_process(data: Path, calls: int, rounds: int) -> None:
    """CPU time per ASGI call of each request kind, ours against the bare app's (module
    docstring); prints the table."""
    from fastapi.testclient import TestClient

    from serving.app import create_app
    from warehouse.settings import load_settings

    _ensure_snapshot(data)
    env, key = _bench_env(data, "bench-stories-in-process")
    os.environ.update(env)
    ours_app = create_app(load_settings())
    routed_app = create_app(load_settings(), fast_path=False)  # every request through FastAPI
    bodies = Path(tempfile.mkdtemp(prefix="aimi-stories-bodies-"))
    cost: dict[str, dict[str, list[float]]] = {}
    try:
        with TestClient(ours_app, headers={"X-API-Key": key}) as ours:
            base = str(ours.base_url).rstrip("/")
            requests = _requests(base, key, client=ours)
            for name, target in requests.items():
                body = ours.get(target)
                body.raise_for_status()
                (bodies / f"{name}.json").write_bytes(body.content)
            os.environ["AIMI_BENCH_PAYLOAD"] = str(bodies)
            from bench.api.speed.bare_app import create_app as create_bare

            with TestClient(create_bare()) as bare, TestClient(routed_app) as routed:
                headers = [(b"x-api-key", key.encode()), (b"host", b"127.0.0.1")]
                for _ in range(rounds):
                    for name, target in requests.items():
                        path, _, query = target.partition("?")
                        for who, client, where, said in (
                            ("ours", ours, path, query),
                            ("routed", routed, path, query),
                            ("bare", bare, f"/bare/{name}", ""),
                        ):
                            assert client.portal is not None
                            app = client.app
                            started = time.process_time()
                            status = client.portal.call(_calls, app, where, said, headers, calls)
                            spent = (time.process_time() - started) / calls * 1e6
                            assert status == 200, (who, name, status)
                            cost.setdefault(name, {}).setdefault(who, []).append(spent)
    finally:
        shutil.rmtree(bodies, ignore_errors=True)
    print(
        f"\n{platform.machine()}, {os.cpu_count()} cpus, python {platform.python_version()}; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {calls} ASGI calls per kind "
        f"and round, medians of {rounds} rounds; load average "
        f"{[round(x, 2) for x in os.getloadavg()]} at the end\n"
    )
    print(
        "| request | ours (fast path), µs CPU/call | through FastAPI's routes | bare | "
        "bare ÷ ours (≥ 0.8 wanted) | bare ÷ routes |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for name, whose in cost.items():
        mine, routes, yard = (statistics.median(whose[w]) for w in ("ours", "routed", "bare"))
        print(
            f"| {name} | {mine:.1f} | {routes:.1f} | {yard:.1f} | {yard / mine:.2f} "
            f"| {yard / routes:.2f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/aimi-api-bench"))
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--in-process", type=int, default=0, metavar="N")
    args = parser.parse_args()
    if args.in_process:
        in_process(args.data_dir.resolve(), args.in_process, args.rounds)
    else:
        race(args.data_dir.resolve(), "bench-stories", _requests, args.seconds, args.rounds)


if __name__ == "__main__":
    main()
