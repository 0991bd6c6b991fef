"""How long opening a snapshot takes, and whether a hot swap under load fails a request.

Usage:
    .venv/bin/python -m bench.api.speed.snapshot_open SNAPSHOT_DIR [--repeat 3] [--cold]
    .venv/bin/python -m bench.api.speed.snapshot_open make SOURCE_DATA_DIR OUT_DATA_DIR \
        [--units 1000000]
    .venv/bin/python -m bench.api.speed.snapshot_open store DATA_DIR [--repeat 3] [--cold]
    .venv/bin/python -m bench.api.speed.snapshot_open swap DATA_DIR [--seconds 60] [--connections 8]

SNAPSHOT_DIR alone: verifying a snapshot on open, SHA-256 (``thorough``, what a rollback does,
and what every open did before issue 19) against XXH3-128 (what a server does on every open and
hot swap). A snapshot written before issue 19 has no XXH3 in its manifest: it is measured
through a temporary folder of symbolic links to its files beside a manifest with XXH3 added,
so the snapshot itself is never changed.

``make``: a complete serving snapshot of ``--units`` units in OUT_DATA_DIR, made of copies of
SOURCE_DATA_DIR's current snapshot: every table the server loads, the signals (and their
pre-rendered JSON) copied with ``~c`` ids as the units are, the search units and vectors
perturbed as ``bench/search/speed/corpus.py`` does (so the IVF index and tantivy see distinct
texts), the entity and theme tables as they are. No static site (a server does not read it).

``store``: the whole open a server does on start and on every swap (``SnapshotStore``: verify
with XXH3, then load the tables, FAISS and tantivy), split into verifying and loading, with
its CPU seconds (all threads; what a busy machine does not inflate).

``swap``: ``aimi serve`` on DATA_DIR under a bounded ``wrk`` load (signal list, signal detail,
entity profile, themes; one key of a tier whose quota the load never reaches), then a new
snapshot (the current one hard-linked under a new id) published mid-run; reports how long the
server took to serve it and every failed request (non-2xx answers, socket errors).

With ``--cold`` (root only) the page cache is dropped before each open. Each mode prints
Markdown for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

from warehouse.files import file_xxh3
from warehouse.snapshot import MANIFEST, open_snapshot


def with_xxh3(folder: Path, scratch: Path) -> Path:
    """``folder`` itself when its manifest has XXH3 checksums, else a folder of links to its
    files with a manifest that has them."""
    raw = json.loads((folder / MANIFEST).read_text())
    entries = [*raw["tables"].values(), *raw.get("files", {}).values()]
    if all(entry.get("xxh3") for entry in entries):
        return folder
    linked = scratch / folder.name
    for path in folder.rglob("*"):
        target = linked / path.relative_to(folder)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif path.name != MANIFEST:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(path)
    for entry in raw["tables"].values():
        entry["xxh3"] = file_xxh3(folder / entry["file"])
    for name, entry in raw.get("files", {}).items():
        entry["xxh3"] = file_xxh3(folder / name)
    (linked / MANIFEST).write_text(json.dumps(raw))
    return linked


def drop_caches() -> None:
    subprocess.run(["sync"], check=True)
    Path("/proc/sys/vm/drop_caches").write_text("3\n")


def timed(folder: Path, *, thorough: bool, cold: bool) -> float:
    if cold:
        drop_caches()
    started = time.perf_counter()
    open_snapshot(folder, verify=True, thorough=thorough)
    return time.perf_counter() - started


def verify_main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cold", action="store_true", help="also with the page cache dropped")
    args = parser.parse_args(argv)
    folder: Path = args.snapshot.resolve()
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    scratch = Path(tempfile.mkdtemp(prefix="aimi-open-"))
    try:
        measured = with_xxh3(folder, scratch)
        manifest = open_snapshot(measured, verify=False).manifest
        units = manifest.tables.get("search_units")
        open_snapshot(measured, verify=True)  # warm the page cache
        print(
            f"{platform.machine()}, {os.cpu_count()} cpus, python {platform.python_version()}; "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {folder.name}: "
            f"{size / 1e9:.2f} GB, {units.rows if units else '?'} search units; "
            f"medians of {args.repeat}\n"
        )
        print("| checksum | page cache | open, s |")
        print("|---|---|---:|")
        for cold in (False, True) if args.cold else (False,):
            for label, thorough in (("SHA-256 (thorough)", True), ("XXH3-128 (fast)", False)):
                seconds = [
                    timed(measured, thorough=thorough, cold=cold) for _ in range(args.repeat)
                ]
                state = "dropped" if cold else "warm"
                print(f"| {label} | {state} | {statistics.median(seconds):.2f} |")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


# -- make: a complete serving snapshot of N units ---------------------------------------------


def _suffixed(frame: pl.DataFrame, copy: int, columns: tuple[str, ...]) -> pl.DataFrame:
    if copy == 0:
        return frame
    return frame.with_columns(pl.col(c) + f"~{copy}" for c in columns)


def _renamed_json(raw: list[bytes], ids: list[str], copy: int) -> list[bytes]:
    """Each body with its own signal id given the copy's suffix (``"sig"`` → ``"sig~c"``)."""
    if copy == 0:
        return raw
    return [
        body.replace(f'"{sid}"'.encode(), f'"{sid}~{copy}"'.encode())
        for body, sid in zip(raw, ids, strict=True)
    ]


