"""Publishing a build: number what changed for the feed, then switch to a new snapshot.

Shared by the ``snapshot`` asset and anything else that publishes (tests, admin refresh), so
change numbering can never be skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import polars as pl

from analytics.changes import assign_change_seqs
from analytics.schema import CHANGE_STATE
from warehouse.locks import publish_lock
from warehouse.paths import DataDir
from warehouse.snapshot import OpenedSnapshot, publish_snapshot
from warehouse.tables import read_table, refresh_catalog, write_table


@dataclass(frozen=True)
class Published:
    snapshot: OpenedSnapshot
    served: pl.DataFrame
    changed: int


def publish_served(
    data: DataDir,
    rendered: pl.DataFrame,
    units: pl.DataFrame,
    *,
    as_of: datetime,
    built_at: datetime,
    extra_tables: Mapping[str, pl.DataFrame] | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> Published:
    """Give new and changed signals their ``change_seq``, save the numbering, publish.

    Numbers are saved before the snapshot goes live: a failed publish leaves a gap in the
    sequence, never a number given out twice. The lock keeps two builds from interleaving.
    """
    with publish_lock(data):
        sequenced = assign_change_seqs(
            rendered, read_table(data, "change_state", CHANGE_STATE), now=built_at
        )
        write_table(data, "change_state", sequenced.state)
        opened = publish_snapshot(
            data,
            {"signals": sequenced.served, "units": units, **(extra_tables or {})},
            as_of=as_of,
            built_at=built_at,
            metadata={**(metadata or {}), "changed_signals": sequenced.changed},
        )
        refresh_catalog(data)
    return Published(opened, sequenced.served, sequenced.changed)
