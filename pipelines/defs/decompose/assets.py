"""The decompose group: ``signals`` (one per source or podcast segment), and the step that
decomposes them, which materializes the five tables it writes: ``units`` (those that passed the
verifier and human review), ``extracted_units``, ``extractions``, ``unit_rejections`` and, when
the LLM decomposer ran, ``llm_answers``."""

# No `from __future__ import annotations`: Dagster reads these annotations at definition time.

from collections.abc import Iterator

import dagster as dg
import polars as pl
from dagster import AssetExecutionContext

from analytics.decompose import CURRENT_EXTRACTION_VERSION
from analytics.llm_units import LlmDecomposer, LlmReport
from analytics.review import HUMAN_REJECTED, Reviewed, apply_reviews
from analytics.schema import EXTRACTIONS, LLM_ANSWERS, SIGNALS, SOURCES, UNIT_REJECTIONS, UNITS
from analytics.segment import TopicSegment, segment_transcript
from analytics.signals import (
    ExtractedRows,
    Extraction,
    ExtractionPlan,
    assemble_extraction,
    decompose_planned,
    plan_extraction,
    signals_from_sources,
)
from analytics.verify import RULES
from pipelines.chunks import Chunk, chunked_pass, fan_out, in_order
from pipelines.defs.ingest.assets import SOURCES_TABLE
from pipelines.llm import CachedLlm, LlmNotConfigured, llm_for_run
from pipelines.metadata import (
    column_schema,
    native_table,
    table_metadata,
    warehouse_table,
    weekly_volume,
    weekly_volume_plot,
)
from pipelines.resources import AimiResource, LazyEmbedder, LazyRegistryLinker
from warehouse.paths import DataDir
from warehouse.reviews import read_reviews
from warehouse.settings import DecomposerChoice, load_settings
from warehouse.tables import drop_parts, read_part, read_table, write_part, write_table

_TEAM = "team:data-engineering"


@dg.asset(
    deps=[SOURCES_TABLE],
    metadata={"dagster/column_schema": column_schema(SIGNALS)},
    group_name="decompose",
    description=(
        "One signal per source, or per chapter segment of a podcast episode, published up to "
        "the build clock (`as_of`), classified as `analysis` or `event`. Its metadata plots "
        "the signals per week over the last 52 weeks."
    ),
    owners=["team:data-engineering"],
    kinds={"polars", "parquet"},
)
def signals(context: AssetExecutionContext, aimi: AimiResource) -> dg.MaterializeResult:  # type: ignore[type-arg]
    data = aimi.data()
    embed = LazyEmbedder("segmentation")

    def segment(text: str, duration_s: int | None) -> list[TopicSegment]:
        return segment_transcript(text, embed, duration_s=duration_s)

    frame = signals_from_sources(
        read_table(data, "sources", SOURCES),
        as_of=aimi.clock(),
        segment=segment,
        previous=read_table(data, "signals", SIGNALS),
    )
    write_table(data, "signals", frame)
    context.log.info("signals: %d (as of %s)", frame.height, aimi.clock().isoformat())
    mix = frame.group_by("kind", "content_type").len().sort("kind", "content_type")
    return dg.MaterializeResult(
        metadata={
            **table_metadata(frame),
            "as_of": aimi.clock().isoformat(),
            "kind_by_content_type": native_table(mix),
            "weekly_volume": dg.MetadataValue.md(
                weekly_volume_plot(weekly_volume(frame["published_at"]), title="signals per week")
            ),
        }
    )


UNITS_TABLE = warehouse_table(
    "units",
    schema=UNITS,
    deps=(signals,),
    group_name="decompose",
    owner=_TEAM,
    description=(
        "Verified units of every signal: its central statement (`thesis` or `synopsis`), "
        "arguments and atomic claims, each with verbatim evidence snippets of at most 50 "
        "characters, from the deterministic extractor or, when the run's `decomposer` is `llm`, "
        "an OpenAI-compatible LLM (answers cached in `llm_answers`; a signal whose answer fails "
        "or does not verify falls back to the deterministic extractor), after a person's "
        "review decisions. Units the verifier refuses go to `unit_rejections` with the rule "
        "that refused them."
    ),
)
EXTRACTED_UNITS_TABLE = warehouse_table(
    "extracted_units",
    schema=UNITS,
    deps=(signals,),
    group_name="decompose",
    owner=_TEAM,
    description=(
        "The units the verifier accepted, before human review (`aimi review`): what the next "
        "build reuses for signals whose content and extractor did not change."
    ),
)
EXTRACTIONS_TABLE = warehouse_table(
    "extractions",
    schema=EXTRACTIONS,
    deps=(signals,),
    group_name="decompose",
    owner=_TEAM,
    description=(
        "Per signal: the content hash its units were extracted from, the extractor version, "
        "and how many units the verifier accepted and refused."
    ),
)
UNIT_REJECTIONS_TABLE = warehouse_table(
    "unit_rejections",
    schema=UNIT_REJECTIONS,
    deps=(signals,),
    group_name="decompose",
    owner=_TEAM,
    description=(
        "Units refused by the verifier (with the rule that refused each) or rejected by a "
        "person; its check watches the rejection rate."
    ),
)
LLM_ANSWERS_TABLE = warehouse_table(
    "llm_answers",
    schema=LLM_ANSWERS,
    deps=(signals,),
    group_name="decompose",
    owner=_TEAM,
    # written only by runs whose decomposer is `llm`
    skippable=True,
    description=(
        "The LLM decomposer's answers, cached per content hash, model and prompt version: "
        "materialized only by runs whose decomposer is `llm`."
    ),
)


