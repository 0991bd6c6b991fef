"""The scale-out arrangement of docs/deployment.md on one machine, over loopback, shared by the
scale-out test (scale_out.py, `make scale-test`), the fault-injection matrix
(fault_matrix.py, `make fault-test`) and the soak (soak.py, `make soak`): moto's
S3 server as the object store, a redis-server for the rate limits, ``aimi serve`` replicas with
empty data dirs, and nginx in front of them (deploy/nginx.conf.template); plus the bounded load
the scripts put through nginx, the tools the fault test needs to break things (kill and restart
Redis or a replica, cut the store off behind a TCP gate), and what the three scripts' command
lines and runs share (``add_arguments``, ``run_folder``, ``guarded``).

Every process it starts is stopped when the ``ExitStack`` it was given closes; all traffic stays
on 127.0.0.1, bounded in count and time.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from tests.s3_server import S3Server, free_port, moto_server  # noqa: E402
from warehouse.object_store import ObjectStore  # noqa: E402
from warehouse.paths import DataDir  # noqa: E402
from warehouse.snapshot import current_snapshot_id  # noqa: E402

AIMI = Path(sys.executable).parent / "aimi"
TEMPLATE = ROOT / "deploy" / "nginx.conf.template"
SBIN_PATH = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"
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
TAG = ["aimi"]  # the progress lines' tag: the script that runs sets it


def note(message: str) -> None:
    """Progress, on stderr: stdout carries only the summary lines."""
    sys.stderr.write(f"[{TAG[0]} {time.strftime('%H:%M:%S')}] {message}\n")
    sys.stderr.flush()


class Failed(RuntimeError):
    """A check did not hold, or a step could not run."""


class MissingTool(Failed):
    """nginx or redis-server is not installed."""


class Stopped(BaseException):
    """The script was told to stop (SIGTERM, SIGINT, SIGHUP: a CI time limit, Ctrl-C, a
    closed terminal). Raised in the main thread, like ``KeyboardInterrupt``, so every context
    the run entered unwinds and stops what it started: the servers run in sessions of their
    own, so nothing else would stop them."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def stop_on_signals() -> None:
    """Turn ``STOP_SIGNALS`` into ``Stopped``; the first one only: while the run unwinds, a
    second signal is ignored, so that stopping what it started is never cut short."""

    def stop(signum: int, _frame: object) -> None:
        for other in STOP_SIGNALS:
            signal.signal(other, signal.SIG_IGN)
        raise Stopped(signum)

    for each in STOP_SIGNALS:
        signal.signal(each, stop)


def find_tool(name: str) -> str:
    """The path of ``name`` (nginx lives in /usr/sbin), or ``MissingTool`` naming the script
    that installs it."""
    found = shutil.which(name, path=SBIN_PATH)
    if found is None:
        raise MissingTool(f"{name} is not installed (scripts/ensure-{name.split('-')[0]})")
    return found


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

    def kill(self) -> None:
        """``kill -9`` of the whole process group (a server's workers too), reaped."""
        if self.alive():
            os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait()


@contextmanager
def started(name: str, command: list[str], log: Path, env: dict[str, str]) -> Iterator[Process]:
    out = log.open("ab")  # appended: a process started again keeps its earlier lines
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


def wait_until(what: str, ready: Any, timeout: float, process: Process | None = None) -> float:
    """Poll ``ready`` every 0.1 s; the seconds it took, or ``Failed`` after ``timeout``."""
    began = time.monotonic()
    deadline = began + timeout
    while not ready():
        if process is not None and not process.alive():
            raise Failed(f"{process.name} exited while waiting for {what}:\n{process.tail()}")
        if time.monotonic() > deadline:
            tail = f":\n{process.tail()}" if process is not None else ""
            raise Failed(f"timed out after {timeout:.0f} s waiting for {what}{tail}")
        time.sleep(0.1)
    return time.monotonic() - began


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


def redis_up(port: int, password: str | None = None) -> bool:
    import redis

    try:
        client = redis.Redis(port=port, password=password, socket_connect_timeout=1)
        return bool(client.ping())
    except redis.RedisError:
        return False


@dataclass
class SwapWatch:
    """Timestamps the lines ``serving snapshot <id>`` as they appear in the replicas' logs
    (one per worker swap), polling every 50 ms."""

    logs: dict[str, Path]
    seen: list[tuple[float, str, str]] = field(default_factory=list)  # (when, replica, id)
    pulls: list[tuple[str, str]] = field(default_factory=list)  # (replica, what it logged)
    _stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        offsets = {replica: path.stat().st_size for replica, path in self.logs.items()}
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


