"""Watchlists: saved filters over the change feed whose new and changed signals are POSTed to a
webhook after each publish (``publishing.webhooks`` delivers them). Operator configuration, like
API keys: one JSON file under ``<data dir>/watch/``, written atomically under a lock, holding
each watchlist with its delivery state — the change-feed position it has been delivered up to,
the batch in flight, a dead-lettered batch, the last delivery.

The signing secret is stored as given (it signs every request, so it cannot be a hash); the
file is created readable by its owner only.
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import ipaddress
import json
import os
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from analytics.records import iso_utc, parse_timestamp
from warehouse.files import atomic_write_bytes
from warehouse.locks import file_lock
from warehouse.paths import DataDir

WATCH_FILE = "watchlists.json"
OUTBOX_DIR = "outbox"
SENT_DIR = "sent"  # bodies of delivered batches, kept for `aimi watch redeliver`
LOG_FILE = "deliveries.jsonl"
SECRET_PREFIX = "whsec_"
# a secret given with --secret: an empty or short one signs nothing worth checking
MIN_SECRET_CHARS = 16
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
_LOCAL_HOSTS = {"localhost"}

Outcome = Literal["delivered", "failed", "dead"]
BodyFormat = Literal["aimi", "slack"]
BODY_FORMATS: tuple[str, ...] = ("aimi", "slack")
# a digest watchlist gets one batch per period instead of one per publish
DIGEST_PERIODS = {"daily": timedelta(days=1), "weekly": timedelta(days=7)}


class WatchError(RuntimeError):
    """A watchlist operation cannot be done (bad name or URL, unknown watchlist, unreadable
    file); the message says what to do."""


@dataclass(frozen=True)
class Batch:
    """A batch staged for delivery: its id (the receiver's idempotency key), the change-feed
    positions it covers (``after_seq`` exclusive to ``to_seq`` inclusive), how many signals it
    carries, and how many attempts were made. Its body is in the outbox, byte for byte what
    every attempt sends."""

    batch_id: str
    after_seq: int
    to_seq: int
    signals: int
    attempts: int = 0
    error: str | None = None
    # when the first attempt failed (the retry window runs from it) and when the next is due:
    # kept in the file, so retries resume on schedule after a restart
    first_failed_at: str | None = None
    next_attempt_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "batch_id": self.batch_id,
            "after_seq": self.after_seq,
            "to_seq": self.to_seq,
            "signals": self.signals,
            "attempts": self.attempts,
            "error": self.error,
            "first_failed_at": self.first_failed_at,
            "next_attempt_at": self.next_attempt_at,
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Batch:
        return cls(
            batch_id=str(raw["batch_id"]),
            after_seq=int(raw["after_seq"]),
            to_seq=int(raw["to_seq"]),
            signals=int(raw["signals"]),
            attempts=int(raw.get("attempts", 0)),
            error=raw.get("error"),
            first_failed_at=raw.get("first_failed_at"),
            next_attempt_at=raw.get("next_attempt_at"),
        )


@dataclass(frozen=True)
class Delivery:
    """The last delivery of a watchlist: its batch, outcome, when, the HTTP status and
    attempts, and the error of the last failed attempt."""

    batch_id: str
    outcome: Outcome
    at: str
    signals: int
    attempts: int
    status: int | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "batch_id": self.batch_id,
            "outcome": self.outcome,
            "at": self.at,
            "signals": self.signals,
            "attempts": self.attempts,
            "status": self.status,
            "error": self.error,
        }


def delivery_line(last: dict[str, Any] | None) -> str:
    """A last delivery (``Delivery.to_json()``, or None) in one line: what ``aimi watch list``
    and ``aimi status`` print."""
    if last is None:
        return "last delivery: none yet"
    answer = f"HTTP {last['status']}" if last["status"] is not None else last["error"]
    return (
        f"last delivery: {last['outcome']} {last['at']}, batch {last['batch_id']}, "
        f"{last['signals']} signals, attempt {last['attempts']}, {answer or 'no response'}"
    )


@dataclass(frozen=True)
class Watchlist:
    """One watchlist: what it matches (any of ``entities``, any of ``themes``, and the
    literal ``query``; an empty part matches everything), where it posts, and its state.
    ``after_seq`` is the change-feed position delivered up to (a 2xx moved it there)."""

    name: str
    url: str
    secret: str
    created_at: str
    entities: tuple[str, ...] = ()
    entity_names: tuple[str, ...] = ()
    themes: tuple[str, ...] = ()
    query: str | None = None
    after_seq: int = 0
    pending: Batch | None = None
    dead: Batch | None = None
    last_delivery: Delivery | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    # stays when the secret is rotated: what tells this watchlist from one removed and added
    # again under its name (an old file has none: its secret stands in)
    token: str = ""
    # the secret before the last rotation, still signing (a second v1) until this instant
    previous_secret: str | None = None
    previous_secret_until: str | None = None
    body_format: str = "aimi"
    digest: str | None = None  # "daily", "weekly": one batch per period
    digest_due_at: str | None = None

    def signing_secrets(self, now: datetime | None = None) -> tuple[str, ...]:
        """The secrets each request is signed with: the current one, and the previous one
        during its overlap window, so a receiver may switch at any time in it."""
        moment = now or datetime.now(UTC)
        previous = self.previous_secret
        until = self.previous_secret_until
        if previous and until and parse_timestamp(until) > moment:
            return (self.secret, previous)
        return (self.secret,)

    @property
    def state(self) -> str:
        if self.dead is not None:
            return "dead"
        return "pending" if self.pending is not None else "ok"

    def public(self) -> dict[str, Any]:
        """What ``aimi watch list`` and ``aimi status`` show: everything but the secret."""
        body = self.to_json()
        del body["secret"], body["previous_secret"], body["token"]
        body["state"] = self.state
        return body

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "url": self.url,
            "secret": self.secret,
            "created_at": self.created_at,
            "entities": list(self.entities),
            "entity_names": list(self.entity_names),
            "themes": list(self.themes),
            "query": self.query,
            "after_seq": self.after_seq,
            "pending": None if self.pending is None else self.pending.to_json(),
            "dead": None if self.dead is None else self.dead.to_json(),
            "last_delivery": None if self.last_delivery is None else self.last_delivery.to_json(),
            "token": self.token,
            "previous_secret": self.previous_secret,
            "previous_secret_until": self.previous_secret_until,
            "body_format": self.body_format,
            "digest": self.digest,
            "digest_due_at": self.digest_due_at,
        }

    @classmethod
    def from_json(cls, raw: Any) -> Watchlist:
        if not isinstance(raw, dict):
            raise WatchError(f"a watchlist must be an object, got {type(raw).__name__}")
        try:
            last = raw.get("last_delivery")
            return cls(
                name=str(raw["name"]),
                url=str(raw["url"]),
                secret=str(raw["secret"]),
                created_at=str(raw["created_at"]),
                entities=tuple(raw.get("entities") or ()),
                entity_names=tuple(raw.get("entity_names") or ()),
                themes=tuple(raw.get("themes") or ()),
                query=raw.get("query"),
                after_seq=int(raw.get("after_seq", 0)),
                pending=Batch.from_json(raw["pending"]) if raw.get("pending") else None,
                dead=Batch.from_json(raw["dead"]) if raw.get("dead") else None,
                last_delivery=Delivery(**last) if last else None,
                token=str(raw.get("token") or _token_of(str(raw["secret"]))),
                previous_secret=raw.get("previous_secret"),
                previous_secret_until=raw.get("previous_secret_until"),
                body_format=str(raw.get("body_format") or "aimi"),
                digest=raw.get("digest"),
                digest_due_at=raw.get("digest_due_at"),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise WatchError(f"malformed watchlist entry: {exc!r}") from None


def _token_of(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()[:24]


def new_token() -> str:
    return secrets.token_hex(12)


def _identity(item: Watchlist) -> tuple[str, str]:
    # `created_at` has a second's resolution; the token `watch add` draws is new each time and
    # stays when the secret is rotated
    return item.created_at, item.token


def now_text() -> str:
    return iso_utc(datetime.now(UTC))


def check_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise WatchError(
            f"watchlist name {name!r} must be 1–64 lower-case letters, digits, '-' or '_', "
            "starting with a letter or digit"
        )
    return name


def check_url(url: str) -> str:
    """An ``https://`` URL, or ``http://`` to this machine only (a receiver under test): a
    signed body still travels in clear text over plain HTTP."""
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise WatchError(f"--url {url!r} must be an https:// URL with a host")
    try:
        parts.port  # noqa: B018 - read for its check: a port must be a number below 65536
    except ValueError as exc:
        raise WatchError(f"--url {url!r}: {exc}") from None
    if parts.scheme == "http" and not _is_local(parts.hostname):
        raise WatchError(
            f"--url {url!r}: plain http:// is allowed for localhost only; use https://"
        )
    return url


def _is_local(host: str) -> bool:
    if host.lower() in _LOCAL_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def new_secret() -> str:
    return SECRET_PREFIX + secrets.token_urlsafe(32)


class WatchStore:
    """The watchlists file of a data dir; every change is a read-modify-write under its lock."""

    def __init__(self, data: DataDir) -> None:
        self.root = data.watch_dir
        self.path = self.root / WATCH_FILE
        self.log_path = self.root / LOG_FILE
        self.outbox = self.root / OUTBOX_DIR
        self._lock_path = self.root / f".{WATCH_FILE}.lock"

    # -- reading -------------------------------------------------------------------------

    def _read(self) -> dict[str, Watchlist]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise WatchError(f"cannot read {self.path}: {exc}") from None
        if not isinstance(raw, dict) or not isinstance(raw.get("watchlists"), list):
            raise WatchError(f'{self.path} must hold {{"watchlists": [...]}}')
        found = [Watchlist.from_json(item) for item in raw["watchlists"]]
        return {item.name: item for item in found}

    def list(self) -> builtins.list[Watchlist]:
        return sorted(self._read().values(), key=lambda w: w.name)

    def get(self, name: str) -> Watchlist:
        found = self._read().get(name)
        if found is None:
            raise WatchError(f"no watchlist named {name!r}; `aimi watch list` shows them")
        return found

    def exists(self) -> bool:
        return self.path.is_file()

    # -- writing -------------------------------------------------------------------------

    @contextlib.contextmanager
    def _exclusive(self) -> Iterator[dict[str, Watchlist]]:
        self.root.mkdir(parents=True, exist_ok=True)
        with file_lock(self._lock_path):
            found = self._read()
            yield found
            self._write(found)

    def _write(self, found: dict[str, Watchlist]) -> None:
        ordered = [found[name].to_json() for name in sorted(found)]
        text = json.dumps({"watchlists": ordered}, indent=2, ensure_ascii=False) + "\n"
        atomic_write_bytes(self.path, text.encode())

    def add(self, item: Watchlist) -> Watchlist:
        if not item.token:
            item = replace(item, token=new_token())
        with self._exclusive() as found:
            if item.name in found:
                raise WatchError(
                    f"a watchlist named {item.name!r} exists; `aimi watch remove` it first"
                )
            found[item.name] = item
        return item

    def remove(self, name: str) -> Watchlist:
        with self._exclusive() as found:
            item = found.pop(name, None)
            if item is None:
                raise WatchError(f"no watchlist named {name!r}; `aimi watch list` shows them")
        for batch in (item.pending, item.dead):
            if batch is not None:
                self.outbox_file(batch.batch_id).unlink(missing_ok=True)
        return item

    def update(self, name: str, *, of: Watchlist | None = None, **changes: Any) -> Watchlist:
        """Replace fields of one watchlist; ``WatchError`` when it was removed meanwhile. With
        ``of`` (the watchlist as read when the change was worked out), also when the name now
        belongs to another one (another creation instant or secret): removed and added again
        meanwhile, it starts from its own position and must not take the old one's."""
        with self._exclusive() as found:
            item = found.get(name)
            if item is None or (of is not None and _identity(item) != _identity(of)):
                raise WatchError(f"watchlist {name!r} was removed")
            found[name] = item = replace(item, **changes)
        return item

    def outbox_file(self, batch_id: str) -> Path:
        return self.outbox / f"{batch_id}.json"

    def sent_file(self, batch_id: str) -> Path:
        return self.root / SENT_DIR / f"{batch_id}.json"

    def mark_sent(self, batch_id: str) -> None:
        """Move a delivered batch's body from the outbox to ``sent/`` (for a redelivery)."""
        target = self.sent_file(batch_id)
        target.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            self.outbox_file(batch_id).replace(target)
            os.utime(target)  # kept from its delivery on, not from when it was staged

    def prune_sent(self, keep_days: float, now: float) -> int:
        """Remove sent bodies older than ``keep_days``; returns how many."""
        removed = 0
        for path in (self.root / SENT_DIR).glob("*.json"):
            with contextlib.suppress(FileNotFoundError):
                if now - path.stat().st_mtime > keep_days * 86_400:
                    path.unlink()
                    removed += 1
        return removed

    def put_outbox(self, batch_id: str, body: bytes) -> None:
        self.outbox.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(self.outbox_file(batch_id), body)
