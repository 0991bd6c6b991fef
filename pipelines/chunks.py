"""The per-signal passes split into chunks (docs/design.md §7): a pass is a graph of three ops
inside its asset — a plan that cuts the work list into ``AimiResource.chunks`` contiguous
chunks of about equal text (``analytics.chunks``), one step per chunk that writes its rows as
parts (``warehouse.tables.write_part``), and a collect step that concatenates them in order and
writes the tables. Each chunk is a Dagster step, so the multiprocess executor runs them side by
side; every step recomputes the pass's plan from the same tables, so only the chunk's bounds
travel between steps."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import NamedTuple

import dagster as dg

from analytics.chunks import chunk_bounds


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
