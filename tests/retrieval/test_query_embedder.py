"""Concurrent queries share one encoder call and get the vectors they would get alone; the
setting picks the encoder, and a broken ONNX file falls back to torch."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from analytics.embedding import FloatMatrix
from retrieval.query_embedder import Model, QueryEmbedder, load_query_model
from warehouse.embeddings import MiniLM, load_minilm
from warehouse.onnx_encoder import OnnxEncoder, load_onnx_encoder, manifest_path, onnx_model_path
from warehouse.settings import Settings

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


@pytest.fixture(scope="module", params=["torch", "onnx"])
def minilm(request: pytest.FixtureRequest) -> Model:
    if request.param == "onnx":
        return load_onnx_encoder(request.getfixturevalue("onnx_cache"))
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


def _settings(encoder: str, cache: Path) -> Settings:
    return Settings(_env_file=None, query_encoder=encoder, model_cache=cache)


def test_the_setting_selects_the_encoder(onnx_cache: Path) -> None:
    int8 = load_query_model(_settings("onnx-int8", onnx_cache))
    assert isinstance(int8, OnnxEncoder) and int8.precision == "int8"
    fp32 = load_query_model(_settings("onnx", onnx_cache))
    assert isinstance(fp32, OnnxEncoder) and fp32.precision == "fp32"
    assert isinstance(load_query_model(_settings("torch", onnx_cache)), MiniLM)


class RunsAlone:
    """A model that runs each text alone (as the int8 encoder): it waits inside every call for
    a second caller to be inside too, which only concurrent calls can satisfy."""

    runs_alone = True

    def __init__(self) -> None:
        self.inside = threading.Barrier(2, timeout=10)
        self.calls: list[list[str]] = []

    def __call__(self, texts: Sequence[str]) -> FloatMatrix:
        self.calls.append(list(texts))
        self.inside.wait()
        return np.ones((len(texts), 384), dtype=np.float32)


def test_a_model_that_runs_texts_alone_is_called_concurrently() -> None:
    model = RunsAlone()
    embedder = QueryEmbedder(load=lambda: model)
    results = _concurrently(embedder, QUERIES[:2])
    # batched calls would have run one at a time, and the barrier would have broken
    assert all(isinstance(results[q], np.ndarray) for q in QUERIES[:2]), results
    assert sorted(model.calls) == sorted([[q] for q in QUERIES[:2]])


def _corrupt(onnx_cache: Path, tmp_path: Path) -> Path:
    """A cache whose model file is cut off half way (a real, unloadable file) beside a
    current record."""
    good, model = onnx_model_path(onnx_cache), onnx_model_path(tmp_path / "cache")
    model.parent.mkdir(parents=True)
    data = good.read_bytes()
    model.write_bytes(data[: len(data) // 2])
    manifest_path(model).write_bytes(manifest_path(good).read_bytes())
    return tmp_path / "cache"


def _unwritable(_onnx_cache: Path, tmp_path: Path) -> Path:
    """A cache path under a plain file: the export cannot even create its folder."""
    (tmp_path / "blocker").write_text("not a folder")
    return tmp_path / "blocker" / "cache"


@pytest.mark.parametrize("broken_cache", [_corrupt, _unwritable], ids=["corrupt", "unwritable"])
def test_a_broken_onnx_encoder_falls_back_to_torch(
    onnx_cache: Path,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    broken_cache: Callable[[Path, Path], Path],
) -> None:
    cache = broken_cache(onnx_cache, tmp_path)
    with caplog.at_level(logging.WARNING, logger="aimi.serving"):
        embedder = QueryEmbedder(lambda: load_query_model(_settings("onnx", cache)))
        vectors = embedder(QUERIES[:2])
    np.testing.assert_allclose(vectors, load_minilm()(QUERIES[:2]), atol=1e-5)
    warning = next(r for r in caplog.records if "ONNX query encoder" in r.getMessage())
    assert warning.levelno == logging.WARNING
    assert str(cache) in warning.getMessage()
    assert "aimi encoder export --force" in warning.getMessage()


def test_aimi_encoder_export_keeps_a_current_file_and_reports_a_failure(
    onnx_cache: Path, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from cli.app import app

    runner = CliRunner()
    current = runner.invoke(app, ["encoder", "export", "--cache-dir", str(onnx_cache)])
    assert current.exit_code == 0, current.output
    assert "is current" in current.stdout and ".int8.onnx" in current.stdout
    fp32 = runner.invoke(
        app, ["encoder", "export", "--cache-dir", str(onnx_cache), "--precision", "fp32"]
    )
    assert fp32.exit_code == 0 and "is current" in fp32.stdout, fp32.output
    unknown = runner.invoke(app, ["encoder", "export", "--precision", "fp16"])
    assert unknown.exit_code == 2 and "fp16" in unknown.output
    (tmp_path / "blocker").write_text("not a folder")
    failed = runner.invoke(app, ["encoder", "export", "--cache-dir", str(tmp_path / "blocker")])
    assert failed.exit_code == 1
    assert "export to" in failed.stderr and "failed" in failed.stderr
