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
from analytics.review import HUMAN_REJECTED, apply_reviews
from analytics.schema import EXTRACTIONS, LLM_ANSWERS, SIGNALS, SOURCES, UNIT_REJECTIONS, UNITS
from analytics.segment import TopicSegment, segment_transcript
from analytics.signals import Extraction, extract_units, signals_from_sources
from analytics.verify import RULES
from pipelines.defs.ingest.assets import SOURCES_TABLE
from pipelines.llm import LlmNotConfigured, llm_for_run
from pipelines.metadata import (
    column_schema,
    native_table,
    table_metadata,
    warehouse_table,
    weekly_volume,
    weekly_volume_plot,
)
from pipelines.resources import AimiResource, LazyEmbedder, LazyRegistryLinker
from warehouse.reviews import read_reviews
from warehouse.settings import load_settings
from warehouse.tables import read_table, write_table

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


@dg.multi_asset(
    name="units",
    specs=[
        UNITS_TABLE,
        EXTRACTED_UNITS_TABLE,
        EXTRACTIONS_TABLE,
        UNIT_REJECTIONS_TABLE,
        LLM_ANSWERS_TABLE,
    ],
    description="Decompose new or changed signals into verified units; apply human reviews.",
)
def units(context: AssetExecutionContext, aimi: AimiResource) -> Iterator[dg.MaterializeResult]:  # type: ignore[type-arg]
    data = aimi.data()
    previous = Extraction(
        read_table(data, "extracted_units", UNITS),
        read_table(data, "unit_rejections", UNIT_REJECTIONS).filter(
            pl.col("rule") != HUMAN_REJECTED
        ),
        read_table(data, "extractions", EXTRACTIONS),
        extracted=0,
        reused=0,
    )
    decomposer = aimi.chosen_decomposer()
    llm, responder = None, None
    if decomposer == "llm":
        try:
            llm, responder = llm_for_run(
                load_settings(),
                read_table(data, "llm_answers", LLM_ANSWERS),
                now=aimi.run_started_at(),
            )
        except LlmNotConfigured as exc:
            raise dg.Failure(str(exc)) from exc
    extraction = extract_units(
        read_table(data, "signals", SIGNALS),
        embed=LazyEmbedder("decomposition"),
        previous=previous,
        force=aimi.force_reextract,
        llm=llm,
        names=LazyRegistryLinker(),
    )
    answers = pl.DataFrame(schema=LLM_ANSWERS)
    if responder is not None:
        answers = responder.answers()
        write_table(data, "llm_answers", answers)
    write_table(data, "extracted_units", extraction.units)
    write_table(data, "extractions", extraction.extractions)
    reviewed = apply_reviews(extraction.units, read_reviews(data))
    unit_frame = reviewed.units
    rejections = pl.concat([extraction.rejections, reviewed.rejected])
    write_table(data, "units", unit_frame)
    write_table(data, "unit_rejections", rejections)
    context.log.info(
        "units: %d verified, %d rejected; %d signals decomposed, %d unchanged and kept",
        unit_frame.height,
        rejections.height,
        extraction.extracted,
        extraction.reused,
    )
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
    by_role = unit_frame.group_by("role").len().sort("role")
    metadata: dict[str, dg.RawMetadataValue] = {
        **table_metadata(unit_frame),
        "current_extraction_version": CURRENT_EXTRACTION_VERSION,
        "decomposer": decomposer,
        "signals_decomposed": extraction.extracted,
        "signals_kept": extraction.reused,
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
    yield dg.MaterializeResult(asset_key=UNITS_TABLE.key, metadata=metadata)
    yield dg.MaterializeResult(
        asset_key=EXTRACTED_UNITS_TABLE.key,
        metadata={
            **table_metadata(extraction.units),
            "human_rejected": rejections.filter(pl.col("rule") == HUMAN_REJECTED).height,
        },
    )
    yield dg.MaterializeResult(
        asset_key=EXTRACTIONS_TABLE.key,
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
    yield dg.MaterializeResult(
        asset_key=UNIT_REJECTIONS_TABLE.key,
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
    if responder is not None:
        yield dg.MaterializeResult(
            asset_key=LLM_ANSWERS_TABLE.key, metadata=table_metadata(answers)
        )


def rejection_rate(accepted: int, rejected: int) -> float:
    """The share of the units drafted that were refused (by the verifier or a person): 0.0
    when nothing was drafted."""
    drafted = accepted + rejected
    return rejected / drafted if drafted else 0.0