_STEP = "units"


def _previous(data: DataDir) -> Extraction:
    return Extraction(
        read_table(data, "extracted_units", UNITS),
        read_table(data, "unit_rejections", UNIT_REJECTIONS).filter(
            pl.col("rule") != HUMAN_REJECTED
        ),
        read_table(data, "extractions", EXTRACTIONS),
        extracted=0,
        reused=0,
    )


def _llm(aimi: AimiResource) -> tuple[LlmDecomposer | None, CachedLlm | None]:
    """The run's LLM decomposer and its answer cache, when its decomposer is ``llm``."""
    if aimi.chosen_decomposer() != "llm":
        return None, None
    try:
        return llm_for_run(
            load_settings(),
            read_table(aimi.data(), "llm_answers", LLM_ANSWERS),
            now=aimi.run_started_at(),
        )
    except LlmNotConfigured as exc:
        raise dg.Failure(str(exc)) from exc


def _plan(aimi: AimiResource, llm: LlmDecomposer | None) -> ExtractionPlan:
    data = aimi.data()
    return plan_extraction(
        read_table(data, "signals", SIGNALS),
        embed=_embedder(aimi),
        previous=_previous(data),
        force=aimi.force_reextract,
        llm=llm,
    )


def _embedder(aimi: AimiResource) -> LazyEmbedder:
    return LazyEmbedder("decomposition", threads=aimi.encoder_threads())


@dg.op(ins={"signals": dg.In(dg.Nothing)}, out=dg.DynamicOut(Chunk))
def plan_units(
    context: dg.OpExecutionContext, aimi: AimiResource
) -> Iterator[dg.DynamicOutput[Chunk]]:
    """Which signals are decomposed, cut into chunks of about equal text (one with the LLM
    decomposer, whose answers are one cache)."""
    llm, _ = _llm(aimi)
    plan = _plan(aimi, llm)
    yield from fan_out(context, "decomposition", plan.weights(), 1 if llm else aimi.chunks)


@dg.op
def decompose_chunk(
    context: dg.OpExecutionContext, aimi: AimiResource, chunk: Chunk
) -> tuple[Chunk, LlmReport]:
    """Decompose one chunk of the plan's signals; its rows are written as parts."""
    data = aimi.data()
    llm, responder = _llm(aimi)
    plan = _plan(aimi, llm)
    rows = decompose_planned(
        plan,
        plan.todo[chunk.start : chunk.end],
        embed=_embedder(aimi),
        llm=llm,
        names=LazyRegistryLinker(),
    )
    for name, frame in (
        ("units", rows.units),
        ("unit_rejections", rows.rejections),
        ("extractions", rows.extractions),
    ):
        write_part(data, context.run_id, _STEP, chunk.position, name, frame)
    if responder is not None:
        write_part(data, context.run_id, _STEP, chunk.position, "llm_answers", responder.answers())
    return chunk, rows.llm


@dg.op(
    out={
        "units": dg.Out(dg.Nothing),
        "extracted_units": dg.Out(dg.Nothing),
        "extractions": dg.Out(dg.Nothing),
        "unit_rejections": dg.Out(dg.Nothing),
        "llm_answers": dg.Out(dg.Nothing, is_required=False),
    }
)
def collect_units(
    context: dg.OpExecutionContext, aimi: AimiResource, done: list[tuple[Chunk, LlmReport]]
) -> Iterator[dg.Output[None]]:
    """The chunks' rows in order, with the kept signals' units: the five tables, and human
    reviews applied."""
    data = aimi.data()
    reports = dict(done)
    chunks = in_order(list(reports))
    llm, _ = _llm(aimi)
    plan = _plan(aimi, llm)
    parts = [
        ExtractedRows(
            _part(data, context.run_id, chunk, "units", UNITS),
            _part(data, context.run_id, chunk, "unit_rejections", UNIT_REJECTIONS),
            _part(data, context.run_id, chunk, "extractions", EXTRACTIONS),
            reports[chunk],
        )
        for chunk in chunks
    ]
    extraction = assemble_extraction(plan, _previous(data), parts)
    decomposer = aimi.chosen_decomposer()
    answers = pl.DataFrame(schema=LLM_ANSWERS)
    if llm is not None:
        # the LLM's pass is one chunk (plan_units): its answers are the whole cache, never
        # to be replaced by nothing
        answers = _part(data, context.run_id, chunks[0], "llm_answers", LLM_ANSWERS)
        write_table(data, "llm_answers", answers)
    write_table(data, "extracted_units", extraction.units)
    write_table(data, "extractions", extraction.extractions)
    reviewed = apply_reviews(extraction.units, read_reviews(data))
    unit_frame = reviewed.units
    rejections = pl.concat([extraction.rejections, reviewed.rejected])
    write_table(data, "units", unit_frame)
    write_table(data, "unit_rejections", rejections)
    drop_parts(data, context.run_id, _STEP)
    context.log.info(
        "units: %d verified, %d rejected; %d signals decomposed, %d unchanged and kept",
        unit_frame.height,
        rejections.height,
        extraction.extracted,
        extraction.reused,
    )
    _warn_fallbacks(context, extraction)
    metadata = _units_metadata(extraction, reviewed, rejections, decomposer, len(chunks))
    yield dg.Output(None, "units", metadata=metadata)
    yield from _table_outputs(extraction, unit_frame, rejections)
    if llm is not None:
        yield dg.Output(None, "llm_answers", metadata=table_metadata(answers))


