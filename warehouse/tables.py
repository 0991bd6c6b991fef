"""Warehouse tables: Parquet files written atomically, and the DuckDB catalog of views over them.

The tables live in ``<data dir>/warehouse``, or under an S3-compatible prefix when
``AIMI_WAREHOUSE_URL`` is set (``s3://bucket/prefix``: ``<prefix>/warehouse/<name>.parquet``),
so that build steps on several machines share one warehouse. A write replaces the whole object
(S3 makes a PUT visible whole or not at all, as the local rename does). The DuckDB catalog
covers a local warehouse only."""

from __future__ import annotations

import contextlib
import io
import logging
import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import duckdb
import polars as pl

from warehouse.files import atomic_write_parquet
from warehouse.paths import DataDir
from warehouse.snapshot import current_snapshot_dir

log = logging.getLogger(__name__)

# Every warehouse table, in the order the catalog lists them.
TABLE_NAMES = (
    "sources",
    "quarantine",
    "ingest_log",
    "source_versions",
    "signals",
    "extractions",
    "llm_answers",
    "extracted_units",
    "units",
    "unit_rejections",
    "entities",
    "signal_entities",
    "unit_entities",
    "signal_themes",
    "unit_embeddings",
    "entity_trends",
    "entity_weekly_counts",
    "entity_cooccurrence",
    "entity_tag_mix",
    "entity_profiles",
    "theme_trends",
    "theme_weekly_counts",
    "theme_cooccurrence",
    "theme_profiles",
    "stories",
    "claim_links",
    "change_state",
)


class TableStore(Protocol):
    """Where a warehouse's files are: names are relative (``signals.parquet``, ``.parts/…``)."""

    def describe(self, relative: str) -> str: ...
    def exists(self, relative: str) -> bool: ...
    def read(self, relative: str) -> pl.DataFrame | None: ...
    def write(self, relative: str, frame: pl.DataFrame) -> None: ...
    def remove_folder(self, relative: str) -> None: ...


@dataclass(frozen=True)
class LocalTables:
    """The data dir's ``warehouse/`` folder."""

    root: Path

    def describe(self, relative: str) -> str:
        return str(self.root / relative)

    def exists(self, relative: str) -> bool:
        return (self.root / relative).exists()

    def read(self, relative: str) -> pl.DataFrame | None:
        path = self.root / relative
        return pl.read_parquet(path) if path.exists() else None

    def write(self, relative: str, frame: pl.DataFrame) -> None:
        atomic_write_parquet(frame, self.root / relative)

    def remove_folder(self, relative: str) -> None:
        folder = self.root / relative
        if folder.is_dir():
            for path in folder.iterdir():
                path.unlink(missing_ok=True)
            folder.rmdir()
        with contextlib.suppress(OSError):
            folder.parent.rmdir()


class S3Tables:
    """``<prefix>/warehouse/`` in an S3-compatible bucket, through the snapshot store's boto3
    client and configuration (``AWS_*``, ``AWS_ENDPOINT_URL_S3``)."""

    def __init__(self, url: str, *, client: Any | None = None) -> None:
        from warehouse.settings import split_s3_url

        self.url = url
        self.bucket, prefix = split_s3_url(url)
        self.prefix = f"{prefix}/warehouse" if prefix else "warehouse"
        if client is None:
            import boto3

            client = boto3.client("s3")
        self.client = client

    def _key(self, relative: str) -> str:
        return f"{self.prefix}/{relative}"

    def describe(self, relative: str) -> str:
        return f"s3://{self.bucket}/{self._key(relative)}"

    def exists(self, relative: str) -> bool:
        return self._get(relative) is not None

    def _get(self, relative: str) -> bytes | None:
        from botocore.exceptions import ClientError

        try:
            answer = self.client.get_object(Bucket=self.bucket, Key=self._key(relative))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                return None
            raise
        body: bytes = answer["Body"].read()
        return body

    def read(self, relative: str) -> pl.DataFrame | None:
        body = self._get(relative)
        return None if body is None else pl.read_parquet(io.BytesIO(body))

    def write(self, relative: str, frame: pl.DataFrame) -> None:
        buffer = io.BytesIO()
        frame.write_parquet(buffer, compression="zstd", statistics=True)
        self.client.put_object(Bucket=self.bucket, Key=self._key(relative), Body=buffer.getvalue())

    def remove_folder(self, relative: str) -> None:
        paginator = self.client.get_paginator("list_objects_v2")
        for page in paginator.paginate(Bucket=self.bucket, Prefix=self._key(relative) + "/"):
            keys = [{"Key": item["Key"]} for item in page.get("Contents", [])]
            if keys:
                self.client.delete_objects(Bucket=self.bucket, Delete={"Objects": keys})


