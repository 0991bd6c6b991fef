"""Fetch speed (issue 44, item 6): a loopback site of ``--pages`` article pages (3,000 by default,
5-15 KB each with navigation, sidebar, comments and footer; texts stitched from the generated
demo corpus), listed by a sitemap index, fetched by one ``FetchRun`` with the politeness delay
at ``--delay`` (0.01 s), each page extracted (trafilatura) and ingested. Target: ≤ 120 s on 2
cores.

Prints Markdown: wall seconds and pages/s of the whole run; where the time goes (requests on the
wire, politeness waiting, the rest of the fetch loop, the ingest with its extraction); CPU
seconds and peak RSS of the fetching process; then a second run over the unchanged site (304s).

The site is served by another process (``demo.site.SiteServer``), so the server's CPU is not
the fetcher's; both share the machine's cores. Usage:

    .venv/bin/python -m bench.fetch.speed.run [--pages 3000] [--delay 0.01] [--work DIR] [--json F]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import fetch.run
from demo import generate_demo_corpus
from demo.site import corpus_records, publish_site
from fetch.http import PoliteClient
from fetch.run import FetchRun
from fetch.sources import Source
from warehouse.paths import DataDir
from warehouse.settings import Settings

WRITTEN_KINDS = ("news", "essay", "memo", "article", "paper")
TEXT_CHARS = (1_000, 7_000)  # the range of a page's text; the boilerplate adds about 6 KB


def bench_records(count: int) -> list[dict[str, Any]]:
    """``count`` article records, each a demo record's title, date and author with a text of
    its own paragraphs followed by those of the next records, to a length spread over
    ``TEXT_CHARS`` (deterministic)."""
    pool = [r for r in corpus_records(generate_demo_corpus()) if r["kind"] in WRITTEN_KINDS]
    low, high = TEXT_CHARS
    records = []
    for index in range(count):
        base = pool[index % len(pool)]
        target = low + (index * 7919) % (high - low)
        paragraphs: list[str] = []
        step = 0
        while sum(len(p) + 2 for p in paragraphs) < target:
            paragraphs += pool[(index + step) % len(pool)]["text"].split("\n\n")
            step += 1
        records.append(
            {
                **base,
                "url": f"https://bench.demo-wire.test/{base['kind']}/{index:05d}",
                "text": "\n\n".join(paragraphs),
            }
        )
    return records


@dataclass
class Timed:
    """What the run's polite client did, summed over its threads."""

    requests: int = 0
    on_wire_s: float = 0.0  # inside the HTTP exchange (request, server, body)
    waited_s: float = 0.0  # sleeping for the politeness delay
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


