"""The id encoding of the static tree's paths: reversible, one URL- and file-safe segment."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from publishing.static import paths
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


def _path_literals(path: Path) -> list[str]:
    """The string constants of ``path`` that look like a file of the site."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.name}:{node.lineno} {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and re.search(r".\.(html|atom|json|css)$|^json/|^feeds/|^export/", node.value)
    ]


def test_every_page_and_feed_path_is_written_in_paths_py() -> None:
    package = Path(paths.__file__).parent
    modules = [m for m in sorted(package.glob("*.py")) if m.name != "paths.py"]
    assert modules  # the checker read the package
    assert [hit for module in modules for hit in _path_literals(module)] == []
    # and the checker sees such a literal
    assert _path_literals(Path(paths.__file__))
