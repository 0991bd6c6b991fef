"""Publishing a build: number what changed for the feed and stage a new snapshot; write the
static JSON tree and site into it; then switch ``CURRENT`` to it.

Shared by the ``snapshot`` and ``static_site`` assets and anything else that publishes (tests),
so change numbering can never be skipped and the site is always written before readers see
the snapshot.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from analytics.changes import assign_change_seqs
from analytics.embedding import EMBEDDING_DIM
from analytics.schema import CHANGE_STATE
from publishing.static.build import StaticSiteError, write_static
from retrieval.index import build_search_files
from warehouse.lease import LeaseLost, ensure_held
from warehouse.locks import build_lock_held_by, publish_lock
from warehouse.object_store import open_object_store
from warehouse.paths import DataDir
from warehouse.settings import load_settings
from warehouse.snapshot import (
    OpenedSnapshot,
    SnapshotError,
    add_files,
    current_snapshot_dir,
    open_current,
    remove_dead_staging,
    stage_snapshot,
    switch_current,
)
from warehouse.tables import read_table, refresh_catalog, write_table


@dataclass(frozen=True)
class SearchInput:
    """The snapshot's search rows (SEARCH_UNITS) and their vectors, row for row; the complete
    text of each of their signals (``signal_id``, ``text``; None: the units' texts stand for
    it, as for a copy of a snapshot's tables) and where each unit lies in it (``unit_id``,
    ``start_char``, ``end_char``: UNITS' columns)."""

    units: pl.DataFrame
    vectors: npt.NDArray[np.float32]
    sources: pl.DataFrame | None = None
    unit_spans: pl.DataFrame | None = None

    def write(self, folder: Path) -> dict[str, Any]:
        return {
            "search": build_search_files(
                folder,
                self.units,
                self.vectors,
                sources=self.sources,
                unit_spans=self.unit_spans,
            )
        }

    def in_unit_id_order(self) -> SearchInput:
        """The same rows, vectors with them, sorted by ``unit_id``: how a snapshot stores them,
        so that a server opening it finds a row's tie-break rank in its position and an id's
        row by bisection, instead of sorting a million ids on every open."""
        if self.units["unit_id"].is_sorted():
            return self
        order = self.units["unit_id"].arg_sort()
        return SearchInput(
            self.units[order], self.vectors[order.to_numpy()], self.sources, self.unit_spans
        )

    @classmethod
    def from_embeddings(
        cls,
        units: pl.DataFrame,
        embeddings: pl.DataFrame,
        sources: pl.DataFrame | None = None,
        unit_spans: pl.DataFrame | None = None,
    ) -> SearchInput:
        """Align the UNIT_EMBEDDINGS rows to ``units``; every unit must have its vector."""
        joined = units.select("unit_id").join(embeddings, on="unit_id", how="left")
        missing = joined["vector"].null_count()
        if missing:
            raise ValueError(
                f"{missing} search units have no embedding; materialize unit_embeddings"
            )
        # the dimension is spelled out: -1 cannot be inferred when there are no units yet
        vectors = (
            joined["vector"].to_numpy().astype(np.float32).reshape(units.height, EMBEDDING_DIM)
        )
        return cls(units, vectors, sources, unit_spans)


@dataclass(frozen=True)
class Published:
    snapshot: OpenedSnapshot
    served: pl.DataFrame
    changed: int


def stage_served(
    data: DataDir,
    rendered: pl.DataFrame,
    units: pl.DataFrame,
    *,
    as_of: datetime,
    built_at: datetime,
    extra_tables: Mapping[str, pl.DataFrame] | None = None,
    metadata: Mapping[str, Any] | None = None,
    search: SearchInput | None = None,
) -> Published:
    """Give new and changed signals their ``change_seq``, save the numbering, stage the
    snapshot (``publish_staged`` makes it current).

    Numbers are saved before the snapshot goes live: a failed publish leaves a gap in the
    sequence, never a number given out twice. The lock keeps two builds from interleaving.
    """
    with publish_lock(data):
        remove_dead_staging(data)  # a build killed while it staged left its folder
        sequenced = assign_change_seqs(
            rendered, read_table(data, "change_state", CHANGE_STATE), now=built_at
        )
        write_table(data, "change_state", sequenced.state)
        tables = {"signals": sequenced.served, "units": units, **(extra_tables or {})}
        writer = None
        if search is not None:
            search = search.in_unit_id_order()
            tables["search_units"] = search.units
            writer = search.write
        opened = stage_snapshot(
            data,
            tables,
            as_of=as_of,
            built_at=built_at,
            metadata={**(metadata or {}), "changed_signals": sequenced.changed},
            write_files=writer,
        )
    return Published(opened, sequenced.served, sequenced.changed)


def publish_served(
    data: DataDir,
    rendered: pl.DataFrame,
    units: pl.DataFrame,
    *,
    as_of: datetime,
    built_at: datetime,
    extra_tables: Mapping[str, pl.DataFrame] | None = None,
    search: SearchInput | None = None,
) -> Published:
    """``stage_served`` and switch ``CURRENT`` at once, with no static site: for callers that
    publish serving tables alone (the API tests' small snapshots, edited copies of one)."""
    published = stage_served(
        data,
        rendered,
        units,
        as_of=as_of,
        built_at=built_at,
        extra_tables=extra_tables,
        search=search,
    )
    with publish_lock(data):
        _switch_everywhere(data, published.snapshot)
        refresh_catalog(data)
    return published


def write_static_site(folder: Path, previous: Path | None = None) -> dict[str, Any]:
    """Write the static JSON tree and the market-pulse site into the snapshot ``folder``,
    hard-linking what did not change from the site of ``previous`` (a snapshot folder), through
    the service functions the API answers with (``publishing.static``). Returns the report
    (pages, files, bytes)."""
    try:
        report = write_static(folder, previous)
    except (StaticSiteError, SnapshotError) as exc:
        raise RuntimeError(f"the static site for {folder.name} failed: {exc}") from exc
    return {"static_site": report.to_json()}


def publish_staged(
    data: DataDir, staged: OpenedSnapshot, *, lock_token: str = ""
) -> OpenedSnapshot:
    """Seal the static JSON tree and site into the staged snapshot, switch ``CURRENT`` to it
    and refresh the catalog's ``served_*`` views. What did not change since the current
    snapshot's site is linked from it, not written again.

    A build that lost the build lease to another machine's build publishes nothing
    (``LeaseLost``): the leases this process holds are renewed first, and a step of a
    multiprocess run (``lock_token``, its launcher's) checks its launcher still holds it."""
    with publish_lock(data):
        ensure_held()
        if lock_token and not build_lock_held_by(data, lock_token):
            raise LeaseLost(
                "the build that started this run no longer holds the build lock (or its "
                "lease): it publishes nothing. Run it again."
            )
        previous = current_snapshot_dir(data)
        # unverified: its entries are only reused for files that are the same inode, and the
        # new snapshot is verified whole; a manifest that cannot be read links nothing
        try:
            linked_from = open_current(data, verify=False)
        except (SnapshotError, OSError):
            linked_from = None
        opened = add_files(
            data,
            staged,
            partial(write_static_site, previous=previous),
            linked_from=linked_from,
        )
        _switch_everywhere(data, opened)
        refresh_catalog(data)
    return opened


def _switch_everywhere(data: DataDir, opened: OpenedSnapshot) -> None:
    """Publish ``opened`` on the object store (with ``AIMI_SNAPSHOT_STORE``), then here: the
    upload first (a failed one publishes nowhere), then the store's ``CURRENT`` (the replicas
    follow it), the local ``CURRENT`` last. In the other order a server on this data dir that
    follows the store could poll between the two switches and move this data dir back to the
    store's older snapshot."""
    store = open_object_store(load_settings().snapshot_store)
    if store is not None:
        store.upload(opened)
        store.set_current(opened.snapshot_id)
    switch_current(data, opened)
