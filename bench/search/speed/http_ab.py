"""Search over HTTP, this tree against another revision, request by request: two servers (one
uvicorn worker each) over the same snapshot, one client sending each distinct query to both in
turn (the order alternating), so a change in the machine's load hits both alike. Reports each
server's p50/p90/p99 and the paired per-query difference.

Usage:
    .venv/bin/python -m bench.search.speed.http_ab --baseline SRC [--data-dir DIR] [--queries 1000]

``SRC`` is a source tree of another revision (``git archive main | tar -x -C SRC``), put first on
``PYTHONPATH`` for the baseline server. ``--data-dir`` is built from the demo corpus when it has
no snapshot (as ``bench/api/speed/run.py``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import httpx

from bench.api.speed.run import BIN, _bench_env, _ensure_snapshot, _port, _start, _stop, _wait
from bench.search.speed.encoder import distinct_queries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/aimi-api-bench"))
    parser.add_argument("--baseline", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--encoder", default="onnx-int8")
    args = parser.parse_args()
    data = args.data_dir.resolve()
    _ensure_snapshot(data)
    env, key = _bench_env(data, "search a/b bench")
    queries = [q.text for q in distinct_queries(args.queries + 20)]
    warm, measured = queries[:20], queries[20:]
    servers = {}
    bases = {}
    try:
        for name, code in (("this tree", None), ("baseline", args.baseline)):
            port = _port()
            extra = {} if code is None else {"PYTHONPATH": str(code)}
            servers[name] = _start(
                [
                    str(BIN / "aimi"),
                    "serve",
                    "--port",
                    str(port),
                    "--workers",
                    "1",
                    "--no-access-log",
                ],
                {**env, "AIMI_QUERY_ENCODER": args.encoder, **extra},
            )
            bases[name] = f"http://127.0.0.1:{port}"
        times: dict[str, list[float]] = {name: [] for name in bases}
        load_before = os.getloadavg()
        with httpx.Client(headers={"X-API-Key": key}, timeout=60) as client:
            for base in bases.values():
                _wait(f"{base}/v1/health")
                for text in warm:
                    client.get(f"{base}/v1/search", params={"q": text}).raise_for_status()
            names = list(bases)
            for i, text in enumerate(measured):
                for name in names if i % 2 == 0 else names[::-1]:
                    started = time.perf_counter()
                    response = client.get(
                        f"{bases[name]}/v1/search", params={"q": text, "limit": 10}
                    )
                    times[name].append(1000 * (time.perf_counter() - started))
                    response.raise_for_status()
        load_after = os.getloadavg()
    finally:
        for server in servers.values():
            _stop(server)
    print(
        f"{len(measured)} distinct queries, one client, alternating; load average "
        f"{[round(x, 2) for x in load_before]} before, {[round(x, 2) for x in load_after]} after\n"
    )
    print("| server | p50 ms | p90 ms | p99 ms |")
    print("|---|---:|---:|---:|")
    for name, values in times.items():
        cuts = statistics.quantiles(values, n=100)
        print(f"| {name} | {statistics.median(values):.2f} | {cuts[89]:.2f} | {cuts[98]:.2f} |")
    a, b = times["this tree"], times["baseline"]
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    print(
        f"\np50 ratio {statistics.median(a) / statistics.median(b):.3f}; "
        f"paired difference per query: median {statistics.median(diffs):+.2f} ms"
    )


if __name__ == "__main__":
    main()
