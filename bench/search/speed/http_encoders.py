"""Search over HTTP with each query encoder: ``GET /v1/search?q=…&limit=10`` on one uvicorn
worker over the demo snapshot, every request a different query (no cache of any kind can help),
with 1 and 8 connections from ``wrk``.

Usage:
    .venv/bin/python -m bench.search.speed.http_encoders [--data-dir DIR] [--seconds 15]
        [--rounds 3] [--encoders torch,onnx,onnx-int8] [--queries 2400] [--baseline SRC]

The queries are ``encoder.py``'s distinct demo queries (keywords cut from titles, titles,
first sentences), cycled by a ``wrk`` Lua script; with 2,400 of them and ~200 searches/s, no
query repeats within a 10 s run. For each round, each encoder gets a fresh server
(``AIMI_QUERY_ENCODER``), a warm-up, then 1 connection and 8 connections; the encoders take
turns within a round so a change in the machine's load hits them alike. Reported: medians over
rounds of requests/s, p50 and p99, and the load average around the runs. ``--data-dir`` is built
from the demo corpus when it has no snapshot (as ``bench/api/speed/run.py``). Needs ``wrk``.

``--baseline SRC`` also serves the same snapshot with the code in ``SRC`` (a source tree of
another revision, e.g. ``git archive main | tar -x -C SRC``, put first on ``PYTHONPATH``), its
turns alternating with this tree's within each round: two executors, one machine, one run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from bench.api.speed.run import BIN, _bench_env, _ensure_snapshot, _port, _start, _stop, _wait, _wrk
from bench.search.speed.encoder import distinct_queries

ENCODERS = ("torch", "onnx", "onnx-int8")
CONNECTIONS = (1, 8)

# one Lua state for wrk's single thread: each request takes the next path
LUA = """
local paths = {}
for line in io.lines("%s") do paths[#paths + 1] = line end
local i = 0
request = function()
  i = i %% #paths + 1
  return wrk.format("GET", paths[i])
end
"""


def _paths_file(folder: Path, queries: list[str]) -> Path:
    paths = folder / "paths.txt"
    paths.write_text(
        "".join(f"/v1/search?limit=10&q={quote(q, safe='')}\n" for q in queries), encoding="utf-8"
    )
    script = folder / "cycle.lua"
    script.write_text(LUA % paths, encoding="utf-8")
    return script


def _measure(
    encoder: str,
    env: dict[str, str],
    key: str,
    script: Path,
    seconds: int,
    warm: list[str],
    code: Path | None = None,
) -> list[dict[str, Any]]:
    port = _port()
    extra = {} if code is None else {"PYTHONPATH": str(code)}
    server = _start(
        [str(BIN / "aimi"), "serve", "--port", str(port), "--workers", "1", "--no-access-log"],
        {**env, "AIMI_QUERY_ENCODER": encoder, **extra},
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait(f"{base}/v1/health")
        headers = {"X-API-Key": key}
        for text in warm:  # the encoder loads in the background; these pay for it
            response = httpx.get(
                f"{base}/v1/search", params={"q": text}, headers=headers, timeout=60
            )
            response.raise_for_status()
        rows = []
        label = encoder if code is None else f"{encoder} (baseline)"
        for connections in CONNECTIONS:
            figures = _wrk(f"{base}/", key, seconds, connections, script=script)
            rows.append({"encoder": label, **figures})
            print(f"{label}, {connections} connection(s): {figures}", flush=True)
        return rows
    finally:
        _stop(server)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/aimi-api-bench"))
    parser.add_argument("--seconds", type=int, default=10, help="per wrk run")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--encoders", default=",".join(ENCODERS))
    parser.add_argument("--queries", type=int, default=2400)
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    parser.add_argument("--baseline", type=Path, help="a source tree to compare with")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is missing: apt-get install wrk")
    encoders = [e.strip() for e in args.encoders.split(",") if e.strip()]
    unknown = sorted(set(encoders) - set(ENCODERS))
    if unknown:
        raise SystemExit(f"unknown encoder(s) {unknown}; choose from {ENCODERS}")
    data: Path = args.data_dir.resolve()
    _ensure_snapshot(data)
    env, key = _bench_env(data, "search bench")
    queries = [q.text for q in distinct_queries(args.queries + 20)]
    warm, measured = queries[:20], queries[20:]
    load_before = os.getloadavg()
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="aimi-bench-search-") as tmp:
        script = _paths_file(Path(tmp), measured)
        for round_no in range(args.rounds):
            order = encoders[round_no % len(encoders) :] + encoders[: round_no % len(encoders)]
            codes: list[Path | None] = [None] if args.baseline is None else [None, args.baseline]
            if round_no % 2:
                codes.reverse()
            for encoder in order:
                for code in codes:
                    for row in _measure(encoder, env, key, script, args.seconds, warm, code):
                        runs.append({"round": round_no, **row})
    results = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cpus, "
        f"python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "seconds": args.seconds,
        "rounds": args.rounds,
        "queries": len(measured),
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "runs": runs,
    }
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    labels = [
        label
        for e in encoders
        for label in ([e] if args.baseline is None else [e, f"{e} (baseline)"])
    ]
    _report(results, labels)


def _report(results: dict[str, Any], encoders: list[str]) -> None:
    print(
        f"\n{results['machine']}; {results['date']}; {results['queries']} distinct queries; "
        f"medians of {results['rounds']} rounds of {results['seconds']} s; load average "
        f"{results['load_before']} before, {results['load_after']} after\n"
    )
    print("| encoder | connections | requests/s | p50 ms | p99 ms | non-2xx |")
    print("|---|---:|---:|---:|---:|---:|")
    for encoder in encoders:
        for connections in CONNECTIONS:
            rows = [
                r
                for r in results["runs"]
                if r["encoder"] == encoder and r["connections"] == connections
            ]

            def median(field: str, rows: list[dict[str, Any]] = rows) -> float:
                return statistics.median(r[field] for r in rows)

            print(
                f"| {encoder} | {connections} | {median('rps'):,.0f} | {median('p50_ms'):.2f} | "
                f"{median('p99_ms'):.2f} | {int(sum(r['non_2xx'] for r in rows))} |"
            )


if __name__ == "__main__":
    main()
