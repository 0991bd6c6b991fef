"""Cutting a pass's work list into chunks that separate processes can run: contiguous ranges
of about equal work, so the chunks' outputs concatenated in order are the whole pass's."""

from __future__ import annotations

from collections.abc import Sequence


def chunk_bounds(weights: Sequence[int], chunks: int) -> list[tuple[int, int]]:
    """At most ``chunks`` contiguous ranges ``[start, end)`` covering ``weights`` in order, none
    empty, cut where the running weight first reaches ``k / chunks`` of the total (a weight
    below 1 counts as 1). No items: one empty range, so a pass always has a chunk to run."""
    if chunks < 1:
        raise ValueError(f"chunks must be at least 1, not {chunks}")
    count = len(weights)
    if count == 0:
        return [(0, 0)]
    chunks = min(chunks, count)
    costs = [max(1, w) for w in weights]
    total = sum(costs)
    bounds: list[tuple[int, int]] = []
    start, running = 0, 0
    for index, cost in enumerate(costs):
        running += cost
        left = chunks - len(bounds) - 1  # chunks still to cut after this one
        # cut here when this chunk has its share, or when the items left are just enough to
        # give every remaining chunk one
        if left and (running * chunks >= total * (len(bounds) + 1) or count - index - 1 == left):
            bounds.append((start, index + 1))
            start = index + 1
    bounds.append((start, count))
    return bounds
