"""A fetch run: read each due source's feed (and sitemaps), fetch what changed, write each item
into ``<data dir>/inbox/fetched/<source>/`` as the file ``aimi ingest`` would read (a page, a
PDF, a transcript with its sidecar, or the entry's own record), archive every kept response as
WARC, and ingest the files through the one ingest path (docs/sources.md)."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import httpx
from tqdm import tqdm

from fetch.archive import WarcArchive
from fetch.documents import (
    DocumentError,
    Entry,
    Transcript,
    json_transcript_to_vtt,
    parse_feed,
    parse_sitemap,
)
from fetch.http import (
    FEED_TYPES,
    PAGE_TYPES,
    PDF_TYPES,
    TRANSCRIPT_TYPES,
    FetchError,
    FetchPolicy,
    PoliteClient,
    Response,
    Validators,
)
from fetch.sources import Source
from fetch.state import FetchState, LastRun, fetch_dir
from warehouse.adapters.base import RawRecord
from warehouse.build_encoder import available_cores
from warehouse.files import atomic_write_bytes
from warehouse.ingest import IngestReport, ingest_paths
from warehouse.locks import build_lock
from warehouse.paths import DataDir
from warehouse.readers import read_file
from warehouse.settings import Settings, load_settings

FETCHED_DIR = "fetched"
MAX_SITEMAPS = 50
_SIDECAR = ".meta.json"
# a run that writes fewer items than this reads them in the ingest at its end: starting the
# extraction processes (each imports trafilatura) would cost more than it saves
POOLED_AFTER = 32
_TRANSCRIPT_SUFFIXES = {
    "text/vtt": ".vtt",
    "application/x-subrip": ".srt",
    "application/srt": ".srt",
    "text/srt": ".srt",
}


@dataclass(frozen=True)
class Failure:
    url: str
    reason: str
    transient: bool = False


@dataclass
class SourceReport:
    """One source's part of a run."""

    name: str
    items: int = 0  # entries and pages listed
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    failed: list[Failure] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    error: str | None = None  # the feed or sitemap itself could not be read
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def count(self, outcome: str, path: Path | None = None) -> None:
        with self.lock:
            setattr(self, outcome, getattr(self, outcome) + 1)
            if path is not None:
                self.files.append(path)

    def fail(self, url: str, reason: str, *, transient: bool = False) -> None:
        with self.lock:
            self.failed.append(Failure(url, reason, transient))


@dataclass
class FetchReport:
    sources: list[SourceReport]
    ingest: IngestReport | None
    seconds: float
    requests: int
    not_modified: int
    bytes: int
    archive: Path | None

    @property
    def failures(self) -> list[Failure]:
        found = [Failure(s.name, s.error) for s in self.sources if s.error]
        return found + [f for s in self.sources for f in s.failed]

    def summary(self) -> str:
        new = sum(s.new for s in self.sources)
        updated = sum(s.updated for s in self.sources)
        unchanged = sum(s.unchanged for s in self.sources)
        return (
            f"{len(self.sources)} source(s) in {self.seconds:.1f}s: {self.requests} request(s) "
            f"({self.not_modified} not modified, {self.bytes / 1e6:.1f} MB), {new} new, "
            f"{updated} updated, {unchanged} unchanged, {len(self.failures)} failed"
        )


@dataclass(frozen=True)
class ItemFile:
    """What an item becomes in the inbox: a file body and, unless it is a record, a sidecar."""

    name: str  # relative to the source's folder
    body: bytes
    sidecar: dict[str, Any] | None
    # the body is the response's as it came (else the archive keeps the body itself)
    raw: bool = True


def is_due(source: Source, last: LastRun | None, now: datetime) -> bool:
    return last is None or last.started_at + source.interval <= now


def next_due(source: Source, last: LastRun | None) -> datetime | None:
    return None if last is None else last.started_at + source.interval


def item_key(url: str) -> str:
    return hashlib.sha256(url.encode("utf-8")).hexdigest()[:20]


def source_folder(data: DataDir, name: str) -> Path:
    return data.inbox / FETCHED_DIR / name


