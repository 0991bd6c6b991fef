"""Fixtures of the analytics tests: the real MiniLM encoder, loaded once per session."""

from __future__ import annotations

import pytest

from analytics.embedding import Embedder


@pytest.fixture(scope="session")
def minilm() -> Embedder:
    from warehouse.embeddings import load_minilm

    return load_minilm()
