"""Webhook deliveries: after a publish, each watchlist's new and changed signals, read from the
change feed after the position it was delivered up to, are POSTed to its URL as one signed
JSON batch (docs/notifications.md).

- **Signed** like Stripe's webhooks: ``X-Aimi-Signature: t=<unix seconds>,v1=<hex>``, the
  HMAC-SHA256 under the watchlist's secret of ``<t>.<body>``; ``verify_signature`` checks one.
- **At least once**: a batch is staged (its body written to the outbox, its id and feed
  positions to the watchlist) before the first attempt, and the watchlist's position moves
  past it only after a 2xx. A delivery stopped at any point resends the same bytes with the
  same ``batch_id`` next time, so a receiver dedupes on ``batch_id``; nothing is skipped.
- **Retries** with exponential backoff on a 5xx, 408, 429, a timeout or a connection error;
  another 4xx (or a 3xx) is final. After the last attempt the batch is dead-lettered: the
  watchlist waits, its position unmoved, until ``aimi watch retry`` sends it again.
- Every attempt is a line of ``<data dir>/watch/deliveries.jsonl``.

Deliveries run outside the publish, in their own process (``python -m publishing.webhooks``, what
the Dagster asset ``webhook_deliveries`` and ``aimi watch deliver`` run), one at a time per
data dir, so a dead endpoint never delays a publish.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

from publishing.watch import Batch, Delivery, Outcome, WatchError, Watchlist, WatchStore, now_text
from readmodel import service
from readmodel.cursor import ChangedKey, encode_changed
from readmodel.store import LoadedSnapshot, SignalQuery
from readmodel.version import API_VERSION
from warehouse.files import append_jsonl
from warehouse.locks import file_lock
from warehouse.paths import DataDir
from warehouse.settings import load_settings
from warehouse.snapshot import SnapshotError, open_current

SIGNATURE_HEADER = "X-Aimi-Signature"
BATCH_HEADER = "X-Aimi-Batch-Id"
SIGNATURE_TOLERANCE_SECONDS = 300
USER_AGENT = f"aimi-webhooks/{API_VERSION}"
_RETRIED_STATUSES = frozenset({408, 429})
_MAX_BACKOFF_SECONDS = 300.0
_ERROR_CHARS = 300
_BODY_READ_MAX = 65_536  # bytes of a receiver's answer read before the connection closes


@dataclass(frozen=True)
class Policy:
    """How deliveries are made: attempts per batch, the first backoff (doubled after each
    failed attempt, at most 5 minutes), the request timeout, and the most signals a batch
    carries (more make several batches, each acknowledged on its own)."""

    attempts: int = 5
    backoff_seconds: float = 2.0
    timeout_seconds: float = 10.0
    max_batch: int = 500

    @classmethod
    def from_settings(cls) -> Policy:
        settings = load_settings()
        return cls(
            attempts=settings.webhook_attempts,
            backoff_seconds=settings.webhook_backoff_seconds,
            timeout_seconds=settings.webhook_timeout_seconds,
            max_batch=settings.webhook_max_batch,
        )

    def backoff(self, failed_attempts: int) -> float:
        """Seconds to wait after the ``failed_attempts``-th failure."""
        return float(min(self.backoff_seconds * 2 ** (failed_attempts - 1), _MAX_BACKOFF_SECONDS))


# --- signatures -------------------------------------------------------------------------------


def sign(secret: str, body: bytes, timestamp: int) -> str:
    """The ``X-Aimi-Signature`` value: ``t=<timestamp>,v1=<HMAC-SHA256 of "<t>.<body>">``."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


def verify_signature(
    secret: str,
    header: str,
    body: bytes,
    *,
    tolerance: float = SIGNATURE_TOLERANCE_SECONDS,
    now: float | None = None,
) -> bool:
    """Whether ``header`` signs ``body`` with ``secret`` within ``tolerance`` seconds of
    ``now``: what a receiver checks (the time bound stops a replayed old request)."""
    parts = dict(item.split("=", 1) for item in header.split(",") if "=" in item)
    try:
        timestamp = int(parts["t"])
    except (KeyError, ValueError):
        return False
    if abs((time.time() if now is None else now) - timestamp) > tolerance:
        return False
    expected = sign(secret, body, timestamp).split(",v1=", 1)[1]
    # as bytes: compare_digest refuses str with characters outside ASCII (a forged header)
    presented = parts.get("v1", "").encode("utf-8", "surrogateescape")
    return hmac.compare_digest(expected.encode(), presented)