def make_main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description="a complete serving snapshot of N units")
    parser.add_argument("source", type=Path, help="data dir with a current snapshot")
    parser.add_argument("out", type=Path, help="new data dir for the large snapshot")
    parser.add_argument("--units", type=int, default=1_000_000)
    args = parser.parse_args(argv)
    from bench.search.speed.corpus import load_source, perturbed_corpus
    from retrieval.index import build_search_files
    from warehouse.paths import DataDir
    from warehouse.snapshot import open_current, publish_snapshot

    started = time.perf_counter()
    source = load_source(args.source)
    current = open_current(DataDir(args.source), verify=False)
    assert current is not None
    out = DataDir(args.out)
    out.snapshots.mkdir(parents=True, exist_ok=True)
    vectors = np.lib.format.open_memmap(
        args.out / "corpus_vectors.npy", mode="w+", dtype=np.float32, shape=(args.units, 384)
    )
    search_units = perturbed_corpus(source, args.units, vectors)
    # stored in unit-id order, as a publish stores them (pipelines.publishing.SearchInput)
    order = search_units["unit_id"].arg_sort()
    search_units = search_units[order]
    vectors = vectors[order.to_numpy()]
    copies = math.ceil(args.units / source.units.height)
    signals, units = current.read_table("signals"), current.read_table("units")
    seq_step = int(signals["change_seq"].to_numpy().max()) + 1
    ids: list[str] = signals["signal_id"].to_list()
    cards, details = signals["card_json"].to_list(), signals["detail_json"].to_list()
    signal_copies, unit_copies = [], []
    for copy in range(copies):
        signal_copies.append(
            _suffixed(signals, copy, ("signal_id",)).with_columns(
                change_seq=pl.col("change_seq") + copy * seq_step,
                card_json=pl.Series(_renamed_json(cards, ids, copy), dtype=pl.Binary),
                detail_json=pl.Series(_renamed_json(details, ids, copy), dtype=pl.Binary),
            )
        )
        unit_copies.append(_suffixed(units, copy, ("unit_id", "signal_id")))
    tables = {
        name: current.read_table(name)
        for name in current.manifest.tables
        if name not in ("signals", "units", "search_units")
    }
    tables["signals"] = pl.concat(signal_copies).sort(
        ["published_at", "signal_id"], descending=True
    )
    tables["units"] = pl.concat(unit_copies).head(args.units)
    tables["search_units"] = search_units
    generated = time.perf_counter() - started
    print(f"generated {args.units} units, {tables['signals'].height} signals in {generated:.0f} s")

    def write_files(folder: Path) -> dict[str, object]:
        return {"search": build_search_files(folder, search_units, vectors)}

    started = time.perf_counter()
    opened = publish_snapshot(
        out, tables, as_of=current.manifest.as_of, metadata={}, write_files=write_files
    )
    (args.out / "corpus_vectors.npy").unlink()
    size = sum(p.stat().st_size for p in opened.path.rglob("*") if p.is_file())
    print(
        f"published {opened.path} ({size / 1e9:.2f} GB; "
        f"{ {k: v.rows for k, v in opened.manifest.tables.items()} }) "
        f"in {time.perf_counter() - started:.0f} s"
    )


