"""The one Dagster resource: where the data dir is and the run's clock.

A run reads the clock once (docs/design.md §7): ``aimi build`` and the admin refresh take the
instant when they start the run and pass it in; a run started any other way (the UI, the schedule,
the sensor) uses the instant Dagster recorded when it created the run. Every asset of the run then
sees the same ``started_at`` (when the snapshot is ``built_at``, when sources were ingested) and
the same ``as_of`` (the trend window and the signal cut-off): the run's own (``--as-of``), else
``AIMI_AS_OF``, else the clock the data dir remembers (``warehouse.clock``), else
``started_at``. Without this, a build straddling Monday 00:00 UTC could cut signals at one
week and compute the trend window of the next.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

import dagster as dg
from pydantic import Field, PrivateAttr

from analytics.embedding import FloatMatrix
from analytics.linking import Linker, Mention
from warehouse import locks
from warehouse.clock import effective_clock
from warehouse.paths import DataDir
from warehouse.settings import DecomposerChoice, load_settings, parse_as_of

# Run tags (docs/dagster.md): who started the run, and the clock and decomposer it ran with.
TRIGGER_TAG = "aimi/trigger"
AS_OF_TAG = "aimi/as_of"
DECOMPOSER_TAG = "aimi/decomposer"
# what started a run that came without a trigger tag, by the tags Dagster gives it
_DAGSTER_TRIGGERS = {"dagster/schedule_name": "schedule", "dagster/sensor_name": "sensor"}


def wall_clock() -> datetime:
    """The wall clock: the only place a build reads it (tests replace it)."""
    return datetime.now(UTC)


@dataclass(frozen=True)
class RunClock:
    """The run's instant, and the ``as_of`` its analytics use (pinned, or the same instant)."""

    started_at: datetime
    as_of: datetime


class LazyEmbedder:
    """The build's MiniLM (``warehouse.build_encoder``: ONNX Runtime, or torch when
    ``AIMI_BUILD_ENCODER=torch``), loaded on first use: a build whose signals are all unchanged
    never loads it. ``themes`` takes theme tagging's encoder instead (``load_theme_encoder``:
    int8 unless ``AIMI_THEME_PRECISION=fp32``).

    ``progress`` names the pass (``decomposition``, ``theme tagging``) on a progress bar over
    each call's batches, shown on a terminal (stderr a TTY) when a call has enough batches for
    one to matter: the analytics stay pure, the asset that passes this embedder decides.
    """

    def __init__(
        self, progress: str | None = None, *, threads: int | None = None, themes: bool = False
    ) -> None:
        self.progress = progress if progress and sys.stderr.isatty() else None
        self.threads = threads
        self.themes = themes

    def __call__(self, texts: Sequence[str]) -> FloatMatrix:
        from warehouse.build_encoder import load_build_encoder, load_theme_encoder

        load = load_theme_encoder if self.themes else load_build_encoder
        encoder = load(threads=self.threads)
        if self.progress is None:
            return encoder(texts)
        return encoder(texts, progress=True, label=self.progress)


class LazyRegistryLinker:
    """The registry's mentions, compiled on first use: only abstractive (LLM) units need them,
    and loading the registry takes a second or two."""

    def __init__(self) -> None:
        self._linker: Linker | None = None

    def find_mentions(self, text: str) -> list[Mention]:
        if self._linker is None:
            from warehouse.registry import load_registry, registry_path

            self._linker = Linker(load_registry(registry_path()))
        return self._linker.find_mentions(text)


