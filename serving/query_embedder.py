"""The query encoder: MiniLM loaded once per process, in the background at startup, so the first
search does not pay the load; concurrent queries are embedded together."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from analytics.embedding import FloatMatrix

Model = Callable[[Sequence[str]], FloatMatrix]


def _load_minilm() -> Model:
    from warehouse.embeddings import load_minilm

    return load_minilm()


@dataclass
class _Job:
    texts: list[str]
    vectors: FloatMatrix | None = None
    error: BaseException | None = None
    done: bool = False


class QueryEmbedder:
    """Thread-safe lazy holder of the MiniLM encoder (``warehouse.embeddings``).

    Calls that arrive while a model call runs wait and then go into the next call together:
    one forward pass reads the weights once, so 8 queries take about 2× one query's time
    instead of 8× (docs/benchmarks.md). A lone call never waits for company.
    """

    def __init__(self, load: Callable[[], Model] = _load_minilm) -> None:
        self._load_model = load
        self._load_lock = threading.Lock()
        self._model: Model | None = None
        self._queue = threading.Condition()
        self._pending: list[_Job] = []
        self._running = False

    def warm(self) -> None:
        """Start loading in a daemon thread; later calls wait for it."""
        threading.Thread(target=self._load, name="aimi-minilm-warmup", daemon=True).start()

    def _load(self) -> Model:
        with self._load_lock:
            if self._model is None:
                self._model = self._load_model()
            return self._model

    def __call__(self, texts: Sequence[str]) -> FloatMatrix:
        model = self._load()
        job = _Job(list(texts))
        with self._queue:
            self._pending.append(job)
            while not job.done and self._running:
                self._queue.wait()
            if job.done:
                return self._result(job)
            # nobody is embedding: this call embeds everything queued, its own texts included
            self._running = True
            batch, self._pending = self._pending, []
        try:
            vectors = model([text for queued in batch for text in queued.texts])
            error = None
        except BaseException as exc:  # handed to every caller in the batch, then re-raised
            vectors, error = np.zeros((0, 0), dtype=np.float32), exc
        with self._queue:
            start = 0
            for queued in batch:
                if error is None:
                    queued.vectors = vectors[start : start + len(queued.texts)]
                    start += len(queued.texts)
                queued.error = error
                queued.done = True
            self._running = False
            self._queue.notify_all()
        return self._result(job)

    @staticmethod
    def _result(job: _Job) -> FloatMatrix:
        if job.error is not None:
            raise job.error
        assert job.vectors is not None
        return job.vectors
