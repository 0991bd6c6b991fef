"""Reversal cues: a negation the passage does not make, or the opposite of one of its words."""

from __future__ import annotations

import pytest

from analytics.polarity import OPPOSITES, reversal_cues, words


@pytest.mark.parametrize(
    ("text", "passage", "cues"),
    [
        ("Kimi Linear slows decoding.", "Kimi Linear brings faster decoding.", ["slows"]),
        ("The model trails GPT-4.1.", "The model outperforms GPT-4.1.", ["trails"]),
        ("A closed model.", "An open-weights model.", ["closed"]),
        # a negation the passage does not make
        (
            "The o3-mini model failed to find the bug.",
            "The o3-mini model uncovered the bug.",
            ["failed"],
        ),
        ("Revenue did not grow.", "Revenue grew 5%.", ["not"]),
        # the passage negates too: a restatement, not a reversal
        ("Progress is not expected next year.", "I don't think we'll see progress next year.", []),
        # the passage uses both words of a pair: nothing to reverse
        ("Smaller models got faster.", "Smaller and larger models got faster.", []),
        # another word of the same side is a paraphrase
        ("It cuts the KV cache by 75%.", "It brings a 75% KV cache reduction.", []),
        ("Nothing here is an opposite.", "Something else entirely.", ["nothing"]),
    ],
)
def test_reversal_cues(text: str, passage: str, cues: list[str]) -> None:
    assert reversal_cues(text, passage) == cues


def test_words_read_contractions_and_split_hyphens() -> None:
    assert words("Don't go multi-task") == {"do", "not", "go", "multi", "task"}


def test_no_word_is_its_own_opposite() -> None:
    for one, other in OPPOSITES:
        assert not one & other
