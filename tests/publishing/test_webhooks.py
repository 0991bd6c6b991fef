"""Watchlists and signed webhooks (publishing.watch, publishing.webhooks, ``aimi watch``), against a
real HTTP receiver on this machine: a threaded ``http.server`` that answers as each test
scripts it (statuses, a hang) and keeps every request it got."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from cli.app import app
from publishing.watch import WatchStore, now_text
from publishing.webhooks import (
    ATTEMPT_HEADER,
    BATCH_HEADER,
    EVENT_HEADER,
    SIGNATURE_HEADER,
    Policy,
    deliver,
    post,
    reap_started,
    sign,
    start_in_background,
    verify_signature,
)
from readmodel import service
from readmodel.store import LoadedSnapshot
from tests.serving.conftest import Corpus, publish
from warehouse.paths import DataDir
from warehouse.snapshot import open_current

ROOT = Path(__file__).resolve().parents[2]
SECRET = "whsec_test-secret"
FAST = Policy(attempts=3, backoff_seconds=0.01, timeout_seconds=2.0, max_batch=500)


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> dict[str, Any]:
        parsed: dict[str, Any] = json.loads(self.body)
        return parsed


@dataclass
class Receiver:
    """What the receiver answers: ``statuses`` in turn (then 200), and while ``hold`` is set
    the next request is kept waiting until it is cleared (``arrived`` is set meanwhile)."""

    url: str = ""
    statuses: list[int] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    hold: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    arrived: threading.Event = field(default_factory=threading.Event)
    delay: float = 0.0

    def batch_ids(self) -> list[str]:
        return [item.json["batch_id"] for item in self.received]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    state = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            state.received.append(Received(dict(self.headers.items()), body))
            state.arrived.set()
            if state.hold.is_set():
                state.release.wait(30)
            if state.delay:
                time.sleep(state.delay)
            status = state.statuses.pop(0) if state.statuses else 200
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_: object) -> None:  # keep the test output clean
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    yield state
    state.release.set()
    server.shutdown()
    server.server_close()


def cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "400"})


def add_watch(root: Path, url: str, *extra: str, name: str = "news") -> None:
    added = cli(
        "watch", "add", name, "--url", url, "--secret", SECRET, *extra, "--data-dir", str(root)
    )
    assert added.exit_code == 0, added.output


def loaded(root: Path) -> LoadedSnapshot:
    opened = open_current(DataDir(root), verify=False)
    assert opened is not None
    return LoadedSnapshot.from_opened(opened)


def changed_cards(root: Path, after_seq: int, **filters: Any) -> list[dict[str, Any]]:
    """The change feed's cards after ``after_seq``, as ``GET /v1/signals?sort=changed``."""
    from readmodel.cursor import ChangedKey, encode_changed

    snapshot = loaded(root)
    cursor = encode_changed(ChangedKey(after_seq)) if after_seq else None
    cards: list[dict[str, Any]] = []
    while True:
        page = orjson.loads(
            service.list_signals(snapshot, sort="changed", cursor=cursor, limit=50, **filters)
        )
        cards += page["signals"]
        if not page["has_more"]:
            return cards
        cursor = page["next_cursor"]


def test_a_publish_sends_the_new_and_changed_signals_as_one_signed_batch(
    fresh_root: Path, corpus: Corpus, receiver: Receiver
) -> None:
    data = DataDir(fresh_root)
    add_watch(fresh_root, receiver.url)
    start = WatchStore(data).get("news").after_seq
    assert start > 0  # from the feed's head: what was published before is not sent
    assert deliver(data, policy=FAST).watchlists[0].attempts == 0
    assert receiver.received == []

    publish(fresh_root, corpus.extended)  # new signals
    report = deliver(data, policy=FAST)
    assert [(w.delivered, w.state) for w in report.watchlists] == [(1, "ok")]
    [request] = receiver.received
    assert request.headers["Content-Type"] == "application/json"
    assert verify_signature(SECRET, request.headers[SIGNATURE_HEADER], request.body)
    assert not verify_signature("another secret", request.headers[SIGNATURE_HEADER], request.body)
    assert not verify_signature(SECRET, request.headers[SIGNATURE_HEADER], request.body + b" ")
    stale = sign(SECRET, request.body, int(time.time()) - 3600)
    assert not verify_signature(SECRET, stale, request.body)  # replayed an hour later
    body = request.json
    assert body["event"] == "signals.changed" and body["watchlist"] == "news"
    assert request.headers[BATCH_HEADER] == body["batch_id"]
    expected = changed_cards(fresh_root, start)
    assert expected and body["signals"] == expected  # the change feed's own cards, in order
    assert report.watchlists[0].signals == len(expected)
    # the batch's next_cursor is where the change feed resumes: nothing after it
    snapshot = loaded(fresh_root)
    after = orjson.loads(service.list_signals(snapshot, sort="changed", cursor=body["next_cursor"]))
    assert after["signals"] == []
    # delivered: the position moved, and the next run sends nothing
    item = WatchStore(data).get("news")
    assert item.pending is None and item.after_seq > start
    assert item.last_delivery is not None and item.last_delivery.outcome == "delivered"
    assert deliver(data, policy=FAST).watchlists[0].attempts == 0
    assert len(receiver.received) == 1
    status = cli("status", "--data-dir", str(fresh_root))
    assert "watch       news (ok): last delivery: delivered" in status.output, status.output


