"""Concurrent queries share one MiniLM call and get the vectors they would get alone."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
import pytest

from analytics.embedding import FloatMatrix
from serving.query_embedder import Model, QueryEmbedder
from warehouse.embeddings import load_minilm

QUERIES = [
    f"{topic} in 2026"
    for topic in (
        "chip exports",
        "data center power",
        "model pricing",
        "robotics funding",
        "GPU supply",
        "AI regulation",
        "inference costs",
        "open weights",
    )
]


class Recording:
    """The real MiniLM, recording each call's batch; ``fail_on`` makes a call with that text
    raise, to see the error reach every caller in the batch."""

    def __init__(self, model: Model, fail_on: str | None = None) -> None:
        self.model = model
        self.fail_on = fail_on
        self.batches: list[list[str]] = []
        self.lock = threading.Lock()

    def __call__(self, texts: Sequence[str]) -> FloatMatrix:
        with self.lock:
            self.batches.append(list(texts))
        if self.fail_on is not None and self.fail_on in texts:
            raise RuntimeError("model failed")
        return self.model(texts)


@pytest.fixture(scope="module")
def minilm() -> Model:
    return load_minilm()


def _concurrently(embedder: QueryEmbedder, queries: list[str]) -> dict[str, object]:
    results: dict[str, object] = {}
    barrier = threading.Barrier(len(queries))

    def run(query: str) -> None:
        barrier.wait()
        try:
            results[query] = embedder([query])
        except RuntimeError as exc:
            results[query] = exc

    threads = [threading.Thread(target=run, args=(q,)) for q in queries]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def test_concurrent_queries_are_batched_and_exact(minilm: Model) -> None:
    recording = Recording(minilm)
    embedder = QueryEmbedder(load=lambda: recording)
    results = _concurrently(embedder, QUERIES)
    assert sorted(t for batch in recording.batches for t in batch) == sorted(QUERIES)
    assert len(recording.batches) < len(QUERIES), recording.batches
    for query in QUERIES:
        alone = minilm([query])
        got = results[query]
        assert isinstance(got, np.ndarray) and got.shape == (1, 384)
        np.testing.assert_allclose(got, alone, atol=1e-5)


def test_a_lone_query_is_one_call(minilm: Model) -> None:
    recording = Recording(minilm)
    embedder = QueryEmbedder(load=lambda: recording)
    assert embedder(["one query"]).shape == (1, 384)
    assert recording.batches == [["one query"]]


def test_a_failed_call_fails_its_callers_and_the_next_call_works(minilm: Model) -> None:
    recording = Recording(minilm, fail_on=QUERIES[0])
    embedder = QueryEmbedder(load=lambda: recording)
    results = _concurrently(embedder, QUERIES)
    failed = {q for q, r in results.items() if isinstance(r, RuntimeError)}
    batch_with_failure = next(b for b in recording.batches if QUERIES[0] in b)
    assert failed == set(batch_with_failure)
    for query in set(QUERIES) - failed:
        assert isinstance(results[query], np.ndarray)
    assert embedder(["after the failure"]).shape == (1, 384)