# -- store: the whole open a server does --------------------------------------------------------


def store_main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description="the whole store open of the current snapshot")
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cold", action="store_true", help="also with the page cache dropped")
    args = parser.parse_args(argv)
    import gc

    from readmodel.store import LoadedSnapshot
    from warehouse.paths import DataDir
    from warehouse.snapshot import current_snapshot_dir, static_file

    folder = current_snapshot_dir(DataDir(args.data_dir.resolve()))
    assert folder is not None, f"{args.data_dir} has no current snapshot"
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    manifest = open_snapshot(folder, verify=False).manifest
    LoadedSnapshot.from_opened(open_snapshot(folder))  # imports (FAISS, tantivy) and page cache
    gc.collect()
    rows = ", ".join(f"{name} {entry.rows:,}" for name, entry in manifest.tables.items())
    print(
        f"{platform.machine()}, {os.cpu_count()} cpus, python {platform.python_version()}; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average "
        f"{os.getloadavg()[0]:.1f}; {folder.name}: {size / 1e9:.2f} GB, "
        f"{len(manifest.files)} files; {rows}; medians of {args.repeat}\n"
    )
    print("| page cache | verify (XXH3), s | load, s | open, s | runs | open, CPU s |")
    print("|---|---:|---:|---:|---|---:|")
    for cold in (False, True) if args.cold else (False,):
        verify, load, cpu = [], [], []
        for _ in range(args.repeat):
            if cold:
                drop_caches()
            started, cpu_started = time.perf_counter(), time.process_time()
            opened = open_snapshot(folder, verify=True, skip=static_file)  # as a server does
            verified = time.perf_counter()
            loaded = LoadedSnapshot.from_opened(opened)
            done = time.perf_counter()
            cpu.append(time.process_time() - cpu_started)
            verify.append(verified - started)
            load.append(done - verified)
            del loaded
            gc.collect()
        total = [v + lo for v, lo in zip(verify, load, strict=True)]
        runs = ", ".join(f"{t:.2f}" for t in total)
        print(
            f"| {'dropped' if cold else 'warm'} | {statistics.median(verify):.2f} | "
            f"{statistics.median(load):.2f} | {statistics.median(total):.2f} | {runs} "
            f"| {statistics.median(cpu):.2f} |"
        )


# -- swap: a hot swap under load -------------------------------------------------------------

BENCH_TIER = '{"bench": {"per_minute": 1000000000, "per_month": 1000000000000}}'
WRK_SCRIPT = """
paths = {%s}
counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", paths[(counter %% #paths) + 1])
end
"""


