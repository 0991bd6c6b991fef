"""The build's encoder (``warehouse.build_encoder``): ONNX Runtime over the fp32 export, the
torch forward pass as the fallback. Every MiniLM pass of a build comes out the same on both —
segment boundaries, units, theme labels, unit vectors — on generated demo texts; the fp32 file
is exported when missing, a failed export says what to do, and a build on the ONNX encoder
never imports torch (the session's demo build reports it). Theme tagging runs on the int8
export unless ``AIMI_THEME_PRECISION=fp32``: its vectors depend on the text alone, and its
labels agree with fp32's at the rate measured (docs/quality.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

from analytics.decompose import EmbeddingDecomposer, classify_content_type
from analytics.embedding import Embedder, FloatMatrix
from analytics.segment import segment_transcript
from analytics.themes import score_themes, tag_themes
from demo import generate_demo_corpus
from tests.analytics.test_decompose import CAPEX_ESSAY, INTERVIEW, NEWS_REPORT, TRANSCRIPT
from tests.analytics.test_segment import synthetic_episode
from tests.warehouse.test_embeddings import VARIED_TEXTS
from warehouse import build_encoder
from warehouse.build_encoder import (
    BuildEncoderUnavailable,
    MemoEncoder,
    available_cores,
    load_build_encoder,
    load_theme_encoder,
)
from warehouse.embeddings import MiniLM, load_minilm
from warehouse.onnx_encoder import OnnxEncoder, Precision, onnx_model_path, read_record
from warehouse.snapshot import OpenedSnapshot
from warehouse.themes import load_theme_taxonomy

ROOT = Path(__file__).resolve().parents[2]
# fp32 ONNX against torch: the same arithmetic in another order, float32 rounding apart
MAX_ABS_DIFF = 1e-5
MIN_COSINE = 0.99999
# every test on a model cache of its session's exports, the encoder loaded anew
pytestmark = pytest.mark.usefixtures("settings_env")


def _demo_sample(step: int) -> list[dict[str, str]]:
    """Every ``step``-th record of the generated demo corpus that has a text (podcasts come
    with chapters and no top-level text)."""
    return [r for r in generate_demo_corpus().records[::step] if r.get("text")]


@pytest.fixture
def settings_env(monkeypatch: pytest.MonkeyPatch, onnx_cache: Path) -> Iterator[None]:
    monkeypatch.setenv("AIMI_MODEL_CACHE", str(onnx_cache))
    monkeypatch.delenv("AIMI_BUILD_ENCODER", raising=False)
    monkeypatch.delenv("AIMI_BUILD_THREADS", raising=False)
    monkeypatch.delenv("AIMI_THEME_PRECISION", raising=False)
    build_encoder._load.cache_clear()
    build_encoder._load_onnx.cache_clear()
    yield
    build_encoder._load.cache_clear()
    build_encoder._load_onnx.cache_clear()


@pytest.fixture
def onnx() -> Embedder:
    memo = load_build_encoder()
    assert isinstance(memo, MemoEncoder)
    assert isinstance(memo.encoder, OnnxEncoder) and memo.encoder.precision == "fp32"
    return memo


@pytest.fixture(scope="module")
def torch_encoder() -> MiniLM:
    return load_minilm()


def _sample_signals(step: int) -> pl.DataFrame:
    """``_demo_sample(step)`` as the signals frame theme tagging reads."""
    sample = _demo_sample(step)
    return pl.DataFrame(
        {
            "signal_id": [f"s{i}" for i in range(len(sample))],
            "title": [r["title"] for r in sample],
            "text": [r["text"] for r in sample],
        }
    )


def _agree(a: FloatMatrix, b: FloatMatrix) -> None:
    assert a.shape == b.shape
    assert float(np.abs(a - b).max()) <= MAX_ABS_DIFF
    cosine = np.einsum("ij,ij->i", a, b) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    assert float(cosine.min()) >= MIN_COSINE


@pytest.mark.slow  # a whole build, or MiniLM over a corpus sample
def test_unit_embeddings_agree(onnx: Embedder, torch_encoder: MiniLM) -> None:
    texts = [r["text"] for r in _demo_sample(20)] + VARIED_TEXTS
    # long and short texts together: batches sorted by length, padded per batch
    _agree(onnx(texts), torch_encoder(texts))


@pytest.mark.slow  # a whole build, or MiniLM over a corpus sample
def test_decomposition_units_are_unchanged(onnx: Embedder, torch_encoder: MiniLM) -> None:
    on_onnx, on_torch = EmbeddingDecomposer(onnx), EmbeddingDecomposer(torch_encoder)
    documents = [
        (classify_content_type(r["kind"], r["title"], r["text"]), r["text"])
        for r in _demo_sample(1)
    ]
    # every 30th of the demo's documents whose units depend on embeddings (~340 do; short news
    # and posts are decomposed without): the suite's budget, the property is per document
    documents = [d for d in documents if on_onnx.texts_to_embed(*d)][::30]
    documents += [("analysis", CAPEX_ESSAY), ("event", NEWS_REPORT)]
    documents += [("analysis", TRANSCRIPT), ("analysis", INTERVIEW)]
    embedded = 0
    for content_type, text in documents:
        wanted = on_onnx.texts_to_embed(content_type, text)
        if wanted:
            embedded += 1
            _agree(onnx(wanted), torch_encoder(wanted))
        assert on_onnx.decompose(content_type, text) == on_torch.decompose(content_type, text)
    assert embedded >= 12


@pytest.mark.slow  # a whole build, or MiniLM over a corpus sample
def test_theme_similarities_and_labels_are_unchanged(onnx: Embedder, torch_encoder: MiniLM) -> None:
    signals = _sample_signals(40)
    taxonomy = load_theme_taxonomy()
    a = score_themes(signals, onnx, taxonomy)
    b = score_themes(signals, torch_encoder, taxonomy)
    assert float(np.abs(a.similarity - b.similarity).max()) <= MAX_ABS_DIFF
    tagged = tag_themes(signals, onnx, taxonomy)
    assert tagged.equals(tag_themes(signals, torch_encoder, taxonomy))
    assert tagged["value_chain"].list.len().sum() + tagged["market_force"].list.len().sum() > 0


@pytest.mark.slow  # MiniLM on both encoders over an episode
def test_segment_boundaries_are_unchanged(onnx: Embedder, torch_encoder: MiniLM) -> None:
    transcript, topic_starts, duration = synthetic_episode()
    segments = segment_transcript(transcript, onnx, duration_s=duration)
    assert segments == segment_transcript(transcript, torch_encoder, duration_s=duration)
    assert len(segments) >= len(topic_starts) - 1  # the episode was cut, not kept whole
    for text in (TRANSCRIPT, INTERVIEW):
        assert segment_transcript(text, onnx) == segment_transcript(text, torch_encoder)


def test_each_distinct_text_is_embedded_once(onnx: Embedder) -> None:
    assert isinstance(onnx, MemoEncoder)
    calls: list[list[str]] = []
    inner = onnx.encoder

    def counting(texts: Sequence[str], **kwargs: Any) -> FloatMatrix:
        calls.append(list(texts))
        return inner(texts, **kwargs)

    memo = MemoEncoder(counting)
    texts = ["Acme shipped a chip.", "Beta raised a round.", "Acme shipped a chip."]
    first = memo(texts)
    assert calls == [["Acme shipped a chip.", "Beta raised a round."]]
    # a later pass repeats one text and brings one new: only the new one is embedded
    second = memo(["Beta raised a round.", "Gamma opened a lab."])
    assert calls[1:] == [["Gamma opened a lab."]]
    np.testing.assert_array_equal(first[0], first[2])
    np.testing.assert_array_equal(second[0], first[1])
    # the vectors are the encoder's own, in input order
    np.testing.assert_allclose(first, inner(texts), atol=1e-6)
    assert memo([]).shape == (0, 384)
    # past its size the memo starts over rather than grow
    small = MemoEncoder(counting, max_texts=2)
    small(["one", "two"])
    small(["three"])
    assert calls[-1] == ["three"] and len(small._vectors) == 1


@pytest.mark.slow  # a real export
def test_the_fp32_file_is_exported_when_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AIMI_MODEL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("AIMI_BUILD_THREADS", "1")
    encoder = load_build_encoder()
    record = read_record(onnx_model_path(tmp_path / "cache", "fp32"))
    assert record is not None and record.precision == "fp32"
    assert encoder(["Acme shipped a chip."]).shape == (1, 384)
    assert load_build_encoder() is encoder  # once per process


@pytest.mark.parametrize(
    ("load", "precision", "other_choice"),
    [
        (load_build_encoder, "fp32", "AIMI_BUILD_ENCODER=torch"),
        (load_theme_encoder, "int8", "AIMI_THEME_PRECISION=fp32"),
    ],
)
def test_a_failed_export_says_what_to_do(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    load: Callable[[], object],
    precision: Precision,
    other_choice: str,
) -> None:
    # a file where the cache folder should be: nothing can be exported there
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("", encoding="utf-8")
    monkeypatch.setenv("AIMI_MODEL_CACHE", str(blocked))
    with pytest.raises(BuildEncoderUnavailable) as failed:
        load()
    message = str(failed.value)
    assert str(onnx_model_path(blocked, precision)) in message
    assert f"aimi encoder export --precision {precision}" in message
    assert other_choice in message


def test_torch_is_the_fallback_by_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIMI_BUILD_ENCODER", "torch")
    memo = load_build_encoder()
    assert isinstance(memo, MemoEncoder) and isinstance(memo.encoder, MiniLM)


def test_threads_follow_the_setting_else_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    # the build's threads are runs at a time, each run (of one length) on one intra-op thread
    def threads() -> int:
        memo = load_build_encoder()
        assert isinstance(memo, MemoEncoder) and isinstance(memo.encoder, OnnxEncoder)
        assert memo.encoder.precision == "fp32" and memo.encoder.exact_lengths
        assert memo.encoder._session.get_session_options().intra_op_num_threads == 1
        return memo.encoder.concurrent_runs

    assert threads() == available_cores()
    monkeypatch.setenv("AIMI_BUILD_THREADS", "1")
    assert threads() == 1
    monkeypatch.setenv("AIMI_BUILD_THREADS", "3")
    assert threads() == 3


def test_a_build_on_the_onnx_encoder_never_imports_torch(
    demo_build_report: dict[str, object], demo_snapshot: OpenedSnapshot
) -> None:
    # the session's demo build ran in its own interpreter on the default (ONNX) encoder and
    # reported what its process had imported at the end; it embedded (decomposition, themes,
    # unit vectors) on the way
    if os.environ.get("AIMI_BUILD_ENCODER") == "torch":
        pytest.skip("AIMI_BUILD_ENCODER=torch: this session's demo build ran on the fallback")
    assert demo_snapshot.read_table("units").height > 0
    assert demo_build_report["torch_imported"] is False


# Loads the build's encoder and theme tagging's in a fresh interpreter, embeds one text on each,
# reports whether torch was imported.
_ENCODE_AND_REPORT = """
import json, sys
from warehouse.build_encoder import load_build_encoder