# --- what a watchlist matches -----------------------------------------------------------------


def matching_rows(snapshot: LoadedSnapshot, item: Watchlist, limit: int) -> tuple[list[int], bool]:
    """The snapshot rows of the signals ``item`` matches that changed after its position, in
    change-feed order, at most ``limit``, and whether more follow. Entities match with their
    family, as the change feed's ``entity`` filter; any entity, any theme, and the query."""
    entity_ids = None
    if item.entities:
        found: set[str] = set()
        for entity in item.entities:
            resolved = snapshot.entity_index.resolve(entity)
            if resolved is not None:
                found.update(snapshot.entity_index.family(resolved.entity_id))
        entity_ids = frozenset(found)  # none known any more: matches nothing
    keyword = None
    if item.query:
        keyword = service.resolve_filters(snapshot, entity=None, theme=None, keyword=item.query)[
            "keyword"
        ]
    rows: set[int] = set()
    more = False
    for theme in item.themes or (None,):
        query = SignalQuery(
            after_seq=item.after_seq, entity_ids=entity_ids, theme=theme, keyword=keyword
        )
        picked, has_more = snapshot.changed_rows(query, limit)
        rows.update(picked)
        more = more or has_more
    ordered = sorted(rows, key=lambda row: int(snapshot.change_seqs[row]))
    return ordered[:limit], more or len(ordered) > limit


def head_seq(snapshot: LoadedSnapshot) -> int:
    """The last position of the snapshot's change feed (0 when it has no signal)."""
    return snapshot.head_seq or 0


def batch_id_of(item: Watchlist, after_seq: int, to_seq: int) -> str:
    """A batch's id: the same for the same watchlist and feed positions, so a batch staged
    again after a lost outbox file keeps its id."""
    key = f"{item.name}\0{item.created_at}\0{after_seq}\0{to_seq}".encode()
    return "wb_" + hashlib.sha256(key).hexdigest()[:24]


def next_batch(
    snapshot: LoadedSnapshot, item: Watchlist, max_batch: int
) -> tuple[Batch, bytes] | int:
    """The next batch of ``item`` with its body, or, when nothing it matches changed, the
    position it may move to without a delivery (the feed's head)."""
    rows, more = matching_rows(snapshot, item, max_batch)
    if not rows:
        return max(item.after_seq, head_seq(snapshot))
    last = int(snapshot.change_seqs[rows[-1]])
    to_seq = last if more else max(head_seq(snapshot), item.after_seq)
    batch = Batch(batch_id_of(item, item.after_seq, to_seq), item.after_seq, to_seq, len(rows))
    body = {
        "event": "signals.changed",
        "batch_id": batch.batch_id,
        "watchlist": item.name,
        "snapshot_id": snapshot.snapshot_id,
        "created_at": now_text(),
        # the change-feed cursors this batch spans: `GET /v1/signals?sort=changed&cursor=…`
        "after_cursor": encode_changed(ChangedKey(item.after_seq)) if item.after_seq else None,
        "next_cursor": encode_changed(ChangedKey(to_seq)),
        "signals": [orjson.loads(snapshot.cards[row]) for row in rows],
    }
    return batch, orjson.dumps(body)