def write_item(folder: Path, item: ItemFile) -> str:
    """Write ``item`` (and its sidecar) into ``folder`` unless the same bytes are there;
    ``"new"``, ``"updated"`` or ``"unchanged"``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / item.name
    outcome = "new"
    sidecar = (
        json.dumps(item.sidecar, ensure_ascii=False, sort_keys=True, indent=1).encode("utf-8")
        if item.sidecar is not None
        else None
    )
    side_path = folder / (item.name + _SIDECAR)
    if path.is_file():
        same_side = (sidecar is None and not side_path.exists()) or (
            sidecar is not None and side_path.is_file() and side_path.read_bytes() == sidecar
        )
        if path.read_bytes() == item.body and same_side:
            return "unchanged"
        outcome = "updated"
    # the sidecar first: the inbox sensor may read the file as soon as it appears
    if sidecar is not None:
        atomic_write_bytes(side_path, sidecar)
    else:
        side_path.unlink(missing_ok=True)
    atomic_write_bytes(path, item.body)
    return outcome


def record_item(entry: Entry, record: dict[str, Any], kind: str) -> ItemFile:
    line = json.dumps({**record, "kind": kind}, ensure_ascii=False, sort_keys=True) + "\n"
    return ItemFile(item_key(entry.url) + ".jsonl", line.encode("utf-8"), None, raw=False)


def page_item(entry: Entry, response: Response, kind: str) -> ItemFile:
    suffix = ".pdf" if response.content_type in PDF_TYPES else ".html"
    defaults = {**entry.defaults, "url": response.url}
    return ItemFile(
        item_key(entry.url) + suffix, response.body, {"kind": kind, "defaults": defaults}
    )


def transcript_item(entry: Entry, response: Response, declared: str) -> ItemFile:
    kind = response.content_type or declared
    fields = {"kind": "podcast", "url": entry.url, **entry.defaults}
    key = item_key(entry.url)
    if kind in _TRANSCRIPT_SUFFIXES or declared in _TRANSCRIPT_SUFFIXES:
        suffix = _TRANSCRIPT_SUFFIXES.get(kind) or _TRANSCRIPT_SUFFIXES[declared]
        return ItemFile(key + suffix, response.body, fields)
    if kind == "application/json" or declared == "application/json":
        vtt = json_transcript_to_vtt(response.body).encode("utf-8")
        return ItemFile(key + ".vtt", vtt, fields, raw=False)
    if kind in PAGE_TYPES:
        return ItemFile(key + ".html", response.body, {"kind": "podcast", "defaults": fields})
    raise DocumentError(f"a transcript of type {kind or declared or 'unknown'} is not read")


class FetchRun:
    """One run over some sources, sharing a polite client, the state and the archive."""

    def __init__(
        self,
        data: DataDir,
        *,
        settings: Settings | None = None,
        transport: httpx.BaseTransport | None = None,
        progress: bool | None = None,
        workers: int = 8,
        extract_workers: int | None = None,
    ) -> None:
        self.data = data
        self.policy = FetchPolicy.from_settings(settings or load_settings())
        self.transport = transport
        self.progress = progress
        self.workers = workers
        # processes reading the written items (trafilatura) while the run fetches; 0: none,
        # the ingest at the end reads them. Default: every core but one, the network's.
        self.extract_workers = (
            max(1, available_cores() - 1) if extract_workers is None else extract_workers
        )

    def run(self, sources: Sequence[Source], *, ingest: bool = True) -> FetchReport:
        started = time.perf_counter()
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        archive_path = fetch_dir(self.data) / "archive" / f"{stamp}.warc.gz"
        reports = [SourceReport(s.name) for s in sources]
        extraction = _Extraction(self.extract_workers if ingest else 0)
        try:
            return self._run(sources, reports, archive_path, extraction, started, ingest=ingest)
        finally:
            extraction.close()

    def _run(
        self,
        sources: Sequence[Source],
        reports: list[SourceReport],
        archive_path: Path,
        extraction: _Extraction,
        started: float,
        *,
        ingest: bool,
    ) -> FetchReport:
        with (
            PoliteClient(self.policy, transport=self.transport) as client,
            FetchState(self.data) as state,
            WarcArchive(archive_path) as archive,
            tqdm(
                total=0,
                desc="fetch",
                unit="item",
                disable=self.progress is False if self.progress is not None else None,
                leave=False,
            ) as bar,
            ThreadPoolExecutor(self.workers, thread_name_prefix="fetch-item") as items,
            ThreadPoolExecutor(min(4, max(1, len(sources))), thread_name_prefix="fetch") as pool,
        ):
            job = _Job(self.data, client, state, archive, bar, items, extraction)
            list(pool.map(job.source, sources, reports))
            archived = archive.responses
        if not archived:
            archive_path.unlink(missing_ok=True)
        files = [path for report in reports for path in report.files]
        ingested = None
        if ingest and files:
            # the sources table is read, merged and written: never beside a build or another
            # ingest over the same data dir
            with build_lock(self.data):
                ingested = ingest_paths(
                    self.data,
                    files,
                    skip_unchanged_files=True,
                    progress=self.progress,
                    reader=extraction.read,
                )
        stats = client.stats
        return FetchReport(
            reports,
            ingested,
            time.perf_counter() - started,
            stats.requests,
            stats.not_modified,
            stats.bytes,
            archive_path if archived else None,
        )


def _read_all(path: Path) -> list[RawRecord]:
    return list(read_file(path))


class _Extraction:
    """Reads the items a run writes (trafilatura's extraction is CPU work) in other processes
    while the run goes on fetching (mostly waiting on the network and the politeness delay), so
    the ingest at the end finds them read; a file not read ahead is read by the ingest."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.pool: ProcessPoolExecutor | None = None
        self.futures: dict[Path, Future[list[RawRecord]]] = {}
        self.written = 0
        self.lock = threading.Lock()

    def submit(self, path: Path) -> None:
        if self.workers < 1:
            return
        with self.lock:
            self.written += 1
            if self.written <= POOLED_AFTER:
                return
            if self.pool is None:
                # spawned, not forked: a fork would copy the locks the run's threads hold
                self.pool = ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("spawn")
                )
            self.futures[path] = self.pool.submit(_read_all, path)

    def read(self, path: Path) -> Iterable[RawRecord]:
        with self.lock:
            future = self.futures.pop(path, None)
        if future is not None:
            try:
                return future.result()
            except BrokenProcessPool:  # a worker died (out of memory): read it here
                pass
        return read_file(path)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)


