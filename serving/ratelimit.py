"""Rate limits per API key (docs/api.md §8, docs/design.md §9): a per-minute and a monthly window,
fixed and aligned to UTC (the minute, the calendar month), quotas per key tier.

A request is admitted when both windows have room; only admitted requests count, so a client
that keeps retrying during a 429 does not burn its monthly quota. Two backends give the same
answers:

- ``embedded`` (the default): counters in a memory-mapped file under the data directory, one
  slot per key, read and written under an exclusive ``flock``. Several uvicorn workers on one
  machine share it exactly, and it survives a restart. About 7 µs per request (measured on a
  busy 2-core machine, 2026-11-27); SQLite measured 55 µs here, a fifth of a whole request.
- ``redis://…``: one Lua script per request (check both windows, then count both), so several
  machines share exact counts; keys expire after their window.
"""

from __future__ import annotations

import calendar
import math
import mmap
import os
import struct
import threading
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from warehouse.locks import exclusive
from warehouse.settings import Quota, redact_url


class RateLimitError(RuntimeError):
    """The limiter's storage cannot be used (unreachable Redis, a full or unreadable file)."""


@dataclass(frozen=True)
class Windows:
    """The two windows a moment falls in: their starts and resets, unix seconds."""

    minute_start: int
    minute_reset: int
    month_start: int
    month_reset: int

    @classmethod
    def at(cls, now: float) -> Windows:
        second = int(now)
        return _windows_of_minute(second - second % 60)


@lru_cache(maxsize=4)
def _windows_of_minute(minute_start: int) -> Windows:
    """The windows of the minute starting at ``minute_start``: the same for every request of
    that minute, so computed once (the calendar arithmetic was a third of the limiter's cost)."""
    day = datetime.fromtimestamp(minute_start, UTC)
    month_start = calendar.timegm((day.year, day.month, 1, 0, 0, 0))
    next_year, next_month = (day.year + 1, 1) if day.month == 12 else (day.year, day.month + 1)
    month_reset = calendar.timegm((next_year, next_month, 1, 0, 0, 0))
    return Windows(minute_start, minute_start + 60, month_start, month_reset)


@dataclass(frozen=True)
class Decision:
    """One request's outcome: admitted or not, and the counts after it."""

    admitted: bool
    quota: Quota
    windows: Windows
    minute_count: int
    month_count: int
    now: float

    @property
    def minute_exceeded(self) -> bool:
        return self.minute_count >= self.quota.per_minute and not self.admitted

    @property
    def month_exceeded(self) -> bool:
        return self.month_count >= self.quota.per_month and not self.admitted

    @property
    def retry_after(self) -> int:
        """Seconds until a request can be admitted: 1–60 for the minute window, the real
        wait for the monthly one."""
        reset = self.reset
        return max(1, math.ceil(reset - self.now))

    @property
    def reset(self) -> int:
        """When the exceeded window (the later one, if both are) resets."""
        if self.month_exceeded:
            return self.windows.month_reset
        return self.windows.minute_reset

    def headers(self) -> dict[str, str]:
        return dict(zip(HEADER_NAMES, self._values(), strict=True))

    def header_pairs(self) -> list[tuple[bytes, bytes]]:
        """``headers`` as an ASGI response's raw header pairs (lower-case names)."""
        return [
            (name, value.encode()) for name, value in zip(_RAW_NAMES, self._values(), strict=True)
        ]

    def _values(self) -> tuple[str, ...]:
        w, q = self.windows, self.quota
        return (
            str(q.per_minute),
            str(max(0, q.per_minute - self.minute_count)),
            str(w.minute_reset),
            str(q.per_month),
            str(max(0, q.per_month - self.month_count)),
            str(w.month_reset),
        )


HEADER_NAMES = (
    "X-RateLimit-Limit-Minute",
    "X-RateLimit-Remaining-Minute",
    "X-RateLimit-Reset-Minute",
    "X-RateLimit-Limit-Monthly",
    "X-RateLimit-Remaining-Monthly",
    "X-RateLimit-Reset-Monthly",
)
_RAW_NAMES = tuple(header.lower().encode() for header in HEADER_NAMES)


