"""The snapshot being served: loaded into memory once, swapped atomically when the ``CURRENT``
pointer moves to a snapshot that opened and verified (docs/design.md §10).

A request takes one ``LoadedSnapshot`` reference and uses only it, so a swap never changes the
data under a request in flight; the old snapshot is freed when its last request finishes.
"""

from __future__ import annotations

import ctypes
import logging
import re
import threading
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np
import numpy.typing as npt
import polars as pl

from analytics.entities import Entity, entity_from_row
from analytics.linking import EntityIndex
from analytics.records import iso_utc
from analytics.schema import CONTENT_TYPES, SERVED_SIGNALS
from readmodel.catalog import EntityCatalog, StoryCatalog, ThemeCatalog
from readmodel.cursor import PublishedKey
from readmodel.errors import Unavailable
from retrieval.engine import SearchIndex, rows_by_member
from warehouse.object_store import SnapshotPuller
from warehouse.paths import DataDir
from warehouse.snapshot import (
    OpenedSnapshot,
    SnapshotError,
    current_snapshot_id,
    open_snapshot,
    static_file,
)

log = logging.getLogger("aimi.serving")

SIGNALS_TABLE = "signals"
REQUIRED_TABLES = ("entity_profiles", "theme_profiles", "search_units")
# optional: a snapshot published without stories serves an empty list
STORIES_TABLE = "stories"
# How long a client should wait before asking again while no snapshot is loaded: a first build
# takes tens of seconds, and the poller picks up the publish within a couple of seconds of that.
RETRY_AFTER_SECONDS = 30

Int64Array = npt.NDArray[np.int64]


@dataclass(frozen=True)
class SignalQuery:
    """What ``sort=published`` paging can filter on today; bounds are microseconds since the
    epoch, ``published_from_us`` inclusive and ``published_before_us`` exclusive."""

    content_type: str | None = None
    published_from_us: int | None = None
    published_before_us: int | None = None
    after: PublishedKey | None = None
    after_seq: int | None = None  # sort=changed: deliver change_seq strictly above this
    entity_ids: frozenset[str] | None = None  # any of these (an entity and its family)
    theme: str | None = None  # a canonical label, either axis
    keyword: re.Pattern[str] | None = None  # matched against title and unit texts


@dataclass(frozen=True)
class SignalPage:
    """One page of pre-rendered cards; ``last`` is the keyset position for the next page, set
    only when ``has_more``."""

    cards: list[bytes]
    has_more: bool
    last: PublishedKey | None


