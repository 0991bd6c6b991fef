"""How long the ways of telling people take on a built snapshot: writing its Atom feeds, writing
its bulk export (every table in every format), and delivering webhook batches to a receiver on
this machine.

Usage:
    .venv/bin/python -m bench.publishing.speed.notify DATA_DIR [--repeat 3] [--batches 1,50,500]

DATA_DIR is a built data dir; it is only read. The feeds and the export are written into a
temporary folder (no previous site: every feed and file written), ``--repeat`` times, and the
median and the range are printed, with the time to read the snapshot's data the feeds are made
from (``SiteData``: the reviewed entities and the change times, shared with the pages). The
webhook part points a temporary data dir at the same snapshots, adds a watchlist that matches
every signal from the start (as ``--from-start`` does), and delivers the whole change feed to a
``ThreadingHTTPServer`` on 127.0.0.1 that answers 200 at once, once per batch size in
``--batches``; it prints batches/s and signals/s of the delivery run (staging each batch's body
in the outbox, signing, POSTing, acknowledging, logging), the receiver on the same two cores.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from publishing.export import FORMATS, ExportSource, export_files
from publishing.static.reuse import SiteWriter
from publishing.static.site import SiteData, write_feeds
from publishing.watch import Watchlist, WatchStore, now_text
from publishing.webhooks import Policy, deliver
from readmodel.store import LoadedSnapshot
from warehouse.paths import DataDir
from warehouse.snapshot import open_current


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})"


def feeds_and_export(data: DataDir, repeat: int) -> None:
    opened = open_current(data, verify=False)
    if opened is None:
        raise SystemExit(f"{data.root} has no published snapshot")
    snapshot = LoadedSnapshot.from_opened(opened)
    loads, feeds, exports = [], [], []
    count = size = export_bytes = files = 0
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="aimi-bench-notify-") as tmp:
            started = time.perf_counter()
            site = SiteData(snapshot, opened)
            loaded = time.perf_counter()
            count = write_feeds(site, SiteWriter(Path(tmp), None))
            feeds.append(time.perf_counter() - loaded)
            loads.append(loaded - started)
            size = sum(p.stat().st_size for p in Path(tmp).rglob("*.atom"))
            started = time.perf_counter()
            written = list(export_files(ExportSource(snapshot, opened), FORMATS))
            exports.append(time.perf_counter() - started)
            export_bytes = sum(len(item.body) for item in written)
            files = len(written)
    print(
        f"snapshot {snapshot.snapshot_id}: {len(snapshot.signal_ids):,} signals, "
        f"{len(snapshot.entities.entity_ids):,} entities"
    )
    print("| what | files | MB | seconds: median (min–max) |")
    print("|---|---:|---:|---|")
    print(f"| SiteData (shared with the pages) | – | – | {_median(loads)} |")
    print(f"| Atom feeds (`write_feeds`) | {count:,} | {size / 1e6:.1f} | {_median(feeds)} |")
    print(
        f"| export, {len(FORMATS)} formats (`export_files`) | {files} | "
        f"{export_bytes / 1e6:.1f} | {_median(exports)} |"
    )


class _Quiet(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_: object) -> None:
        pass


def webhooks(data: DataDir, sizes: list[int]) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Quiet)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    print("| batch size (signals) | batches | signals | seconds | batches/s | signals/s |")
    print("|---:|---:|---:|---:|---:|---:|")
    try:
        for size in sizes:
            root = Path(tempfile.mkdtemp(prefix="aimi-bench-watch-"))
            try:
                os.symlink(data.snapshots, root / "snapshots")
                other = DataDir(root)
                WatchStore(other).add(
                    Watchlist(name="all", url=url, secret="bench", created_at=now_text())
                )
                policy = Policy(attempts=1, backoff_seconds=0, timeout_seconds=30, max_batch=size)
                started = time.perf_counter()
                report = deliver(other, policy=policy)
                seconds = time.perf_counter() - started
                item = report.watchlists[0]
                print(
                    f"| {size} | {item.delivered:,} | {item.signals:,} | {seconds:.2f} | "
                    f"{item.delivered / seconds:,.1f} | {item.signals / seconds:,.0f} |"
                )
            finally:
                shutil.rmtree(root)
    finally:
        server.shutdown()
        server.server_close()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--batches", default="1,50,500")
    args = parser.parse_args()
    data = DataDir(args.data_dir.resolve())
    print(f"load average at the start: {os.getloadavg()[0]:.1f}")
    feeds_and_export(data, args.repeat)
    webhooks(data, [int(size) for size in args.batches.split(",")])


if __name__ == "__main__":
    main()
