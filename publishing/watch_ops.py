"""What an operator does to a watchlist's deliveries beyond adding it (``aimi watch``): retry a
dead-lettered or waiting batch now, resend a delivered batch, rewind its position in the change
feed, and rotate its signing secret with an overlap window (docs/notifications.md)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

import orjson
import polars as pl

from analytics.records import iso_utc, parse_timestamp
from publishing.watch import Batch, WatchError, Watchlist, WatchStore, new_secret
from publishing.webhooks import Attempt, Policy, log_attempt, post
from readmodel.cursor import decode_changed
from readmodel.errors import ApiError
from warehouse.paths import DataDir
from warehouse.snapshot import SnapshotError, open_current


def retry(data: DataDir, name: str) -> Watchlist:
    """Put a dead-lettered batch back in flight with a fresh count of attempts and a fresh
    retry window, or make a waiting batch due now (the next delivery run sends it first)."""
    store = WatchStore(data)
    item = store.get(name)
    if item.dead is not None:
        fresh = replace(item.dead, attempts=0, first_failed_at=None, next_attempt_at=None)
        return store.update(name, of=item, dead=None, pending=fresh)
    if item.pending is not None:
        return store.update(name, of=item, pending=replace(item.pending, next_attempt_at=None))
    raise WatchError(f"watchlist {name!r} has no dead-lettered or waiting batch")


def retry_all(data: DataDir) -> list[str]:
    """``retry`` every watchlist with a dead-lettered or waiting batch; returns their names."""
    names = []
    for item in WatchStore(data).list():
        if item.dead is not None or item.pending is not None:
            retry(data, item.name)
            names.append(item.name)
    return names


@dataclass(frozen=True)
class Redelivery:
    watchlist: str
    batch_id: str
    attempt: Attempt


def _watchlist_of(store: WatchStore, batch_id: str) -> str:
    """The watchlist a batch was sent for, from the log of attempts."""
    if store.log_path.is_file():
        for line in reversed(store.log_path.read_text(encoding="utf-8").splitlines()):
            record = orjson.loads(line)
            if record.get("batch_id") == batch_id:
                return str(record["watchlist"])
    raise WatchError(f"no delivery of batch {batch_id!r} in {store.log_path.name}")


def redeliver(data: DataDir, batch_id: str, *, policy: Policy | None = None) -> Redelivery:
    """Send a delivered batch again, the same bytes and id (freshly signed), once; the
    watchlist's position and state stay as they are. Bodies are kept ``AIMI_WEBHOOK_KEEP_DAYS``
    after their delivery."""
    policy = policy or Policy.from_settings()
    store = WatchStore(data)
    path = store.sent_file(batch_id)
    if not path.is_file():
        raise WatchError(
            f"batch {batch_id!r} is not among the delivered batches kept in {path.parent}; "
            "`aimi watch list` shows the batches in flight"
        )
    item = store.get(_watchlist_of(store, batch_id))
    attempt = post(
        item.url,
        path.read_bytes(),
        secret=item.secret,
        more_secrets=item.signing_secrets()[1:],
        batch_id=batch_id,
        timeout=policy.timeout_seconds,
        attempt=1,
    )
    batch = Batch(batch_id, 0, 0, 0, attempts=1)
    log_attempt(store, item, batch, attempt, redelivery=True)
    return Redelivery(item.name, batch_id, attempt)


def position_since(data: DataDir, since: str) -> int:
    """The change-feed position just before ``since``: a ``sort=changed`` cursor, or a date or
    date-time (UTC), the last position changed before it."""
    try:
        return decode_changed(since).change_seq
    except ApiError:
        pass
    try:
        moment = parse_timestamp(since)
    except (TypeError, ValueError):
        raise WatchError(
            f"--since {since!r} is neither a date (2026-11-28, 2026-11-28T09:00:00Z) nor a "
            "change-feed cursor"
        ) from None
    try:
        opened = open_current(data, verify=False)
    except SnapshotError as exc:
        raise WatchError(str(exc)) from None
    if opened is None:
        raise WatchError("no snapshot is published yet: run `aimi build`")
    feed = pl.read_parquet(opened.table_path("signals"), columns=["change_seq", "changed_at"])
    before = feed.filter(pl.col("changed_at") < moment)["change_seq"].max()
    return int(before) if isinstance(before, int) else 0


def rewind(data: DataDir, name: str, since: str) -> Watchlist:
    """Move ``name`` back in the change feed, so the next run sends what changed from there
    again (in new batches); a batch in flight or dead-lettered is dropped, since the new
    position covers it."""
    store = WatchStore(data)
    item = store.get(name)
    position = position_since(data, since)
    if position > item.after_seq:
        raise WatchError(
            f"{since!r} is after where {name!r} was delivered up to; rewinding only goes back"
        )
    updated = store.update(name, of=item, after_seq=position, pending=None, dead=None)
    for batch in (item.pending, item.dead):
        if batch is not None:
            store.outbox_file(batch.batch_id).unlink(missing_ok=True)
    return updated


def rotate_secret(
    data: DataDir, name: str, *, secret: str | None = None, overlap_hours: float = 24.0
) -> tuple[Watchlist, str]:
    """Give ``name`` a new signing secret (``secret``, or a new one); the old one still signs
    each request beside it (a second ``v1``) for ``overlap_hours``, so the receiver can switch
    at any time in that window. Returns the watchlist and the new secret."""
    store = WatchStore(data)
    item = store.get(name)
    chosen = secret or new_secret()
    until = datetime.now(UTC) + timedelta(hours=overlap_hours)
    updated = store.update(
        name,
        of=item,
        secret=chosen,
        previous_secret=item.secret if overlap_hours > 0 else None,
        previous_secret_until=iso_utc(until) if overlap_hours > 0 else None,
    )
    return updated, chosen