@dataclass(frozen=True, eq=False)
class LoadedSnapshot:
    """A verified snapshot held in memory, laid out for O(log n) + O(page) keyset paging.

    Rows are in served order, ``(published_at, signal_id)`` descending. ``neg_published_us``
    holds ``-published_at`` so that it ascends and ``np.searchsorted`` applies directly;
    ``neg_published`` is the same as a list, for ``bisect`` in the per-request paging (a
    tenth of ``np.searchsorted``'s cost on one value).
    """

    snapshot_id: str
    as_of: datetime
    built_at: datetime
    path: Path
    neg_published_us: Int64Array
    neg_published: list[int]
    signal_ids: list[str]
    cards: list[bytes]
    details: dict[str, bytes]
    rows_by_content_type: dict[str, Int64Array]
    rows_by_entity: dict[str, Int64Array]
    rows_by_theme: dict[str, Int64Array]
    search_text: list[str]
    entity_index: EntityIndex
    change_seqs: Int64Array  # change_seq per row
    seq_sorted: Int64Array  # every change_seq, ascending
    rows_by_seq: Int64Array  # the rows in that order
    entities: EntityCatalog
    themes: ThemeCatalog
    search: SearchIndex
    stories: StoryCatalog

    @classmethod
    def from_opened(cls, opened: OpenedSnapshot) -> LoadedSnapshot:
        """Read the served tables of an already verified snapshot; ``SnapshotError`` when
        they are not what this server can serve."""
        absent = [
            name for name in (SIGNALS_TABLE, *REQUIRED_TABLES) if name not in opened.manifest.tables
        ]
        if absent:
            raise SnapshotError(f"snapshot {opened.snapshot_id} lacks the tables {absent}")
        frame = opened.read_table(SIGNALS_TABLE)
        missing = [name for name in SERVED_SIGNALS.names() if name not in frame.columns]
        if missing:
            raise SnapshotError(
                f"snapshot {opened.snapshot_id}: table {SIGNALS_TABLE} lacks {missing}"
            )
        if (
            frame["signal_id"].null_count()
            or frame["published_at"].null_count()
            or frame["change_seq"].null_count()
        ):
            raise SnapshotError(f"snapshot {opened.snapshot_id}: {SIGNALS_TABLE} has null keys")
        if frame["signal_id"].n_unique() != frame.height:
            raise SnapshotError(
                f"snapshot {opened.snapshot_id}: {SIGNALS_TABLE} repeats a signal_id"
            )
        # Publishing sorts already; sorting again is cheap and makes paging independent of it.
        frame = frame.sort(["published_at", "signal_id"], descending=True)
        published_us = frame["published_at"].dt.epoch("us").to_numpy().astype(np.int64)
        content_types = frame["content_type"].to_numpy()
        signal_ids: list[str] = frame["signal_id"].to_list()
        change_seq = frame["change_seq"].to_numpy().astype(np.int64)
        rows_by_seq = np.argsort(change_seq, kind="stable").astype(np.int64)
        return cls(
            snapshot_id=opened.snapshot_id,
            as_of=opened.manifest.as_of,
            built_at=opened.manifest.built_at,
            path=opened.path,
            neg_published_us=-published_us,
            neg_published=(-published_us).tolist(),
            signal_ids=signal_ids,
            cards=frame["card_json"].to_list(),
            details=dict(zip(signal_ids, frame["detail_json"].to_list(), strict=True)),
            rows_by_content_type={
                content_type: np.flatnonzero(content_types == content_type).astype(np.int64)
                for content_type in CONTENT_TYPES
            },
            rows_by_entity=rows_by_member(frame["entity_ids"]),
            rows_by_theme=rows_by_member(
                frame.select(
                    pl.concat_list(
                        pl.col(axis).fill_null(pl.lit([], dtype=pl.List(pl.String)))
                        for axis in ("value_chain", "market_force")
                    )
                ).to_series()
            ),
            search_text=frame["search_text"].to_list(),
            entity_index=EntityIndex(_entities(opened)),
            change_seqs=change_seq,
            seq_sorted=change_seq[rows_by_seq],
            rows_by_seq=rows_by_seq,
            entities=EntityCatalog.from_frame(opened.read_table("entity_profiles")),
            themes=ThemeCatalog.from_frame(opened.read_table("theme_profiles")),
            search=SearchIndex(opened, opened.manifest.as_of),
            stories=(
                StoryCatalog.from_frame(opened.read_table(STORIES_TABLE))
                if STORIES_TABLE in opened.manifest.tables
                else StoryCatalog.empty()
            ),
        )

    def __len__(self) -> int:
        return len(self.signal_ids)

    def key_of(self, row: int) -> PublishedKey:
        return PublishedKey(int(-self.neg_published_us[row]), self.signal_ids[row])

    def _first_row_after(self, key: PublishedKey) -> int:
        """The first row strictly after ``key`` in served order."""
        neg = -key.published_us
        lo = bisect_left(self.neg_published, neg)
        hi = bisect_right(self.neg_published, neg)
        # Rows lo..hi share the timestamp and their ids descend: find the first id < key's.
        while lo < hi:
            mid = (lo + hi) // 2
            if self.signal_ids[mid] < key.signal_id:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def candidates(self, query: SignalQuery) -> Int64Array | None:
        """Rows the set filters allow (ascending), or None when no set filter is given."""
        sets: list[Int64Array] = []
        empty = np.empty(0, dtype=np.int64)
        if query.content_type is not None:
            sets.append(self.rows_by_content_type.get(query.content_type, empty))
        if query.entity_ids is not None:
            parts = [self.rows_by_entity[e] for e in query.entity_ids if e in self.rows_by_entity]
            sets.append(np.unique(np.concatenate(parts)) if parts else empty)
        if query.theme is not None:
            sets.append(self.rows_by_theme.get(query.theme, empty))
        if not sets:
            return None
        allowed = sets[0]
        for other in sets[1:]:
            allowed = np.intersect1d(allowed, other, assume_unique=True)
        return allowed

    def latest_changed_rows(self, query: SignalQuery, limit: int) -> list[int]:
        """The ``limit`` rows the set filters of ``query`` allow that changed last, the latest
        change first: what the Atom feeds list, so an updated signal comes back to the top."""
        allowed = self.candidates(query)
        if allowed is None:
            return [int(row) for row in self.rows_by_seq[::-1][:limit]]
        order = np.argsort(-self.change_seqs[allowed], kind="stable")[:limit]
        return [int(row) for row in allowed[order]]

    def _keyword_ok(self, query: SignalQuery, row: int) -> bool:
        return query.keyword is None or query.keyword.search(self.search_text[row]) is not None

    def published_page(self, query: SignalQuery, limit: int) -> SignalPage:
        """Up to ``limit`` cards in ``(published_at, signal_id)`` descending order."""
        start = 0 if query.after is None else self._first_row_after(query.after)
        end = len(self)
        if query.published_before_us is not None:
            # Newer rows come first: skip those at or after the exclusive upper bound.
            start = max(start, bisect_right(self.neg_published, -query.published_before_us))
        if query.published_from_us is not None:
            end = bisect_right(self.neg_published, -query.published_from_us)
        allowed = self.candidates(query)
        rows: Int64Array | range
        if allowed is not None:
            first = int(allowed.searchsorted(start, side="left"))
            stop = int(allowed.searchsorted(end, side="left"))
            rows = allowed[first:stop]
        else:
            rows = range(start, max(start, end))
        page: list[int] = []
        if query.keyword is None:
            # tolist: one call, not a numpy scalar per row (13.9 against 1.7 µs for a page)
            head = rows[: limit + 1]
            page = head.tolist() if isinstance(head, np.ndarray) else list(head)
        else:
            for row in rows:  # literal matching, in served order, until the page is full
                if self._keyword_ok(query, int(row)):
                    page.append(int(row))
                    if len(page) > limit:
                        break
        has_more = len(page) > limit
        page = page[:limit]
        return SignalPage(
            cards=[self.cards[row] for row in page],
            has_more=has_more,
            last=self.key_of(page[-1]) if has_more else None,
        )

    @property
    def head_seq(self) -> int | None:
        """The change feed's last position (null when the snapshot has no signal)."""
        return int(self.seq_sorted[-1]) if len(self.seq_sorted) else None

    def changed_page(self, query: SignalQuery, limit: int) -> ChangedPage:
        """Up to ``limit`` cards in ``change_seq`` ascending order (the change feed), after
        ``query.after_seq``; filters apply to the signals as they are now."""
        page, has_more = self.changed_rows(query, limit)
        return ChangedPage(
            cards=[self.cards[row] for row in page],
            has_more=has_more,
            last_seq=int(self.change_seqs[page[-1]]) if page else None,
        )

    def changed_rows(self, query: SignalQuery, limit: int) -> tuple[list[int], bool]:
        """The rows of ``changed_page`` (up to ``limit``, in ``change_seq`` order), and whether
        more follow: what the change feed and the watchlists' deliveries both read."""
        start = 0
        if query.after_seq is not None:
            start = int(np.searchsorted(self.seq_sorted, query.after_seq, side="right"))
        allowed = self.candidates(query)
        filtered = (
            allowed is not None
            or query.keyword is not None
            or query.published_from_us is not None
            or query.published_before_us is not None
        )
        picked: list[int] = []
        position = start
        # Walk forward in chunks: unfiltered this is one slice, filtered it stops as soon as
        # the page (plus one row to tell has_more) is full.
        chunk = limit + 1 if not filtered else 4096
        while position < len(self.rows_by_seq) and len(picked) <= limit:
            rows = self.rows_by_seq[position : position + chunk]
            if filtered:
                published = -self.neg_published_us[rows]
                keep = np.ones(len(rows), dtype=bool)
                if allowed is not None:
                    keep &= np.isin(rows, allowed, assume_unique=True)
                if query.published_from_us is not None:
                    keep &= published >= query.published_from_us
                if query.published_before_us is not None:
                    keep &= published < query.published_before_us
                rows = rows[keep]
                if query.keyword is not None:
                    rows = np.array(
                        [row for row in rows if self._keyword_ok(query, int(row))], dtype=np.int64
                    )
            picked.extend(rows[: limit + 1 - len(picked)].tolist())
            position += chunk
        return picked[:limit], len(picked) > limit


