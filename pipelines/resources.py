"""The one Dagster resource: where the data dir is and what the build's clock says."""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import UTC, datetime

import dagster as dg

from analytics.embedding import FloatMatrix
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


class LazyEmbedder:
    """MiniLM, loaded on first use: a build whose signals are all unchanged never loads it."""

    def __call__(self, texts: Sequence[str]) -> FloatMatrix:
        from warehouse.embeddings import load_minilm

        return load_minilm()(texts)


class AimiResource(dg.ConfigurableResource):  # type: ignore[type-arg]
    """Data dir and clock for every asset. Empty strings mean: take ``AIMI_DATA_DIR`` /
    ``AIMI_AS_OF`` from the environment, else ``./data`` / the wall clock."""

    data_dir: str = ""
    as_of: str = ""
    # Give every signal the current extractor, even sources ingested before 2026-04-28 that
    # otherwise keep their earlier extraction (spec §2.3).
    force_reextract: bool = False

    def data(self) -> DataDir:
        return DataDir.from_env(self.data_dir or None)

    def clock(self) -> datetime:
        value = self.as_of or os.environ.get("AIMI_AS_OF", "")
        return parse_as_of(value) if value else datetime.now(UTC)
