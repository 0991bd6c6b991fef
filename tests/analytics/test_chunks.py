"""``analytics.chunks``: a pass's work list cut into contiguous chunks of about equal work."""

from __future__ import annotations

import pytest

from analytics.chunks import chunk_bounds


def covers(bounds: list[tuple[int, int]], count: int) -> bool:
    return [i for start, end in bounds for i in range(start, end)] == list(range(count))


def test_chunks_are_contiguous_cover_everything_and_share_the_work() -> None:
    assert chunk_bounds([1] * 10, 2) == [(0, 5), (5, 10)]
    assert chunk_bounds([3] * 7, 3) == [(0, 3), (3, 5), (5, 7)]
    # by weight, not by count: one long text is a chunk's share on its own
    assert chunk_bounds([10, 1, 1, 1, 1], 2) == [(0, 1), (1, 5)]
    assert chunk_bounds([1, 1, 1, 1, 10], 2) == [(0, 4), (4, 5)]
    for weights in ([5, 0, 0, 0, 7, 2, 9], list(range(50)), [1] * 3):
        for chunks in (1, 2, 3, 4, 8):
            bounds = chunk_bounds(weights, chunks)
            assert covers(bounds, len(weights))
            assert len(bounds) == min(chunks, len(weights))
            assert all(end > start for start, end in bounds)


def test_no_work_is_one_empty_chunk_and_too_many_chunks_are_fewer() -> None:
    assert chunk_bounds([], 4) == [(0, 0)]
    assert chunk_bounds([5], 3) == [(0, 1)]
    assert chunk_bounds([1, 1], 4) == [(0, 1), (1, 2)]


def test_a_chunk_count_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        chunk_bounds([1, 2], 0)
