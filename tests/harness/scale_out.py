"""The scale-out test (docs/design.md §11, issue 19; `make scale-test`): the multi-machine
arrangement of docs/deployment.md on one machine, over loopback.

It starts a local S3 server (moto), redis-server and two `aimi serve` replicas (two workers
each, empty data dirs, AIMI_SNAPSHOT_STORE and Redis rate limits) behind nginx
(deploy/nginx.conf.template); pushes the builder's snapshot to the store; runs a bounded load
through nginx while a new snapshot is published; then spends a per-minute quota of 500 through
nginx. It checks that no request failed, that every worker of both replicas served the new
snapshot within 10 s of the store's pointer moving, and that exactly 500 requests of the key
were admitted across the replicas (the rest 429). One summary line on stdout; exit status 0
when every check holds, 1 when one fails, 2 when a tool is missing (nginx, redis-server).

The builder is a data dir with a published snapshot (``--builder``; by default the demo
corpus built once into ``--work``/builder and reused). ``--publish build`` (the default)
publishes the new snapshot by a real `aimi build` on the builder, which uploads it as any
build with AIMI_SNAPSHOT_STORE does; ``--publish copy`` writes a copy of the current snapshot
under a new id and pushes it (seconds, for the test suite).

The arrangement itself (starting the store, Redis, the replicas and nginx; the load) is
tests/harness/arrangement.py, which the fault-injection matrix (fault_matrix.py) shares. Every
process it starts is stopped on exit; all traffic stays on 127.0.0.1, bounded in count and
time.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.harness import arrangement  # noqa: E402
from tests.harness.arrangement import (  # noqa: E402
    Arrangement,
    Failed,
    Load,
    Process,
    SwapWatch,
    add_arguments,
    guarded,
    health_id,
    note,
    run_folder,
    spend_quota,
    started,
)
from warehouse.object_store import ObjectStore, push_snapshot  # noqa: E402
from warehouse.paths import DataDir  # noqa: E402
from warehouse.snapshot import open_current, publish_snapshot  # noqa: E402

AIMI = arrangement.AIMI
DEV_KEY = "scale-test-dev-key"
QUOTA = 500  # the key's requests per minute
QUOTA_SENT = 600
CONVERGE_LIMIT = 10.0  # seconds, from the store's pointer moving to the last worker swapping
TIERS = f'{{"scale": {{"per_minute": {QUOTA}, "per_month": 1000000}}}}'
REPLICAS = ("a", "b")


def copy_publish(builder: Path, store: ObjectStore) -> str:
    """A new snapshot with the current one's tables and files under a new id, pushed."""
    data = DataDir(builder)
    opened = open_current(data)
    assert opened is not None

    def copy_files(folder: Path) -> dict[str, Any]:
        for name in opened.manifest.files:
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(opened.path / name, folder / name)
        return {}

    new = publish_snapshot(
        data,
        {name: opened.read_table(name) for name in opened.manifest.tables},
        as_of=opened.manifest.as_of,
        metadata=opened.manifest.metadata,
        write_files=copy_files,
    )
    push_snapshot(store, new)
    return new.snapshot_id