def _warn_fallbacks(context: dg.OpExecutionContext, extraction: Extraction) -> None:
    for reason, count in extraction.llm.fallback_counts().items():
        if count:
            examples = [s for s, why in extraction.llm.fallbacks if why == reason][:5]
            context.log.warning(
                "LLM decomposer, %s: %d signals got the deterministic extractor's units "
                "instead (e.g. %s)",
                reason,
                count,
                ", ".join(examples),
            )


def _units_metadata(
    extraction: Extraction,
    reviewed: Reviewed,
    rejections: pl.DataFrame,
    decomposer: DecomposerChoice,
    chunks: int,
) -> "dict[str, dg.RawMetadataValue]":  # a name only type checkers see
    unit_frame = reviewed.units
    by_role = unit_frame.group_by("role").len().sort("role")
    metadata: dict[str, dg.RawMetadataValue] = {
        **table_metadata(unit_frame),
        "current_extraction_version": CURRENT_EXTRACTION_VERSION,
        "decomposer": decomposer,
        "signals_decomposed": extraction.extracted,
        "signals_kept": extraction.reused,
        "chunks": chunks,
        "rejected": rejections.height,
        "human_approved": reviewed.approved,
        "by_role": native_table(by_role),
        "llm/signals_decomposed": extraction.llm.decomposed,
        "llm/cache_hits": extraction.llm.cache_hits,
        "llm/requests": extraction.llm.asked,
    }
    # every rule and reason, zeros included, so one that stops firing is visible too
    for rule in (*RULES, HUMAN_REJECTED):
        metadata[f"rejected/{rule}"] = rejections.filter(pl.col("rule") == rule).height
    for reason, count in extraction.llm.fallback_counts().items():
        metadata[f"llm/fallback/{reason}"] = count
    return metadata


def _table_outputs(
    extraction: Extraction, unit_frame: pl.DataFrame, rejections: pl.DataFrame
) -> Iterator[dg.Output[None]]:
    """The outputs of extracted_units, extractions and unit_rejections."""
    yield dg.Output(
        None,
        "extracted_units",
        metadata={
            **table_metadata(extraction.units),
            "human_rejected": rejections.filter(pl.col("rule") == HUMAN_REJECTED).height,
        },
    )
    yield dg.Output(
        None,
        "extractions",
        metadata={
            **table_metadata(extraction.extractions),
            "by_extraction_version": native_table(
                extraction.extractions.group_by("extraction_version")
                .agg(
                    pl.len().alias("signals"),
                    pl.col("units").sum().alias("accepted"),
                    pl.col("rejected").sum(),
                )
                .sort("extraction_version")
            ),
        },
    )
    yield dg.Output(
        None,
        "unit_rejections",
        metadata={
            **table_metadata(rejections),
            "rejection_rate": round(rejection_rate(unit_frame.height, rejections.height), 4),
            "by_rule": native_table(
                rejections.group_by("rule")
                .len("units")
                .sort("units", "rule", descending=[True, False])
            ),
        },
    )


def _part(data: DataDir, run_id: str, chunk: Chunk, name: str, schema: pl.Schema) -> pl.DataFrame:
    frame = read_part(data, run_id, _STEP, chunk.position, name, schema)
    if frame is None:
        raise dg.Failure(f"chunk {chunk.position} of the decomposition wrote no {name} rows")
    return frame


units = chunked_pass(
    name="units",
    group_name="decompose",
    outs=[
        UNITS_TABLE,
        EXTRACTED_UNITS_TABLE,
        EXTRACTIONS_TABLE,
        UNIT_REJECTIONS_TABLE,
        LLM_ANSWERS_TABLE,
    ],
    after=signals.key,
    plan=plan_units,
    chunk=decompose_chunk,
    collect=collect_units,
    description="Decompose new or changed signals into verified units, in chunks; apply human "
    "reviews.",
)


def rejection_rate(accepted: int, rejected: int) -> float:
    """The share of the units drafted that were refused (by the verifier or a person): 0.0
    when nothing was drafted."""
    drafted = accepted + rejected
    return rejected / drafted if drafted else 0.0