def _instrument(timed: Timed) -> None:
    """Count the time each request spends on the wire (``PoliteClient._send``)."""
    send = PoliteClient._send

    def timed_send(self: PoliteClient, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return send(self, *args, **kwargs)
        finally:
            spent = time.perf_counter() - started
            with timed.lock:
                timed.requests += 1
                timed.on_wire_s += spent

    PoliteClient._send = timed_send  # type: ignore[method-assign]
    # the run's client, to read its politeness waits
    made: list[PoliteClient] = []

    class Kept(PoliteClient):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

        def close(self) -> None:
            timed.waited_s = self.stats.waited_s
            super().close()

    fetch.run.PoliteClient = Kept  # type: ignore[misc]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serve(root: Path, port: int) -> subprocess.Popen[bytes]:
    code = (
        "import sys, time\nfrom pathlib import Path\nfrom demo.site import SiteServer\n"
        "server = SiteServer(Path(sys.argv[1]), int(sys.argv[2])).start()\n"
        "while True:\n    time.sleep(3600)\n"
    )
    process = subprocess.Popen([sys.executable, "-c", code, str(root), str(port)])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/robots.txt", timeout=2):
                return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("the site server did not start")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _process_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=3_000)
    parser.add_argument("--delay", type=float, default=0.01)
    parser.add_argument(
        "--extract-workers",
        type=int,
        default=None,
        help="processes extracting pages while the run fetches (FetchRun's default: cores - 1; "
        "0: the ingest at the end extracts them all)",
    )
    parser.add_argument("--work", type=Path, default=None, help="default: a temporary folder")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="aimi-fetch-bench-"))
    if work.exists() and any(work.iterdir()):
        raise SystemExit(f"--work {work} must be empty")

    started = time.perf_counter()
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}"
    records = bench_records(args.pages)
    site = publish_site(records, work / "site", base_url, draft=False)
    sizes = [(work / "site" / i.path.lstrip("/")).stat().st_size for i in site.items]
    prepared = time.perf_counter() - started
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    server = _serve(work / "site", port)
    try:
        settings = Settings(
            data_dir=work / "data", fetch_allow_private=True, fetch_delay_s=args.delay
        )
        timed = Timed()
        _instrument(timed)
        data = DataDir(work / "data")
        source = Source(
            name="bench", url=site.sitemap_index, sitemaps=(site.sitemap_index,), kind="article"
        )
        cpu, wall, children = _cpu(), time.perf_counter(), _children_cpu()
        run = FetchRun(
            data, settings=settings, progress=False, extract_workers=args.extract_workers
        )
        report = run.run([source])
        first_wall, first_cpu = time.perf_counter() - wall, _cpu() - cpu
        # the extraction processes, joined at the run's end
        extraction_cpu = _children_cpu() - children
        first = {"on_wire_s": timed.on_wire_s, "waited_s": timed.waited_s}
        timed.requests, timed.on_wire_s, timed.waited_s = 0, 0.0, 0.0
        cpu, wall = _cpu(), time.perf_counter()
        again = run.run([source])
        second_wall, second_cpu = time.perf_counter() - wall, _cpu() - cpu
        server_cpu = _process_cpu(server.pid)
    finally:
        server.kill()
        server.wait()
    ingest = report.ingest
    assert ingest is not None
    fetch_s = first_wall - ingest.seconds
    result = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "command": " ".join(
            [Path(sys.executable).name, "-m", "bench.fetch.speed.run", *sys.argv[1:]]
        ),
        "load_before": os.getloadavg(),
        "pages": args.pages,
        "page_kb": {
            "min": min(sizes) / 1024,
            "median": sorted(sizes)[len(sizes) // 2] / 1024,
            "max": max(sizes) / 1024,
        },
        "delay_s": args.delay,
        "extract_workers": run.extract_workers,
        "prepare_s": prepared,
        "wall_s": first_wall,
        "pages_per_s": args.pages / first_wall,
        "cpu_s": first_cpu,
        "extraction_cpu_s": extraction_cpu,
        "server_cpu_s": server_cpu,
        "requests": report.requests,
        "mb": report.bytes / 1e6,
        "new": sum(s.new for s in report.sources),
        "failed": len(report.failures),
        "fetch_s": fetch_s,
        "on_wire_s": first["on_wire_s"],
        "waited_s": first["waited_s"],
        "fetch_rest_s": fetch_s - first["on_wire_s"] - first["waited_s"],
        "ingest_s": ingest.seconds,
        "ingested": ingest.inserted,
        "quarantined": len(ingest.quarantined),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "rss_before_mb": rss_before,
        "again_wall_s": second_wall,
        "again_cpu_s": second_cpu,
        "again_requests": again.requests,
        "again_not_modified": again.not_modified,
        "again_new": sum(s.new + s.updated for s in again.sources),
    }
    _print(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)


def _print(r: dict[str, Any]) -> None:
    print(f"# fetch speed, {r['date']}\n")
    print(f"command: `{r['command']}`; load average before: {r['load_before']}\n")
    print(
        f"{r['pages']:,} pages ({r['page_kb']['min']:.1f}-{r['page_kb']['max']:.1f} KB, median "
        f"{r['page_kb']['median']:.1f} KB), delay {r['delay_s']} s, "
        f"{r['extract_workers']} extraction process(es) beside the fetch, site written in "
        f"{r['prepare_s']:.1f} s\n"
    )
    print("| part | seconds | share |\n|---|---:|---:|")
    total = r["wall_s"]
    for label, key in (
        ("requests on the wire", "on_wire_s"),
        ("waiting for the politeness delay", "waited_s"),
        ("rest of the fetch loop (sitemaps, files, archive, state)", "fetch_rest_s"),
        ("ingest after the fetch: extraction left, validation, write", "ingest_s"),
    ):
        print(f"| {label} | {r[key]:.1f} | {100 * r[key] / total:.0f}% |")
    print(f"| **whole run** | **{total:.1f}** | |\n")
    print(
        f"{r['pages_per_s']:.1f} pages/s; {r['requests']:,} requests, {r['mb']:.1f} MB; "
        f"{r['new']:,} new, {r['failed']} failed; {r['ingested']:,} ingested, "
        f"{r['quarantined']} quarantined; CPU {r['cpu_s']:.1f} s in the fetching process, "
        f"{r['extraction_cpu_s']:.1f} s in its extraction processes, {r['server_cpu_s']:.1f} s "
        f"in the site's server (both runs); peak RSS "
        f"{r['peak_rss_mb']:.0f} MB (of which {r['rss_before_mb']:.0f} MB before the run: the "
        "corpus generated, the site written)\n"
    )
    print(
        f"again, unchanged: {r['again_wall_s']:.2f} s, {r['again_requests']} requests "
        f"({r['again_not_modified']} not modified), {r['again_new']} new or updated, CPU "
        f"{r['again_cpu_s']:.2f} s"
    )


if __name__ == "__main__":
    main()
