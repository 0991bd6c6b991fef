"""Text primitives: both sentence splitters, snippets, normalization."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from analytics.text import (
    MAX_SENTENCE_CHARS,
    SNIPPET_MAX_CHARS,
    normalize_ws,
    snippet,
    split_document,
    split_sentences,
)


def test_sentences_keep_abbreviations_decimals_quotes_and_offsets() -> None:
    text = (
        "Nvidia Corp. said revenue rose 3.5% to $30.2 billion. Mr. Huang spoke in the U.S. "
        'on Monday. He said "It works." Then it ended!\n\nJane Doe (00:01:02): Next point.'
    )
    sentences = split_sentences(text)
    assert [s.text for s in sentences] == [
        "Nvidia Corp. said revenue rose 3.5% to $30.2 billion.",
        "Mr. Huang spoke in the U.S. on Monday.",
        'He said "It works."',
        "Then it ended!",
        "Next point.",
    ]
    assert all(text[s.start : s.end] == s.text for s in sentences)


def test_snippet_cuts_at_a_word_and_says_so() -> None:
    text = "OpenAI raised $40 billion at a $300 billion valuation in a round led by SoftBank"
    cut, truncated = snippet(text)
    assert (cut, truncated) == ("OpenAI raised $40 billion at a $300 billion", True)
    assert snippet("Short sentence.") == ("Short sentence.", False)


@given(st.text(min_size=1, max_size=400))
def test_snippets_are_short_and_verbatim(text: str) -> None:
    cut, truncated = snippet(text)
    assert len(cut) <= SNIPPET_MAX_CHARS
    assert cut in text
    assert truncated == (len(cut) < len(text.strip()))


@given(st.text(max_size=600))
def test_sentence_offsets_point_at_the_sentence(text: str) -> None:
    for sentence in split_sentences(text):
        assert text[sentence.start : sentence.end] == sentence.text
        assert sentence.text == sentence.text.strip() and sentence.text


def test_normalize_ws() -> None:
    assert normalize_ws("  a \n\t b  ") == "a b"


def test_document_splitter_knows_markdown_urls_and_abbreviations() -> None:
    text = (
        "# The capex cycle\n\n## Why now\n"
        "Hyperscalers spend more, e.g. Microsoft and Google. Nvidia vs. AMD is a race. "
        "See https://openai.com/index/gpt-5. It shipped.\n\n"
        "---\n"
        "Three points:\n"
        "- Capex rose 40% in 2024\n"
        "* Power is scarce. Queues are long\n"
        "2. Prices fell"
    )
    sentences = split_document(text)
    assert all(text[s.start : s.end] == s.text for s in sentences)
    assert [s.text for s in sentences] == [
        "Hyperscalers spend more, e.g. Microsoft and Google.",
        "Nvidia vs. AMD is a race.",
        "See https://openai.com/index/gpt-5.",
        "It shipped.",
        "Three points:",
        "Capex rose 40% in 2024",
        "Power is scarce.",
        "Queues are long",
        "Prices fell",
    ]
    assert [s.list_item for s in sentences][-4:] == [True, True, False, True]
    assert sentences[0].paragraph == sentences[3].paragraph < sentences[4].paragraph


def test_document_splitter_strips_turn_labels_and_joins_soft_wraps() -> None:
    text = (
        "Kevin Weil (00:00:00):\nThe models you use today are the worst you will ever\nuse. "
        "Every two months they improve.\n\nLenny (01:02:03): Why does that matter?"
    )
    sentences = split_document(text)
    assert [normalize_ws(s.text) for s in sentences] == [
        "The models you use today are the worst you will ever use.",
        "Every two months they improve.",
        "Why does that matter?",
    ]
    assert all(text[s.start : s.end] == s.text for s in sentences)
    assert sentences[0].paragraph == sentences[1].paragraph != sentences[2].paragraph


def test_short_lines_stand_alone() -> None:
    text = "Big news today\nOpenAI released a new model for agents"
    assert [s.text for s in split_document(text)] == [
        "Big news today",
        "OpenAI released a new model for agents",
    ]


def test_run_on_sentences_are_cut_at_clause_boundaries() -> None:
    clause = "and then we shipped the model to more customers than we had planned for"
    text = "So we built it, " + ", ".join([clause] * 12) + "."
    sentences = split_document(text)
    assert len(sentences) > 1
    assert all(len(s.text) <= MAX_SENTENCE_CHARS for s in sentences)
    assert all(text[s.start : s.end] == s.text for s in sentences)
    assert normalize_ws(" ".join(s.text for s in sentences)) == normalize_ws(text)
    one_word = "x" * 1000
    assert [s.text for s in split_document(one_word)] == [one_word]


_DOCUMENTS = st.lists(
    st.one_of(
        st.text(max_size=60),
        st.sampled_from(
            ["\n", "\n\n", "# ", "\n- ", "\n1. ", ". ", "e.g. ", "Ann (00:01:02): ", "; "]
        ),
        st.text(alphabet="ab ,", min_size=300, max_size=900),
    ),
    max_size=30,
).map("".join)


@given(st.one_of(st.text(max_size=600), _DOCUMENTS))
def test_document_offsets_point_at_the_sentence(text: str) -> None:
    sentences = split_document(text)
    for sentence in sentences:
        assert text[sentence.start : sentence.end] == sentence.text
        assert sentence.text == sentence.text.strip() and sentence.text
    starts = [s.start for s in sentences]
    assert starts == sorted(starts)
    assert all(a.end <= b.start for a, b in zip(sentences, sentences[1:], strict=False))