def _relinked(data_dir: Path, folder: Path) -> str:
    """The snapshot in ``folder`` again under a new id (every file hard-linked, the manifest
    rewritten with the new id): a real swap to a snapshot of the same size."""
    manifest = json.loads((folder / MANIFEST).read_text())
    as_of, _, digest = manifest["snapshot_id"].split("-")
    new_id = f"{as_of}-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}000000-{digest}"
    target = data_dir / "snapshots" / new_id
    shutil.copytree(folder, target, copy_function=os.link)
    (target / MANIFEST).unlink()
    manifest["snapshot_id"] = new_id
    (target / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return new_id


def swap_main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description="a hot swap under a bounded wrk load")
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--swap-after", type=float, default=15.0, help="seconds into the load")
    parser.add_argument("--timeout", type=int, default=2, help="wrk's per-request timeout, s")
    args = parser.parse_args(argv)
    import socket

    import httpx

    from warehouse.files import atomic_write_text
    from warehouse.paths import DataDir
    from warehouse.snapshot import current_snapshot_dir

    if shutil.which("wrk") is None:
        raise SystemExit("wrk is missing: apt-get install wrk")
    data = DataDir(args.data_dir.resolve())
    folder = current_snapshot_dir(data)
    assert folder is not None
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "AIMI_DATA_DIR": str(data.root), "AIMI_RATE_LIMIT_TIERS": BENCH_TIER}
    key = (
        subprocess.run(
            [bin_dir / "aimi", "keys", "create", "--name", "swap bench", "--tier", "bench"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        .stdout.strip()
        .splitlines()[-1]
    )
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    started = time.perf_counter()
    server = subprocess.Popen(
        [bin_dir / "aimi", "serve", "--port", str(port), "--no-access-log"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    headers = {"X-API-Key": key}
    try:
        while True:
            try:
                health = httpx.get(f"{base}/v1/health", timeout=5).json()
                if health.get("snapshot"):
                    break
            except httpx.HTTPError:
                pass
            if server.poll() is not None:
                raise SystemExit("aimi serve exited")
            time.sleep(0.2)
        start_s = time.perf_counter() - started
        old_id = health["snapshot"]["id"]
        signal = httpx.get(f"{base}/v1/signals?limit=1", headers=headers).json()["signals"][0]
        entity = httpx.get(f"{base}/v1/entities?limit=1", headers=headers).json()["entities"][0]
        paths = [
            "/v1/signals?limit=20",
            f"/v1/signals/{signal['signal_id']}",
            f"/v1/entities/{entity['entity_id']}",
            "/v1/themes",
            "/v1/entities/trending?mode=hot",
        ]
        script = Path(tempfile.mkdtemp(prefix="aimi-swap-")) / "paths.lua"
        script.write_text(WRK_SCRIPT % ", ".join(f'"{p}"' for p in paths))
        load = subprocess.Popen(
            [
                "wrk",
                "-t1",
                f"-c{args.connections}",
                f"-d{args.seconds}s",
                "--latency",
                "--timeout",
                f"{args.timeout}s",
                "-H",
                f"X-API-Key: {key}",
                "-s",
                str(script),
                base,
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        time.sleep(args.swap_after)
        new_id = _relinked(data.root, folder)
        switched = time.perf_counter()
        atomic_write_text(data.current_pointer, new_id + "\n")
        served_after = None
        while served_after is None and time.perf_counter() - switched < 120:
            if httpx.get(f"{base}/v1/health", timeout=10).json()["snapshot"]["id"] == new_id:
                served_after = time.perf_counter() - switched
            else:
                time.sleep(0.05)
        out, _ = load.communicate()
    finally:
        server.terminate()
        server.wait(timeout=60)
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    total = re.search(r"(\d+) requests in", out)
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: (.*)", out)
    p99 = re.search(r"\s99%\s+([\d.]+\w+)", out)
    print(
        f"{platform.machine()}, {os.cpu_count()} cpus; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"load average {os.getloadavg()[0]:.1f}; {folder.name} -> {new_id}; wrk -t1 "
        f"-c{args.connections} -d{args.seconds}s --timeout {args.timeout}s, swap after "
        f"{args.swap_after:.0f} s\n"
    )
    print(
        "| server start to first snapshot, s | swap: pointer to served, s | requests | "
        "req/s | p99 | non-2xx | socket errors |"
    )
    print("|---:|---:|---:|---:|---:|---:|---|")
    print(
        f"| {start_s:.1f} | {served_after if served_after is None else f'{served_after:.1f}'} | "
        f"{total.group(1) if total else '?'} | {rps.group(1) if rps else '?'} | "
        f"{p99.group(1) if p99 else '?'} | {non_2xx.group(1) if non_2xx else 0} | "
        f"{socket_errors.group(1) if socket_errors else 'none'} |"
    )
    print(f"(old snapshot {old_id})")


def main() -> None:
    modes = {"make": make_main, "store": store_main, "swap": swap_main}
    if len(sys.argv) > 1 and sys.argv[1] in modes:
        modes[sys.argv[1]](sys.argv[2:])
    else:
        verify_main(sys.argv[1:])


if __name__ == "__main__":
    main()
