"""The build's MiniLM: the encoder every embedding pass of a build goes through (topic
segmentation, decomposition, unit embeddings, and theme tagging unless it runs on int8, below),
chosen by ``AIMI_BUILD_ENCODER``.

``onnx`` (the default) is the query path's ONNX Runtime encoder (``warehouse.onnx_encoder``)
over the fp32 export: what a build stores (unit vectors, and the similarities that decide
segment boundaries, central statements and theme labels) must stay what the torch encoder
published, and fp32 agrees with it to ~1e-6 per coordinate (tested, docs/benchmarks.md), where
int8 moves cosines by up to 0.03. Texts are sorted by token length and run in batches of one
length (no padding, so a vector depends on its text alone); the batches run on one intra-op
thread each, as many at a time as the process may use cores (``AIMI_BUILD_THREADS``), which
costs less CPU than sharing each batch between threads and gives the same bits. The file is
exported into ``AIMI_MODEL_CACHE`` when missing or stale (torch is imported then, once); after
that a build never imports torch.

``torch`` is the fallback: the forward pass of ``warehouse.embeddings``, for a machine where the
ONNX file cannot be made.

Theme tagging is the exception (``load_theme_encoder``): it stores no vector, only the labels
its similarities pick, and it is the build's longest pass (1,833 leads of ~230 tokens in the
demo, near two cores' fp32 limit). With ``AIMI_THEME_PRECISION=int8`` (the default) it runs on
the query path's int8 export, each text alone (its activations are quantized over the run, so a
vector depends on its text only, whatever the chunking or thread count), one intra-op thread a
run and ``AIMI_BUILD_THREADS`` runs at a time (a single text's run is too small to share between
threads): 1.85× less CPU on the demo's leads, labels within the hand-check's noise of fp32's
(docs/quality.md, "Themes"; docs/decisions/0022-one-encoder-for-build-and-query.md). ``fp32`` tags
on the build encoder, as before.

Either way each distinct text is embedded once per process (``MemoEncoder``): the passes repeat
texts — in the demo build, decomposition embeds 5,963 sentences of which 2,669 are distinct, and
3,447 of the 7,310 units are sentences decomposition embedded already — and a text's vector is
the same whichever batch it ran in (padding is masked; fp32 batches agree with single runs to
~1e-7).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

import numpy as np

from analytics.embedding import EMBEDDING_DIM, FloatMatrix
from warehouse.settings import load_settings

if TYPE_CHECKING:
    from warehouse.onnx_encoder import Precision

BuildEncoderChoice = Literal["onnx", "torch"]


class BuildEncoder(Protocol):
    """An ``Embedder`` that can show a progress bar over a call's batches."""

    def __call__(
        self, texts: Sequence[str], *, progress: bool = False, label: str = "MiniLM"
    ) -> FloatMatrix: ...


class BuildEncoderUnavailable(RuntimeError):
    """The ONNX build encoder could not be exported or loaded; the message says what to do."""


# Texts remembered per process: ~1.5 KiB each, so at most ~300 MiB; past it the memo starts
# over (a build of both AINews years embeds fewer distinct texts than this).
MEMO_MAX_TEXTS = 200_000


@dataclass
class MemoEncoder:
    """``encoder``, embedding each distinct text once: a call embeds (in one call, so in
    length-sorted batches) only the distinct texts it has not seen, and returns rows in input
    order."""

    encoder: BuildEncoder
    max_texts: int = MEMO_MAX_TEXTS
    _vectors: dict[str, FloatMatrix] = field(default_factory=dict, repr=False)

    def __call__(
        self, texts: Sequence[str], *, progress: bool = False, label: str = "MiniLM"
    ) -> FloatMatrix:
        new = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if new:
            if len(self._vectors) + len(new) > self.max_texts:
                self._vectors.clear()
                new = list(dict.fromkeys(texts))
            vectors = self.encoder(new, progress=progress, label=label)
            self._vectors.update(zip(new, vectors, strict=True))
        if not texts:
            return np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
        return np.stack([self._vectors[t] for t in texts])

    def forget(self) -> None:
        """Drop every remembered vector."""
        self._vectors.clear()


def available_cores() -> int:
    """The cores this process may run on (its affinity mask, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def load_build_encoder(*, threads: int | None = None) -> BuildEncoder:
    """The process-wide build encoder of the environment's settings (loaded once per thread
    count): ``threads`` intra-op threads, else ``AIMI_BUILD_THREADS``, else every core."""
    settings = load_settings()
    threads = threads or settings.build_threads or available_cores()
    return _load(settings.build_encoder, settings.model_cache, threads)


def load_theme_encoder(*, threads: int | None = None) -> BuildEncoder:
    """What theme tagging embeds with: the int8 ONNX encoder when ``AIMI_THEME_PRECISION`` is
    ``int8`` (the default) and the build runs on ONNX, else the build encoder itself. Loaded
    once per process and thread count, like ``load_build_encoder``."""
    settings = load_settings()
    if settings.build_encoder == "torch" or settings.theme_precision == "fp32":
        return load_build_encoder(threads=threads)
    threads = threads or settings.build_threads or available_cores()
    return _load_onnx(settings.model_cache, threads, "int8")


@lru_cache(maxsize=4)
def _load(choice: BuildEncoderChoice, cache_dir: Path, threads: int) -> BuildEncoder:
    if choice == "torch":
        from warehouse.embeddings import load_minilm

        return MemoEncoder(load_minilm())
    return _load_onnx(cache_dir, threads, "fp32")


@lru_cache(maxsize=4)
def _load_onnx(cache_dir: Path, threads: int, precision: Precision) -> BuildEncoder:
    from warehouse.onnx_encoder import OnnxEncoder, export_onnx, onnx_model_path

    dest = onnx_model_path(cache_dir, precision)
    try:
        path = export_onnx(dest, precision=precision).path
        if precision == "int8":
            # every text runs alone: one intra-op thread per run, ``threads`` runs at a time
            encoder = OnnxEncoder(path, threads=1, spinning=False, concurrent_runs=threads)
        else:
            # runs of one length each, one intra-op thread a run, ``threads`` runs at a time
            encoder = OnnxEncoder(
                path, threads=1, spinning=False, exact_lengths=True, concurrent_runs=threads
            )
    except Exception as exc:
        fallback = (
            "AIMI_BUILD_ENCODER=torch builds with the torch encoder instead (the same vectors, "
            "slower)."
            if precision == "fp32"
            else "AIMI_THEME_PRECISION=fp32 tags themes with the build's fp32 encoder instead "
            "(the labels of the fp32 encoder, slower)."
        )
        raise BuildEncoderUnavailable(
            f"the build's ONNX encoder could not be made at {dest} "
            f"({type(exc).__name__}: {exc}). `aimi encoder export --precision {precision}` "
            f"exports it (it needs torch and onnx once); {fallback}"
        ) from exc
    return MemoEncoder(encoder)
