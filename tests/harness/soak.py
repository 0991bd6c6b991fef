"""The bounded soak (issue 34; `make soak`, not in CI nor in `make test`; docs/deployment.md):
the fault test's arrangement (tests/harness/arrangement.py: moto's S3 server, redis-server with a
password, two `aimi serve` replicas behind nginx), then ``--minutes`` of mixed keyed traffic
through nginx — search, trending lists, entity profiles, the change feed, stories, signal
details — with a publish on a fixed schedule: one as the traffic starts and one every
``--publish-every`` seconds after (a copy of the builder's snapshot under a new id, published by
the CLI as the fault test does: verify, upload, the store's ``CURRENT``, the local one; every
replica pulls it and swaps). A publish that is still under way when the next one is due makes
that one **skip**, not queue: the verdict line counts the skipped slots and says how long the
publishes took, so fewer publishes than slots is never silent.

Every minute it prints one line: requests and failed requests in that minute, and the RSS and
open files of every server process (each replica's uvicorn parent and its workers, nginx's
master and workers, redis-server). At the end, one verdict line. Exit status 0 when no request
failed and every component is flat, 1 otherwise, 2 when nginx or redis-server is missing.

Flat, for each component (replica a, replica b, nginx, redis; the sum over its processes):
the samples of minutes 1..N split into halves (the middle one left out when N is odd), the
median of the second half over the median of the first by at most ``max(RSS_SLACK_MB,
RSS_SLACK_SHARE x the first)`` for RSS and ``FDS_SLACK`` for open files. Medians, so a sample
taken while a replica holds two snapshots during a swap does not decide it. Fewer than four
minutes give halves of one sample: the verdict is printed but says it is weak.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from tests.harness.arrangement import (  # noqa: E402
    Arrangement,
    Credentials,
    Failed,
    Load,
    Process,
    add_arguments,
    guarded,
    note,
    run_folder,
)
from tests.harness.fault_matrix import Run  # noqa: E402
from warehouse.paths import DataDir  # noqa: E402
from warehouse.snapshot_history import prune  # noqa: E402

RSS_SLACK_MB = 25.0
RSS_SLACK_SHARE = 0.05
FDS_SLACK = 5
TIERS = '{"soak": {"per_minute": 100000, "per_month": 100000000}}'
QUERIES = ("data center funding", "inference chip supply", "open weights model", "AI agents")


@dataclass
class Sample:
    """One minute: what the load saw in it, and every server process's RSS (bytes) and open
    files, by component."""

    minute: int
    requests: int
    failed: int
    usage: dict[str, list[tuple[int, int, int]]]  # component -> [(pid, rss, fds)]

    def totals(self, component: str) -> tuple[int, int]:
        rows = self.usage.get(component, [])
        return sum(r for _, r, _ in rows), sum(f for _, _, f in rows)


@dataclass
class Verdict:
    component: str
    rss: tuple[float, float]  # medians of the halves, MB
    fds: tuple[float, float]
    flat: bool
    why: list[str] = field(default_factory=list)


def _process_tree(pid: int) -> list[int]:
    """``pid`` and its children (a uvicorn parent's workers, nginx's workers)."""
    pids = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.is_file():
        for child in children.read_text().split():
            pids += _process_tree(int(child))
    return pids


def _usage(pid: int) -> tuple[int, int] | None:
    try:
        rss = 0
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) * 1024
        return rss, len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None  # gone between the listing and the read


def sample_usage(processes: dict[str, Process]) -> dict[str, list[tuple[int, int, int]]]:
    found: dict[str, list[tuple[int, int, int]]] = {}
    for component, process in processes.items():
        rows = []
        for pid in _process_tree(process.popen.pid):
            got = _usage(pid)
            if got is not None:
                rows.append((pid, *got))
        found[component] = rows
    return found


def judge(samples: list[Sample], component: str) -> Verdict:
    """Flat or not, by the rule of the module's docstring (the minutes after the first
    sample, minute 0, taken before the load started)."""
    minutes = [s for s in samples if s.minute > 0]
    half = len(minutes) // 2
    first, second = minutes[:half], minutes[len(minutes) - half :]
    if not first:
        return Verdict(component, (0.0, 0.0), (0.0, 0.0), True, ["too short to judge"])
    rss = tuple(
        statistics.median(s.totals(component)[0] / 1e6 for s in part) for part in (first, second)
    )
    fds = tuple(statistics.median(s.totals(component)[1] for s in part) for part in (first, second))
    why = []
    slack = max(RSS_SLACK_MB, RSS_SLACK_SHARE * rss[0])
    if rss[1] - rss[0] > slack:
        why.append(f"RSS up {rss[1] - rss[0]:.0f} MB (more than {slack:.0f})")
    if fds[1] - fds[0] > FDS_SLACK:
        why.append(f"open files up {fds[1] - fds[0]:.0f} (more than {FDS_SLACK})")
    return Verdict(component, (rss[0], rss[1]), (fds[0], fds[1]), not why, why)


def minute_line(sample: Sample) -> str:
    parts = [
        f"soak minute {sample.minute:>2}: {sample.requests:,} requests, {sample.failed} failed"
    ]
    for component, rows in sample.usage.items():
        rss, fds = sample.totals(component)
        each = ", ".join(f"{pid} {r / 1e6:.0f} MB/{f} fds" for pid, r, f in rows)
        parts.append(f"{component} {rss / 1e6:.0f} MB, {fds} fds ({each})")
    return " | ".join(parts)


def next_slot(slot: int, elapsed: float, period: float, slots: int) -> tuple[int, list[int]]:
    """The publish schedule's rule: after the publish of slot ``slot`` ended ``elapsed``
    seconds into the traffic, the next publish's slot (the first that starts at or after that
    instant; slot k starts at k x ``period``) and the slots skipped on the way (those of the
    ``slots`` inside the traffic that the publish overran)."""
    after = max(math.ceil(elapsed / period), slot + 1)
    return after, list(range(slot + 1, min(after, slots)))


def traffic(front: str, key: str) -> tuple[str, ...]:
    """The mixed requests, with ids read from the served snapshot through nginx."""
    with httpx.Client(base_url=front, headers={"X-API-Key": key}, timeout=30) as c:
        signals = c.get("/v1/signals", params={"limit": 5}).json()["signals"]
        entities = c.get("/v1/entities", params={"limit": 5}).json()["entities"]
        stories = c.get("/v1/stories", params={"limit": 3}).json()["stories"]
    urls = [f"/v1/search?q={q.replace(' ', '%20')}&limit=5" for q in QUERIES]
    urls += [f"/v1/entities/trending?mode={m}&limit=10" for m in ("rising", "hot", "new")]
    urls += [f"/v1/entities/{e['entity_id']}" for e in entities]
    urls += ["/v1/signals?sort=changed&limit=25", "/v1/stories?limit=5"]
    urls += [f"/v1/stories/{s['story_id']}" for s in stories]
    urls += [f"/v1/signals/{s['signal_id']}" for s in signals]
    return tuple(urls)


def soak(args: argparse.Namespace) -> int:
    credentials = Credentials.random()
    dev_key = f"soak-dev-{os.urandom(8).hex()}"
    with run_folder(args, "soak-") as folder, ExitStack() as stack:
        parts = Arrangement.for_run(stack, folder, args, dev_key, TIERS, credentials=credentials)
        _, (key,) = parts.start(keys=(("soak", "soak"),))
        run = Run(parts, stack, credentials, dev_key, [], api_keys=(key,))
        urls = traffic(parts.front, key)
        assert parts.redis is not None and parts.proxy is not None
        processes = {f"replica {r}": parts.servers[r] for r in parts.replicas}
        processes |= {"nginx": parts.proxy, "redis": parts.redis}
        samples = [Sample(0, 0, 0, sample_usage(processes))]
        sys.stdout.write(minute_line(samples[0]) + "\n")
        sys.stdout.flush()
        load = Load(
            parts.front,
            key,
            clients=args.clients,
            rate=args.rate,
            urls=urls,
            secrets=run.secrets(),
            max_seconds=60 * args.minutes + 120,
        )
        publishes: list[str] = []
        publish_seconds: list[float] = []
        publish_failures: list[str] = []
        slots = math.ceil(60 * args.minutes / args.publish_every)
        skipped: list[int] = []  # the slots a publish still under way overran
        stop = threading.Event()
        began = time.monotonic()

        def publisher() -> None:
            """A publish in each slot of the traffic: slot k starts ``k`` x ``--publish-every``
            seconds after it began (k = 0, 1, ... while inside ``--minutes``), in a thread of
            its own so the minute samples stay on time. A publish still under way when a slot
            comes **skips** that slot (counted): the next one starts at the first slot after it
            ends, so publishes never overlap nor run back to back to catch up."""
            slot = 0
            while slot < slots:
                due = began + slot * args.publish_every
                if stop.wait(max(0.0, due - time.monotonic())):
                    return
                started_at = time.monotonic()
                new = run.stage_copy()
                done = run.publish(new)
                publish_seconds.append(time.monotonic() - started_at)
                if done.returncode != 0:
                    publish_failures.append(f"{new}: {done.stderr.strip()[-300:]}")
                publishes.append(new)
                prune(DataDir(folder.builder), keep=3)
                after, missed = next_slot(slot, time.monotonic() - began, args.publish_every, slots)
                skipped.extend(missed)
                note(
                    f"published {new} ({len(publishes)}, slot {slot}, "
                    f"{publish_seconds[-1]:.0f} s)"
                    + (f"; slot(s) {', '.join(map(str, missed))} skipped" if missed else "")
                )
                slot = after

        seen_requests = seen_failed = 0
        thread = threading.Thread(target=publisher)
        with load:
            thread.start()
            try:
                for minute in range(1, args.minutes + 1):
                    time.sleep(max(0.0, began + 60 * minute - time.monotonic()))
                    with load.lock:
                        requests, failed = load.requests, len(load.failures)
                    sample = Sample(
                        minute,
                        requests - seen_requests,
                        failed - seen_failed,
                        sample_usage(processes),
                    )
                    seen_requests, seen_failed = requests, failed
                    samples.append(sample)
                    sys.stdout.write(minute_line(sample) + "\n")
                    sys.stdout.flush()
            finally:
                stop.set()
                thread.join()  # a publish under way finishes, under the load
        converged = True
        if publishes:
            try:
                run.wait_all_serve(publishes[-1], 60)
            except Failed:
                converged = False
        verdicts = [judge(samples, component) for component in processes]
        failed_any = bool(load.failures) or bool(publish_failures) or not converged
        failed_any = failed_any or bool(load.leaks)
        failed_any = failed_any or not all(v.flat for v in verdicts)
        for failure in (load.failures + publish_failures)[:10]:
            note(f"failed: {failure}")
        weak = " (weak: under 4 minutes)" if args.minutes < 4 else ""
        flat = "; ".join(
            f"{v.component} RSS {v.rss[0]:.0f} -> {v.rss[1]:.0f} MB, fds {v.fds[0]:.0f} -> "
            f"{v.fds[1]:.0f} {'flat' if v.flat else 'NOT FLAT: ' + ', '.join(v.why)}"
            for v in verdicts
        )
        non_2xx = ", ".join(f"{n} x {s}" for s, n in load.non_2xx().items()) or "none"
        verdict = "ok" if not failed_any else "FAILED"
        load_average = " ".join(f"{x:.1f}" for x in os.getloadavg())
        took = (
            f", each {statistics.median(publish_seconds):.0f} s median, "
            f"{max(publish_seconds):.0f} s max"
            if publish_seconds
            else ""
        )
        sys.stdout.write(
            f"soak: {verdict} | {args.minutes} min, {load.requests:,} requests, non-2xx: "
            f"{non_2xx}, {load.errors} socket errors, {len(load.leaks)} answers holding a "
            f"credential (or, not 2xx, a URL, path or key), p99 {load.p99() * 1000:.0f} ms | "
            f"{len(publishes)} publishes in {slots} slots of {args.publish_every:.0f} s "
            f"({len(skipped)} skipped: a publish overran; {len(publish_failures)} failed"
            f"{took}), every replica on the last: {'yes' if converged else 'NO'} | "
            f"first half -> second half medians{weak}: {flat} | load average {load_average}\n"
        )
        prune(DataDir(folder.builder), keep=3)
        folder.failed = failed_any  # its logs are kept
    return 1 if failed_any else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="tests/harness/soak.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--minutes", type=int, default=20, help="how long the traffic runs (default: 20)"
    )
    parser.add_argument(
        "--publish-every",
        type=float,
        default=120,
        help="seconds between two publish slots, the first as the traffic starts; a publish "
        "still under way when a slot comes skips it (default: 120)",
    )
    parser.add_argument(
        "--clients", type=int, default=4, help="concurrent clients through nginx (default: 4)"
    )
    parser.add_argument(
        "--rate", type=float, default=50, help="requests a second, all clients (default: 50)"
    )
    add_arguments(parser, work="aimi-fault-test")  # the fault test's: its demo builder
    args = parser.parse_args(argv)
    if args.minutes < 1:
        parser.error("--minutes must be at least 1")
    return guarded("soak", lambda: soak(args))


if __name__ == "__main__":
    sys.exit(main())