class CounterStore(Protocol):
    def hit(self, key_id: str, quota: Quota, windows: Windows) -> tuple[bool, int, int]:
        """Admit and count, or refuse; returns (admitted, minute count, month count)."""
        ...

    def close(self) -> None: ...


class RateLimiter:
    """Decides per request; ``tiers`` maps a key's tier to its quota."""

    def __init__(self, store: CounterStore, tiers: Mapping[str, Quota]) -> None:
        self.store = store
        self.tiers = dict(tiers)

    def check(self, key_id: str, tier: str, now: float) -> Decision:
        quota = self.tiers.get(tier)
        if quota is None:
            # a key made with a tier later removed from the configuration: the smallest quota
            quota = min(self.tiers.values(), key=lambda q: (q.per_minute, q.per_month))
        windows = Windows.at(now)
        admitted, minute, month = self.store.hit(key_id, quota, windows)
        return Decision(admitted, quota, windows, minute, month, now)

    def close(self) -> None:
        self.store.close()


def open_limiter(storage: str, data_dir: Path, tiers: Mapping[str, Quota]) -> RateLimiter:
    """The limiter for ``AIMI_RATE_LIMIT_STORAGE``: ``embedded`` or a ``redis://`` URL."""
    if storage == "embedded":
        return RateLimiter(FileCounters(data_dir / "ratelimit.bin"), tiers)
    if storage.startswith(("redis://", "rediss://", "unix://")):
        return RateLimiter(RedisCounters(storage), tiers)
    raise RateLimitError(
        f"AIMI_RATE_LIMIT_STORAGE={redact_url(storage)!r}: use 'embedded' or a redis:// URL"
    )


# -- embedded: a memory-mapped table of counters ----------------------------------------------

_SLOT = struct.Struct("<16sqqqq")  # key id, minute start, minute count, month start, count
_SLOTS = 65_536  # 3 MB, sparse on disk; a key takes one slot for good
_MAGIC = b"aimi-ratelimit-1"


class FileCounters:
    """Counters in a file of fixed slots (open addressing on the key id's CRC-32), shared by
    every process that maps it. ``flock`` orders processes; a thread lock orders this
    process's threads (``flock`` alone does not, they share the open file)."""

    def __init__(self, path: Path, slots: int = _SLOTS) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        size = len(_MAGIC) + slots * _SLOT.size
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        self._thread_lock = threading.Lock()
        self._flock = _Flock(self._fd, self._thread_lock)
        try:
            with self._locked_fd():
                current = os.fstat(self._fd).st_size
                if current == 0:
                    os.ftruncate(self._fd, size)
                    os.pwrite(self._fd, _MAGIC, 0)
                elif current != size or os.pread(self._fd, len(_MAGIC), 0) != _MAGIC:
                    raise RateLimitError(
                        f"{path} is not a rate-limit file of {slots} slots; "
                        "move it away to start counting afresh"
                    )
            self._map = mmap.mmap(self._fd, size)
        except BaseException:
            os.close(self._fd)
            raise
        self.slots = slots
        self._slot_of: dict[bytes, int] = {}

    def _locked_fd(self) -> _Flock:
        return self._flock

    def _offset(self, slot: int) -> int:
        return len(_MAGIC) + slot * _SLOT.size

    def _find(self, key: bytes) -> int:
        """The key's slot, claiming an empty one on first use; caller holds the lock."""
        known = self._slot_of.get(key)
        if known is not None:
            return known
        start = zlib.crc32(key) % self.slots
        for probe in range(self.slots):
            slot = (start + probe) % self.slots
            stored = self._map[self._offset(slot) : self._offset(slot) + 16]
            if stored == key:
                self._slot_of[key] = slot
                return slot
            if stored == bytes(16):
                self._map[self._offset(slot) : self._offset(slot) + 16] = key
                self._slot_of[key] = slot
                return slot
        raise RateLimitError(f"{self.path}: all {self.slots} key slots are in use")

    def hit(self, key_id: str, quota: Quota, windows: Windows) -> tuple[bool, int, int]:
        key = key_id.encode("utf-8")
        if not key or len(key) > 16:
            raise RateLimitError(f"key id {key_id!r} does not fit a rate-limit slot")
        key = key.ljust(16, b"\0")
        with self._locked_fd():
            slot = self._find(key)
            offset = self._offset(slot)
            _, m_start, m_count, mo_start, mo_count = _SLOT.unpack_from(self._map, offset)
            if m_start != windows.minute_start:
                m_start, m_count = windows.minute_start, 0
            if mo_start != windows.month_start:
                mo_start, mo_count = windows.month_start, 0
            if m_count >= quota.per_minute or mo_count >= quota.per_month:
                return False, m_count, mo_count
            m_count += 1
            mo_count += 1
            _SLOT.pack_into(self._map, offset, key, m_start, m_count, mo_start, mo_count)
            return True, m_count, mo_count

    @property
    def closed(self) -> bool:
        return self._fd < 0

    def close(self) -> None:
        """Unmap and close the file, once: a second call does nothing. (A second ``os.close``
        of the number would close whatever the process opened under it since: a socket, a
        Parquet file, another limiter's counters.)"""
        with self._thread_lock:
            if self._fd < 0:
                return
            self._map.close()
            fd, self._fd = self._fd, -1
            os.close(fd)


