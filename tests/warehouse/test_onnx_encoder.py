"""The ONNX query encoder: the same vectors as the torch MiniLM (single texts, batches of mixed
lengths, truncation, unicode), int8 weights whose vectors agree closely and never depend on
their batch, and an export that is kept while current and redone when what it was made from
changes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from analytics.embedding import EMBEDDING_DIM, FloatMatrix
from tests.warehouse.test_embeddings import VARIED_TEXTS
from warehouse import onnx_encoder
from warehouse.embeddings import load_minilm, model_dir
from warehouse.onnx_encoder import (
    ExportRecord,
    OnnxEncoder,
    exact_length_runs,
    export_onnx,
    manifest_path,
    onnx_model_path,
    padded_groups,
    read_record,
)

QUERIES = [
    "chip export controls",
    "who is building data centers in Texas?",
    "Nvidia H100 supply",
    "EU AI Act enforcement timeline",
    "robotics startups raising Series B rounds in 2026",
    "inference price cuts",
    "power purchase agreements nuclear",
    "open-weight model releases",
]
TEXTS = VARIED_TEXTS + QUERIES
MIN_COSINE = 0.9999


@pytest.fixture(scope="module")
def encoder(onnx_cache: Path) -> OnnxEncoder:
    # batches of 8: the long texts are padded together, not every text to 256 tokens
    return OnnxEncoder(onnx_model_path(onnx_cache), batch_size=8)


@pytest.fixture(scope="module")
def reference() -> FloatMatrix:
    """The torch MiniLM's vectors for TEXTS, one call per text (no padding to pay for)."""
    minilm = load_minilm()
    return np.vstack([minilm([text]) for text in TEXTS])


@pytest.fixture(scope="module")
def singles(encoder: OnnxEncoder) -> FloatMatrix:
    return np.vstack([encoder([text]) for text in TEXTS])


def _cosines(a: FloatMatrix, b: FloatMatrix) -> FloatMatrix:
    return np.einsum("ij,ij->i", a, b) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def test_batches_agree_with_the_torch_encoder(encoder: OnnxEncoder, reference: FloatMatrix) -> None:
    # short, long past max_seq_length (truncated), unicode, empty, and real queries, together
    got = encoder(TEXTS)
    assert got.shape == reference.shape == (len(TEXTS), EMBEDDING_DIM)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    assert float(_cosines(got, reference).min()) >= MIN_COSINE


def test_single_queries_agree_with_the_torch_encoder(
    singles: FloatMatrix, reference: FloatMatrix
) -> None:
    cosines = _cosines(singles, reference)
    worst = int(np.argmin(cosines))
    assert float(cosines[worst]) >= MIN_COSINE, TEXTS[worst]


def test_a_batch_of_mixed_lengths_equals_single_calls(
    encoder: OnnxEncoder, singles: FloatMatrix, monkeypatch: pytest.MonkeyPatch
) -> None:
    # padding to the longest of a batch is masked out of attention and pooling, and neither
    # the input order nor the batch size changes a vector
    np.testing.assert_allclose(encoder(TEXTS), singles, atol=1e-5)
    np.testing.assert_allclose(encoder(TEXTS[::-1])[::-1], singles, atol=1e-5)
    monkeypatch.setattr(encoder, "batch_size", 3)
    np.testing.assert_allclose(encoder(TEXTS), singles, atol=1e-5)


def test_runs_group_similar_lengths_and_keep_long_texts_apart() -> None:
    assert padded_groups([7] * 8, 64) == [(0, 8)]  # concurrent short queries: one run
    assert padded_groups([250, 7, 7, 7], 64) == [(0, 1), (1, 4)]  # the long one alone
    assert padded_groups([7] * 10, 4) == [(0, 2), (2, 6), (6, 10)]  # never above max_rows
    assert padded_groups([], 4) == []
    for lengths in ([40, 32, 16, 16, 16, 7, 7, 7], [256] * 3 + [9] * 70):
        runs = padded_groups(lengths, 64)
        assert [i for start, end in runs for i in range(start, end)] == list(range(len(lengths)))


def test_truncates_at_the_packages_max_seq_length(encoder: OnnxEncoder) -> None:
    assert encoder.max_seq_length == 256  # sentence_bert_config.json
    shared = "alpha " * 300
    out = encoder([shared + "beta gamma delta", shared + "completely different ending"])
    np.testing.assert_allclose(out[0], out[1], atol=1e-6)


def test_empty_input_is_zero_rows(encoder: OnnxEncoder) -> None:
    out = encoder([])
    assert out.shape == (0, EMBEDDING_DIM) and out.dtype == np.float32


