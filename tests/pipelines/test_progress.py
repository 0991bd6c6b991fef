"""The long MiniLM passes of a build (decomposition, theme tagging) show a progress bar named
after the pass on a terminal, and none elsewhere (the UI's logs, CI)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from pipelines.resources import LazyEmbedder
from warehouse.build_encoder import load_build_encoder


def test_a_labelled_progress_bar_on_a_terminal_only(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # 5 batches of 64: enough for a bar (the encoder shows none below 4)
    texts = [f"Acme shipped accelerator number {i} to Beta Cloud this week." for i in range(300)]
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    quiet = LazyEmbedder("decomposition")
    assert quiet.progress is None
    plain = quiet(texts)
    assert "decomposition" not in capsys.readouterr().err

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    # the build encoder remembers the texts it embedded: make it embed them again
    load_build_encoder().forget()
    shown = LazyEmbedder("theme tagging")
    vectors = shown(texts)
    err = capsys.readouterr().err
    assert "theme tagging" in err and "5/5" in err
    # the bar changes nothing about the vectors
    np.testing.assert_array_equal(vectors, plain)
    assert LazyEmbedder().progress is None  # no name, no bar
