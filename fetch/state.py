"""What the fetcher remembers between runs, in ``<data dir>/fetch/state.sqlite``: each URL's
validators (ETag, Last-Modified) for conditional GET, each item's marker (the feed's updated
date, the sitemap's lastmod) so an unchanged item is not fetched again, and each source's runs
for ``aimi sources list`` and the Dagster UI."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from fetch.http import Validators
from warehouse.paths import DataDir

_SCHEMA = """
CREATE TABLE IF NOT EXISTS source_validators (
    source TEXT NOT NULL, url TEXT NOT NULL, etag TEXT, last_modified TEXT,
    fetched_at TEXT NOT NULL, PRIMARY KEY (source, url)
);
CREATE TABLE IF NOT EXISTS sitemap_children (
    source TEXT NOT NULL, url TEXT NOT NULL, children TEXT NOT NULL, PRIMARY KEY (source, url)
);
CREATE TABLE IF NOT EXISTS items (
    source TEXT NOT NULL, url TEXT NOT NULL, marker TEXT NOT NULL, status TEXT NOT NULL,
    file TEXT, fetched_at TEXT NOT NULL, PRIMARY KEY (source, url)
);
CREATE TABLE IF NOT EXISTS runs (
    source TEXT NOT NULL, started_at TEXT NOT NULL, finished_at TEXT NOT NULL,
    items INTEGER NOT NULL, new INTEGER NOT NULL, updated INTEGER NOT NULL,
    unchanged INTEGER NOT NULL, failed INTEGER NOT NULL, error TEXT
);
CREATE INDEX IF NOT EXISTS runs_by_source ON runs (source, started_at);
"""


def fetch_dir(data: DataDir) -> Path:
    return data.root / "fetch"


@dataclass(frozen=True)
class ItemState:
    marker: str
    status: str  # "ok", "disallowed"
    file: str | None


@dataclass(frozen=True)
class LastRun:
    source: str
    started_at: datetime
    finished_at: datetime
    items: int
    new: int
    updated: int
    unchanged: int
    failed: int
    error: str | None


class FetchState:
    """The state database; one connection shared by a run's threads under a lock."""

    def __init__(self, data: DataDir) -> None:
        folder = fetch_dir(data)
        folder.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(
            folder / "state.sqlite", check_same_thread=False, timeout=60, isolation_level=None
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)
        self._lock = threading.Lock()

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> FetchState:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _cursor(self) -> Iterator[sqlite3.Cursor]:
        with self._lock:
            yield self._db.cursor()

    def validators(self, source: str, url: str) -> Validators:
        """What ``source``'s last fetch of ``url`` answered (per source: two sources that
        follow one feed each read it whole the first time)."""
        with self._cursor() as cur:
            row = cur.execute(
                "SELECT etag, last_modified FROM source_validators WHERE source = ? AND url = ?",
                (source, url),
            ).fetchone()
        return Validators(*row) if row else Validators()

    def remember_validators(self, source: str, url: str, validators: Validators) -> None:
        if not validators.etag and not validators.last_modified:
            return
        with self._cursor() as cur:
            cur.execute(
                "INSERT OR REPLACE INTO source_validators VALUES (?, ?, ?, ?, ?)",
                (source, url, validators.etag, validators.last_modified, _now()),
            )

    def sitemap_children(self, source: str, url: str) -> list[str]:
        """The sitemaps an index named when it was last read (it may answer 304 while they
        change)."""
        with self._cursor() as cur:
            row = cur.execute(
                "SELECT children FROM sitemap_children WHERE source = ? AND url = ?",
                (source, url),
            ).fetchone()
        return list(json.loads(row[0])) if row else []

    def remember_sitemap_children(self, source: str, url: str, children: list[str]) -> None:
        with self._cursor() as cur:
            cur.execute(
                "INSERT OR REPLACE INTO sitemap_children VALUES (?, ?, ?)",
                (source, url, json.dumps(children)),
            )

    def item(self, source: str, url: str) -> ItemState | None:
        with self._cursor() as cur:
            row = cur.execute(
                "SELECT marker, status, file FROM items WHERE source = ? AND url = ?",
                (source, url),
            ).fetchone()
        return ItemState(*row) if row else None

    def remember_item(
        self, source: str, url: str, marker: str, status: str, file: str | None
    ) -> None:
        with self._cursor() as cur:
            cur.execute(
                "INSERT OR REPLACE INTO items VALUES (?, ?, ?, ?, ?, ?)",
                (source, url, marker, status, file, _now()),
            )

    def item_count(self, source: str) -> int:
        with self._cursor() as cur:
            row = cur.execute(
                "SELECT count(*) FROM items WHERE source = ? AND status = 'ok'", (source,)
            ).fetchone()
        return int(row[0])

    def record_run(self, run: LastRun) -> None:
        with self._cursor() as cur:
            cur.execute(
                "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run.source,
                    run.started_at.isoformat(),
                    run.finished_at.isoformat(),
                    run.items,
                    run.new,
                    run.updated,
                    run.unchanged,
                    run.failed,
                    run.error,
                ),
            )

    def last_run(self, source: str) -> LastRun | None:
        with self._cursor() as cur:
            row = cur.execute(
                "SELECT * FROM runs WHERE source = ? ORDER BY started_at DESC LIMIT 1", (source,)
            ).fetchone()
        if row is None:
            return None
        return LastRun(
            row[0],
            datetime.fromisoformat(row[1]),
            datetime.fromisoformat(row[2]),
            *row[3:],
        )


def _now() -> str:
    return datetime.now(UTC).isoformat()