@dataclass
class _Job:
    data: DataDir
    client: PoliteClient
    state: FetchState
    archive: WarcArchive
    bar: tqdm  # type: ignore[type-arg]
    items: ThreadPoolExecutor
    extraction: _Extraction
    bar_lock: threading.Lock = field(default_factory=threading.Lock)

    def source(self, source: Source, report: SourceReport) -> None:
        started = datetime.now(UTC)
        entries: dict[str, Entry] = {}
        feed_ref: str | None = None
        commit: list[Callable[[], None]] = []
        if source.feed:
            try:
                feed_ref, listed = self._feed(source, source.feed, commit)
                for entry in listed:
                    entries.setdefault(entry.url, entry)
            except Exception as exc:  # any failure is this source's, never the run's
                report.error = f"feed {source.feed}: {_reason(exc)}"
        if source.sitemaps and (source.backfill or not source.feed):
            for entry in self._sitemap_pages(source, report, commit):
                entries.setdefault(entry.url, entry)
        report.items = len(entries)
        with self.bar_lock:
            self.bar.total = (self.bar.total or 0) + len(entries)
            self.bar.refresh()
        futures = [
            self.items.submit(self._item, source, entry, feed_ref, report)
            for entry in entries.values()
        ]
        for future in futures:
            future.result()
        # validators of a feed or sitemap are kept only when every item it listed was read,
        # so that an item that failed for a while is tried again next time
        if not report.error and not any(f.transient for f in report.failed):
            for remember in commit:
                remember()
        self.state.record_run(
            LastRun(
                source.name,
                started,
                datetime.now(UTC),
                report.items,
                report.new,
                report.updated,
                report.unchanged,
                len(report.failed),
                report.error,
            )
        )

    def _feed(
        self, source: Source, url: str, commit: list[Callable[[], None]]
    ) -> tuple[str | None, list[Entry]]:
        response = self.client.get(url, FEED_TYPES, self.state.validators(source.name, url))
        if response.not_modified:
            return None, []
        feed = parse_feed(response.body, response.url)
        ref = self.archive.response(response)
        commit.append(
            partial(self.state.remember_validators, source.name, url, response.validators)
        )
        return ref, feed.entries

    def _sitemap_pages(
        self, source: Source, report: SourceReport, commit: list[Callable[[], None]]
    ) -> list[Entry]:
        pages: list[Entry] = []
        todo = list(source.sitemaps)
        seen: set[str] = set()
        while todo and len(seen) < MAX_SITEMAPS:
            url = todo.pop(0)
            if url in seen:
                continue
            seen.add(url)
            try:
                response = self.client.get(url, (), self.state.validators(source.name, url))
                if response.not_modified:
                    # an unchanged index still names children that may have changed
                    todo.extend(self.state.sitemap_children(source.name, url))
                    continue
                sitemap = parse_sitemap(response.body, response.url)
            except Exception as exc:  # any failure is this sitemap's, never the run's
                report.fail(url, f"sitemap: {_reason(exc)}", transient=_transient(exc))
                continue
            self.archive.response(response)
            commit.append(
                partial(self.state.remember_validators, source.name, url, response.validators)
            )
            if sitemap.sitemaps:
                self.state.remember_sitemap_children(source.name, url, sitemap.sitemaps)
            todo.extend(sitemap.sitemaps)
            pages.extend(sitemap.pages)
        return pages

    def _item(
        self, source: Source, entry: Entry, feed_ref: str | None, report: SourceReport
    ) -> None:
        try:
            known = self.state.item(source.name, entry.url)
            if known is not None and known.marker == entry.marker:
                report.count("unchanged")
                return
            made = self._make(source, entry, feed_ref, known is not None)
            if made is None:
                report.count("unchanged")
            else:
                item, ref, validators = made
                folder = source_folder(self.data, source.name)
                outcome = write_item(folder, item)
                self.archive.item(entry.url, _payload(source, item), ref)
                # only once the file is written: a page asked again conditionally must not
                # answer 304 for an update that never reached the inbox
                if validators is not None:
                    self.state.remember_validators(source.name, entry.url, validators)
                report.count(outcome, folder / item.name)
                if outcome != "unchanged":
                    self.extraction.submit(folder / item.name)
            self.state.remember_item(
                source.name,
                entry.url,
                entry.marker,
                "ok",
                made[0].name if made else (known.file if known else None),
            )
        except Exception as exc:  # any failure is this item's, never the run's
            report.fail(entry.url, _reason(exc), transient=_transient(exc))
            if not _transient(exc):
                # reported once; tried again only when the feed or sitemap says it changed
                self.state.remember_item(source.name, entry.url, entry.marker, "failed", None)
        finally:
            self.bar.update(1)

    def _make(
        self, source: Source, entry: Entry, feed_ref: str | None, known: bool
    ) -> tuple[ItemFile, str | None, Validators | None] | None:
        """The item's file, the archive record it came from and the validators to keep once
        it is written; ``None`` when the page answered 304 (unchanged since the last fetch)."""
        if entry.record is not None:
            return record_item(entry, entry.record, source.kind), feed_ref, None
        if entry.transcripts:
            return (*self._transcript(entry, entry.transcripts), None)
        if entry.audio:
            raise DocumentError(
                "a podcast episode without a podcast:transcript; its audio is never downloaded"
            )
        validators = self.state.validators(source.name, entry.url) if known else None
        response = self.client.get(entry.url, PAGE_TYPES + PDF_TYPES, validators)
        if response.not_modified:
            if validators is None:
                raise FetchError(entry.url, "a 304 to a request that asked for no condition")
            return None
        item = page_item(entry, response, source.kind)
        return item, self.archive.response(response), response.validators

    def _transcript(
        self, entry: Entry, transcripts: Sequence[Transcript]
    ) -> tuple[ItemFile, str | None]:
        problems: list[str] = []
        for transcript in transcripts:
            try:
                response = self.client.get(transcript.url, TRANSCRIPT_TYPES)
                item = transcript_item(entry, response, transcript.type)
            except (FetchError, DocumentError) as exc:
                problems.append(f"{transcript.url}: {_reason(exc)}")
                continue
            return item, self.archive.response(response)
        raise DocumentError("no transcript could be read (" + "; ".join(problems) + ")")


