"""The query encoder: MiniLM loaded once per process, in the background at startup, so the first
search does not pay the load."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from analytics.embedding import FloatMatrix


class QueryEmbedder:
    """Thread-safe lazy holder of the MiniLM encoder (``warehouse.embeddings``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._model: object | None = None

    def warm(self) -> None:
        """Start loading in a daemon thread; later calls wait for it."""
        threading.Thread(target=self._load, name="aimi-minilm-warmup", daemon=True).start()

    def _load(self) -> object:
        with self._lock:
            if self._model is None:
                from warehouse.embeddings import load_minilm

                self._model = load_minilm()
            return self._model

    def __call__(self, texts: Sequence[str]) -> FloatMatrix:
        from warehouse.embeddings import MiniLM

        model = self._load()
        assert isinstance(model, MiniLM)
        return model(texts)
