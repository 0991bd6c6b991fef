"""Webhook deliveries: after a publish, each watchlist's new and changed signals, read from the
change feed after the position it was delivered up to, are POSTed to its URL as one signed
JSON batch (docs/notifications.md).

- **Signed** like Stripe's webhooks: ``X-Aimi-Signature: t=<unix seconds>,v1=<hex>``, the
  HMAC-SHA256 under the watchlist's secret of ``<t>.<body>``; ``verify_signature`` checks one.
- **At least once**: a batch is staged (its body written to the outbox, its id and feed
  positions to the watchlist) before the first attempt, and the watchlist's position moves
  past it only after a 2xx. A delivery stopped at any point resends the same bytes with the
  same ``batch_id`` next time, so a receiver dedupes on ``batch_id``; nothing is skipped.
- **Retries** on a schedule that spans days, with exponential backoff, on a 5xx, 408, 429, a
  timeout or a connection error; another 4xx (or a 3xx) is final. The next attempt's time is
  kept with the batch, so retries resume on schedule after a restart: a run waits in-process for
  an attempt due soon and leaves a later one to the run that finds it due (the Dagster sensor
  ``retry_sensor``, the next publish, ``aimi watch deliver``). Past the retry window the batch
  is dead-lettered: the watchlist waits, its position unmoved, until ``aimi watch retry``.
- **Isolated**: watchlists with different URLs are delivered at once, at most
  ``AIMI_WEBHOOK_CONCURRENCY`` at a time, and a run never sleeps in one endpoint's place, so a
  slow or dead endpoint costs the others nothing.
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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import orjson

from analytics.records import iso_utc, parse_timestamp
from publishing.watch import (
    DIGEST_PERIODS,
    Batch,
    Delivery,
    Outcome,
    WatchError,
    Watchlist,
    WatchStore,
    now_text,
)
from publishing.webhook_bodies import slack_body
from readmodel import service
from readmodel.cursor import ChangedKey, encode_changed
from readmodel.store import LoadedSnapshot, SignalQuery
from readmodel.version import API_VERSION
from warehouse.files import append_jsonl, atomic_write_bytes
from warehouse.locks import file_lock
from warehouse.paths import DataDir
from warehouse.settings import load_settings
from warehouse.snapshot import SnapshotError, open_current

SIGNATURE_HEADER = "X-Aimi-Signature"
BATCH_HEADER = "X-Aimi-Batch-Id"
EVENT_HEADER = "X-Aimi-Event"
ATTEMPT_HEADER = "X-Aimi-Attempt"
SCHEDULE_FILE = "schedule.json"  # the next due attempt or digest, read by the Dagster sensor
SIGNATURE_TOLERANCE_SECONDS = 300
USER_AGENT = f"aimi-webhooks/{API_VERSION}"
_RETRIED_STATUSES = frozenset({408, 429})
_ERROR_CHARS = 300
_BODY_READ_MAX = 65_536  # bytes of a receiver's answer read before the connection closes


@dataclass(frozen=True)
class Policy:
    """How deliveries are made: attempts per batch at most, the first backoff (doubled after
    each failed attempt, at most ``max_backoff_seconds``), how long after its first failure a
    batch is still retried (``retry_hours``; Stripe retries for three days), the request
    timeout, the most signals a batch carries (more make several batches, each acknowledged on
    its own), how many endpoints are sent to at once, how long a run waits in-process for a
    retry (a later one is left to the run that finds it due), and how long sent bodies stay."""

    attempts: int = 30
    backoff_seconds: float = 2.0
    timeout_seconds: float = 10.0
    max_batch: int = 500
    max_backoff_seconds: float = 21_600.0
    retry_hours: float = 72.0
    concurrency: int = 8
    wait_seconds: float = 30.0
    keep_days: float = 30.0

    @classmethod
    def from_settings(cls) -> Policy:
        settings = load_settings()
        return cls(
            attempts=settings.webhook_attempts,
            backoff_seconds=settings.webhook_backoff_seconds,
            timeout_seconds=settings.webhook_timeout_seconds,
            max_batch=settings.webhook_max_batch,
            max_backoff_seconds=settings.webhook_max_backoff_seconds,
            retry_hours=settings.webhook_retry_hours,
            concurrency=settings.webhook_concurrency,
            wait_seconds=settings.webhook_wait_seconds,
            keep_days=settings.webhook_keep_days,
        )

    def backoff(self, failed_attempts: int) -> float:
        """Seconds to wait after the ``failed_attempts``-th failure."""
        wait = self.backoff_seconds * 2 ** min(failed_attempts - 1, 60)
        return float(min(wait, self.max_backoff_seconds))

    def gives_up(self, batch: Batch, now: datetime) -> bool:
        """Whether ``batch``, its last attempt failed, is dead: out of attempts, or its next
        attempt would fall after the retry window that opened with its first failure."""
        if batch.attempts >= self.attempts:
            return True
        opened = parse_timestamp(batch.first_failed_at) if batch.first_failed_at else now
        next_at = now + timedelta(seconds=self.backoff(batch.attempts))
        return next_at - opened > timedelta(hours=self.retry_hours)


# --- signatures -------------------------------------------------------------------------------


def sign(secret: str, body: bytes, timestamp: int, *more: str) -> str:
    """The ``X-Aimi-Signature`` value: ``t=<timestamp>,v1=<HMAC-SHA256 of "<t>.<body>">``, one
    ``v1`` per secret (during a rotation's overlap, the new secret's, then the old one's)."""
    signed = f"{timestamp}.".encode() + body
    macs = [hmac.new(key.encode(), signed, hashlib.sha256).hexdigest() for key in (secret, *more)]
    return f"t={timestamp}," + ",".join(f"v1={mac}" for mac in macs)


def verify_signature(
    secret: str,
    header: str,
    body: bytes,
    *,
    tolerance: float = SIGNATURE_TOLERANCE_SECONDS,
    now: float | None = None,
) -> bool:
    """Whether ``header`` signs ``body`` with ``secret`` within ``tolerance`` seconds of
    ``now``: what a receiver checks (the time bound stops a replayed old request). Any of the
    header's ``v1`` values may match: during a secret rotation it carries one per secret."""
    pairs = [item.split("=", 1) for item in header.split(",") if "=" in item]
    stamps = [value for key, value in pairs if key == "t"]
    try:
        timestamp = int(stamps[0])
    except (IndexError, ValueError):
        return False
    if abs((time.time() if now is None else now) - timestamp) > tolerance:
        return False
    expected = sign(secret, body, timestamp).split(",v1=", 1)[1].encode()
    # as bytes: compare_digest refuses str with characters outside ASCII (a forged header)
    presented = [value.encode("utf-8", "surrogateescape") for key, value in pairs if key == "v1"]
    return any(hmac.compare_digest(expected, value) for value in presented)


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
    if item.digest:
        body["digest"] = item.digest
    if item.body_format == "slack":
        return batch, orjson.dumps(slack_body(body))
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


def post(
    url: str,
    body: bytes,
    *,
    secret: str,
    batch_id: str,
    timeout: float,
    event: str = "signals.changed",
    attempt: int = 1,
    more_secrets: Sequence[str] = (),
) -> Attempt:
    """POST ``body`` signed with ``secret`` (and ``more_secrets``: a rotation's old one), with
    its event type and attempt number in headers; never raises for what the receiver does."""
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            BATCH_HEADER: batch_id,
            EVENT_HEADER: event,
            ATTEMPT_HEADER: str(attempt),
            SIGNATURE_HEADER: sign(secret, body, int(time.time()), *more_secrets),
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
    its state at the end (``ok``, ``pending`` or ``dead``), the last error, every failed
    attempt's error in order, and when a pending batch's next attempt is due."""

    name: str
    delivered: int = 0
    signals: int = 0
    attempts: int = 0
    failed_attempts: int = 0
    state: str = "ok"
    error: str | None = None
    errors: list[str] = field(default_factory=list)
    next_attempt_at: str | None = None


@dataclass
class DeliveryReport:
    snapshot_id: str | None
    watchlists: list[WatchReport] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class _Run:
    """What every watchlist's delivery in one run shares."""

    store: WatchStore
    snapshot: LoadedSnapshot | None
    policy: Policy


def deliver(
    data: DataDir,
    *,
    policy: Policy | None = None,
    names: Sequence[str] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> DeliveryReport:
    """Deliver every watchlist's pending batch that is due and then its new batches from the
    current snapshot; one run at a time per data dir (a second waits for the first).

    Watchlists with different URLs are delivered at once (at most ``policy.concurrency``);
    those sharing one go one after another. A failed attempt is never waited for in a
    worker: the run sleeps only between passes, for the retries due within
    ``policy.wait_seconds``, and leaves later ones scheduled for the run that finds them due.
    """
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
        items = [item for item in store.list() if names is None or item.name in names]
        reports = {item.name: WatchReport(item.name) for item in items}
        report.watchlists = list(reports.values())
        _run_passes(_Run(store, snapshot, policy), items, reports, sleep)
        store.prune_sent(policy.keep_days, time.time())
        if store.exists():  # a data dir without watchlists gets no watch folder
            write_schedule(store)
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def _run_passes(
    run: _Run,
    items: Sequence[Watchlist],
    reports: dict[str, WatchReport],
    sleep: Callable[[float], None],
) -> None:
    """Pass after pass over the watchlists due: the first over all of them, each later one,
    after sleeping, over those whose retry came due within the run's wait."""
    url_of = {item.name: item.url for item in items}
    scheduled: dict[str, float] = {}  # name -> monotonic instant its retry is due
    due, forced = [item.name for item in items], False
    with ThreadPoolExecutor(max_workers=run.policy.concurrency) as pool:
        while due:
            by_url: dict[str, list[str]] = {}
            for name in due:
                by_url.setdefault(url_of[name], []).append(name)
            send = partial(_deliver_group, run, reports=reports, forced=forced)
            for waits in pool.map(send, by_url.values()):
                now = time.monotonic()
                scheduled.update({name: now + wait for name, wait in waits.items()})
            if not scheduled:
                return
            soonest = min(scheduled.values())
            sleep(max(0.0, soonest - time.monotonic()))
            due = [name for name, instant in scheduled.items() if instant <= soonest]
            for name in due:
                del scheduled[name]
            forced = True


def _deliver_group(
    run: _Run, names: Sequence[str], *, reports: dict[str, WatchReport], forced: bool
) -> dict[str, float]:
    """One endpoint's watchlists in turn; the seconds until each one's retry due within the
    run's wait."""
    waits: dict[str, float] = {}
    for name in names:
        wait = _deliver_one(run, name, reports[name], forced)
        if wait is not None and wait <= run.policy.wait_seconds:
            waits[name] = wait
    return waits


def _deliver_one(run: _Run, name: str, report: WatchReport, forced: bool) -> float | None:
    """Send ``name`` what it is owed until a batch fails; returns the seconds until its next
    attempt when one is scheduled. ``forced``: the run slept until its retry was due."""
    try:
        while True:
            item = run.store.get(name)
            if item.dead is not None:
                report.state, report.error = "dead", item.dead.error
                return None
            batch = item.pending
            if batch is None:
                batch = _stage(run, item)
                if batch is None:
                    return None
                item = run.store.get(name)
            elif not forced and batch.next_attempt_at:
                wait = (parse_timestamp(batch.next_attempt_at) - datetime.now(UTC)).total_seconds()
                if wait > 0:
                    report.state, report.next_attempt_at = "pending", batch.next_attempt_at
                    report.error = report.error or batch.error
                    return wait
            forced = False
            outcome, wait = _send(run.store, item, batch, run.policy, report)
            if outcome == "dead":
                report.state = "dead"
                return None
            if outcome != "delivered":
                report.state = "pending"
                return wait
            report.state, report.next_attempt_at = "ok", None
    except WatchError as exc:  # removed while delivering, or its outbox file is gone
        report.state, report.error = "error", str(exc)
        return None


def _stage(run: _Run, item: Watchlist) -> Batch | None:
    """Stage ``item``'s next batch (its body in the outbox, then the batch in its entry), or
    move its position when nothing it matches changed; None when there is nothing to send now
    (no snapshot, or a digest not due yet)."""
    if run.snapshot is None:
        return None
    now = datetime.now(UTC)
    if item.digest and item.digest_due_at and parse_timestamp(item.digest_due_at) > now:
        return None
    staged = next_batch(run.snapshot, item, run.policy.max_batch)
    if isinstance(staged, int):
        changes: dict[str, Any] = {}
        if staged != item.after_seq:
            changes["after_seq"] = staged
        if item.digest:  # caught up: the next digest is one period on
            changes["digest_due_at"] = iso_utc(now + DIGEST_PERIODS[item.digest])
        if changes:
            run.store.update(item.name, of=item, **changes)
        return None
    batch, body = staged
    run.store.put_outbox(batch.batch_id, body)
    # staged: from here on it is resent as is
    run.store.update(item.name, of=item, pending=batch)
    return batch


def _send(
    store: WatchStore, item: Watchlist, batch: Batch, policy: Policy, report: WatchReport
) -> tuple[Outcome, float]:
    """One attempt at ``batch``: delivered, failed (its next attempt scheduled; returns the
    seconds until it) or dead (a final refusal, or out of attempts or of the retry window)."""
    path = store.outbox_file(batch.batch_id)
    try:
        body = path.read_bytes()
    except FileNotFoundError:
        # staged, then its file lost: forget it; the same positions stage it again, same id
        store.update(item.name, of=item, pending=None)
        raise WatchError(f"outbox file {path.name} is missing; it is staged again") from None
    attempt = post(
        item.url,
        body,
        secret=item.secret,
        more_secrets=item.signing_secrets()[1:],
        batch_id=batch.batch_id,
        timeout=policy.timeout_seconds,
        event="signals.changed",
        attempt=batch.attempts + 1,
    )
    now = datetime.now(UTC)
    batch = replace(batch, attempts=batch.attempts + 1, error=attempt.error, next_attempt_at=None)
    report.attempts += 1
    log_attempt(store, item, batch, attempt)
    if attempt.ok:
        store.update(
            item.name,
            of=item,
            after_seq=batch.to_seq,
            pending=None,
            last_delivery=_delivery(batch, "delivered", attempt),
        )
        store.mark_sent(batch.batch_id)
        report.delivered += 1
        report.signals += batch.signals
        return "delivered", 0.0
    report.failed_attempts += 1
    report.error = attempt.error
    report.errors.append(f"attempt {batch.attempts}: {attempt.error}")
    batch = replace(batch, first_failed_at=batch.first_failed_at or iso_utc(now))
    if not attempt.retry or policy.gives_up(batch, now):
        dead = _delivery(batch, "dead", attempt)
        store.update(item.name, of=item, pending=None, dead=batch, last_delivery=dead)
        return "dead", 0.0
    wait = policy.backoff(batch.attempts)
    batch = replace(batch, next_attempt_at=iso_utc(now + timedelta(seconds=wait)))
    report.next_attempt_at = batch.next_attempt_at
    failed = _delivery(batch, "failed", attempt)
    store.update(item.name, of=item, pending=batch, last_delivery=failed)
    return "failed", wait


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


def log_attempt(
    store: WatchStore, item: Watchlist, batch: Batch, attempt: Attempt, **more: Any
) -> None:
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
                **more,
            }
        ],
    )


def next_due(items: Sequence[Watchlist]) -> str | None:
    """The earliest instant a watchlist has something due: a pending batch's next attempt,
    or a digest (a pending batch without a time is due now)."""
    times: list[str] = []
    for item in items:
        if item.dead is not None:
            continue
        if item.pending is not None:
            times.append(item.pending.next_attempt_at or now_text())
        elif item.digest and item.digest_due_at:
            times.append(item.digest_due_at)
    return min(times, key=parse_timestamp) if times else None


def write_schedule(store: WatchStore) -> None:
    """``watch/schedule.json``: the next due instant and the dead-lettered watchlists, what the
    Dagster sensor ``retry_sensor`` reads (the pipelines never import this package)."""
    items = store.list()
    schedule = {
        "next_due_at": next_due(items),
        "dead": [item.name for item in items if item.dead is not None],
    }
    atomic_write_bytes(store.root / SCHEDULE_FILE, orjson.dumps(schedule))


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
    return ping_id, post(
        item.url,
        body,
        secret=item.secret,
        more_secrets=item.signing_secrets()[1:],
        batch_id=ping_id,
        timeout=timeout,
        event="ping",
    )


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
