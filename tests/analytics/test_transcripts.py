from __future__ import annotations

from analytics.transcripts import (
    Turn,
    format_turns,
    looks_like_transcript,
    parse_timestamp,
    parse_turns,
)

SHARED_STYLE = """# Episode title

## Transcript

Chip Huyen (00:00:00):
A question that gets asked a lot is how to keep up.
Why do you need to?

Lenny Rachitsky (00:00:15):
A lot of companies are building AI products.

Chip Huyen (01:02:19): Inline text works too.
"""


def test_labels_on_their_own_line_or_inline() -> None:
    assert parse_turns(SHARED_STYLE) == [
        Turn(
            "Chip Huyen",
            0,
            "A question that gets asked a lot is how to keep up. Why do you need to?",
        ),
        Turn("Lenny Rachitsky", 15, "A lot of companies are building AI products."),
        Turn("Chip Huyen", 3739, "Inline text works too."),
    ]
    assert looks_like_transcript(SHARED_STYLE)
    assert not looks_like_transcript("Plain prose (with a parenthesis): and a colon.")


def test_format_then_parse_round_trips() -> None:
    turns = parse_turns(SHARED_STYLE)
    text = format_turns(turns)
    assert text.splitlines()[0].startswith("Chip Huyen (00:00:00): A question")
    assert parse_turns(text) == turns


def test_timestamps() -> None:
    assert parse_timestamp("1:02:03") == 3723
    assert parse_timestamp("02:03") == 123
    assert parse_timestamp("00:00:05.250") == 5