# int8: measured on 1,500 demo queries, cosine to torch median 0.993, min 0.970
# (docs/benchmarks.md); these texts include truncated and unicode ones
INT8_MIN_COSINE = 0.95
INT8_MEDIAN_COSINE = 0.985


@pytest.fixture(scope="module")
def int8(onnx_cache: Path) -> OnnxEncoder:
    return OnnxEncoder(onnx_model_path(onnx_cache, "int8"), batch_size=8)


def test_int8_vectors_agree_closely_with_the_torch_encoder(
    int8: OnnxEncoder, reference: FloatMatrix, singles: FloatMatrix
) -> None:
    assert int8.precision == "int8" and int8.runs_alone
    got = np.vstack([int8([text]) for text in TEXTS])
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    cosines = _cosines(got, reference)
    worst = int(np.argmin(cosines))
    assert float(cosines[worst]) >= INT8_MIN_COSINE, TEXTS[worst]
    assert float(np.median(cosines)) >= INT8_MEDIAN_COSINE
    # and they are not the fp32 vectors: the int8 file is what runs
    assert float(_cosines(got, singles).min()) < MIN_COSINE


def test_an_int8_vector_never_depends_on_its_company(int8: OnnxEncoder) -> None:
    # activations are quantized over a run's whole input: every text runs alone, so a search
    # ranks the same whichever searches share its call
    alone = np.vstack([int8([text]) for text in TEXTS])
    np.testing.assert_array_equal(int8(TEXTS), alone)
    np.testing.assert_array_equal(int8(TEXTS[::-1])[::-1], alone)
    assert int8.batch_size == 1


def test_exact_length_runs_never_pad_and_cap_rows() -> None:
    assert exact_length_runs([9, 9, 9, 7, 7, 3], 64) == [(0, 3), (3, 5), (5, 6)]
    assert exact_length_runs([7] * 5, 2) == [(0, 2), (2, 4), (4, 5)]
    assert exact_length_runs([], 4) == []


def test_a_build_vector_depends_on_its_text_alone(onnx_cache: Path, reference: FloatMatrix) -> None:
    # the build's encoder (exact_lengths): the same bytes alone, in any company, any order,
    # any batch size and thread count, so a build split into chunks stores what one pass would
    build = OnnxEncoder(onnx_model_path(onnx_cache), threads=1, spinning=False, exact_lengths=True)
    texts = [*TEXTS, *(f"{query} today" for query in QUERIES), *QUERIES]  # repeated lengths
    whole = build(texts)
    assert float(_cosines(whole[: len(TEXTS)], reference).min()) >= MIN_COSINE
    alone = np.vstack([build([text]) for text in texts])
    np.testing.assert_array_equal(whole, alone)
    np.testing.assert_array_equal(build(texts[::-1])[::-1], whole)
    halves = np.vstack([build(texts[0::2]), build(texts[1::2])])
    np.testing.assert_array_equal(halves, np.vstack([whole[0::2], whole[1::2]]))
    small = OnnxEncoder(
        onnx_model_path(onnx_cache), threads=2, spinning=False, batch_size=3, exact_lengths=True
    )
    np.testing.assert_array_equal(small(texts), whole)
    # the build's threading: runs on one intra-op thread each, several at a time
    side_by_side = OnnxEncoder(
        onnx_model_path(onnx_cache),
        threads=1,
        spinning=False,
        batch_size=3,
        exact_lengths=True,
        concurrent_runs=2,
    )
    assert side_by_side.concurrent_runs == 2
    np.testing.assert_array_equal(side_by_side(texts), whole)
    np.testing.assert_array_equal(side_by_side(texts[::-1])[::-1], whole)


@pytest.mark.slow  # two real exports from the packaged weights (torch): about 12 s of CPU
def test_the_export_records_what_it_was_made_from(tmp_path: Path) -> None:
    model = onnx_model_path(tmp_path)
    assert export_onnx(model).exported
    assert export_onnx(onnx_model_path(tmp_path, "int8"), precision="int8").exported
    assert read_record(model) == ExportRecord.current(model_dir())
    manifest = json.loads(manifest_path(model).read_text(encoding="utf-8"))
    # the graph onnxruntime's BERT optimizer fuses completely: one kernel per attention
    assert manifest["fused_operators"]["Attention"] == 6
    assert manifest["fused_operators"]["SkipLayerNormalization"] == 12
    int8 = onnx_model_path(tmp_path, "int8")
    assert int8 != model
    assert read_record(int8) == ExportRecord.current(model_dir(), "int8")
    assert read_record(model).precision == "fp32"  # type: ignore[union-attr]
    # quantized weights: a quarter of the bytes, near enough
    assert int8.stat().st_size < model.stat().st_size * 0.4