# --- one request ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Attempt:
    """One POST: the HTTP status (None when there was no response), an error, whether a
    retry may help, and its seconds."""

    status: int | None
    error: str | None
    retry: bool
    seconds: float

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def post(url: str, body: bytes, *, secret: str, batch_id: str, timeout: float) -> Attempt:
    """POST ``body`` signed with ``secret``; never raises for what the receiver does."""
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            BATCH_HEADER: batch_id,
            SIGNATURE_HEADER: sign(secret, body, int(time.time())),
        },
    )
    started = time.perf_counter()
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            status = int(response.status)
            response.read(_BODY_READ_MAX)  # the status decides; a receiver's body is not kept
    except urllib.error.HTTPError as exc:
        status = exc.code
        retry = status >= 500 or status in _RETRIED_STATUSES
        return Attempt(status, f"HTTP {status} {exc.reason}", retry, _since(started))
    except TimeoutError:
        return Attempt(None, f"timed out after {timeout:g} s", True, _since(started))
    except (urllib.error.URLError, ConnectionError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError):
            return Attempt(None, f"timed out after {timeout:g} s", True, _since(started))
        return Attempt(None, f"connection failed: {reason}"[:_ERROR_CHARS], True, _since(started))
    except (http.client.InvalidURL, ValueError) as exc:  # a URL urllib cannot send to
        return Attempt(None, f"invalid URL: {exc}"[:_ERROR_CHARS], False, _since(started))
    except http.client.HTTPException as exc:
        # an answer that is not HTTP, a body cut short, a header line too long: the receiver
        # misbehaved this time, so the batch is retried like a dropped connection
        error = f"bad answer: {type(exc).__name__} {exc}"
        return Attempt(None, error[:_ERROR_CHARS], True, _since(started))
    if 200 <= status < 300:
        return Attempt(status, None, False, _since(started))
    return Attempt(status, f"HTTP {status}", status >= 500, _since(started))


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is the receiver's answer, not a place to resend a signed body to."""

    def redirect_request(self, *_: Any, **__: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


def _since(started: float) -> float:
    return round(time.perf_counter() - started, 4)


# --- a delivery run ---------------------------------------------------------------------------


@dataclass
class WatchReport:
    """What one run did for one watchlist: batches delivered and their signals, attempts,
    and its state at the end (``ok``, ``pending`` or ``dead``)."""

    name: str
    delivered: int = 0
    signals: int = 0
    attempts: int = 0
    failed_attempts: int = 0
    state: str = "ok"
    error: str | None = None


@dataclass
class DeliveryReport:
    snapshot_id: str | None
    watchlists: list[WatchReport] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def deliver(
    data: DataDir,
    *,
    policy: Policy | None = None,
    names: Sequence[str] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> DeliveryReport:
    """Deliver every watchlist's pending batch and then its new batches from the current
    snapshot; one run at a time per data dir (a second waits for the first)."""
    policy = policy or Policy.from_settings()
    store = WatchStore(data)
    started = time.perf_counter()
    with file_lock(store.root / ".deliver.lock"):
        try:
            opened = open_current(data, verify=False)
        except SnapshotError:
            opened = None
        snapshot = LoadedSnapshot.from_opened(opened) if opened is not None else None
        report = DeliveryReport(None if snapshot is None else snapshot.snapshot_id)
        for item in store.list():
            if names is not None and item.name not in names:
                continue
            report.watchlists.append(_deliver_one(store, snapshot, item.name, policy, sleep))
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def _deliver_one(
    store: WatchStore,
    snapshot: LoadedSnapshot | None,
    name: str,
    policy: Policy,
    sleep: Callable[[float], None],
) -> WatchReport:
    report = WatchReport(name)
    try:
        while True:
            item = store.get(name)
            if item.dead is not None:
                report.state, report.error = "dead", item.dead.error
                return report
            batch = item.pending
            if batch is None:
                if snapshot is None:
                    return report
                staged = next_batch(snapshot, item, policy.max_batch)
                if isinstance(staged, int):
                    if staged != item.after_seq:
                        store.update(name, of=item, after_seq=staged)
                    return report
                batch, body = staged
                store.put_outbox(batch.batch_id, body)
                # staged: from here on it is resent as is
                store.update(name, of=item, pending=batch)
            outcome = _send(store, item, batch, policy, sleep, report)
            if outcome != "delivered":
                report.state = outcome if outcome == "dead" else "pending"
                return report
    except WatchError as exc:  # removed while delivering, or its outbox file is gone
        report.state, report.error = "error", str(exc)
        return report


def _send(
    store: WatchStore,
    item: Watchlist,
    batch: Batch,
    policy: Policy,
    sleep: Callable[[float], None],
    report: WatchReport,
) -> Outcome:
    """Attempt ``batch`` until a 2xx, a final refusal or the last attempt."""
    path = store.outbox_file(batch.batch_id)
    try:
        body = path.read_bytes()
    except FileNotFoundError:
        # staged, then its file lost: forget it; the same positions stage it again, same id
        store.update(item.name, of=item, pending=None)
        raise WatchError(f"outbox file {path.name} is missing; it is staged again") from None
    while True:
        attempt = post(
            item.url,
            body,
            secret=item.secret,
            batch_id=batch.batch_id,
            timeout=policy.timeout_seconds,
        )
        batch = Batch(**{**batch.to_json(), "attempts": batch.attempts + 1, "error": attempt.error})
        report.attempts += 1
        _log(store, item, batch, attempt)
        if attempt.ok:
            store.update(
                item.name,
                of=item,
                after_seq=batch.to_seq,
                pending=None,
                last_delivery=_delivery(batch, "delivered", attempt),
            )
            path.unlink(missing_ok=True)
            report.delivered += 1
            report.signals += batch.signals
            return "delivered"
        report.failed_attempts += 1
        report.error = attempt.error
        if not attempt.retry or batch.attempts >= policy.attempts:
            store.update(
                item.name,
                of=item,
                pending=None,
                dead=batch,
                last_delivery=_delivery(batch, "dead", attempt),
            )
            return "dead"
        store.update(
            item.name,
            of=item,
            pending=batch,
            last_delivery=_delivery(batch, "failed", attempt),
        )
        sleep(policy.backoff(batch.attempts))


def _delivery(batch: Batch, outcome: Outcome, attempt: Attempt) -> Delivery:
    return Delivery(
        batch_id=batch.batch_id,
        outcome=outcome,
        at=now_text(),
        signals=batch.signals,
        attempts=batch.attempts,
        status=attempt.status,
        error=attempt.error,
    )


def _log(store: WatchStore, item: Watchlist, batch: Batch, attempt: Attempt) -> None:
    append_jsonl(
        store.log_path,
        [
            {
                "at": now_text(),
                "watchlist": item.name,
                "batch_id": batch.batch_id,
                "attempt": batch.attempts,
                "signals": batch.signals,
                "status": attempt.status,
                "ok": attempt.ok,
                "error": attempt.error,
                "seconds": attempt.seconds,
            }
        ],
    )


def retry_dead(data: DataDir, name: str) -> Watchlist:
    """Put a dead-lettered batch back in flight with a fresh count of attempts (the next
    delivery run sends it first)."""
    store = WatchStore(data)
    item = store.get(name)
    if item.dead is None:
        raise WatchError(f"watchlist {name!r} has no dead-lettered batch")
    return store.update(name, dead=None, pending=Batch(**{**item.dead.to_json(), "attempts": 0}))


def ping(item: Watchlist, *, timeout: float) -> tuple[str, Attempt]:
    """Send ``item`` a signed ``ping`` event (no signals, no state changed); returns the
    ping's id and the attempt."""
    ping_id = "ping_" + hashlib.sha256(f"{item.name}{time.time_ns()}".encode()).hexdigest()[:24]
    body = orjson.dumps(
        {
            "event": "ping",
            "batch_id": ping_id,
            "watchlist": item.name,
            "created_at": now_text(),
            "signals": [],
        }
    )
    return ping_id, post(item.url, body, secret=item.secret, batch_id=ping_id, timeout=timeout)


# delivery runs this process started and does not wait for (kept so none is reported as
# still running when its handle is collected)
_started: list[subprocess.Popen[bytes]] = []


def start_in_background(data: DataDir) -> subprocess.Popen[bytes] | None:
    """Start a delivery run in a process of its own that outlives this one (what `aimi build`
    does after it publishes), its output appended to ``watch/deliver.log``; returns it, or
    None when the data dir has no watchlists."""
    store = WatchStore(data)
    if not store.exists():
        return None
    with (store.root / "deliver.log").open("ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "publishing.webhooks", str(data.root)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
    _started.append(process)
    return process


def reap_started(timeout: float) -> int:
    """Wait up to ``timeout`` seconds in all for the delivery runs this process started, kill
    those still running and reap them; returns how many were killed. For a process that must
    not leave them behind: a test session, before it removes their data dirs."""
    deadline = time.monotonic() + timeout
    killed = 0
    while _started:
        process = _started.pop()
        try:
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            killed += 1
    return killed


def main(argv: list[str]) -> int:
    """``python -m publishing.webhooks DATA_DIR``: one delivery run; prints its report as JSON."""
    if len(argv) != 1:
        sys.stderr.write("usage: python -m publishing.webhooks DATA_DIR\n")
        return 2
    try:
        report = deliver(DataDir.from_env(Path(argv[0])))
    except WatchError as exc:
        sys.stderr.write(f"webhooks: {exc}\n")
        return 1
    sys.stdout.write(json.dumps(report.to_json()) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