def test_a_query_watchlist_gets_only_the_signals_with_its_words(
    fresh_root: Path, receiver: Receiver
) -> None:
    data = DataDir(fresh_root)
    add_watch(fresh_root, receiver.url, "--query", "data centers", "--from-start")
    assert WatchStore(data).get("news").after_seq == 0
    deliver(data, policy=FAST)
    [request] = receiver.received
    sent = request.json["signals"]
    assert sent == changed_cards(fresh_root, 0, keyword="data centers")
    assert 0 < len(sent) < len(changed_cards(fresh_root, 0))


def test_failures_are_retried_with_backoff_until_a_2xx(
    fresh_root: Path, corpus: Corpus, receiver: Receiver
) -> None:
    data = DataDir(fresh_root)
    add_watch(fresh_root, receiver.url)
    publish(fresh_root, corpus.extended)
    receiver.statuses = [503, 500]
    waits: list[float] = []
    report = deliver(data, policy=FAST, sleep=waits.append)
    assert [(w.delivered, w.attempts, w.failed_attempts) for w in report.watchlists] == [(1, 3, 2)]
    assert waits == pytest.approx([0.01, 0.02], abs=0.005)  # doubled after each failure
    bodies = {item.body for item in receiver.received}
    assert len(receiver.received) == 3 and len(bodies) == 1  # the same bytes each time
    log = [json.loads(line) for line in WatchStore(data).log_path.read_text().splitlines()]
    assert [(line["attempt"], line["status"], line["ok"]) for line in log] == [
        (1, 503, False),
        (2, 500, False),
        (3, 200, True),
    ]


def test_a_timeout_is_retried(fresh_root: Path, corpus: Corpus, receiver: Receiver) -> None:
    data = DataDir(fresh_root)
    add_watch(fresh_root, receiver.url)
    publish(fresh_root, corpus.extended)
    receiver.delay = 1.0
    slow = Policy(attempts=2, backoff_seconds=0.0, timeout_seconds=0.3)
    report = deliver(data, policy=slow, sleep=lambda _: None)
    assert report.watchlists[0].state == "dead"
    assert "timed out after 0.3 s" in (report.watchlists[0].error or "")
    assert len(receiver.received) == 2


def test_the_last_failed_attempt_dead_letters_the_batch_until_a_retry(
    fresh_root: Path, corpus: Corpus, receiver: Receiver
) -> None:
    data = DataDir(fresh_root)
    add_watch(fresh_root, receiver.url)
    start = WatchStore(data).get("news").after_seq
    publish(fresh_root, corpus.extended)
    receiver.statuses = [500, 502, 503]
    report = deliver(data, policy=FAST, sleep=lambda _: None)
    assert report.watchlists[0].state == "dead" and len(receiver.received) == 3
    item = WatchStore(data).get("news")
    assert item.dead is not None and item.after_seq == start  # nothing skipped
    listed = cli("watch", "list", "--data-dir", str(fresh_root))
    assert "news\tdead\t" in listed.output
    assert f"dead letter: batch {item.dead.batch_id}" in listed.output
    assert "`aimi watch retry news` sends it again" in listed.output
    # a dead watchlist waits: later runs send nothing
    assert deliver(data, policy=FAST).watchlists[0].attempts == 0
    assert len(receiver.received) == 3
    retried = cli("watch", "retry", "news", "--data-dir", str(fresh_root))
    assert retried.exit_code == 0, retried.output
    assert receiver.batch_ids() == [item.dead.batch_id] * 4  # the same batch, resent
    assert WatchStore(data).get("news").after_seq > start
    assert receiver.received[-1].body == receiver.received[0].body