class _Flock:
    """The thread lock, then ``flock``: processes are ordered by the file lock, this process's
    threads by the thread lock (``flock`` alone does not order them: they share the file).
    One instance per file, entered once per request."""

    def __init__(self, fd: int, thread_lock: threading.Lock) -> None:
        self.thread_lock = thread_lock
        self.file_lock = exclusive(fd)

    def __enter__(self) -> None:
        self.thread_lock.acquire()
        try:
            self.file_lock.__enter__()
        except BaseException:
            self.thread_lock.release()
            raise

    def __exit__(self, *exc: object) -> None:
        try:
            self.file_lock.__exit__(None, None, None)
        finally:
            self.thread_lock.release()


# -- Redis ---------------------------------------------------------------------------------------

# KEYS: minute counter, month counter. ARGV: minute quota, month quota, and each key's time to
# live in seconds (its window's length and a margin: never shorter than what is left of it).
# Refuse without counting when either window is full.
_HIT_SCRIPT = """
local minute = tonumber(redis.call('GET', KEYS[1]) or '0')
local month = tonumber(redis.call('GET', KEYS[2]) or '0')
if minute >= tonumber(ARGV[1]) or month >= tonumber(ARGV[2]) then
  return {0, minute, month}
end
minute = redis.call('INCR', KEYS[1])
month = redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return {1, minute, month}
"""


class RedisCounters:
    """Counters in Redis under ``aimi:rl:<key id>:<window>:<window start>``."""

    def __init__(self, url: str) -> None:
        import redis

        self.url = url
        self._client: Any = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        self._script = self._client.register_script(_HIT_SCRIPT)
        self.closed = False

    def hit(self, key_id: str, quota: Quota, windows: Windows) -> tuple[bool, int, int]:
        import redis

        keys = [
            f"aimi:rl:{key_id}:minute:{windows.minute_start}",
            f"aimi:rl:{key_id}:month:{windows.month_start}",
        ]
        args = [
            quota.per_minute,
            quota.per_month,
            windows.minute_reset - windows.minute_start + 60,
            windows.month_reset - windows.month_start + 3600,
        ]
        try:
            admitted, minute, month = self._script(keys=keys, args=args)
        except redis.RedisError as exc:
            raise RateLimitError(
                f"rate-limit storage {redact_url(self.url)} failed: {redact_url(str(exc))}"
            ) from None
        return bool(admitted), int(minute), int(month)

    def close(self) -> None:
        """Release the connection pool, once: a second call does nothing."""
        if not self.closed:
            self.closed = True
            self._client.close()
