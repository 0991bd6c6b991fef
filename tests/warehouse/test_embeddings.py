"""The in-house MiniLM forward pass: shape, norms, order, truncation, determinism, and agreement
with the sentence-transformers pipeline it replaces."""

from __future__ import annotations

import numpy as np
import pytest

from analytics.embedding import EMBEDDING_DIM
from warehouse.embeddings import MiniLM, load_minilm, model_dir

_LONG = (
    "Hyperscalers keep raising capital expenditure guidance for data centres, and the power "
    "grid is now the binding constraint: utilities quote five-year waits for new substations, "
    "so operators sign nuclear and gas deals, buy stranded sites and move training clusters to "
    "wherever megawatts exist. Meanwhile accelerator supply loosens as packaging capacity grows. "
)

VARIED_TEXTS: list[str] = [
    "",
    "   ",
    "GPU",
    "hello world",
    "Nvidia reported $35.1 billion in quarterly revenue, up 94% year over year.",
    "OpenAI raised $6.6B at a $157B valuation in October 2024.",
    "The EU AI Act entered into force on 1 August 2024.",
    "Anthropic released Claude 3.5 Sonnet; it beats GPT-4o on several coding benchmarks.",
    "Inference costs fell roughly 10x per year for equivalent capability.",
    "We hired our first ML engineer in 2019 and it took nine months.",
    "Is scaling hitting a wall? Some researchers think pre-training returns are diminishing.",
    "TSMC's CoWoS capacity is the bottleneck for H100 and B200 shipments.",
    "Data-centre power demand could reach 9% of US electricity by 2030.",
    "Open-weight models like Llama 3.1 405B narrowed the gap with closed frontier models.",
    "Thank you so much for having me, it's great to be here.",
    "This episode is brought to you by our sponsor. Use code AI for 20% off.",
    "naïve café résumé — Zürich, São Paulo, Kraków",
    "東京の人工知能スタートアップが資金を調達した。",
    "北京的大模型公司正在降价。",
    "الذكاء الاصطناعي يغير سوق العمل",
    "Искусственный интеллект и рынок труда",
    "🚀🚀🚀 to the moon 🤖 AI agents everywhere ✨",
    "https://example.com/podcast?t=120&end=480",
    "!!! ??? ... --- ***",
    "1234567890 3.14159 2.71828 1e-9",
    "ALL CAPS HEADLINE ABOUT SEMICONDUCTOR EXPORT CONTROLS",
    "mixed CaSe TeXt about TRANSFORMERS and tokenizers",
    "tab\tseparated\tvalues and\nnew\nlines\r\nand carriage returns",
    "a " * 10,
    "The quick brown fox jumps over the lazy dog.",
    _LONG * 4,  # well over 256 tokens: truncated
    _LONG * 8,
    ("word " * 600).strip(),
    "Regulators in California proposed SB 1047, which would require safety testing of large "
    "models; the governor vetoed it.",
    "Microsoft, Google and Amazon together spent over $200 billion on capex in 2024.",
    "Talent wars: top researchers command packages above $10 million a year.",
    "Enterprise adoption is slower than the hype: most pilots never reach production.",
    "Synthetic data helps, but model collapse is a risk when models train on their own outputs.",
    "Sovereign AI: governments fund national compute clusters and local-language models.",
    "Agents that browse, code and call tools are the next product wave.",
    "Chip export restrictions to China tightened again in December.",
    "Startups building on foundation-model APIs face platform risk.",
    "Retrieval-augmented generation reduces hallucinations for knowledge-heavy tasks.",
    "I think, um, you know, it's kind of like, yeah, right?",
    "Q3 FY25: revenue $4.2M ARR, burn $1.1M/month, runway 18 months.",
    "[CLS] [SEP] [PAD] [MASK] [UNK]",
    "x",
    "Ünïcödé ñ ç ø å ß œ æ",
    "Long-context models now accept a million tokens, which changes how search products work.",
    "The end.",
]


@pytest.fixture(scope="module")
def minilm() -> MiniLM:
    return load_minilm()


def test_empty_input_is_zero_rows(minilm: MiniLM) -> None:
    out = minilm([])
    assert out.shape == (0, EMBEDDING_DIM)
    assert out.dtype == np.float32


def test_rows_are_unit_float32_in_input_order(minilm: MiniLM) -> None:
    texts = ["GPUs and power", "", "hiring engineers", _LONG * 3, "GPUs and power"]
    out = minilm(texts)
    assert out.shape == (len(texts), EMBEDDING_DIM)
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    # each row is the text's own vector, whatever batch and position it was computed in
    for text, row in zip(texts, out, strict=True):
        np.testing.assert_allclose(minilm([text])[0], row, atol=1e-5)
    np.testing.assert_array_equal(out[0], out[4])


@pytest.mark.slow  # the real model over the texts, twice
def test_deterministic(minilm: MiniLM) -> None:
    first = minilm(VARIED_TEXTS)
    second = minilm(VARIED_TEXTS)
    np.testing.assert_array_equal(first, second)


def test_truncates_at_max_seq_length(minilm: MiniLM) -> None:
    assert minilm.max_seq_length == 256
    shared = "alpha " * 300
    out = minilm([shared + "beta gamma delta", shared + "completely different ending"])
    np.testing.assert_allclose(out[0], out[1], atol=1e-6)


def test_related_texts_are_closer(minilm: MiniLM) -> None:
    gpu, power, hiring = minilm(
        [
            "Nvidia GPU shipments are limited by packaging capacity.",
            "Accelerator supply is constrained by advanced chip packaging.",
            "We are hiring a product designer for our growth team.",
        ]
    )
    assert float(gpu @ power) > float(gpu @ hiring) + 0.2


def test_progress_bar_path(minilm: MiniLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(minilm, "batch_size", 2)
    texts = VARIED_TEXTS[:12]
    with_bar = minilm(texts, progress=True)
    monkeypatch.undo()
    np.testing.assert_allclose(with_bar, minilm(texts), atol=1e-5)


@pytest.mark.slow
def test_matches_sentence_transformers(minilm: MiniLM) -> None:
    # the slow import (~18 s) this module exists to avoid; done once, here only
    from sentence_transformers import SentenceTransformer

    reference = SentenceTransformer(str(model_dir()), device="cpu")
    expected = reference.encode(
        VARIED_TEXTS, batch_size=16, normalize_embeddings=True, convert_to_numpy=True
    )
    actual = minilm(VARIED_TEXTS)
    assert actual.shape == expected.shape == (len(VARIED_TEXTS), EMBEDDING_DIM)
    assert float(np.abs(actual - np.asarray(expected, dtype=np.float32)).max()) < 1e-4