class AimiResource(dg.ConfigurableResource):  # type: ignore[type-arg]
    """Data dir and clock for every asset. Empty strings mean: take them from the settings
    (``AIMI_DATA_DIR``, ``AIMI_AS_OF``), else ``./data`` / the run's instant."""

    data_dir: str = ""
    as_of: str = ""
    # the run's instant, ISO 8601, when whoever started the run took it (`aimi build`)
    started_at: str = ""
    # Give every signal the current extractor, even sources ingested before 2026-04-28 that
    # otherwise keep their earlier extraction (docs/api.md §2.3).
    force_reextract: bool = False
    # "llm": the LLM decomposer (AIMI_LLM_BASE_URL, AIMI_LLM_MODEL) for the kinds in
    # AIMI_LLM_KINDS (every kind when unset), the deterministic extractor as its fallback;
    # empty: AIMI_DECOMPOSER
    decomposer: Literal["", "deterministic", "llm"] = ""
    # The per-signal passes (decomposition, theme tagging, unit embeddings) each run as this
    # many chunks, one Dagster step each (`pipelines.chunks`): 1 in-process, one per process
    # under the multiprocess executor (`aimi build --processes N`). The LLM decomposer's pass
    # stays one chunk (its answers are one cache).
    chunks: int = Field(default=1, ge=1)
    # The build encoder's threads per process; 0: AIMI_BUILD_THREADS, else every core.
    threads: int = Field(default=0, ge=0)
    # Set by a launcher that holds the data dir's build lock for the whole run while each step
    # runs in its own process (`aimi build --processes N`): the token it wrote into the lock
    # file. A step then checks that the lock is still held under that token instead of taking
    # it (it would wait for its own launcher).
    lock_token: str = ""

    _clock: RunClock | None = PrivateAttr(default=None)

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        self._clock = self._read_clock(_run_created_at(context))
        if context.instance is not None and context.run is not None:
            # what the run actually used, also on runs launched without tags (the UI's
            # Materialize, the Launchpad): the launcher's tags were a forecast
            trigger = context.run.tags.get(TRIGGER_TAG) or next(
                (name for tag, name in _DAGSTER_TRIGGERS.items() if tag in context.run.tags),
                "ui",
            )
            context.instance.add_run_tags(context.run.run_id, run_tags(self, trigger=trigger))

    @contextlib.contextmanager
    def yield_for_execution(self, context: dg.InitResourceContext) -> Iterator[AimiResource]:
        """A run holds the data dir's build lock throughout, however it was started: a UI,
        schedule or sensor run waits for an `aimi build` (and the other way round) instead of
        publishing over it. `aimi build` and the admin refresh hold it already; it is
        re-entrant within their thread. A sensor's evaluation (no run) only reads the inbox
        and takes no lock: it must not wait for a build to decide whether to start one."""

        def say_waiting() -> None:
            if context.log is not None:
                context.log.info("waiting for the build running on %s to finish", self.data().root)

        def say_lease_waiting(why: str) -> None:
            if context.log is not None:
                context.log.info("waiting: %s", why)

        with contextlib.ExitStack() as held:
            if self.lock_token:
                if not locks.build_lock_held_by(self.data(), self.lock_token):
                    raise dg.Failure(
                        f"the build that started this run no longer holds the build lock of "
                        f"{self.data().root} (nor, with a shared store, its lease there): its "
                        "step runs nothing. Start the build again."
                    )
            elif context.run is not None and not _delivers_only(context.run):
                held.enter_context(
                    locks.build_lock(
                        self.data(), on_wait=say_waiting, on_lease_wait=say_lease_waiting
                    )
                )
            self.setup_for_execution(context)
            try:
                yield self
            finally:
                self.teardown_after_execution(context)

    def data(self) -> DataDir:
        return DataDir.from_env(self.data_dir or None)

    def encoder_threads(self) -> int | None:
        """The build encoder's threads in this run (``None``: the settings decide)."""
        return self.threads or None

    def chosen_decomposer(self) -> DecomposerChoice:
        """The run's decomposer: its own, else ``AIMI_DECOMPOSER``."""
        return self.decomposer or load_settings().decomposer

    def run_clock(self) -> RunClock:
        """The run's clock, decided on first use and the same for every asset after that."""
        if self._clock is None:
            self._clock = self._read_clock(None)
        return self._clock

    def forecast_as_of(self) -> datetime:
        """The ``as_of`` of a run that would start now, without fixing this resource's clock:
        for schedules and sensors, whose resource outlives many evaluations."""
        return self._read_clock(None).as_of

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
        own = parse_as_of(self.as_of) if self.as_of else None
        return RunClock(started, effective_clock(self.data(), own=own).as_of or started)


def run_tags(resource: AimiResource, *, trigger: str) -> dict[str, str]:
    """The tags of a run started by ``trigger`` (``aimi-build``, ``admin-refresh``,
    ``schedule``, ``sensor``, ``ui``) with ``resource``: its ``as_of`` and decomposer. The UI's
    *Runs* page shows them on every run and filters on them (``aimi/trigger=schedule``)."""
    return {
        TRIGGER_TAG: trigger,
        AS_OF_TAG: resource.clock().isoformat(),
        DECOMPOSER_TAG: resource.chosen_decomposer(),
    }


def forecast_tags(resource: AimiResource, *, trigger: str) -> dict[str, str]:
    """``run_tags`` for a run a schedule or sensor requests now: the ``as_of`` such a run would
    use if it started at this instant (the resource's own clock is not fixed by it)."""
    return {
        TRIGGER_TAG: trigger,
        AS_OF_TAG: resource.forecast_as_of().isoformat(),
        DECOMPOSER_TAG: resource.chosen_decomposer(),
    }


def resource_for_run(
    data: DataDir,
    *,
    as_of: datetime | None = None,
    force_reextract: bool = False,
    decomposer: DecomposerChoice | None = None,
) -> AimiResource:
    """The resource for a run started now (`aimi build`, an admin refresh): the wall clock is
    read here, once, and every asset of the run uses that instant."""
    return AimiResource(
        data_dir=str(data.root),
        as_of=as_of.isoformat() if as_of else "",
        started_at=wall_clock().isoformat(),
        force_reextract=force_reextract,
        decomposer=decomposer or "",
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


# The webhook deliveries' job and asset: they read a published snapshot and the watchlists
# (serialized by their own lock), write nothing a build writes, and may wait minutes on a dead
# endpoint: a run of them alone never takes the build lock, so it never delays a build or a
# refresh.
DELIVER_JOB = "deliver_webhooks"
DELIVER_ASSET = "webhook_deliveries"


def _delivers_only(run: dg.DagsterRun) -> bool:
    if run.job_name == DELIVER_JOB:
        return True
    selected = run.asset_selection
    return selected is not None and {key.to_user_string() for key in selected} == {DELIVER_ASSET}
