from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from analytics.text import SNIPPET_MAX_CHARS, normalize_ws, snippet, split_sentences


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