@lru_cache(maxsize=8)
def _s3_tables(url: str) -> S3Tables:
    return S3Tables(url)


def table_store(data_dir: DataDir) -> TableStore:
    """The warehouse of this data dir: ``AIMI_WAREHOUSE_URL`` when set, else its folder."""
    from warehouse.settings import load_settings

    url = load_settings().warehouse_url
    return _s3_tables(url) if url else LocalTables(data_dir.warehouse)


def _table_file(name: str) -> str:
    return f"{name}.parquet"


def table_exists(data_dir: DataDir, name: str) -> bool:
    """Whether the warehouse table ``name`` was ever written."""
    return table_store(data_dir).exists(_table_file(name))


def read_stored(data_dir: DataDir, name: str) -> pl.DataFrame:
    """The table as stored, every column it has (``FileNotFoundError`` when never written)."""
    store = table_store(data_dir)
    frame = store.read(_table_file(name))
    if frame is None:
        raise FileNotFoundError(f"{store.describe(_table_file(name))} was never written")
    return frame


def read_table(data_dir: DataDir, name: str, schema: pl.Schema) -> pl.DataFrame:
    """The table as stored, or an empty frame with its schema when it was never written."""
    store = table_store(data_dir)
    frame = store.read(_table_file(name))
    if frame is None:
        return pl.DataFrame(schema=schema)
    missing = [c for c in schema.names() if c not in frame.columns]
    if missing:
        raise RuntimeError(
            f"{store.describe(_table_file(name))} lacks columns {missing}: it was written by "
            "another version of aimi; rebuild the data dir (make clean-data) or re-ingest"
        )
    return frame.select(schema.names()).cast(schema)


def write_table(data_dir: DataDir, name: str, frame: pl.DataFrame) -> str:
    """Replace a warehouse table (returns where it is); the catalog gets a view for it the
    first time it is written.

    A view is SQL over the file's path, and a write replaces the file at that path, so views
    of tables written before see the new rows without a catalog rebuild.
    """
    store = table_store(data_dir)
    if not isinstance(store, LocalTables):
        store.write(_table_file(name), frame)
        return store.describe(_table_file(name))
    path = data_dir.table_path(name)
    is_new = not path.exists() or not data_dir.catalog.exists()
    atomic_write_parquet(frame, path)
    if is_new and not _is_deferred(data_dir):
        refresh_catalog(data_dir)
    return str(path)


# Data dirs (resolved roots) whose catalog is refreshed once, when a run in this process ends.
_deferred: dict[Path, int] = {}
_deferred_lock = threading.Lock()


def _is_deferred(data_dir: DataDir) -> bool:
    with _deferred_lock:
        return data_dir.root.resolve() in _deferred


@contextmanager
def catalog_refreshed_at_the_end(data_dir: DataDir) -> Iterator[None]:
    """Within it, ``write_table`` adds no views for new tables; one refresh at the end (after a
    failure too) adds them all. A cold build writes some twenty new tables, and a refresh
    rebuilds every view: one at the end instead of one per new table. When the block failed, a
    refresh that fails too (the disk is full) is logged, never raised over the block's error."""
    root = data_dir.root.resolve()
    with _deferred_lock:
        _deferred[root] = _deferred.get(root, 0) + 1
    try:
        yield
    except BaseException:
        _stop_deferring(root)
        if data_dir.root.is_dir():
            try:
                refresh_catalog(data_dir)
            except (OSError, duckdb.Error) as exc:
                log.warning("catalog not refreshed after the failure: %s", exc)
        raise
    _stop_deferring(root)
    if data_dir.root.is_dir():
        refresh_catalog(data_dir)


