"""Warehouse tables: Parquet files written atomically, and the DuckDB catalog of views over them."""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path

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
    "change_state",
)


def read_table(data_dir: DataDir, name: str, schema: pl.Schema) -> pl.DataFrame:
    """The table as stored, or an empty frame with its schema when it was never written."""
    path = data_dir.table_path(name)
    if not path.exists():
        return pl.DataFrame(schema=schema)
    frame = pl.read_parquet(path)
    missing = [c for c in schema.names() if c not in frame.columns]
    if missing:
        raise RuntimeError(
            f"{path} lacks columns {missing}: it was written by another version of aimi; "
            "rebuild the data dir (make clean-data) or re-ingest"
        )
    return frame.select(schema.names()).cast(schema)


def write_table(data_dir: DataDir, name: str, frame: pl.DataFrame) -> Path:
    """Replace a warehouse table; the catalog gets a view for it the first time it is written.

    A view is SQL over the file's path, and a write replaces the file at that path, so views
    of tables written before see the new rows without a catalog rebuild.
    """
    path = data_dir.table_path(name)
    is_new = not path.exists() or not data_dir.catalog.exists()
    atomic_write_parquet(frame, path)
    if is_new:
        refresh_catalog(data_dir)
    return path


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def refresh_catalog(data_dir: DataDir) -> Path:
    """Rebuild ``catalog.duckdb``: one view per warehouse table, plus ``served_*`` views over the
    current snapshot's tables.

    The catalog is built in a temporary file and renamed over the old one, so a notebook that
    holds the old catalog open never blocks a build.
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
            for view, path in views:
                con.execute(
                    f"CREATE VIEW {view} AS SELECT * FROM read_parquet({_quote(str(path))})"
                )
        os.replace(tmp, data_dir.catalog)
    finally:
        Path(tmp).unlink(missing_ok=True)
        Path(tmp + ".wal").unlink(missing_ok=True)
    return data_dir.catalog
