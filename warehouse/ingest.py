"""Ingest: read files through the adapters, validate each record, upsert sources by canonical
URL, and quarantine what cannot be ingested with its file, line and reason."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl
from tqdm import tqdm

from analytics.records import RecordError, SourceRecord, validate_record
from analytics.schema import INGEST_LOG, QUARANTINE, SOURCES
from warehouse.adapters.base import RawRecord
from warehouse.adapters.sidecar import sidecar_candidates
from warehouse.files import file_sha256
from warehouse.paths import DataDir
from warehouse.readers import discover, read_file
from warehouse.tables import read_table, table_exists, write_table
from warehouse.versions import known_versions, newest_per_source, record_versions, split_stale

RAW_KEEP_CHARS = 2_000


@dataclass(frozen=True)
class QuarantinedRecord:
    file: str
    line: int
    field: str | None
    reason: str
    raw: str


@dataclass
class IngestReport:
    files: int = 0
    records: int = 0
    inserted: int = 0
    updated: int = 0
    unchanged: int = 0
    # older versions of stored sources, read again and kept out (warehouse.versions)
    stale: int = 0
    skipped_files: int = 0
    quarantined: list[QuarantinedRecord] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def accepted(self) -> int:
        return self.inserted + self.updated + self.unchanged

    def summary(self) -> str:
        rate = self.records / self.seconds if self.seconds > 0 else 0.0
        return (
            f"{self.files} file(s), {self.records} record(s) in {self.seconds:.1f}s "
            f"({rate:,.0f} records/s): {self.inserted} new, {self.updated} updated, "
            f"{self.unchanged} unchanged, {len(self.quarantined)} quarantined"
            + (f", {self.stale} older version(s) kept out" if self.stale else "")
            + (f", {self.skipped_files} unchanged file(s) skipped" if self.skipped_files else "")
        )


def sources_frame(records: Iterable[tuple[SourceRecord, str]], *, now: datetime) -> pl.DataFrame:
    """Validated records (with their origin ``file:line``) as rows of the ``sources`` table."""
    rows: list[dict[str, Any]] = []
    for record, origin in records:
        rows.append(
            {
                "source_id": record.source_id,
                "kind": record.kind,
                "title": record.title,
                "url": record.url,
                "canonical_url": record.canonical_url,
                "domain": record.domain,
                "published_at": record.published_at,
                "author": record.author,
                "text": record.text,
                "segments": [vars(s) for s in record.segments] or None,
                "extra": json.dumps(record.extra, ensure_ascii=False, sort_keys=True, default=str),
                "content_hash": record.content_hash,
                "origin": origin,
                "first_ingested_at": now,
                "ingested_at": now,
            }
        )
    return pl.DataFrame(rows, schema=SOURCES, orient="row")


def upsert_sources(
    existing: pl.DataFrame, incoming: pl.DataFrame
) -> tuple[pl.DataFrame, int, int, int]:
    """Merge by ``source_id``: new rows are added, changed ones replace the old row (keeping
    ``first_ingested_at``), identical ones leave the table as it was.

    Returns ``(table, inserted, updated, unchanged)``.
    """
    incoming = incoming.unique("source_id", keep="last", maintain_order=True)
    joined = incoming.join(
        existing.select("source_id", "content_hash", "first_ingested_at"),
        on="source_id",
        how="left",
        suffix="_old",
    )
    is_new = pl.col("content_hash_old").is_null()
    is_changed = ~is_new & (pl.col("content_hash") != pl.col("content_hash_old"))
    inserted = joined.filter(is_new).height
    changed = joined.filter(is_changed)
    updated = changed.height
    unchanged = incoming.height - inserted - updated
    replacements = pl.concat(
        [
            joined.filter(is_new).select(SOURCES.names()),
            changed.with_columns(pl.col("first_ingested_at_old").alias("first_ingested_at")).select(
                SOURCES.names()
            ),
        ]
    )
    kept = existing.join(replacements.select("source_id"), on="source_id", how="anti")
    table = pl.concat([kept, replacements]).sort("source_id")
    return table, inserted, updated, unchanged


def _input_digest(path: Path) -> str:
    """The file's checksum, combined with its sidecar's when it has one: editing either makes
    the inbox read the file again."""
    digest = file_sha256(path)
    for candidate in sidecar_candidates(path):
        if candidate.is_file():
            return hashlib.sha256(f"{digest}:{file_sha256(candidate)}".encode()).hexdigest()
    return digest


def unlogged_files(data_dir: DataDir, paths: Sequence[Path]) -> list[Path]:
    """The files under ``paths`` that an ingest would read and that the ingest log does not
    hold with their current bytes (the same test ``skip_unchanged_files`` makes)."""
    files, _ = discover([Path(p) for p in paths])
    seen = set(read_table(data_dir, "ingest_log", INGEST_LOG)["sha256"].to_list())
    return [path for path in files if _input_digest(path) not in seen]


def _logged_path(data_dir: DataDir, path: Path) -> str:
    """Where the file was, relative to the data dir when it is inside it (``inbox/a.jsonl``),
    so the log reads the same after the data dir is copied or moved."""
    resolved = path.resolve()
    try:
        return resolved.relative_to(data_dir.root.resolve()).as_posix()
    except ValueError:
        return str(resolved)


def _merge_sources(
    data_dir: DataDir,
    valid: list[tuple[SourceRecord, str]],
    report: IngestReport,
    now: datetime,
) -> None:
    """Merge the valid records into ``sources`` by canonical URL, an older version never over
    a newer one, and remember the versions seen; counts go into ``report``."""
    existing = read_table(data_dir, "sources", SOURCES)
    history = known_versions(data_dir, existing)
    incoming = sources_frame(valid, now=now)
    split = split_stale(incoming, existing, history)
    report.stale = split.stale.height
    table, report.inserted, report.updated, report.unchanged = upsert_sources(
        existing, newest_per_source(split.fresh)
    )
    if report.inserted or report.updated:
        write_table(data_dir, "sources", table)
    record_versions(data_dir, history, incoming, now=now)


def ingest_paths(
    data_dir: DataDir,
    paths: Sequence[Path],
    *,
    skip_unchanged_files: bool = False,
    progress: bool | None = None,
    now: datetime | None = None,
    reader: Callable[[Path], Iterable[RawRecord]] = read_file,
) -> IngestReport:
    """Ingest files and folders into the warehouse ``sources`` table.

    Every record is validated on its own: a bad one is quarantined (file, line, field, reason)
    and the rest of the batch goes on. Re-ingesting a source updates its row, never duplicates
    it. With ``skip_unchanged_files`` a file whose bytes were ingested before is not re-read
    (the inbox sensor uses this): the test is the bytes' checksum alone, so a copied or moved
    data dir, or a file renamed, is not read again. An older version of a source read again
    never replaces a newer one (``warehouse.versions``). ``progress=None`` shows a bar only on a
    terminal. ``reader`` gives a file's records (the fetcher's reads them while it fetches).
    """
    started = time.perf_counter()
    now = now or datetime.now(UTC)
    report = IngestReport()
    files, problems = discover([Path(p) for p in paths])
    for path, reason in problems:
        report.quarantined.append(QuarantinedRecord(str(path), 0, None, reason, ""))

    log = read_table(data_dir, "ingest_log", INGEST_LOG)
    # by checksum alone: the same bytes hold the same records wherever the file now lives
    seen_files = set(log["sha256"].to_list())
    todo: list[tuple[Path, str]] = []
    for path in files:
        digest = _input_digest(path)
        if skip_unchanged_files and digest in seen_files:
            report.skipped_files += 1
            continue
        todo.append((path, digest))
    report.files = len(todo)

    valid: list[tuple[SourceRecord, str]] = []
    log_rows: list[dict[str, Any]] = []
    total_bytes = sum(path.stat().st_size for path, _ in todo)
    with tqdm(
        total=total_bytes,
        unit="B",
        unit_scale=True,
        desc="ingest",
        disable=progress is False if progress is not None else None,
        leave=False,
    ) as bar:
        for path, digest in todo:
            before = len(report.quarantined)
            count = _read_into(path, report, valid, bar.update, reader)
            log_rows.append(
                {
                    "path": _logged_path(data_dir, path),
                    "sha256": digest,
                    "records": count,
                    "quarantined": len(report.quarantined) - before,
                    "ingested_at": now,
                }
            )

    if valid:
        _merge_sources(data_dir, valid, report, now)
    # written even when empty, so the catalog always has the table docs/warehouse.md lists
    if report.quarantined or not table_exists(data_dir, "quarantine"):
        _append_quarantine(data_dir, report.quarantined, now)
    if log_rows:
        write_table(
            data_dir, "ingest_log", pl.concat([log, pl.DataFrame(log_rows, schema=INGEST_LOG)])
        )
    report.seconds = time.perf_counter() - started
    return report


def _read_into(
    path: Path,
    report: IngestReport,
    valid: list[tuple[SourceRecord, str]],
    advance: Callable[[int], object],
    reader: Callable[[Path], Iterable[RawRecord]] = read_file,
) -> int:
    """Read one file: its valid records appended to ``valid`` with their place, the others
    quarantined in ``report``; ``advance`` gets each record's size. Returns the file's count
    of records."""
    count = 0
    for raw in reader(path):
        advance(raw.size)
        count += 1
        report.records += 1
        if raw.error is not None:
            report.quarantined.append(
                QuarantinedRecord(raw.file, raw.line, None, raw.error, raw.raw[:RAW_KEEP_CHARS])
            )
            continue
        try:
            record = validate_record(raw.data)
        except RecordError as exc:
            report.quarantined.append(
                QuarantinedRecord(
                    raw.file, raw.line, exc.field, exc.message, raw.raw[:RAW_KEEP_CHARS]
                )
            )
            continue
        valid.append((record, f"{raw.file}:{raw.line}"))
    return count


def _append_quarantine(
    data_dir: DataDir, quarantined: Sequence[QuarantinedRecord], now: datetime
) -> None:
    quarantine = read_table(data_dir, "quarantine", QUARANTINE)
    fresh = pl.DataFrame(
        [
            {
                "file": q.file,
                "line": q.line,
                "field": q.field,
                "reason": q.reason,
                "raw": q.raw,
                "quarantined_at": now,
            }
            for q in quarantined
        ],
        schema=QUARANTINE,
        orient="row",
    )
    write_table(data_dir, "quarantine", pl.concat([quarantine, fresh]))