from warehouse.build_encoder import load_theme_encoder

vectors = load_build_encoder()(["Acme raised $2 billion on Monday."])
vectors = [*vectors, *load_theme_encoder()(["Acme raised $2 billion on Monday."])]
print(json.dumps({"torch": "torch" in sys.modules, "rows": len(vectors)}))
"""


@pytest.mark.slow  # an interpreter each, one of them importing torch
@pytest.mark.parametrize(("encoder", "imports_torch"), [(None, False), ("torch", True)])
def test_only_the_fallback_imports_torch(
    onnx_cache: Path, encoder: str | None, imports_torch: bool
) -> None:
    # the check above can tell: the same report says yes on the fallback
    env = {**os.environ, "AIMI_MODEL_CACHE": str(onnx_cache), "HF_HUB_OFFLINE": "1"}
    env.pop("AIMI_BUILD_ENCODER", None)
    if encoder is not None:
        env["AIMI_BUILD_ENCODER"] = encoder
    done = subprocess.run(
        [sys.executable, "-c", _ENCODE_AND_REPORT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {
        "torch": imports_torch,
        "rows": 2,
    }


def test_theme_tagging_runs_on_int8_unless_set_to_fp32(monkeypatch: pytest.MonkeyPatch) -> None:
    themes = load_theme_encoder()
    assert isinstance(themes, MemoEncoder) and isinstance(themes.encoder, OnnxEncoder)
    assert themes.encoder.precision == "int8" and themes.encoder.runs_alone
    # texts run alone on one intra-op thread each, as many at a time as the build has threads
    assert themes.encoder.concurrent_runs == available_cores()
    assert themes.encoder._session.get_session_options().intra_op_num_threads == 1
    assert themes is not load_build_encoder() and load_theme_encoder() is themes
    monkeypatch.setenv("AIMI_THEME_PRECISION", "fp32")
    assert load_theme_encoder() is load_build_encoder()
    monkeypatch.setenv("AIMI_BUILD_THREADS", "1")
    one = load_theme_encoder()
    assert isinstance(one, MemoEncoder) and isinstance(one.encoder, OnnxEncoder)
    assert one.encoder.precision == "fp32"
    assert one.encoder._session.get_session_options().intra_op_num_threads == 1
    # the torch fallback has no int8 file to run: themes go with the build encoder
    monkeypatch.delenv("AIMI_THEME_PRECISION")
    monkeypatch.setenv("AIMI_BUILD_ENCODER", "torch")
    assert load_theme_encoder() is load_build_encoder()


def test_a_bad_theme_precision_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIMI_THEME_PRECISION", "int4")
    with pytest.raises(ValueError, match="theme_precision"):
        load_theme_encoder()


@pytest.mark.slow  # MiniLM on two precisions over a corpus sample
def test_int8_theme_vectors_depend_on_the_text_alone(onnx_cache: Path) -> None:
    # what keeps a chunked or multiprocess build's labels those of one pass: a text's int8
    # vector is the same bytes whatever it is called with and on however many threads
    path = onnx_model_path(onnx_cache, "int8")
    texts = [f"{r['title']}\n{r['text'][:1000]}" for r in _demo_sample(150)]
    one = OnnxEncoder(path, threads=1, spinning=False, exact_lengths=True)
    two = OnnxEncoder(path, threads=2, spinning=False, exact_lengths=True)
    # the build's: one intra-op thread a run, two runs at a time
    side_by_side = OnnxEncoder(path, threads=1, spinning=False, concurrent_runs=2)
    together = one(texts)
    np.testing.assert_array_equal(together, two(texts))
    np.testing.assert_array_equal(together[::-1], two(texts[::-1]))
    np.testing.assert_array_equal(together, side_by_side(texts))
    np.testing.assert_array_equal(together[::-1], side_by_side(texts[::-1]))
    for i, text in enumerate(texts[:3]):
        np.testing.assert_array_equal(together[i], one([text])[0])


# Share of signals whose labels on an axis are fp32's, int8 against fp32, measured on this test's
# sample (every 12th demo record with a text: 135 signals) on 2026-11-28: value chain 123 (0.911),
# market force 131 (0.970). On the whole demo corpus (1,797 signals) 0.936 and 0.960, on AINews
# 2025 0.942 and 0.956 (bench/analytics/quality/themes_encoders.py; docs/journal/2026-11-28.md
# "Themes on the int8 encoder").
INT8_AGREEMENT = {"value_chain": 0.91, "market_force": 0.97}


@pytest.mark.slow  # MiniLM on two precisions over a corpus sample
def test_int8_theme_labels_agree_with_fp32(build_minilm: Embedder) -> None:
    signals = _sample_signals(12)
    taxonomy = load_theme_taxonomy()
    int8 = load_theme_encoder(threads=1)
    assert isinstance(int8, MemoEncoder) and isinstance(int8.encoder, OnnxEncoder)
    assert int8.encoder.precision == "int8"
    got = tag_themes(signals, int8, taxonomy)
    want = tag_themes(signals, build_minilm, taxonomy)
    assert got["signal_id"].to_list() == want["signal_id"].to_list()
    for axis, rate in INT8_AGREEMENT.items():
        same = [
            set(a) == set(b) for a, b in zip(got[axis].to_list(), want[axis].to_list(), strict=True)
        ]
        assert len(same) == 135
        assert sum(same) / len(same) >= rate, axis