def _payload(source: Source, item: ItemFile) -> dict[str, Any]:
    return {
        "source": source.name,
        "file": item.name,
        "sidecar": item.sidecar,
        "body": None if item.raw else item.body.decode("utf-8"),
    }


def _reason(exc: Exception) -> str:
    if isinstance(exc, FetchError):
        return exc.reason
    if isinstance(exc, DocumentError):
        return str(exc)
    return f"unexpected {type(exc).__name__}: {exc}"


def _transient(exc: Exception) -> bool:
    """Worth trying again next run: a passing network failure, or an error nobody expected
    (a full disk, a parser's surprise), which must not be remembered as the item's answer."""
    if isinstance(exc, FetchError):
        return exc.transient
    return not isinstance(exc, DocumentError)


def replay_archive(data: DataDir, root: Path) -> tuple[list[Path], int]:
    """Write the inbox files every item archived under ``root`` became, with no network;
    returns the files written (or already there with the same bytes) and how many items
    could not be rebuilt (their response is missing from the archive)."""
    from fetch.archive import read_items

    files: list[Path] = []
    missing = 0
    for archived in read_items(root):
        payload = archived.payload
        body = payload.get("body")
        blob = body.encode("utf-8") if isinstance(body, str) else archived.body
        if blob is None:
            missing += 1
            continue
        item = ItemFile(str(payload["file"]), blob, payload.get("sidecar"))
        folder = source_folder(data, str(payload["source"]))
        write_item(folder, item)
        files.append(folder / item.name)
    return list(dict.fromkeys(files)), missing