def _stop_deferring(root: Path) -> None:
    with _deferred_lock:
        _deferred[root] -= 1
        if not _deferred[root]:
            del _deferred[root]


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _search_path(data_dir: DataDir) -> str:
    """The ``SET file_search_path`` statement that resolves the catalog's relative paths."""
    return f"SET file_search_path = {_quote(str(data_dir.root.resolve()))}"


def _relative(path: Path, root: Path) -> str:
    """``path`` relative to the data dir when it is inside it (it always is, unless a snapshot
    folder was linked in from elsewhere), else absolute."""
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path.resolve())


def open_catalog(data_dir: DataDir) -> duckdb.DuckDBPyConnection:
    """``catalog.duckdb`` opened read-only, with its relative paths resolved against the data
    dir (wherever it is now: a copied or moved data dir works without a rebuild) and times
    shown in UTC, as the warehouse stores them."""
    con = duckdb.connect(str(data_dir.catalog), read_only=True)
    con.execute(_search_path(data_dir))
    con.execute("SET TimeZone = 'UTC'")
    return con


def refresh_catalog(data_dir: DataDir) -> Path:
    """Rebuild ``catalog.duckdb``: one view per warehouse table, plus ``served_*`` views over the
    current snapshot's tables.

    Views name their Parquet files relative to the data dir (``warehouse/signals.parquet``), so
    a copied data dir needs no rebuild: open it with ``open_catalog``, or ``SET
    file_search_path`` to the data dir (DuckDB otherwise resolves them against the working
    directory). The catalog is built in a temporary file and renamed over the old one, so a
    notebook that holds the old catalog open never blocks a build.
    """
    data_dir.root.mkdir(parents=True, exist_ok=True)
    views: list[tuple[str, Path]] = []
    for name in TABLE_NAMES:
        path = data_dir.table_path(name)
        if path.exists():
            views.append((name, path))
    snapshot = current_snapshot_dir(data_dir)
    if snapshot is not None:
        for table in sorted(snapshot.glob("*.parquet")):
            views.append((f"served_{table.stem}", table))
    fd, tmp = tempfile.mkstemp(prefix=".catalog-", suffix=".duckdb", dir=data_dir.root)
    os.close(fd)
    Path(tmp).unlink()  # duckdb creates the file itself
    try:
        with duckdb.connect(tmp) as con:
            con.execute(_search_path(data_dir))  # a view's file is read when it is created
            for view, path in views:
                relative = _quote(_relative(path, data_dir.root))
                con.execute(f"CREATE VIEW {view} AS SELECT * FROM read_parquet({relative})")
        os.replace(tmp, data_dir.catalog)
    finally:
        Path(tmp).unlink(missing_ok=True)
        Path(tmp + ".wal").unlink(missing_ok=True)
    return data_dir.catalog


# A pass split into chunks (docs/design.md §7) writes each chunk's rows here, under the run
# and the step, for the step that collects them; that step removes the folder.
PARTS_FOLDER = ".parts"


def _part(run_id: str, step: str, chunk: int, name: str) -> str:
    return f"{PARTS_FOLDER}/{run_id}/{step}/{chunk:04d}-{name}.parquet"


def write_part(
    data_dir: DataDir, run_id: str, step: str, chunk: int, name: str, frame: pl.DataFrame
) -> None:
    """One chunk's rows of table ``name``, for the step of run ``run_id`` that collects them."""
    table_store(data_dir).write(_part(run_id, step, chunk, name), frame)


def read_part(
    data_dir: DataDir, run_id: str, step: str, chunk: int, name: str, schema: pl.Schema
) -> pl.DataFrame | None:
    """A chunk's rows written by ``write_part`` (``None`` when that chunk wrote none)."""
    frame = table_store(data_dir).read(_part(run_id, step, chunk, name))
    return None if frame is None else frame.select(schema.names()).cast(schema)


def drop_parts(data_dir: DataDir, run_id: str, step: str) -> None:
    """Remove a collected step's parts (and the run's folder once it is empty)."""
    table_store(data_dir).remove_folder(f"{PARTS_FOLDER}/{run_id}/{step}")
