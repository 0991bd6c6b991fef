"""The one Dagster resource: where the data dir is and the run's clock.

A run reads the clock once (DESIGN §7): ``aimi build`` and the admin refresh take the instant
when they start the run and pass it in; a run started any other way (the UI, the schedule, the
sensor) uses the instant Dagster recorded when it created the run. Every asset of the run then
sees the same ``started_at`` (when the snapshot is ``built_at``, when sources were ingested) and
the same ``as_of`` (the trend window and the signal cut-off): the pinned clock when one is set,
else ``started_at``. Without this, a build straddling Monday 00:00 UTC could cut signals at one
week and compute the trend window of the next.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import dagster as dg
from pydantic import PrivateAttr

from analytics.embedding import FloatMatrix
from warehouse.paths import DataDir
from warehouse.settings import load_settings, parse_as_of


def wall_clock() -> datetime:
    """The wall clock: the only place a build reads it (tests replace it)."""
    return datetime.now(UTC)


@dataclass(frozen=True)
class RunClock:
    """The run's instant, and the ``as_of`` its analytics use (pinned, or the same instant)."""

    started_at: datetime
    as_of: datetime


class LazyEmbedder:
    """MiniLM, loaded on first use: a build whose signals are all unchanged never loads it."""

    def __call__(self, texts: Sequence[str]) -> FloatMatrix:
        from warehouse.embeddings import load_minilm

        return load_minilm()(texts)


class AimiResource(dg.ConfigurableResource):  # type: ignore[type-arg]
    """Data dir and clock for every asset. Empty strings mean: take them from the settings
    (``AIMI_DATA_DIR``, ``AIMI_AS_OF``), else ``./data`` / the run's instant."""

    data_dir: str = ""
    as_of: str = ""
    # the run's instant, ISO 8601, when whoever started the run took it (`aimi build`)
    started_at: str = ""
    # Give every signal the current extractor, even sources ingested before 2026-04-28 that
    # otherwise keep their earlier extraction (spec §2.3).
    force_reextract: bool = False

    _clock: RunClock | None = PrivateAttr(default=None)

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        self._clock = self._read_clock(_run_created_at(context))

    def data(self) -> DataDir:
        return DataDir.from_env(self.data_dir or None)

    def run_clock(self) -> RunClock:
        """The run's clock, decided on first use and the same for every asset after that."""
        if self._clock is None:
            self._clock = self._read_clock(None)
        return self._clock

    def clock(self) -> datetime:
        """The run's ``as_of``: the trend window's reference and the signal cut-off."""
        return self.run_clock().as_of

    def run_started_at(self) -> datetime:
        """The run's instant: the snapshot's ``built_at``, the ingest time of new sources."""
        return self.run_clock().started_at

    def _read_clock(self, run_created_at: datetime | None) -> RunClock:
        if self.started_at:
            started = parse_as_of(self.started_at)
        else:
            started = run_created_at or wall_clock()
        if self.as_of:
            return RunClock(started, parse_as_of(self.as_of))
        pinned = load_settings().as_of
        return RunClock(started, pinned or started)


def resource_for_run(
    data: DataDir, *, as_of: datetime | None = None, force_reextract: bool = False
) -> AimiResource:
    """The resource for a run started now (`aimi build`, an admin refresh): the wall clock is
    read here, once, and every asset of the run uses that instant."""
    return AimiResource(
        data_dir=str(data.root),
        as_of=as_of.isoformat() if as_of else "",
        started_at=wall_clock().isoformat(),
        force_reextract=force_reextract,
    )


def _run_created_at(context: dg.InitResourceContext) -> datetime | None:
    """When Dagster created the run, from its run storage (the same for every step process)."""
    if context.instance is None or context.run is None:
        return None
    record = context.instance.get_run_record_by_id(context.run.run_id)
    if record is None:
        return None
    created = record.create_timestamp
    # SQLite run storage keeps naive UTC timestamps
    return created.replace(tzinfo=UTC) if created.tzinfo is None else created.astimezone(UTC)
