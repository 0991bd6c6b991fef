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

Every process it starts is stopped on exit; all traffic stays on 127.0.0.1, bounded in count
and time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from tests.s3_server import S3Server, free_port, moto_server  # noqa: E402
from warehouse.object_store import ObjectStore, push_snapshot  # noqa: E402
from warehouse.paths import DataDir  # noqa: E402
from warehouse.snapshot import current_snapshot_id, open_current, publish_snapshot  # noqa: E402

AIMI = Path(sys.executable).parent / "aimi"
TEMPLATE = ROOT / "deploy" / "nginx.conf.template"
DEV_KEY = "scale-test-dev-key"
QUOTA = 500  # the key's requests per minute
QUOTA_SENT = 600
CONVERGE_LIMIT = 10.0  # seconds, from the store's pointer moving to the last worker swapping
TIERS = f'{{"scale": {{"per_minute": {QUOTA}, "per_month": 1000000}}}}'
LOAD_URLS = (
    "/v1/signals?limit=10",
    "/v1/signals?sort=changed&limit=5",
    "/v1/themes",
    "/v1/entities?limit=5",
    "/v1/search?q=data%20center%20funding&limit=5",
    "/v1/health",
)
LOAD_CLIENTS = 4
LOAD_RATE = 100  # requests per second, all clients together: a bounded load, not a flood
LOAD_SECONDS_MAX = 600  # the load stops by itself, whatever happens
REPLICAS = ("a", "b")


def note(message: str) -> None:
    """Progress, on stderr: stdout carries only the summary line."""
    sys.stderr.write(f"[scale-test {time.strftime('%H:%M:%S')}] {message}\n")
    sys.stderr.flush()


class Failed(RuntimeError):
    """A check did not hold, or a step could not run."""


@dataclass
class Process:
    """A started process, its output in ``log``; stopped (the whole group) on exit."""

    name: str
    popen: subprocess.Popen[bytes]
    log: Path

    def tail(self, lines: int = 15) -> str:
        text = self.log.read_text(errors="replace").splitlines()[-lines:]
        return "\n".join(f"    {line}" for line in text)

    def alive(self) -> bool:
        return self.popen.poll() is None


@contextmanager
def started(name: str, command: list[str], log: Path, env: dict[str, str]) -> Iterator[Process]:
    out = log.open("wb")
    popen = subprocess.Popen(
        command, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
    )
    process = Process(name, popen, log)
    try:
        yield process
    finally:
        if popen.poll() is None:
            os.killpg(popen.pid, signal.SIGTERM)
            try:
                popen.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(popen.pid, signal.SIGKILL)
                popen.wait()
        out.close()


