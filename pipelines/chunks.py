"""The per-signal passes split into chunks (docs/design.md §7): a pass is a graph of three ops
inside its asset — a plan that cuts the work list into ``AimiResource.chunks`` contiguous
chunks of about equal text (``analytics.chunks``), one step per chunk that writes its rows as
parts (``warehouse.tables.write_part``), and a collect step that concatenates them in order and
writes the tables. Each chunk is a Dagster step, so the multiprocess executor runs them side by
side; every step recomputes the pass's plan from the same tables, so only the chunk's bounds
travel between steps. ``chunked_pass`` wires the three ops into the pass's asset, the same way
for every pass."""

# No `from __future__ import annotations`: Dagster reads the graph's annotations when
# ``chunked_pass`` defines it.

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import dagster as dg

from analytics.chunks import chunk_bounds
from pipelines.metadata import graph_out


class Chunk(NamedTuple):
    """The slice ``[start, end)`` of a pass's work list that chunk ``position`` (from 0) of
    ``total`` runs."""

    position: int
    total: int
    start: int
    end: int


def fan_out(
    context: dg.OpExecutionContext, pass_name: str, weights: Sequence[int], chunks: int
) -> Iterator[dg.DynamicOutput[Chunk]]:
    """The chunks of a work list with these ``weights`` (one chunk, maybe empty, at least)."""
    bounds = chunk_bounds(weights, chunks)
    shares = [sum(weights[start:end]) for start, end in bounds]
    context.log.info(
        "%s: %d to do in %d chunk(s) of %s items (text %s)",
        pass_name,
        len(weights),
        len(bounds),
        "/".join(str(end - start) for start, end in bounds),
        "/".join(str(share) for share in shares),
    )
    for index, (start, end) in enumerate(bounds):
        yield dg.DynamicOutput(Chunk(index, len(bounds), start, end), mapping_key=f"chunk_{index}")


def in_order(chunks: Sequence[Chunk]) -> list[Chunk]:
    """The collected chunks in their plan's order (Dagster gathers them in completion order)."""
    ordered = sorted(chunks, key=lambda chunk: chunk.position)
    if [chunk.position for chunk in ordered] != list(range(len(ordered))) or any(
        chunk.total != len(ordered) for chunk in ordered
    ):
        raise dg.Failure(f"chunks collected do not make up their plan: {ordered}")
    return ordered


def chunked_pass(
    *,
    name: str,
    group_name: str,
    outs: Sequence[dg.AssetSpec],
    after: dg.AssetKey,
    plan: dg.OpDefinition,
    chunk: dg.OpDefinition,
    collect: dg.OpDefinition,
    description: str,
) -> dg.AssetsDefinition:
    """The asset of a pass split into chunks: ``plan`` (run after the table ``after``, its one
    ``Nothing`` input) fans out the chunks, ``chunk`` runs each, ``collect`` gathers them in
    order and writes ``outs``: its one output when there is one table, else an output per
    table, named as the table."""
    names = [spec.key.to_user_string() for spec in outs]
    (plan_input,) = plan.ins

    def wired(upstream: None) -> dict[str, Any]:
        collected = collect(plan(**{plan_input: upstream}).map(chunk).collect())
        if len(names) == 1:
            return {names[0]: collected}
        return {table: getattr(collected, table) for table in names}

    wired.__doc__ = description  # the graph's description, as a decorated function's docstring
    asset: dg.AssetsDefinition = dg.graph_multi_asset(
        name=name,
        group_name=group_name,
        outs={table: graph_out(spec) for table, spec in zip(names, outs, strict=True)},
        ins={"upstream": dg.AssetIn(key=after, dagster_type=dg.Nothing)},
    )(wired)
    return asset