# What an error body must never hold (issue 34): a connection URL, a loopback address with its
# port, a file path, an API key or a webhook secret, an S3 access key id, a credential written
# out. The API's own paths (``/v1/...``) and words such as "invalid admin secret" pass.
UNSAFE_IN_ERRORS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("a Redis URL", re.compile(r"rediss?://", re.I)),
    ("an s3:// URL", re.compile(r"s3://", re.I)),
    (
        "a loopback address",
        re.compile(r"(?:127\.0\.0\.1|localhost|0\.0\.0\.0|\[::1\])(?::\d+)?", re.I),
    ),
    (
        "a file path",
        re.compile(
            r"(?<![\w.~/-])/(?:tmp|var|home|root|work|usr|etc|opt|srv|proc|mnt|run|dev|sys)(?:/|\b)"
        ),
    ),
    ("an API key", re.compile(r"\baimi_[0-9a-z]+_[A-Za-z0-9_-]{16,}")),
    ("a webhook secret", re.compile(r"\bwhsec_[A-Za-z0-9_-]{16,}")),
    ("an S3 access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    (
        "a credential written out",
        re.compile(
            r"(?i)\b(?:password|passwd|secret|api[_-]?key|access[_-]?key|token)\s*[=:]\s*\S"
        ),
    ),
)


def unsafe_in_answer(
    status: int,
    body: str,
    headers: str = "",
    secrets: tuple[str, ...] = (),
    paths: tuple[str, ...] = (),
) -> list[str]:
    """What an answer must not hold, by kind (the matched text itself left out, so that a
    report never repeats it): one of ``secrets`` in its body or headers, whatever its status;
    and in a non-2xx body, one of ``paths`` (the run's data dirs) or anything of
    ``UNSAFE_IN_ERRORS``."""
    found = (
        ["a configured secret"] if any(s and (s in body or s in headers) for s in secrets) else []
    )
    if not 200 <= status < 300:
        if any(p and p in body for p in paths):
            found.append("a path of the run's data dirs")
        found += [what for what, pattern in UNSAFE_IN_ERRORS if pattern.search(body)]
    return found


@dataclass
class Load:
    """``clients`` clients through nginx with ``key``, ``rate`` requests a second in all, until
    stopped (and never past ``max_seconds``: ``LOAD_SECONDS_MAX`` but in the soak). Counts every
    status, every request that got no answer, every 503 or 429 without ``Retry-After``, and
    every answer that holds one of ``secrets`` or, not 2xx, what ``unsafe_in_answer`` refuses."""

    base: str
    key: str
    clients: int = LOAD_CLIENTS
    rate: float = LOAD_RATE
    urls: tuple[str, ...] = LOAD_URLS
    secrets: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()  # the run's data dirs: never in an error body
    max_seconds: float = LOAD_SECONDS_MAX
    statuses: Counter[int] = field(default_factory=Counter)
    upstreams: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    errors: int = 0  # requests that got no response at all
    no_retry_after: int = 0  # 429 or 503 answers without Retry-After
    retry_after: Counter[str] = field(default_factory=Counter)  # its values on 503s
    leaks: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)
    threads: list[threading.Thread] = field(default_factory=list)
    seconds: float = 0.0

    def client(self, n: int) -> None:
        deadline = time.monotonic() + self.max_seconds
        interval = self.clients / self.rate
        with httpx.Client(base_url=self.base, headers={"X-API-Key": self.key}, timeout=30) as c:
            i = n
            due = time.monotonic()
            while not self.stop.is_set() and time.monotonic() < deadline:
                due += interval
                time.sleep(max(0.0, due - time.monotonic()))
                url = self.urls[i % len(self.urls)]
                i += 1
                began = time.monotonic()
                try:
                    response = c.get(url)
                except httpx.HTTPError as exc:
                    with self.lock:
                        self.failures.append(f"{url}: {exc!r}")
                        self.errors += 1
                    continue
                took = time.monotonic() - began
                body = response.text
                leaked = unsafe_in_answer(
                    response.status_code, body, str(response.headers), self.secrets, self.paths
                )
                with self.lock:
                    self.latencies.append(took)
                    self.statuses[response.status_code] += 1
                    self.upstreams[response.headers.get("X-Aimi-Upstream", "?")] += 1
                    if response.status_code in (429, 503):
                        value = response.headers.get("Retry-After")
                        if value is None:
                            self.no_retry_after += 1
                        elif response.status_code == 503:
                            self.retry_after[value] += 1
                    if leaked:
                        self.leaks.append(
                            f"{url}: {response.status_code} holds {', '.join(leaked)}"
                        )
                    if response.status_code != 200:
                        self.failures.append(f"{url}: {response.status_code} {body[:200]}")

    def __enter__(self) -> Load:
        self._began = time.monotonic()
        self.threads = [
            threading.Thread(target=self.client, args=(n,)) for n in range(self.clients)
        ]
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=60)
        self.seconds = time.monotonic() - self._began

    @property
    def requests(self) -> int:
        return sum(self.statuses.values()) + self.errors

    def non_2xx(self) -> dict[int, int]:
        return {s: n for s, n in sorted(self.statuses.items()) if not 200 <= s < 300}

    def p99(self) -> float:
        ordered = sorted(self.latencies)
        return ordered[int(len(ordered) * 0.99)] if ordered else 0.0


