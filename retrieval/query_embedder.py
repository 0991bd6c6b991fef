"""The query encoder: loaded once per process, in the background at startup, so the first
search does not pay the load; concurrent queries are embedded together.

Which encoder is ``AIMI_QUERY_ENCODER``'s choice: ONNX Runtime over MiniLM exported to ONNX
(``warehouse.onnx_encoder``) with int8 weights (the default, ~3.4× faster per query than torch,
cosine ≥ 0.97 to its vectors) or at full precision (~2× faster, the same vectors), or the torch
forward pass (``warehouse.embeddings``, the build's fallback encoder).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from analytics.embedding import FloatMatrix
from warehouse.settings import Settings, load_settings

if TYPE_CHECKING:
    from warehouse.onnx_encoder import Precision

Model = Callable[[Sequence[str]], FloatMatrix]

log = logging.getLogger("aimi.serving")


def load_query_model(settings: Settings | None = None) -> Model:
    """The encoder ``settings`` (the environment's when None) select.

    The ONNX file is exported into ``AIMI_MODEL_CACHE`` on first need. Search never fails for
    want of it: when it cannot be exported or loaded, a warning says why and how to fix it,
    and the torch encoder serves instead.
    """
    settings = settings or load_settings()
    if settings.query_encoder != "torch":
        precision: Precision = "int8" if settings.query_encoder == "onnx-int8" else "fp32"
        try:
            from warehouse.onnx_encoder import load_onnx_encoder

            return load_onnx_encoder(settings.model_cache, precision)
        # anything at all (a corrupt or unreadable file, a failed export, a missing wheel)
        # must leave search working on the slower encoder
        except Exception as exc:
            log.warning(
                "the ONNX query encoder could not be loaded from %s (%s: %s); searching with "
                "the torch encoder instead (slower per query). "
                "Re-export it with `aimi encoder export --force`, or set "
                "AIMI_QUERY_ENCODER=torch to silence this.",
                settings.model_cache,
                type(exc).__name__,
                exc,
            )
    from warehouse.embeddings import load_minilm

    return load_minilm()


@dataclass
class _Job:
    texts: list[str]
    vectors: FloatMatrix | None = None
    error: BaseException | None = None
    done: bool = False


class QueryEmbedder:
    """Thread-safe lazy holder of the query encoder (``load``: ``load_query_model`` over the
    environment's settings unless given).

    Calls that arrive while a model call runs wait and then go into the next call together:
    one forward pass reads the weights once, so 8 short queries cost a fraction of 8 calls
    (docs/benchmarks.md). A lone call never waits for company. A model that runs every text
    alone (``runs_alone``: the int8 encoder, whose vectors must not depend on their company)
    is called directly from each thread, concurrent calls on as many cores as there are.
    """

    def __init__(self, load: Callable[[], Model] = load_query_model) -> None:
        self._load_model = load
        self._load_lock = threading.Lock()
        self._model: Model | None = None
        self._queue = threading.Condition()
        self._pending: list[_Job] = []
        self._running = False

    def warm(self) -> None:
        """Start loading in a daemon thread; later calls wait for it."""
        threading.Thread(target=self._load, name="aimi-query-encoder-warmup", daemon=True).start()

    def _load(self) -> Model:
        with self._load_lock:
            if self._model is None:
                self._model = self._load_model()
            return self._model

    def __call__(self, texts: Sequence[str]) -> FloatMatrix:
        model = self._load()
        if getattr(model, "runs_alone", False):
            return model(texts)
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