def test_an_unknown_precision_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="precision"):
        export_onnx(onnx_model_path(tmp_path), precision="fp16")  # type: ignore[arg-type]


def test_a_current_export_is_reused(onnx_cache: Path) -> None:
    model = onnx_model_path(onnx_cache)
    before = model.stat()
    outcome = export_onnx(model)
    assert not outcome.exported
    after = model.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


class FakeBuild:
    """Stands in for the torch export and the graph optimization (seconds each, exercised by
    ``test_the_export_records_what_it_was_made_from``): copies a real export, counting calls."""

    def __init__(self, source: Path, delay: float = 0.0) -> None:
        self.source = source
        self.delay = delay
        self.calls = 0

    def __call__(self, folder: Path, out: Path, precision: str) -> dict[str, int]:
        del folder, precision
        self.calls += 1
        time.sleep(self.delay)
        shutil.copyfile(self.source, out)
        return {"Attention": 6}


@pytest.fixture
def stale_copy(onnx_cache: Path, tmp_path: Path) -> Path:
    """A copy of the session's export and its record, in a cache of this test's own."""
    model = onnx_model_path(tmp_path)
    model.parent.mkdir(parents=True)
    shutil.copyfile(onnx_model_path(onnx_cache), model)
    shutil.copyfile(manifest_path(onnx_model_path(onnx_cache)), manifest_path(model))
    return model


@pytest.mark.parametrize(
    ("field", "recorded"),
    [
        ("source_sha256", "0" * 64),  # the package shipped other weights
        ("onnxruntime", "1.0.0"),  # another exporter or runtime
        ("graph_version", 0),  # this module changed the graph
    ],
    ids=["weights", "runtime", "graph"],
)
def test_a_changed_record_is_exported_again(
    stale_copy: Path,
    onnx_cache: Path,
    monkeypatch: pytest.MonkeyPatch,
    field: str,
    recorded: object,
) -> None:
    record = json.loads(manifest_path(stale_copy).read_text(encoding="utf-8"))
    record[field] = recorded
    manifest_path(stale_copy).write_text(json.dumps(record), encoding="utf-8")
    build = FakeBuild(onnx_model_path(onnx_cache))
    monkeypatch.setattr(onnx_encoder, "_build_graph", build)
    assert export_onnx(stale_copy).exported
    assert build.calls == 1
    assert read_record(stale_copy) == ExportRecord.current(model_dir())
    assert not export_onnx(stale_copy).exported and build.calls == 1
    # nothing is left behind but the model, its record and the lock file
    assert sorted(p.name for p in stale_copy.parent.iterdir()) == sorted(
        [stale_copy.name, manifest_path(stale_copy).name, f".{stale_copy.name}.lock"]
    )


def test_a_missing_record_or_model_is_exported_again(
    stale_copy: Path, onnx_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build = FakeBuild(onnx_model_path(onnx_cache))
    monkeypatch.setattr(onnx_encoder, "_build_graph", build)
    manifest_path(stale_copy).unlink()
    assert export_onnx(stale_copy).exported
    stale_copy.unlink()
    assert export_onnx(stale_copy).exported
    assert build.calls == 2 and stale_copy.is_file()
    assert export_onnx(stale_copy, force=True).exported and build.calls == 3


def test_concurrent_exports_build_once(
    onnx_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build = FakeBuild(onnx_model_path(onnx_cache), delay=0.3)
    monkeypatch.setattr(onnx_encoder, "_build_graph", build)
    dest = onnx_model_path(tmp_path)
    outcomes: list[bool] = []
    threads = [
        threading.Thread(target=lambda: outcomes.append(export_onnx(dest).exported))
        for _ in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes) == [False, False, True]
    assert build.calls == 1


@pytest.mark.parametrize("precision", ["fp32", "int8"])
def test_serving_the_onnx_encoder_never_imports_torch(onnx_cache: Path, precision: str) -> None:
    # the server's start-up without torch: ~1 s instead of ~3.4 s
    code = (
        "import sys; from pathlib import Path; "
        "from warehouse.onnx_encoder import load_onnx_encoder; "
        f"model = load_onnx_encoder(Path({str(onnx_cache)!r}), {precision!r}); "
        f"assert model.precision == {precision!r}; "
        "assert model(['q']).shape == (1, 384); "
        "assert 'torch' not in sys.modules, 'torch was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
