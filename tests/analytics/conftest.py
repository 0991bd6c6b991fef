"""Fixtures of the analytics tests: the real MiniLM encoder, loaded once per session."""

from __future__ import annotations

import pytest

from analytics.embedding import Embedder


@pytest.fixture(scope="session")
def minilm(build_minilm: Embedder) -> Embedder:
    """MiniLM as a build runs it (``tests/conftest.py``)."""
    return build_minilm
