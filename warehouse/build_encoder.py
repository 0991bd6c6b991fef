"""The build's MiniLM: the one encoder every embedding pass of a build goes through (topic
segmentation, decomposition, theme tagging, unit embeddings), chosen by ``AIMI_BUILD_ENCODER``.

``onnx`` (the default) is the query path's ONNX Runtime encoder (``warehouse.onnx_encoder``)
over the fp32 export: what a build stores (unit vectors, and the similarities that decide
segment boundaries, central statements and theme labels) must stay what the torch encoder
published, and fp32 agrees with it to ~1e-6 per coordinate (tested, docs/benchmarks.md), where
int8 moves cosines by up to 0.03. Texts are sorted by token length and padded per batch; the
session runs on as many threads as the process may use (``AIMI_BUILD_THREADS``), idle threads
sleeping rather than spinning. The file is exported into ``AIMI_MODEL_CACHE`` when missing or
stale (torch is imported then, once); after that a build never imports torch.

``torch`` is the fallback: the forward pass of ``warehouse.embeddings``, for a machine where the
ONNX file cannot be made.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Literal, Protocol

from analytics.embedding import FloatMatrix
from warehouse.settings import load_settings

BuildEncoderChoice = Literal["onnx", "torch"]


class BuildEncoder(Protocol):
    """An ``Embedder`` that can show a progress bar over a call's batches."""

    def __call__(
        self, texts: Sequence[str], *, progress: bool = False, label: str = "MiniLM"
    ) -> FloatMatrix: ...


class BuildEncoderUnavailable(RuntimeError):
    """The ONNX build encoder could not be exported or loaded; the message says what to do."""


def available_cores() -> int:
    """The cores this process may run on (its affinity mask, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def load_build_encoder() -> BuildEncoder:
    """The process-wide build encoder of the environment's settings (loaded once)."""
    settings = load_settings()
    threads = settings.build_threads or available_cores()
    return _load(settings.build_encoder, settings.model_cache, threads)


@lru_cache(maxsize=4)
def _load(choice: BuildEncoderChoice, cache_dir: Path, threads: int) -> BuildEncoder:
    if choice == "torch":
        from warehouse.embeddings import load_minilm

        return load_minilm()
    from warehouse.onnx_encoder import OnnxEncoder, export_onnx, onnx_model_path

    dest = onnx_model_path(cache_dir, "fp32")
    try:
        path = export_onnx(dest, precision="fp32").path
        return OnnxEncoder(path, threads=threads, spinning=False)
    except Exception as exc:
        raise BuildEncoderUnavailable(
            f"the build's ONNX encoder could not be made at {dest} "
            f"({type(exc).__name__}: {exc}). `aimi encoder export --precision fp32` exports it "
            "(it needs torch and onnx once); AIMI_BUILD_ENCODER=torch builds with the torch "
            "encoder instead (the same vectors, slower)."
        ) from exc
