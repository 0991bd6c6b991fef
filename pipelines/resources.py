"""The one Dagster resource: where the data dir is and what the build's clock says."""

from __future__ import annotations

import os
from datetime import UTC, datetime

import dagster as dg

from analytics.records import RecordError, parse_timestamp
from warehouse.paths import DataDir


def parse_as_of(value: str) -> datetime:
    """``--as-of`` / ``AIMI_AS_OF``: an ISO 8601 date or date-time, UTC when no offset is given."""
    try:
        return parse_timestamp(value)
    except RecordError:
        raise ValueError(
            f"as_of {value!r} is not an ISO 8601 date or date-time (e.g. 2026-01-01)"
        ) from None


class AimiResource(dg.ConfigurableResource):  # type: ignore[type-arg]
    """Data dir and clock for every asset. Empty strings mean: take ``AIMI_DATA_DIR`` /
    ``AIMI_AS_OF`` from the environment, else ``./data`` / the wall clock."""

    data_dir: str = ""
    as_of: str = ""

    def data(self) -> DataDir:
        return DataDir.from_env(self.data_dir or None)

    def clock(self) -> datetime:
        value = self.as_of or os.environ.get("AIMI_AS_OF", "")
        return parse_as_of(value) if value else datetime.now(UTC)