@dataclass(frozen=True)
class ChangedPage:
    """One page of the change feed; ``last_seq`` is the resume point (None on an empty page)."""

    cards: list[bytes]
    has_more: bool
    last_seq: int | None


def _entities(opened: OpenedSnapshot) -> list[Entity]:
    if "entities" not in opened.manifest.tables:
        return []
    return [entity_from_row(row) for row in opened.read_table("entities").iter_rows(named=True)]


def release_freed_memory() -> bool:
    """Return the C heap's free memory to the system (glibc's ``malloc_trim``); False where
    there is no glibc. The heap keeps what a swapped-out snapshot freed otherwise: at a million
    units a worker stayed at 6.5 GB after a swap instead of 4.0 (0.3 s to trim;
    docs/benchmarks.md)."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return False
    trim(0)
    return True


class SnapshotStore:
    """Holds the current ``LoadedSnapshot`` and a daemon thread that follows ``CURRENT``.

    With a ``puller`` (``AIMI_SNAPSHOT_STORE``), each poll first brings the data dir to the
    snapshot the object store names (downloaded and verified, ``warehouse.object_store``);
    the local pointer it moves is then followed as any other publish.

    A snapshot is verified before it is swapped in: every table, and every file but the static
    site's, unless ``verify_site`` (``aimi serve --site``, which serves them). The publish
    verified them all, and a replica's pull every file it fetched.
    """

    verify_site = False

    def __init__(
        self, data_dir: DataDir, *, poll_seconds: float, puller: SnapshotPuller | None = None
    ) -> None:
        self.data_dir = data_dir
        self.poll_seconds = poll_seconds
        self.puller = puller
        self._current: LoadedSnapshot | None = None
        self._refused: str | None = None
        self._pointer_error: str | None = None
        self._refresh_lock = threading.Lock()
        self._release_pending = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def current(self) -> LoadedSnapshot | None:
        return self._current

    def require(self) -> LoadedSnapshot:
        """The snapshot to answer from; 503 ``unavailable`` while there is none."""
        snapshot = self._current
        if snapshot is None:
            raise Unavailable(
                "no snapshot is loaded yet (build one with `aimi build`); the service starts "
                f"answering as soon as one is published: retry in {RETRY_AFTER_SECONDS} s",
                retry_after=RETRY_AFTER_SECONDS,
            )
        return snapshot

    def refresh(self) -> LoadedSnapshot | None:
        """Check the pointer once and swap to the snapshot it names if that one is new and
        verifies; returns the snapshot now served.

        A snapshot that fails is logged once and not retried: snapshots are immutable, so
        the same id would fail again; the next publish gets a new id.
        """
        with self._refresh_lock:
            try:
                snapshot_id = current_snapshot_id(self.data_dir)
            except OSError as exc:
                message = f"cannot read snapshot pointer {self.data_dir.current_pointer}: {exc}"
                if message != self._pointer_error:
                    log.error("%s", message)
                    self._pointer_error = message
                return self._current
            self._pointer_error = None
            serving = self._current
            if snapshot_id is None or snapshot_id == self._refused:
                return serving
            if serving is not None and serving.snapshot_id == snapshot_id:
                return serving
            try:
                loaded = self._load(snapshot_id)
            except Exception as exc:  # a poller that dies would freeze the data being served
                reason = str(exc) if isinstance(exc, SnapshotError) else repr(exc)
                keeping = (
                    f"still serving {serving.snapshot_id}" if serving else "nothing served yet"
                )
                log.error("refused snapshot %s (%s): %s", snapshot_id, keeping, reason)
                self._refused = snapshot_id
                return serving
            self._current = loaded
            self._refused = None
            # the old snapshot is freed when its last request ends; the next poll gives its
            # memory back to the system
            self._release_pending = serving is not None
            log.info(
                "serving snapshot %s (as of %s, %d signals)",
                loaded.snapshot_id,
                iso_utc(loaded.as_of),
                len(loaded),
            )
            return loaded

    def poll(self) -> LoadedSnapshot | None:
        """One poll: pull from the object store when there is one (its failures are logged
        and leave the local pointer alone), then ``refresh``. The first poll after a swap
        first returns the freed heap of the snapshot swapped out to the system."""
        if self._release_pending:
            self._release_pending = False
            release_freed_memory()
        if self.puller is not None:
            self.puller.pull()
        return self.refresh()

    def _load(self, snapshot_id: str) -> LoadedSnapshot:
        path = self.data_dir.snapshots / snapshot_id
        if not path.is_dir():
            raise SnapshotError(f"CURRENT names {snapshot_id}, which is not in {path.parent}")
        opened = open_snapshot(path, verify=True, skip=None if self.verify_site else static_file)
        if opened.snapshot_id != snapshot_id:
            raise SnapshotError(f"folder {snapshot_id} holds snapshot {opened.snapshot_id}")
        return LoadedSnapshot.from_opened(opened)

    def start(self) -> None:
        """Load what ``CURRENT`` names now, then keep following it in a daemon thread."""
        self.poll()
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(
                target=self._follow, name="aimi-snapshot-poller", daemon=True
            )
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=max(5.0, self.poll_seconds))
            self._thread = None

    def _follow(self) -> None:
        while not self._stop.wait(self.poll_seconds):
            try:
                self.poll()
            except Exception:  # refresh handles what it expects; never let the thread die
                log.exception("snapshot poll failed")