def spend_quota(
    base: str,
    key: str,
    sent: int,
    threads: int = 8,
    scan: Callable[[str, httpx.Response], None] | None = None,
) -> tuple[Counter[int], Counter[str], set[str]]:
    """``sent`` requests of ``key`` through nginx, ``threads`` at a time, inside one UTC minute
    (the window the quota counts in): started early in a minute. Returns the statuses, the
    admitted requests by replica, and the minute windows the answers named; each answer is
    given to ``scan`` (with where it came from), under a lock."""
    if time.time() % 60 > 50:
        pause = 60.5 - time.time() % 60
        note(f"waiting {pause:.0f} s for the next minute, so the requests share one window")
        time.sleep(pause)
    statuses: Counter[int] = Counter()
    admitted_by: Counter[str] = Counter()
    windows: set[str] = set()
    lock = threading.Lock()
    todo = iter(range(sent))

    def client() -> None:
        with httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=30) as c:
            for _ in todo:
                response = c.get("/v1/signals", params={"limit": 1})
                with lock:
                    if scan is not None:
                        scan("a quota spend", response)
                    statuses[response.status_code] += 1
                    windows.add(response.headers.get("X-RateLimit-Reset-Minute", "?"))
                    if response.status_code == 200:
                        admitted_by[response.headers.get("X-Aimi-Upstream", "?")] += 1

    workers = [threading.Thread(target=client) for _ in range(threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join(timeout=120)
    return statuses, admitted_by, windows


class TcpGate:
    """A TCP relay on a fixed loopback port in front of another one, which the fault test can
    close (the listener goes away and every relayed connection is cut: clients get
    "connection refused") and open again on the same port: an object store that becomes
    unreachable for one side of the arrangement only."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self._listener: socket.socket | None = None
        self._conns: set[socket.socket] = set()
        self._lock = threading.Lock()
        self.delay = 0.0  # seconds before each relayed chunk: a slow link, for a wider window

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def open(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(128)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def close(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
        with self._lock:
            conns, self._conns = self._conns, set()
        for conn in conns:
            with suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
            conn.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # closed
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self._lock:
                self._conns.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                if self.delay:
                    time.sleep(self.delay)
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                with suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
            with self._lock:
                self._conns.discard(source)
                self._conns.discard(sink)


@dataclass(frozen=True)
class Credentials:
    """What the arrangement runs with when credentials are configured: a Redis password, S3
    keys, an admin secret (the dev key is a credential too). Random for each run."""

    redis_password: str | None = None
    aws_access_key_id: str = "testing"
    aws_secret_access_key: str = "testing"
    admin_secret: str | None = None

    @classmethod
    def random(cls) -> Credentials:
        return cls(
            redis_password=f"redis-pw-{secrets.token_hex(12)}",
            aws_access_key_id=f"AKIAFAULT{secrets.token_hex(6).upper()}",
            aws_secret_access_key=f"s3-secret-{secrets.token_hex(16)}",
            admin_secret=f"admin-secret-{secrets.token_hex(16)}",
        )

    def values(self) -> tuple[str, ...]:
        """The secret strings, to scan answers and logs for (moto's "testing" is no secret)."""
        found = [self.redis_password, self.admin_secret]
        if self.aws_secret_access_key != "testing":
            found += [self.aws_access_key_id, self.aws_secret_access_key]
        return tuple(v for v in found if v)


@dataclass
class Arrangement:
    """The arrangement's parts, started step by step into ``stack`` (stopped when it closes):
    ``start_store``, ``start_redis``, ``push_builder``, ``create_key``, ``start_replicas``,
    ``start_nginx``. With ``gated``, the replicas and the builder reach the store through a
    ``TcpGate`` each (``replica_gate``, ``builder_gate``), which the fault test closes."""

    stack: ExitStack
    run_dir: Path
    builder: Path
    dev_key: str
    tiers: str
    credentials: Credentials = field(default_factory=Credentials)
    replicas: tuple[str, ...] = ("a", "b")
    start_timeout: float = 300
    workers: int = 2  # uvicorn workers per replica
    gated: bool = False
    data_dirs: dict[str, Path] = field(default_factory=dict)  # a replica's, moved elsewhere
    extra_env: dict[str, str] = field(default_factory=dict)
    s3: S3Server | None = None
    redis_port: int = 0
    redis: Process | None = None
    ports: dict[str, int] = field(default_factory=dict)
    servers: dict[str, Process] = field(default_factory=dict)
    proxy: Process | None = None
    front: str = ""
    base_env: dict[str, str] = field(default_factory=dict)
    store: ObjectStore | None = None
    store_url: str = ""
    replica_gate: TcpGate | None = None
    builder_gate: TcpGate | None = None
    nginx_prefix: Path | None = None

    @property
    def builder_env(self) -> dict[str, str]:
        env = {**self.base_env, "AIMI_DATA_DIR": str(self.builder)}
        if self.builder_gate is not None:
            env["AWS_ENDPOINT_URL_S3"] = self.builder_gate.endpoint
        return env

    def replica_env(self, replica: str) -> dict[str, str]:
        env = {**self.base_env, "AIMI_DATA_DIR": str(self.replica_dir(replica))}
        if self.replica_gate is not None:
            env["AWS_ENDPOINT_URL_S3"] = self.replica_gate.endpoint
        return env

    def replica_dir(self, replica: str) -> Path:
        return self.data_dirs.get(replica, self.run_dir / f"replica-{replica}")

    def replica_base(self, replica: str) -> str:
        return f"http://127.0.0.1:{self.ports[replica]}"

    def start_store(self) -> None:
        self.s3 = self.stack.enter_context(moto_server(log=self.run_dir / "moto.log"))
        self.store_url = f"s3://{self.s3.bucket}/aimi"
        c = self.credentials
        s3_env = {
            **self.s3.env(),
            "AWS_ACCESS_KEY_ID": c.aws_access_key_id,
            "AWS_SECRET_ACCESS_KEY": c.aws_secret_access_key,
        }
        os.environ.update(s3_env)  # this process pushes, tampers and watches the store too
        self.store = ObjectStore(self.store_url)
        if self.gated:
            port = int(self.s3.endpoint.rsplit(":", 1)[1])
            self.replica_gate, self.builder_gate = TcpGate(port), TcpGate(port)
            for gate in (self.replica_gate, self.builder_gate):
                gate.open()
                self.stack.callback(gate.close)
        redis_url = f"redis://127.0.0.1:{self.redis_port_or_new()}/0"
        if c.redis_password:
            redis_url = f"redis://:{c.redis_password}@127.0.0.1:{self.redis_port}/0"
        self.base_env = {
            **os.environ,
            **s3_env,
            "AIMI_SNAPSHOT_STORE": self.store_url,
            "AIMI_RATE_LIMIT_STORAGE": redis_url,
            "AIMI_RATE_LIMIT_TIERS": self.tiers,
            "AIMI_DEV_API_KEY": self.dev_key,
            "HF_HUB_OFFLINE": "1",
            **({"AIMI_ADMIN_SECRET": c.admin_secret} if c.admin_secret else {}),
            **self.extra_env,
        }

    @classmethod
    def for_run(
        cls,
        stack: ExitStack,
        folder: RunFolder,
        args: argparse.Namespace,
        dev_key: str,
        tiers: str,
        **options: Any,
    ) -> Arrangement:
        """The arrangement of a script's run: its folder, its builder, and the options of
        ``add_arguments`` (``--start-timeout``; ``--workers`` where the script has it)."""
        options.setdefault("start_timeout", args.start_timeout)
        if getattr(args, "workers", None) is not None:
            options.setdefault("workers", args.workers)
        return cls(stack, folder.path, folder.builder, dev_key, tiers, **options)

    def start(self, keys: tuple[tuple[str, str], ...] = ()) -> tuple[str, list[str]]:
        """Every part, in order: the store, Redis, the builder's snapshot pushed, the API keys
        ``keys`` (name, tier) created, the replicas (serving the pushed snapshot), nginx. The
        pushed snapshot's id and the keys, in the order given."""
        self.start_store()
        self.start_redis()
        first = self.push_builder()
        made = [self.create_key(name, tier) for name, tier in keys]
        self.start_replicas(first)
        self.start_nginx(first)
        return first, made

    def redis_port_or_new(self) -> int:
        if not self.redis_port:
            self.redis_port = free_port()
        return self.redis_port

    def start_redis(self) -> None:
        """redis-server on ``redis_port`` (the same port when started again), no persistence."""
        command = ["redis-server", "--port", str(self.redis_port_or_new()), "--bind", "127.0.0.1"]
        command += ["--save", "", "--appendonly", "no", "--dir", str(self.run_dir)]
        if self.credentials.redis_password:
            command += ["--requirepass", self.credentials.redis_password]
        self.redis = self.stack.enter_context(
            started("redis-server", command, self.run_dir / "redis.log", dict(os.environ))
        )
        redis = self.redis
        password = self.credentials.redis_password
        port = self.redis_port
        wait_until("redis-server", lambda: redis.alive() and redis_up(port, password), 30, redis)

    def push_builder(self) -> str:
        """The builder's snapshot pushed to the store (built first if need be): its id."""
        assert self.store is not None
        ensure_builder(self.builder, self.base_env)
        run([str(AIMI), "snapshots", "push"], self.builder_env, "aimi snapshots push")
        first = self.store.current_id()
        assert first is not None
        note(f"pushed {first} to {self.store_url}")
        return first

    def create_key(self, name: str, tier: str) -> str:
        """A new API key in the arrangement's keys file, copied to every replica's data dir
        that exists (a server reads the file again when it changes)."""
        key = run(
            [str(AIMI), "keys", "create", "--name", name, "--tier", tier],
            {**self.base_env, "AIMI_DATA_DIR": str(self.run_dir / "keys")},
            "aimi keys create",
        ).strip()
        for replica in self.replicas:
            if self.replica_dir(replica).is_dir():
                shutil.copy(self.run_dir / "keys" / "keys.json", self.replica_dir(replica))
        return key

    def start_replica(self, replica: str) -> Process:
        """``aimi serve`` for ``replica`` on its port (the same one when started again)."""
        if replica not in self.ports:
            self.ports[replica] = free_port()
        data = self.replica_dir(replica)
        if not data.is_dir():
            data.mkdir()
            if (self.run_dir / "keys" / "keys.json").is_file():
                shutil.copy(self.run_dir / "keys" / "keys.json", data / "keys.json")
        command = [str(AIMI), "serve", "--port", str(self.ports[replica])]
        command += ["--workers", str(self.workers), "--no-access-log"]
        self.servers[replica] = self.stack.enter_context(
            started(
                f"replica {replica}",
                command,
                self.run_dir / f"replica-{replica}.log",
                self.replica_env(replica),
            )
        )
        return self.servers[replica]

    def wait_serving(self, replica: str, snapshot_id: str, timeout: float | None = None) -> float:
        base = self.replica_base(replica)
        return wait_until(
            f"replica {replica} to serve {snapshot_id}",
            lambda: health_id(base) == snapshot_id,
            self.start_timeout if timeout is None else timeout,
            self.servers[replica],
        )

    def start_replicas(self, first: str) -> None:
        for replica in self.replicas:
            self.start_replica(replica)
        for replica in self.replicas:
            self.wait_serving(replica, first)
        note(f"every replica serves {first} (pulled from the store)")

    def start_nginx(self, first: str) -> None:
        nginx = find_tool("nginx")
        nginx_port = free_port()
        prefix = self.nginx_prefix = self.run_dir / "nginx"
        prefix.mkdir()
        for sub in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (prefix / sub).mkdir()
            (prefix / sub).chmod(0o777)  # nginx's workers may run as another user under root
        upstreams = "\n".join(f"        server 127.0.0.1:{self.ports[r]};" for r in self.replicas)
        (prefix / "nginx.conf").write_text(
            TEMPLATE.read_text()
            .replace("@PREFIX@", str(prefix))
            .replace("@LISTEN@", f"127.0.0.1:{nginx_port}")
            .replace("@UPSTREAMS@", upstreams)
        )
        run([nginx, "-t", "-p", str(prefix), "-c", str(prefix / "nginx.conf")], {}, "nginx -t")
        self.proxy = self.stack.enter_context(
            started(
                "nginx",
                [nginx, "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-g", "daemon off;"],
                self.run_dir / "nginx.out",
                dict(os.environ),
            )
        )
        self.front = f"http://127.0.0.1:{nginx_port}"
        wait_until("nginx", lambda: health_id(self.front) == first, 30, self.proxy)

    def logs(self) -> list[Path]:
        """Every log the arrangement's own processes and nginx wrote (moto's is the store's)."""
        found = [p for p in self.run_dir.glob("*.log") if p.name != "moto.log"]
        found += [self.run_dir / "nginx.out"]
        if self.nginx_prefix is not None:
            found += [self.nginx_prefix / "error.log"]
        return [p for p in found if p.is_file()]


# What the three scripts' command lines and runs share.


def add_arguments(
    parser: argparse.ArgumentParser,
    *,
    work: str,
    deleted_when: str = "it passes",
    workers: bool = True,
) -> None:
    """The arrangement's options, the same in every script: ``--builder``, ``--work`` (by
    default the folder ``work`` in the temporary folder), ``--workers`` (unless the script
    depends on its replicas' two workers), ``--keep`` and ``--start-timeout``."""
    parser.add_argument(
        "--builder",
        type=Path,
        help="a data dir with a published snapshot (default: the demo, built into WORK/builder)",
    )
    parser.add_argument(
        "--work",
        type=Path,
        default=Path(tempfile.gettempdir()) / work,
        help="where the demo builder is kept between runs and each run's logs (default: "
        f"%(default)s; a run's folder is deleted when {deleted_when})",
    )
    if workers:
        parser.add_argument(
            "--workers", type=int, default=2, help="uvicorn workers per replica (default: 2)"
        )
    parser.add_argument(
        "--keep", action="store_true", help="keep the run's folder (logs) when it passes too"
    )
    parser.add_argument(
        "--start-timeout",
        type=float,
        default=300,
        help="seconds a replica may take to start (default: 300)",
    )


@dataclass
class RunFolder:
    """Where a run keeps its logs (``path``, under ``--work``) and the builder's data dir. A
    run that failed without raising sets ``failed``, so its logs stay."""

    builder: Path
    path: Path
    failed: bool = False


@contextmanager
def run_folder(args: argparse.Namespace, prefix: str) -> Iterator[RunFolder]:
    """A run's start: nginx and redis-server found (else ``MissingTool``), ``--work`` made, the
    builder (``--builder``, else WORK/builder) and a new folder ``prefix``* under WORK for the
    run's logs. At the end the folder is deleted when the run passed (nothing raised,
    ``failed`` unset) and ``--keep`` was not given; otherwise it is kept, and named."""
    find_tool("nginx")
    find_tool("redis-server")
    args.work.mkdir(parents=True, exist_ok=True)
    builder = (args.builder or args.work / "builder").resolve()
    folder = RunFolder(builder, Path(tempfile.mkdtemp(prefix=prefix, dir=args.work)))
    try:
        yield folder
    except BaseException:
        folder.failed = True
        raise
    finally:
        if folder.failed or args.keep:
            note(f"logs kept in {folder.path}")
        else:
            shutil.rmtree(folder.path, ignore_errors=True)


def guarded(name: str, body: Callable[[], int]) -> int:
    """A script's run, its progress lines tagged ``name``, and its exit status: ``body``'s, or
    2 with the line ``name: skipped (…)`` when nginx or redis-server is missing, or 1 with
    ``name: FAILED (…)`` (the first line of the ``Failed`` step; all of it on stderr), or
    128 + the signal's number with ``name: stopped by SIGTERM`` when told to stop, after
    everything the run started was stopped."""
    TAG[0] = name
    stop_on_signals()
    try:
        return body()
    except Stopped as exc:
        sys.stdout.write(f"{name}: stopped by {exc}; everything it started was stopped\n")
        sys.stdout.flush()
        return 128 + exc.signum
    except MissingTool as exc:
        sys.stdout.write(f"{name}: skipped ({exc})\n")
        return 2
    except Failed as exc:
        text = str(exc)
        first = text.splitlines()[0] if text else ""
        line = first if first.startswith(f"{name}:") else f"{name}: FAILED ({first})"
        sys.stdout.write(line + "\n")
        sys.stdout.flush()
        note(text)
        return 1
