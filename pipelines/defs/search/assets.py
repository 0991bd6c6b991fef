"""The ``unit_embeddings`` asset: one MiniLM vector per unit, embedded once and cached by unit
id. A build embeds only units it has not embedded before (unit ids change with their text), in
chunks (``pipelines.chunks``)."""

# No `from __future__ import annotations`: Dagster reads these annotations at definition time.

import sys
from collections.abc import Iterator

import dagster as dg
import numpy as np
import polars as pl

from analytics.schema import UNIT_EMBEDDINGS, UNITS
from pipelines.chunks import Chunk, chunked_pass, fan_out, in_order
from pipelines.defs.decompose.assets import UNITS_TABLE
from pipelines.metadata import column_schema, native_table, table_metadata
from pipelines.resources import AimiResource
from warehouse.paths import DataDir
from warehouse.tables import drop_parts, read_part, read_table, write_part, write_table

_STEP = "unit_embeddings"


def embedding_work(
    unit_frame: pl.DataFrame, cached: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The cached rows of units that still exist (kept), and the units to embed (``unit_id``,
    ``text``), in ``unit_frame``'s order."""
    kept = cached.join(unit_frame.select("unit_id"), on="unit_id", how="semi")
    todo = unit_frame.select("unit_id", "text").join(kept, on="unit_id", how="anti")
    return kept, todo


def embed_units(todo: pl.DataFrame, *, progress: bool, threads: int | None = None) -> pl.DataFrame:
    """The ``UNIT_EMBEDDINGS`` rows of ``todo`` (``unit_id``, ``text``), in its order."""
    if todo.height == 0:
        return UNIT_EMBEDDINGS.to_frame()
    from warehouse.build_encoder import load_build_encoder

    vectors = load_build_encoder(threads=threads)(
        todo["text"].to_list(), progress=progress, label="unit embeddings"
    )
    return pl.DataFrame(
        {"unit_id": todo["unit_id"], "vector": vectors.astype(np.float32)},
        schema=UNIT_EMBEDDINGS,
    )


def embed_missing(
    unit_frame: pl.DataFrame, cached: pl.DataFrame, *, progress: bool
) -> tuple[pl.DataFrame, int]:
    """The embeddings of every unit in ``unit_frame``: cached rows reused, the rest embedded
    in batches; rows of units that no longer exist are dropped. Returns (table, embedded)."""
    kept, todo = embedding_work(unit_frame, cached)
    fresh = embed_units(todo, progress=progress)
    return pl.concat([kept, fresh]).sort("unit_id"), todo.height


def _work(data: DataDir) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    unit_frame = read_table(data, "units", UNITS)
    kept, todo = embedding_work(unit_frame, read_table(data, "unit_embeddings", UNIT_EMBEDDINGS))
    return unit_frame, kept, todo


@dg.op(ins={"units": dg.In(dg.Nothing)}, out=dg.DynamicOut(Chunk))
def plan_embeddings(
    context: dg.OpExecutionContext, aimi: AimiResource
) -> Iterator[dg.DynamicOutput[Chunk]]:
    """The units without a vector, cut into chunks of about equal text."""
    _, _, todo = _work(aimi.data())
    weights = [len(text) for text in todo["text"].to_list()]
    yield from fan_out(context, "unit embeddings", weights, aimi.chunks)


@dg.op
def embed_chunk(context: dg.OpExecutionContext, aimi: AimiResource, chunk: Chunk) -> Chunk:
    """Embed one chunk of the units without a vector; its rows are written as a part."""
    data = aimi.data()
    _, _, todo = _work(data)
    fresh = embed_units(
        todo.slice(chunk.start, chunk.end - chunk.start),
        progress=sys.stderr.isatty(),
        threads=aimi.encoder_threads(),
    )
    write_part(data, context.run_id, _STEP, chunk.position, "unit_embeddings", fresh)
    return chunk


@dg.op(out=dg.Out(dg.Nothing))
def collect_embeddings(
    context: dg.OpExecutionContext, aimi: AimiResource, done: list[Chunk]
) -> dg.Output[None]:
    """The kept vectors and the chunks' in one table, by unit id."""
    data = aimi.data()
    unit_frame, kept, _ = _work(data)
    parts = []
    for chunk in in_order(done):
        part = read_part(
            data, context.run_id, _STEP, chunk.position, "unit_embeddings", UNIT_EMBEDDINGS
        )
        if part is None:
            raise dg.Failure(f"chunk {chunk.position} of the unit embeddings wrote no rows")
        parts.append(part)
    fresh = pl.concat(parts)
    table = pl.concat([kept, fresh]).sort("unit_id")
    embedded = fresh.height
    write_table(data, "unit_embeddings", table)
    drop_parts(data, context.run_id, _STEP)
    context.log.info("unit embeddings: %d embedded now, %d in all", embedded, table.height)
    by_role = (
        unit_frame.join(table.select("unit_id"), on="unit_id", how="semi")
        .group_by("role")
        .len("embedded")
        .sort("role")
    )
    return dg.Output(
        None,
        metadata={
            **table_metadata(table),
            "units_embedded": embedded,
            "reused": table.height - embedded,
            "chunks": len(done),
            "dimensions": int(table.schema["vector"].shape[0]),  # type: ignore[attr-defined]
            "by_role": native_table(by_role),
        },
    )


UNIT_EMBEDDINGS_TABLE = dg.AssetSpec(
    "unit_embeddings",
    description=(
        "A unit-length MiniLM vector (all-MiniLM-L6-v2, 384 dimensions) per verified unit, "
        "cached by unit id: a build embeds only units it has not seen. The snapshot builds its "
        "FAISS index from these."
    ),
    group_name="search",
    owners=["team:search"],
    kinds={"onnx", "parquet"},
    metadata={"dagster/column_schema": column_schema(UNIT_EMBEDDINGS)},
)


unit_embeddings = chunked_pass(
    name="unit_embeddings",
    group_name="search",
    outs=[UNIT_EMBEDDINGS_TABLE],
    after=UNITS_TABLE.key,
    plan=plan_embeddings,
    chunk=embed_chunk,
    collect=collect_embeddings,
    description="Embed the units not embedded yet, in chunks.",
)
