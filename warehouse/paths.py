"""Where everything lives inside the data dir (``AIMI_DATA_DIR``)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class DataDir:
    """The layout of one data dir: warehouse tables, catalog, snapshots, inbox, Dagster storage."""

    root: Path

    @classmethod
    def from_env(cls, value: str | os.PathLike[str] | None = None) -> DataDir:
        """``value``, else the settings' data dir (``AIMI_DATA_DIR``, default ``./data``)."""
        if value is None:
            from warehouse.settings import load_settings

            value = load_settings().data_dir
        return cls(Path(value).expanduser().resolve())

    @property
    def warehouse(self) -> Path:
        return self.root / "warehouse"

    @property
    def catalog(self) -> Path:
        return self.root / "catalog.duckdb"

    @property
    def snapshots(self) -> Path:
        return self.root / "snapshots"

    @property
    def current_pointer(self) -> Path:
        return self.snapshots / "CURRENT"

    @property
    def build_record(self) -> Path:
        """The last build's or refresh's outcome and checks (``warehouse.build_record``)."""
        return self.root / "last_build.json"

    @property
    def clock_file(self) -> Path:
        """The pinned clock every run keeps (``warehouse.clock``); absent: the wall clock."""
        return self.root / "clock.json"

    @property
    def staged_pointer(self) -> Path:
        """Names the snapshot written last and not necessarily published yet: its checks and
        the static site read it before ``CURRENT`` moves."""
        return self.snapshots / "STAGED"

    @property
    def inbox(self) -> Path:
        return self.root / "inbox"

    @property
    def demo(self) -> Path:
        return self.root / "demo"

    @property
    def dagster_home(self) -> Path:
        return self.root / "dagster"

    @property
    def keys_file(self) -> Path:
        return self.root / "keys.json"

    @property
    def watch_dir(self) -> Path:
        """Watchlists, their delivery state, outbox and log (``aimi watch``)."""
        return self.root / "watch"

    @property
    def build_lock(self) -> Path:
        """Held by whatever materializes and publishes (`aimi build`, an admin refresh)."""
        return self.root / "build.lock"

    @property
    def reviews_file(self) -> Path:
        return self.root / "reviews.jsonl"

    @property
    def entity_reviews_file(self) -> Path:
        """Decisions on discovered entity names (``aimi entities review``)."""
        return self.root / "entity_reviews.jsonl"

    @property
    def dev_key_file(self) -> Path:
        return self.root / ".dev-api-key"

    def table_path(self, name: str) -> Path:
        return self.warehouse / f"{name}.parquet"
