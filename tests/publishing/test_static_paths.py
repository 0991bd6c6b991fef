"""The id encoding of the static tree's paths: reversible, one URL- and file-safe segment."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from publishing.static.paths import decode_segment, encode_segment


@pytest.mark.parametrize(
    ("value", "segment"),
    [
        ("ent:/22tujv3l54", "ent~3A~2F22tujv3l54"),
        ("sig_004a52841e25833a", "sig_004a52841e25833a"),
        ("Capital & Investment", "Capital~20~26~20Investment"),
        ("a~b", "a~7Eb"),
        ("..", "~2E~2E"),
        ("Zürich", "Z~C3~BCrich"),
    ],
)
def test_documented_examples(value: str, segment: str) -> None:
    assert encode_segment(value) == segment
    assert decode_segment(segment) == value


@given(st.text(min_size=1))
def test_every_id_round_trips_through_one_safe_segment(value: str) -> None:
    segment = encode_segment(value)
    assert re.fullmatch(r"[A-Za-z0-9_~-]+", segment)
    assert decode_segment(segment) == value


@pytest.mark.parametrize("segment", ["", "a/b", "~41", "~2f", "~C3", "a b", "~"])
def test_what_no_id_encodes_to_is_refused(segment: str) -> None:
    with pytest.raises(ValueError):
        decode_segment(segment)
