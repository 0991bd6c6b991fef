"""The ``unit_embeddings`` asset: one MiniLM vector per unit, embedded once and cached by unit
id. A build embeds only units it has not embedded before (unit ids change with their text)."""

# No `from __future__ import annotations`: Dagster reads these annotations at definition time.

import sys

import dagster as dg
import numpy as np
import polars as pl
from dagster import AssetExecutionContext

from analytics.schema import UNIT_EMBEDDINGS, UNITS
from pipelines.defs.decompose.assets import UNITS_TABLE
from pipelines.metadata import column_schema, native_table, table_metadata
from pipelines.resources import AimiResource
from warehouse.tables import read_table, write_table


def embed_missing(
    unit_frame: pl.DataFrame, cached: pl.DataFrame, *, progress: bool
) -> tuple[pl.DataFrame, int]:
    """The embeddings of every unit in ``unit_frame``: cached rows reused, the rest embedded
    in batches; rows of units that no longer exist are dropped. Returns (table, embedded)."""
    kept = cached.join(unit_frame.select("unit_id"), on="unit_id", how="semi")
    todo = unit_frame.select("unit_id", "text").join(kept, on="unit_id", how="anti")
    if todo.height == 0:
        return kept.sort("unit_id"), 0
    from warehouse.build_encoder import load_build_encoder

    vectors = load_build_encoder()(
        todo["text"].to_list(), progress=progress, label="unit embeddings"
    )
    fresh = pl.DataFrame(
        {"unit_id": todo["unit_id"], "vector": vectors.astype(np.float32)},
        schema=UNIT_EMBEDDINGS,
    )
    return pl.concat([kept, fresh]).sort("unit_id"), todo.height


@dg.asset(
    deps=[UNITS_TABLE],
    metadata={"dagster/column_schema": column_schema(UNIT_EMBEDDINGS)},
    group_name="search",
    description=(
        "A unit-length MiniLM vector (all-MiniLM-L6-v2, 384 dimensions) per verified unit, "
        "cached by unit id: a build embeds only units it has not seen. The snapshot builds its "
        "FAISS index from these."
    ),
    owners=["team:search"],
    kinds={"onnx", "parquet"},
)
def unit_embeddings(context: AssetExecutionContext, aimi: AimiResource) -> dg.MaterializeResult:  # type: ignore[type-arg]
    data = aimi.data()
    unit_frame = read_table(data, "units", UNITS)
    cached = read_table(data, "unit_embeddings", UNIT_EMBEDDINGS)
    table, embedded = embed_missing(unit_frame, cached, progress=sys.stderr.isatty())
    write_table(data, "unit_embeddings", table)
    context.log.info("unit embeddings: %d embedded now, %d in all", embedded, table.height)
    by_role = (
        unit_frame.join(table.select("unit_id"), on="unit_id", how="semi")
        .group_by("role")
        .len("embedded")
        .sort("role")
    )
    return dg.MaterializeResult(
        metadata={
            **table_metadata(table),
            "units_embedded": embedded,
            "reused": table.height - embedded,
            "dimensions": int(table.schema["vector"].shape[0]),  # type: ignore[attr-defined]
            "by_role": native_table(by_role),
        }
    )
