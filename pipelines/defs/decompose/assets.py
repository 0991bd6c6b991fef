"""The ``signals`` and ``units`` assets: one signal per source (or podcast segment), and the
units that passed the verifier."""

# No `from __future__ import annotations`: Dagster reads these annotations at definition time.

import dagster as dg
import polars as pl
from dagster import AssetExecutionContext

from analytics.decompose import EXTRACTION_VERSION
from analytics.review import apply_reviews
from analytics.schema import SIGNALS, SOURCES
from analytics.signals import extract_units, signals_from_sources
from pipelines.defs.ingest.assets import sources
from pipelines.metadata import markdown_table
from pipelines.resources import AimiResource
from warehouse.reviews import read_reviews
from warehouse.tables import read_table, write_table


@dg.asset(
    deps=[sources],
    group_name="decompose",
    description=(
        "One signal per source, or per chapter segment of a podcast episode, published up to "
        "the build clock (`as_of`), classified as `analysis` or `event`."
    ),
    owners=["team:data-engineering"],
    kinds={"polars", "parquet"},
)
def signals(context: AssetExecutionContext, aimi: AimiResource) -> dg.MaterializeResult:  # type: ignore[type-arg]
    data = aimi.data()
    frame = signals_from_sources(read_table(data, "sources", SOURCES), as_of=aimi.clock())
    write_table(data, "signals", frame)
    context.log.info("signals: %d (as of %s)", frame.height, aimi.clock().isoformat())
    mix = frame.group_by("kind", "content_type").len().sort("kind", "content_type")
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": frame.height,
            "as_of": aimi.clock().isoformat(),
            "kind_by_content_type": dg.MetadataValue.md(markdown_table(mix)),
        }
    )


@dg.asset(
    deps=[signals],
    group_name="decompose",
    description=(
        "Verified units of every signal: its central statement (`thesis` or `synopsis`) and "
        "atomic claims, each with verbatim evidence snippets of at most 50 characters. Units "
        "the verifier refuses go to `unit_rejections` with the rule that refused them."
    ),
    owners=["team:data-engineering"],
    kinds={"polars", "parquet"},
)
def units(context: AssetExecutionContext, aimi: AimiResource) -> dg.MaterializeResult:  # type: ignore[type-arg]
    data = aimi.data()
    extracted, rejections = extract_units(read_table(data, "signals", SIGNALS))
    reviewed = apply_reviews(extracted, read_reviews(data))
    unit_frame = reviewed.units
    rejections = pl.concat([rejections, reviewed.rejected])
    write_table(data, "units", unit_frame)
    write_table(data, "unit_rejections", rejections)
    context.log.info("units: %d verified, %d rejected", unit_frame.height, rejections.height)
    by_role = unit_frame.group_by("role").len().sort("role")
    by_rule = rejections.group_by("rule").len().sort("rule")
    metadata: dict[str, dg.RawMetadataValue] = {
        "dagster/row_count": unit_frame.height,
        "extraction_version": EXTRACTION_VERSION,
        "rejected": rejections.height,
        "human_approved": reviewed.approved,
        "by_role": dg.MetadataValue.md(markdown_table(by_role)),
    }
    for rule, count in by_rule.iter_rows():
        metadata[f"rejected/{rule}"] = count
    return dg.MaterializeResult(metadata=metadata)