def scale_test(args: argparse.Namespace) -> str:
    started_at = time.monotonic()
    with run_folder(args, "run-") as folder, ExitStack() as stack:
        builder, run_dir = folder.builder, folder.path
        parts = Arrangement.for_run(stack, folder, args, DEV_KEY, TIERS, replicas=REPLICAS)
        # two keys of the same tier: a second try, if the first one's requests straddled a
        # minute on a slow machine, starts from an unspent quota
        first, keys = parts.start(keys=tuple((f"scale-test-{n}", "scale") for n in (1, 2)))
        store = parts.store
        assert store is not None
        servers, ports, front = parts.servers, parts.ports, parts.front

        watch = SwapWatch({r: run_dir / f"replica-{r}.log" for r in REPLICAS})
        watcher = threading.Thread(target=watch.run, daemon=True)
        watcher.start()
        load = Load(front, DEV_KEY)
        load.__enter__()
        try:
            time.sleep(2)
            note(f"publishing a new snapshot ({args.publish}) under load")
            publish_started = time.monotonic()
            if args.publish == "copy":
                second = copy_publish(builder, store)
                pointer_moved = time.monotonic()
            else:
                builder_proc = stack.enter_context(
                    started(
                        "aimi build",
                        [str(AIMI), "build"],
                        run_dir / "build.log",
                        parts.builder_env,
                    )
                )
                pointer_moved, second = _watch_pointer(store, first, builder_proc)
            publish_seconds = pointer_moved - publish_started
            note(f"the store names {second} ({publish_seconds:.1f} s to publish)")
            converged: dict[str, float] = {}
            deadline = pointer_moved + 60
            while len(converged) < len(REPLICAS) and time.monotonic() < deadline:
                for replica in REPLICAS:
                    swaps = watch.swaps(replica, second)
                    if replica not in converged and len(swaps) >= 2:  # both workers
                        converged[replica] = max(swaps[:2]) - pointer_moved
                time.sleep(0.1)
            # the load goes on for a while on the new snapshot
            time.sleep(3)
            if args.publish == "build":
                builder_proc.popen.wait(timeout=600)  # the rest of the run, after publishing
        finally:
            load.__exit__()
            watch.stop()
        load_seconds = load.seconds
        for replica in REPLICAS:
            if replica not in converged:
                raise Failed(
                    f"replica {replica}: {len(watch.swaps(replica, second))} of 2 workers serve "
                    f"{second} 60 s after the publish:\n{servers[replica].tail()}"
                )
        # each replica answers from the new one now, whichever worker takes the request
        for replica in REPLICAS:
            ids = {health_id(f"http://127.0.0.1:{ports[replica]}") for _ in range(10)}
            if ids != {second}:
                raise Failed(f"replica {replica} still answers from {ids - {second}}")

        quota, admitted_by, windows = spend_quota(front, keys[0], QUOTA_SENT)
        if len(windows) > 1:
            note("the quota's requests straddled a minute; again with the second key")
            time.sleep(60.2 - time.time() % 60)
            quota, admitted_by, windows = spend_quota(front, keys[1], QUOTA_SENT)
        requests = sum(load.statuses.values()) + load.errors
        checks = {
            "no failed request": not load.failures,
            f"both replicas converged within {CONVERGE_LIMIT:.0f} s": max(converged.values())
            <= CONVERGE_LIMIT,
            "both replicas took load": len([u for u in load.upstreams if u != "?"]) >= 2,
            f"exactly {QUOTA} of {QUOTA_SENT} admitted": quota.get(200, 0) == QUOTA
            and quota.get(429, 0) == QUOTA_SENT - QUOTA,
            "the quota spent in one minute window": len(windows) == 1,
            "both replicas admitted part of the quota": len(admitted_by) >= 2,
        }
        failed = [name for name, ok in checks.items() if not ok]
        by_replica = " ".join(f"{r} {converged[r]:.1f} s" for r in REPLICAS)
        for replica, pulled in watch.pulls:
            if pulled.startswith(second):
                note(f"replica {replica} pulled {pulled}")
        admitted = "+".join(str(n) for _, n in sorted(admitted_by.items()))
        summary = (
            f"scale-test: {'ok' if not failed else 'FAILED (' + '; '.join(failed) + ')'}"
            f" | {requests:,} requests through nginx in {load_seconds:.0f} s,"
            f" {len(load.failures)} failed"
            f" | 2 replicas x 2 workers converged on {second} in {by_replica}"
            f" (publish {publish_seconds:.1f} s, {args.publish})"
            f" | quota {QUOTA}/min: {quota.get(200, 0)} admitted ({admitted} by replica),"
            f" {quota.get(429, 0)} refused (429) of {QUOTA_SENT}"
            f" | total {time.monotonic() - started_at:.0f} s"
        )
        if load.failures:
            note("failures:\n  " + "\n  ".join(load.failures[:20]))
        if failed:
            raise Failed(summary)  # the run's folder is kept, for its logs
    return summary


def _watch_pointer(store: ObjectStore, first: str, build: Process) -> tuple[float, str]:
    """When the store's pointer moves away from ``first`` (a build publishing), and to what."""
    deadline = time.monotonic() + 1200
    while time.monotonic() < deadline:
        current = store.current_id()
        if current is not None and current != first:
            return time.monotonic(), current
        if not build.alive() and build.popen.returncode != 0:
            raise Failed(f"aimi build failed:\n{build.tail()}")
        if not build.alive():
            # finished: the pointer must have moved (read once more)
            current = store.current_id()
            if current is not None and current != first:
                return time.monotonic(), current
            raise Failed(f"aimi build published nothing new to the store:\n{build.tail()}")
        time.sleep(0.05)
    raise Failed("aimi build did not publish within 20 minutes")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="tests/harness/scale_out.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--publish",
        choices=("build", "copy"),
        default="build",
        help="how the new snapshot is made: a real `aimi build` on the builder (default) or "
        "a copy of the current one under a new id",
    )
    # two workers a replica, always: convergence counts both workers' swaps
    add_arguments(parser, work="aimi-scale-test", workers=False)
    args = parser.parse_args(argv)

    def body() -> int:
        sys.stdout.write(scale_test(args) + "\n")
        return 0

    return guarded("scale-test", body)


if __name__ == "__main__":
    sys.exit(main())