def wait_until(what: str, ready: Any, timeout: float, process: Process | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if process is not None and not process.alive():
            raise Failed(f"{process.name} exited while waiting for {what}:\n{process.tail()}")
        if time.monotonic() > deadline:
            tail = f":\n{process.tail()}" if process is not None else ""
            raise Failed(f"timed out after {timeout:.0f} s waiting for {what}{tail}")
        time.sleep(0.1)


def health_id(base: str) -> str | None:
    try:
        body = httpx.get(f"{base}/v1/health", timeout=5).json()
    except (httpx.HTTPError, ValueError):
        return None
    snapshot = body.get("snapshot") if isinstance(body, dict) else None
    return snapshot.get("id") if isinstance(snapshot, dict) else None


def run(command: list[str], env: dict[str, str], what: str) -> str:
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise Failed(f"{what} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done.stdout


def ensure_builder(builder: Path, env: dict[str, str]) -> None:
    """A published snapshot in ``builder``: the demo corpus, built once and reused."""
    if current_snapshot_id(DataDir(builder)) is not None:
        note(f"reusing the snapshot in {builder}")
        return
    note(f"building the demo snapshot into {builder} (once; a few minutes)")
    local = {**env, "AIMI_DATA_DIR": str(builder)}
    local.pop("AIMI_SNAPSHOT_STORE", None)
    run([str(AIMI), "demo-data", "--if-absent"], local, "aimi demo-data")
    run([str(AIMI), "build", "--demo"], local, "aimi build --demo")


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


@dataclass
class SwapWatch:
    """Timestamps the lines ``serving snapshot <id>`` as they appear in the replicas' logs
    (one per worker swap), polling every 50 ms."""

    logs: dict[str, Path]
    seen: list[tuple[float, str, str]] = field(default_factory=list)  # (when, replica, id)
    pulls: list[tuple[str, str]] = field(default_factory=list)  # (replica, what it logged)
    _stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        offsets = dict.fromkeys(self.logs, 0)
        pending = dict.fromkeys(self.logs, b"")
        while not self._stop.is_set():
            for replica, path in self.logs.items():
                with path.open("rb") as fh:
                    fh.seek(offsets[replica])
                    chunk = fh.read()
                offsets[replica] += len(chunk)
                lines = (pending[replica] + chunk).split(b"\n")
                pending[replica] = lines.pop()
                now = time.monotonic()
                for line in lines:
                    text = line.decode(errors="replace")
                    if "serving snapshot " in text:
                        sid = text.split("serving snapshot ", 1)[1].split()[0]
                        self.seen.append((now, replica, sid))
                    elif "pulled snapshot " in text:
                        self.pulls.append((replica, text.split("pulled snapshot ", 1)[1]))
            time.sleep(0.05)

    def swaps(self, replica: str, snapshot_id: str) -> list[float]:
        return [t for t, r, sid in list(self.seen) if r == replica and sid == snapshot_id]

    def stop(self) -> None:
        self._stop.set()


@dataclass
class Load:
    """``LOAD_CLIENTS`` clients through nginx with the dev key, ``LOAD_RATE`` requests a
    second in all, until stopped (and never past ``LOAD_SECONDS_MAX``)."""

    base: str
    statuses: Counter[int] = field(default_factory=Counter)
    upstreams: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    errors: int = 0  # requests that got no response at all
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)

    def client(self, n: int) -> None:
        deadline = time.monotonic() + LOAD_SECONDS_MAX
        interval = LOAD_CLIENTS / LOAD_RATE
        with httpx.Client(base_url=self.base, headers={"X-API-Key": DEV_KEY}, timeout=30) as c:
            i = n
            due = time.monotonic()
            while not self.stop.is_set() and time.monotonic() < deadline:
                due += interval
                time.sleep(max(0.0, due - time.monotonic()))
                url = LOAD_URLS[i % len(LOAD_URLS)]
                i += 1
                try:
                    response = c.get(url)
                except httpx.HTTPError as exc:
                    with self.lock:
                        self.failures.append(f"{url}: {exc!r}")
                        self.errors += 1
                    continue
                with self.lock:
                    self.statuses[response.status_code] += 1
                    self.upstreams[response.headers.get("X-Aimi-Upstream", "?")] += 1
                    if response.status_code != 200:
                        self.failures.append(f"{url}: {response.status_code} {response.text[:200]}")


def spend_quota(base: str, key: str) -> tuple[Counter[int], Counter[str], set[str]]:
    """``QUOTA_SENT`` requests of the quota key through nginx, eight at a time, inside one
    UTC minute (the window the quota counts in): started early in a minute."""
    if time.time() % 60 > 50:
        pause = 60.5 - time.time() % 60
        note(f"waiting {pause:.0f} s for the next minute, so the requests share one window")
        time.sleep(pause)
    statuses: Counter[int] = Counter()
    admitted_by: Counter[str] = Counter()
    windows: set[str] = set()
    lock = threading.Lock()
    todo = iter(range(QUOTA_SENT))

    def client() -> None:
        with httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=30) as c:
            for _ in todo:
                response = c.get("/v1/signals", params={"limit": 1})
                with lock:
                    statuses[response.status_code] += 1
                    windows.add(response.headers.get("X-RateLimit-Reset-Minute", "?"))
                    if response.status_code == 200:
                        admitted_by[response.headers.get("X-Aimi-Upstream", "?")] += 1

    threads = [threading.Thread(target=client) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return statuses, admitted_by, windows


def scale_test(args: argparse.Namespace, work: Path) -> str:
    started_at = time.monotonic()
    for tool in ("nginx", "redis-server"):
        if shutil.which(tool, path=os.environ.get("PATH", "") + ":/usr/sbin") is None:
            raise MissingTool(f"{tool} is not installed (scripts/ensure-{tool.split('-')[0]})")
    nginx = shutil.which("nginx", path=os.environ.get("PATH", "") + ":/usr/sbin")
    assert nginx is not None
    builder = (args.builder or work / "builder").resolve()
    run_dir = Path(tempfile.mkdtemp(prefix="run-", dir=work))
    with ExitStack() as stack:
        s3: S3Server = stack.enter_context(moto_server(log=run_dir / "moto.log"))
        url = f"s3://{s3.bucket}/aimi"
        redis_port = free_port()
        redis = stack.enter_context(
            started(
                "redis-server",
                ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", ""]
                + ["--appendonly", "no", "--dir", str(run_dir)],
                run_dir / "redis.log",
                dict(os.environ),
            )
        )
        base_env = {
            **os.environ,
            **s3.env(),
            "AIMI_SNAPSHOT_STORE": url,
            "AIMI_RATE_LIMIT_STORAGE": f"redis://127.0.0.1:{redis_port}/0",
            "AIMI_RATE_LIMIT_TIERS": TIERS,
            "AIMI_DEV_API_KEY": DEV_KEY,
            "HF_HUB_OFFLINE": "1",
        }
        os.environ.update(s3.env())  # this process pushes (copy) and watches the store too
        store = ObjectStore(url)
        ensure_builder(builder, base_env)
        builder_env = {**base_env, "AIMI_DATA_DIR": str(builder)}
        run([str(AIMI), "snapshots", "push"], builder_env, "aimi snapshots push")
        first = store.current_id()
        assert first is not None
        note(f"pushed {first} to {url}")
        # two keys of the same tier: a second try, if the first one's requests straddled a
        # minute on a slow machine, starts from an unspent quota
        keys = [
            run(
                [str(AIMI), "keys", "create", "--name", f"scale-test-{n}", "--tier", "scale"],
                {**base_env, "AIMI_DATA_DIR": str(run_dir / "keys")},
                "aimi keys create",
            ).strip()
            for n in (1, 2)
        ]

        ports = {replica: free_port() for replica in REPLICAS}
        servers: dict[str, Process] = {}
        for replica in REPLICAS:
            data = run_dir / f"replica-{replica}"
            data.mkdir()
            shutil.copy(run_dir / "keys" / "keys.json", data / "keys.json")
            servers[replica] = stack.enter_context(
                started(
                    f"replica {replica}",
                    [str(AIMI), "serve", "--port", str(ports[replica]), "--workers", "2"]
                    + ["--no-access-log"],
                    run_dir / f"replica-{replica}.log",
                    {**base_env, "AIMI_DATA_DIR": str(data)},
                )
            )
        wait_until("redis-server", lambda: redis.alive() and _redis_up(redis_port), 30, redis)
        for replica in REPLICAS:
            base = f"http://127.0.0.1:{ports[replica]}"
            wait_until(
                f"replica {replica} to serve {first}",
                lambda base=base: health_id(base) == first,
                args.start_timeout,
                servers[replica],
            )
        note(f"both replicas serve {first} (pulled from the store)")

        nginx_port = free_port()
        prefix = run_dir / "nginx"
        prefix.mkdir()
        for sub in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (prefix / sub).mkdir()
            (prefix / sub).chmod(0o777)  # nginx's workers may run as another user under root
        upstreams = "\n".join(f"        server 127.0.0.1:{ports[r]};" for r in REPLICAS)
        (prefix / "nginx.conf").write_text(
            TEMPLATE.read_text()
            .replace("@PREFIX@", str(prefix))
            .replace("@LISTEN@", f"127.0.0.1:{nginx_port}")
            .replace("@UPSTREAMS@", upstreams)
        )
        run([nginx, "-t", "-p", str(prefix), "-c", str(prefix / "nginx.conf")], {}, "nginx -t")
        proxy = stack.enter_context(
            started(
                "nginx",
                [nginx, "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-g", "daemon off;"],
                run_dir / "nginx.out",
                dict(os.environ),
            )
        )
        front = f"http://127.0.0.1:{nginx_port}"
        wait_until("nginx", lambda: health_id(front) == first, 30, proxy)

        watch = SwapWatch({r: run_dir / f"replica-{r}.log" for r in REPLICAS})
        watcher = threading.Thread(target=watch.run, daemon=True)
        watcher.start()
        load = Load(front)
        clients = [threading.Thread(target=load.client, args=(n,)) for n in range(LOAD_CLIENTS)]
        load_started = time.monotonic()
        for thread in clients:
            thread.start()
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
                        builder_env,
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
            load.stop.set()
            for thread in clients:
                thread.join(timeout=60)
            watch.stop()
        load_seconds = time.monotonic() - load_started
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

        quota, admitted_by, windows = spend_quota(front, keys[0])
        if len(windows) > 1:
            note("the quota's requests straddled a minute; again with the second key")
            time.sleep(60.2 - time.time() % 60)
            quota, admitted_by, windows = spend_quota(front, keys[1])
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
            raise Failed(summary)
    if not args.keep:
        shutil.rmtree(run_dir, ignore_errors=True)  # kept when a check failed, for its logs
    return summary


def _redis_up(port: int) -> bool:
    import redis

    try:
        return bool(redis.Redis(port=port, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


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


class MissingTool(Failed):
    """nginx or redis-server is not installed."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="scripts/scale_test.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--builder",
        type=Path,
        help="a data dir with a published snapshot (default: the demo, built into WORK/builder)",
    )
    parser.add_argument(
        "--work",
        type=Path,
        default=Path(tempfile.gettempdir()) / "aimi-scale-test",
        help="where the demo builder is kept between runs and each run's logs (default: "
        "%(default)s; a run's folder is deleted when it passes)",
    )
    parser.add_argument(
        "--publish",
        choices=("build", "copy"),
        default="build",
        help="how the new snapshot is made: a real `aimi build` on the builder (default) or "
        "a copy of the current one under a new id",
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the run's folder (logs) when it passes too"
    )
    parser.add_argument(
        "--start-timeout", type=float, default=300, help="seconds a replica may take to start"
    )
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    try:
        summary = scale_test(args, args.work)
    except MissingTool as exc:
        sys.stdout.write(f"scale-test: skipped ({exc})\n")
        return 2
    except Failed as exc:
        text = str(exc)
        line = text if text.startswith("scale-test:") else f"scale-test: FAILED ({text})"
        sys.stdout.write(line + "\n")
        note(f"logs kept in {args.work}")
        return 1
    sys.stdout.write(summary + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
