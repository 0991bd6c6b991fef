"""Which version of a source is newer: the ``source_versions`` history that keeps a version read
again (an old inbox file, a copied data dir, an archive re-ingested) from undoing a newer one.

A version is a source's ``content_hash``. The history holds every version ever ingested with the
time it was first seen and its own ``published_at``. An incoming version replaces the stored one
only when it was never seen before and its own date is not earlier; a version seen before and
since replaced is older by definition, whatever order files are read in."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import polars as pl

from analytics.schema import SOURCE_VERSIONS
from warehouse.paths import DataDir
from warehouse.tables import read_table, write_table

TABLE = "source_versions"


@dataclass(frozen=True)
class VersionSplit:
    """Incoming ``sources`` rows, split into those that may replace the stored row and the older
    versions kept out (``stale``)."""

    fresh: pl.DataFrame
    stale: pl.DataFrame


def newest_per_source(incoming: pl.DataFrame) -> pl.DataFrame:
    """One row per ``source_id``: the latest ``published_at``, the last read among equals (a
    file read later in one batch is a later edit only when the record's date does not say
    otherwise)."""
    ordered = incoming.with_row_index("_read").sort(["published_at", "_read"])
    return ordered.unique("source_id", keep="last", maintain_order=True).sort("_read").drop("_read")


def known_versions(data_dir: DataDir, existing: pl.DataFrame) -> pl.DataFrame:
    """The history, with the stored rows' own versions added (a data dir from before the history
    was kept has its current versions known this way)."""
    history = read_table(data_dir, TABLE, SOURCE_VERSIONS)
    current = existing.select(
        "source_id",
        "content_hash",
        "published_at",
        pl.col("ingested_at").alias("first_seen_at"),
    ).cast(SOURCE_VERSIONS)
    return (
        pl.concat([history, current])
        .sort("first_seen_at")
        .unique(["source_id", "content_hash"], keep="first", maintain_order=True)
    )


def split_stale(
    incoming: pl.DataFrame, existing: pl.DataFrame, history: pl.DataFrame
) -> VersionSplit:
    """Keep out each incoming row that is an older version of its stored source: a version seen
    before (other than the stored one), or a new one dated before the stored one."""
    stored = existing.select(
        "source_id",
        pl.col("content_hash").alias("_stored_hash"),
        pl.col("published_at").alias("_stored_published"),
    )
    seen = history.select("source_id", "content_hash", pl.lit(True).alias("_seen"))
    joined = incoming.join(stored, on="source_id", how="left").join(
        seen, on=["source_id", "content_hash"], how="left"
    )
    differs = pl.col("_stored_hash").is_not_null() & (
        pl.col("content_hash") != pl.col("_stored_hash")
    )
    older = differs & (
        pl.col("_seen").fill_null(False) | (pl.col("published_at") < pl.col("_stored_published"))
    )
    columns = incoming.columns
    return VersionSplit(
        fresh=joined.filter(~older).select(columns), stale=joined.filter(older).select(columns)
    )


def record_versions(
    data_dir: DataDir, history: pl.DataFrame, incoming: pl.DataFrame, *, now: datetime
) -> None:
    """Add the incoming versions not seen before to the history (written only when it grows)."""
    fresh = (
        incoming.select("source_id", "content_hash", "published_at")
        .with_columns(pl.lit(now).alias("first_seen_at"))
        .cast(SOURCE_VERSIONS)
        .join(history, on=["source_id", "content_hash"], how="anti")
    )
    stored = read_table(data_dir, TABLE, SOURCE_VERSIONS)
    grown = pl.concat([history, fresh]).sort("source_id", "first_seen_at")
    if fresh.height or grown.height != stored.height:
        write_table(data_dir, TABLE, grown)