def test_a_refusal_is_final(fresh_root: Path, corpus: Corpus, receiver: Receiver) -> None:
    data = DataDir(fresh_root)
    add_watch(fresh_root, receiver.url)
    publish(fresh_root, corpus.extended)
    receiver.statuses = [401]
    report = deliver(data, policy=FAST, sleep=lambda _: None)
    assert report.watchlists[0].state == "dead" and len(receiver.received) == 1
    assert report.watchlists[0].error == "HTTP 401 Unauthorized"


def test_a_restart_in_the_middle_of_a_delivery_loses_and_duplicates_nothing(
    fresh_root: Path, corpus: Corpus, receiver: Receiver
) -> None:
    """The delivering process is killed while its request is with the receiver (who may or
    may not have acted on it): the next run sends the same batch, same id and bytes, and the
    receiver, deduping on ``batch_id``, has every signal once."""
    data = DataDir(fresh_root)
    add_watch(fresh_root, receiver.url)
    start = WatchStore(data).get("news").after_seq
    publish(fresh_root, corpus.extended)
    receiver.hold.set()
    child = subprocess.Popen(
        [sys.executable, "-m", "publishing.webhooks", str(fresh_root)],
        cwd=ROOT,
        env={**os.environ, "AIMI_WEBHOOK_TIMEOUT_SECONDS": "60"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert receiver.arrived.wait(120), "the delivery never reached the receiver"
    finally:
        child.kill()
        child.wait()
    receiver.hold.clear()
    receiver.release.set()
    item = WatchStore(data).get("news")
    assert item.pending is not None and item.after_seq == start  # not acknowledged
    report = deliver(data, policy=FAST)
    assert report.watchlists[0].delivered == 1
    first, second = receiver.received
    assert first.json["batch_id"] == second.json["batch_id"] and first.body == second.body
    deduped = {r.json["batch_id"]: r.json["signals"] for r in receiver.received}
    signals = [card["signal_id"] for batch in deduped.values() for card in batch]
    expected = [card["signal_id"] for card in changed_cards(fresh_root, start)]
    assert signals == expected and len(set(signals)) == len(signals)
    assert deliver(data, policy=FAST).watchlists[0].attempts == 0
    assert len(receiver.received) == 2


def test_a_watchlist_added_again_during_a_delivery_keeps_its_own_position(
    fresh_root: Path, corpus: Corpus, receiver: Receiver
) -> None:
    """Removed and added again under the same name while its batch is with the receiver: the
    run that sent the batch must not write the old watchlist's position or outcome into the
    new one, which starts where it was added."""
    data = DataDir(fresh_root)
    add_watch(fresh_root, receiver.url)
    publish(fresh_root, corpus.extended)
    receiver.hold.set()
    reports: list[Any] = []
    run = threading.Thread(target=lambda: reports.append(deliver(data, policy=FAST)))
    run.start()
    try:
        assert receiver.arrived.wait(120), "the delivery never reached the receiver"
        old = WatchStore(data).get("news")
        assert old.pending is not None
        removed = cli("watch", "remove", "news", "--data-dir", str(fresh_root))
        assert removed.exit_code == 0, removed.output
        # (another secret, as `watch add` draws one: the creation instants may share a second)
        again = cli("watch", "add", "news", "--url", receiver.url, "--data-dir", str(fresh_root))
        assert again.exit_code == 0, again.output
    finally:
        receiver.hold.clear()
        receiver.release.set()
        run.join(120)
    new = WatchStore(data).get("news")
    assert new.secret != old.secret
    assert new.after_seq == loaded(fresh_root).head_seq  # where `watch add` put it
    assert new.pending is None and new.last_delivery is None
    (report,) = reports
    assert report.watchlists[0].state == "error" and "removed" in report.watchlists[0].error


def test_a_build_starts_the_deliveries_in_a_process_of_their_own(
    fresh_root: Path, corpus: Corpus, receiver: Receiver
) -> None:
    data = DataDir(fresh_root)
    assert start_in_background(data) is None  # no watchlists: nothing started
    add_watch(fresh_root, receiver.url)
    publish(fresh_root, corpus.extended)
    process = start_in_background(data)
    assert process is not None
    assert process.wait(120) == 0
    assert len(receiver.received) == 1
    assert WatchStore(data).get("news").last_delivery is not None
    assert '"delivered": 1' in (data.watch_dir / "deliver.log").read_text()


def test_deliveries_still_running_are_killed_and_reaped_when_asked(
    fresh_root: Path, corpus: Corpus, receiver: Receiver
) -> None:
    """What a test session does at its end: a delivery the receiver holds is killed after the
    wait, not left running into a removed data dir (nor reported by its collected handle)."""
    data = DataDir(fresh_root)
    add_watch(fresh_root, receiver.url)
    publish(fresh_root, corpus.extended)
    receiver.hold.set()
    process = start_in_background(data)
    assert process is not None
    try:
        assert receiver.arrived.wait(120), "the delivery never reached the receiver"
        assert reap_started(timeout=0.2) >= 1  # (others of this session may be running)
        assert process.returncode is not None  # reaped
        assert reap_started(timeout=0.2) == 0  # none left to wait for
    finally:
        receiver.hold.clear()
        receiver.release.set()


def test_watch_commands_check_what_they_are_given(fresh_root: Path, receiver: Receiver) -> None:
    root = str(fresh_root)
    refused = [
        (["watch", "add", "x", "--url", "http://example.com/hook"], "allowed for localhost only"),
        (["watch", "add", "x", "--url", "ftp://127.0.0.1/"], "must be an https:// URL"),
        (["watch", "add", "Bad Name", "--url", receiver.url], "lower-case letters"),
        (["watch", "add", "x", "--url", receiver.url, "--theme", "C&I"], "Capital & Investment"),
        (["watch", "add", "x", "--url", receiver.url, "--entity", "Nobody"], "not found"),
        (["watch", "add", "x", "--url", receiver.url, "--query", "  "], "empty"),
        (["watch", "add", "x", "--url", "https://hooks.example.com:abc/"], "Port"),
        (["watch", "add", "x", "--url", receiver.url, "--secret", ""], "at least 16"),
        (["watch", "add", "x", "--url", receiver.url, "--secret", "short"], "at least 16"),
    ]
    for args, message in refused:
        result = cli(*args, "--data-dir", root)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output, (args, result.output)
    made = cli("watch", "add", "hooks", "--url", receiver.url, "--data-dir", root)
    assert made.exit_code == 0, made.output
    secret = made.stdout.strip().splitlines()[0]
    assert secret.startswith("whsec_")
    assert secret not in cli("watch", "list", "--json", "--data-dir", root).output
    assert (fresh_root / "watch" / "watchlists.json").stat().st_mode & 0o077 == 0
    again = cli("watch", "add", "hooks", "--url", receiver.url, "--data-dir", root)
    assert again.exit_code == 1 and "exists" in again.output
    pinged = cli("watch", "test", "hooks", "--data-dir", root)
    assert pinged.exit_code == 0 and "answered HTTP 200" in pinged.output
    [request] = receiver.received
    assert request.json["event"] == "ping"
    assert verify_signature(secret, request.headers[SIGNATURE_HEADER], request.body)
    assert cli("watch", "remove", "hooks", "--data-dir", root).exit_code == 0
    assert cli("watch", "remove", "hooks", "--data-dir", root).exit_code == 1
    assert cli("watch", "list", "--json", "--data-dir", root).output.strip() == "[]"


def test_a_forged_signature_with_any_characters_is_refused_not_raised() -> None:
    body = b'{"event": "ping"}'
    header = sign(SECRET, body, int(time.time()))
    assert verify_signature(SECRET, header, body)
    forged = header.split(",v1=")[0] + ",v1=" + "é" * 64
    assert not verify_signature(SECRET, forged, body)  # compare_digest on str would raise


def test_an_answer_that_is_not_http_is_a_failed_attempt_retried() -> None:
    # a receiver that answers garbage (a misconfigured proxy): the attempt fails and is retried,
    # the delivery run goes on; a URL urllib cannot send to is a final failure
    import socket

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()

    def answer_garbage() -> None:
        conn, _ = server.accept()
        conn.recv(65536)
        conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")
        conn.close()

    threading.Thread(target=answer_garbage, daemon=True).start()
    url = f"http://127.0.0.1:{server.getsockname()[1]}/hook"
    attempt = post(url, b"{}", secret=SECRET, batch_id="b1", timeout=5)
    assert attempt.status is None and attempt.retry and "bad answer" in (attempt.error or "")
    server.close()
    bad = post("http://127.0.0.1:abc/hook", b"{}", secret=SECRET, batch_id="b2", timeout=5)
    assert bad.status is None and not bad.retry and "invalid URL" in (bad.error or "")


# --- issue 46: isolated, self-healing deliveries ------------------------------------------------


@contextmanager
def _another_receiver() -> Iterator[Receiver]:
    """A second receiver beside the fixture's, answering 200 at once and noting when."""
    state = Receiver()
    arrivals: list[float] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            arrivals.append(time.monotonic())
            state.received.append(Received(dict(self.headers.items()), body))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    state.arrivals = arrivals  # type: ignore[attr-defined]
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def test_dead_endpoints_cost_a_live_watchlist_nothing(
    fresh_root: Path, corpus: Corpus, receiver: Receiver
) -> None:
    """Issue 46: deliveries ran one after another, so a live watchlist's batch waited behind
    every dead endpoint's attempts and backoff. Five watchlists on a hanging endpoint (sorted
    before the live one) and one live: the live batch arrives at once."""
    data = DataDir(fresh_root)
    receiver.delay = 5.0  # longer than the timeout: every attempt there times out
    with _another_receiver() as live:
        for n in range(5):
            add_watch(fresh_root, f"{receiver.url}/{n}", name=f"a-dead-{n}")
        add_watch(fresh_root, live.url, name="z-live")
        publish(fresh_root, corpus.extended)
        hanging = Policy(attempts=2, backoff_seconds=0.5, timeout_seconds=1.0, concurrency=8)
        started = time.monotonic()
        report = deliver(data, policy=hanging)
        took = time.monotonic() - started
        arrived = live.arrivals[0] - started  # type: ignore[attr-defined]
    states = {w.name: w.state for w in report.watchlists}
    assert states == {**{f"a-dead-{n}": "dead" for n in range(5)}, "z-live": "ok"}
    assert arrived < 1.0, arrived  # not behind 5 × (2 timeouts + a backoff)
    # the five dead endpoints were tried at once, not one after another (at least 5 × 2.5 s)
    assert took < 9.0, took


def test_retries_follow_a_schedule_of_days_that_survives_a_restart(
    fresh_root: Path, corpus: Corpus, receiver: Receiver
) -> None:
    """Issue 46: the retry window was 30 s, then the batch was dead until a person retried.
    Now a run waits only for retries due soon; a later one is kept with the batch, due at its
    time, and resumed by whichever run finds it due (after a restart too), until the window of
    days has passed since the first failure: then the batch is dead-lettered, and the operator
    sees it in `watch list`, `aimi status` and the schedule the Dagster sensor reads."""
    data = DataDir(fresh_root)
    add_watch(fresh_root, receiver.url)
    publish(fresh_root, corpus.extended)
    receiver.statuses = [503] * 10
    policy = Policy(attempts=30, backoff_seconds=2.0, wait_seconds=10.0, retry_hours=72.0)
    waits: list[float] = []
    report = deliver(data, policy=policy, sleep=waits.append)
    [item] = report.watchlists
    # 2, 4 and 8 s waited in the run; the fifth attempt, 16 s on, is left scheduled
    assert (item.state, item.attempts) == ("pending", 4)
    assert waits == pytest.approx([2.0, 4.0, 8.0], abs=0.1)
    assert item.errors == [f"attempt {n}: HTTP 503 Service Unavailable" for n in (1, 2, 3, 4)]
    stored = WatchStore(data).get("news")
    assert stored.pending is not None and stored.pending.next_attempt_at is not None
    assert "waiting: batch" in cli("watch", "list", "--data-dir", str(fresh_root)).output
    # a run right away (another process, a restart): not due yet, nothing sent
    assert deliver(data, policy=policy).watchlists[0].attempts == 0
    assert len(receiver.received) == 4
    schedule = json.loads((data.watch_dir / "schedule.json").read_text())
    assert schedule == {"next_due_at": stored.pending.next_attempt_at, "dead": []}
    # the time comes: a new run resumes with attempt 4, headers numbering the attempts
    due = replace(stored.pending, next_attempt_at="2026-01-01T00:00:00Z")
    WatchStore(data).update("news", pending=due)
    deliver(data, policy=policy, sleep=lambda _: None)
    assert [r.headers[ATTEMPT_HEADER] for r in receiver.received[:5]] == ["1", "2", "3", "4", "5"]
    assert {r.headers[EVENT_HEADER] for r in receiver.received} == {"signals.changed"}
    # three days after the first failure: the next failure dead-letters it
    late = WatchStore(data).get("news").pending
    assert late is not None
    WatchStore(data).update(
        "news",
        pending=replace(
            late, first_failed_at="2026-01-01T00:00:00Z", next_attempt_at="2026-01-04T00:00:00Z"
        ),
    )
    assert deliver(data, policy=policy).watchlists[0].state == "dead"
    status = cli("status", "--data-dir", str(fresh_root)).output
    assert "dead letter: batch" in status and "`aimi watch retry news`" in status
    schedule = json.loads((data.watch_dir / "schedule.json").read_text())
    assert schedule == {"next_due_at": None, "dead": ["news"]}


def test_the_default_schedule_spans_three_days_with_capped_backoff() -> None:
    from datetime import UTC, datetime, timedelta

    from publishing.watch import Batch

    policy = Policy()
    start = datetime(2026, 1, 1, tzinfo=UTC)
    now, attempts = start, 0
    while True:
        attempts += 1
        batch = Batch("b", 0, 1, 1, attempts=attempts, first_failed_at="2026-01-01T00:00:00Z")
        if policy.gives_up(batch, now):
            break
        now += timedelta(seconds=policy.backoff(attempts))
    span = now - start
    assert timedelta(hours=60) < span <= timedelta(hours=72), span
    assert policy.backoff(1) == 2.0 and policy.backoff(40) == 6 * 3600
    assert 15 < attempts < policy.attempts


def test_a_rotated_secret_signs_beside_the_old_one_for_the_overlap(
    fresh_root: Path, corpus: Corpus, receiver: Receiver
) -> None:
    data = DataDir(fresh_root)
    add_watch(fresh_root, receiver.url)
    rotated = cli("watch", "rotate-secret", "news", "--data-dir", str(fresh_root))
    assert rotated.exit_code == 0, rotated.output
    new = rotated.stdout.strip().splitlines()[0]
    assert new.startswith("whsec_") and new != SECRET
    publish(fresh_root, corpus.extended)
    assert deliver(data, policy=FAST).watchlists[0].state == "ok"  # not taken as removed
    [request] = receiver.received
    header = request.headers[SIGNATURE_HEADER]
    assert header.count("v1=") == 2
    assert verify_signature(new, header, request.body)
    assert verify_signature(SECRET, header, request.body)  # a receiver not switched yet
    # the overlap over: the old secret signs no more
    WatchStore(data).update("news", previous_secret_until="2026-01-01T00:00:00Z")
    cli("watch", "test", "news", "--data-dir", str(fresh_root))
    ping_header = receiver.received[-1].headers[SIGNATURE_HEADER]
    assert ping_header.count("v1=") == 1
    assert receiver.received[-1].headers[EVENT_HEADER] == "ping"
    assert not verify_signature(SECRET, ping_header, receiver.received[-1].body)


def test_retry_all_sends_every_dead_letter_and_prints_the_attempts(
    fresh_root: Path, corpus: Corpus, receiver: Receiver
) -> None:
    data = DataDir(fresh_root)
    add_watch(fresh_root, receiver.url, name="one")
    add_watch(fresh_root, receiver.url, name="two")
    publish(fresh_root, corpus.extended)
    receiver.statuses = [401, 401]  # final at once: both dead
    report = deliver(data, policy=FAST)
    assert [w.state for w in report.watchlists] == ["dead", "dead"]
    receiver.statuses = [500]
    env = {"AIMI_WEBHOOK_BACKOFF_SECONDS": "0", "COLUMNS": "400"}
    retried = CliRunner().invoke(
        app, ["watch", "retry", "--all", "--data-dir", str(fresh_root)], env=env
    )
    assert retried.exit_code == 0, retried.output
    assert "one\tok\t1 batches" in retried.output and "two\tok\t1 batches" in retried.output
    assert "attempt 1: HTTP 500" in retried.output  # each failed attempt's error
    nothing = cli("watch", "retry", "--all", "--data-dir", str(fresh_root))
    assert nothing.exit_code == 0 and "nothing to retry" in nothing.output


def test_a_delivered_batch_is_redelivered_and_a_watchlist_rewound(
    fresh_root: Path, corpus: Corpus, receiver: Receiver
) -> None:
    data = DataDir(fresh_root)
    add_watch(fresh_root, receiver.url)
    start = WatchStore(data).get("news").after_seq
    publish(fresh_root, corpus.extended)
    deliver(data, policy=FAST)
    [first] = receiver.received
    batch_id = first.json["batch_id"]
    again = cli("watch", "redeliver", batch_id, "--data-dir", str(fresh_root))
    assert again.exit_code == 0, again.output
    assert receiver.received[-1].body == first.body  # the same bytes and id
    assert receiver.received[-1].headers[BATCH_HEADER] == batch_id
    assert WatchStore(data).get("news").after_seq > start  # position untouched
    unknown = cli("watch", "redeliver", "wb_nope", "--data-dir", str(fresh_root))
    assert unknown.exit_code == 1 and "not among the delivered batches" in unknown.output
    # rewound to the batch's own start: the next run sends the same signals again
    cursor = first.json["after_cursor"]
    rewound = cli("watch", "rewind", "news", "--since", cursor, "--data-dir", str(fresh_root))
    assert rewound.exit_code == 0, rewound.output
    deliver(data, policy=FAST)
    assert receiver.received[-1].json["signals"] == first.json["signals"]
    # by date: from before everything, every signal
    cli("watch", "rewind", "news", "--since", "2000-01-01", "--data-dir", str(fresh_root))
    assert WatchStore(data).get("news").after_seq == 0
    ahead = cli("watch", "rewind", "news", "--since", "2999-01-01", "--data-dir", str(fresh_root))
    assert ahead.exit_code == 2 and "only goes back" in ahead.output
    bad = cli("watch", "rewind", "news", "--since", "soon", "--data-dir", str(fresh_root))
    assert bad.exit_code == 2 and "neither a date" in bad.output


def test_a_slack_watchlist_gets_text_and_blocks(
    fresh_root: Path, corpus: Corpus, receiver: Receiver
) -> None:
    data = DataDir(fresh_root)
    add_watch(fresh_root, receiver.url, "--format", "slack")
    publish(fresh_root, corpus.extended)
    deliver(data, policy=FAST)
    [request] = receiver.received
    body = request.json
    assert set(body) == {"text", "blocks"}
    assert body["text"].startswith("aimi · news: ")
    assert body["blocks"][0]["type"] == "header" and len(body["blocks"]) <= 50
    sections = [b for b in body["blocks"] if b["type"] == "section"]
    cards = changed_cards(fresh_root, 0)[-len(sections) :]
    assert sections and all(len(b["text"]["text"]) <= 3000 for b in sections)
    assert any(card["title"] in sections[0]["text"]["text"] for card in cards)
    assert verify_signature(SECRET, request.headers[SIGNATURE_HEADER], request.body)
    refused = cli("watch", "add", "x", "--url", receiver.url, "--format", "teams")
    assert refused.exit_code == 2


def test_a_digest_watchlist_gets_one_batch_per_period(
    fresh_root: Path, corpus: Corpus, receiver: Receiver
) -> None:
    data = DataDir(fresh_root)
    add_watch(fresh_root, receiver.url, "--digest", "daily")
    publish(fresh_root, corpus.extended)
    assert deliver(data, policy=FAST).watchlists[0].attempts == 0  # due a day after it was added
    WatchStore(data).update("news", digest_due_at="2026-01-01T00:00:00Z")
    deliver(data, policy=FAST)
    [request] = receiver.received
    assert request.json["digest"] == "daily" and request.json["signals"]
    due = WatchStore(data).get("news").digest_due_at
    assert due is not None and due > now_text()  # the next one a day on
    assert "daily digest due" in cli("watch", "list", "--data-dir", str(fresh_root)).output
