"""The dense leg on an IVF index (large snapshots) against exact inner product, with and without
a filter, on synthetic clustered vectors; and the index files' place in the manifest."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from analytics.schema import SEARCH_UNITS
from retrieval.engine import SearchFilters, SearchIndex
from retrieval.index import IVF_FILE, LEXICAL_DIR, VECTORS_FILE, build_search_files
from warehouse.paths import DataDir
from warehouse.snapshot import SnapshotError, open_snapshot, publish_snapshot

AS_OF = datetime(2026, 5, 1, tzinfo=UTC)
N = 3_000


def synthetic(n: int) -> tuple[pl.DataFrame, np.ndarray]:
    rng = np.random.default_rng(7)
    centers = rng.normal(size=(40, 384))
    vectors = centers[rng.integers(0, 40, size=n)] + 0.6 * rng.normal(size=(n, 384))
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    units = pl.DataFrame(
        {
            "unit_id": [f"u_{i:06d}" for i in range(n)],
            "signal_id": [f"s_{i // 3:06d}" for i in range(n)],
            "role": ["claim" if i % 4 else "thesis" for i in range(n)],
            "content_type": ["event" if i % 2 else "analysis" for i in range(n)],
            "published_at": [AS_OF - timedelta(hours=i) for i in range(n)],
            "entity_ids": [["ent:/rare"] if i % 50 == 0 else [] for i in range(n)],
            "themes": [["Data"] for _ in range(n)],
            "text": [f"unit number {i} about topic {i % 40}" for i in range(n)],
            "title": [f"signal {i // 3} about topic {i % 40}" for i in range(n)],
            "copy_of": [f"u_{i:06d}" for i in range(n)],  # every text is distinct
            "unit_json": [b"{}"] * n,
            "citation_json": [b"{}"] * n,
        },
        schema=SEARCH_UNITS,
    )
    return units, vectors


@pytest.fixture(scope="module")
def ivf(tmp_path_factory: pytest.TempPathFactory) -> tuple[SearchIndex, np.ndarray]:
    units, vectors = synthetic(N)
    data = DataDir(tmp_path_factory.mktemp("ivf"))
    opened = publish_snapshot(
        data,
        {"search_units": units},
        as_of=AS_OF,
        write_files=lambda folder: {
            "search": build_search_files(folder, units, vectors, ivf_min_units=1_000)
        },
    )
    assert opened.manifest.metadata["search"]["dense"] == "ivf_flat"
    return SearchIndex(opened, AS_OF), vectors


def exact(vectors: np.ndarray, query: np.ndarray, allowed: np.ndarray, k: int) -> list[int]:
    scores = vectors @ query
    scores[~allowed] = -np.inf
    return [int(r) for r in np.argsort(-scores, kind="stable")[:k] if allowed[r]]


def recall(found: list[int], truth: list[int]) -> float:
    return len(set(found) & set(truth)) / len(truth)


def test_ivf_recall_against_exact_search(ivf: tuple[SearchIndex, np.ndarray]) -> None:
    index, vectors = ivf
    assert index.ivf is not None
    everything = np.ones(N, dtype=bool)
    recalls = []
    for q in range(0, N, 150):
        rows, _ = index.dense_leg(vectors[q], None, 10)
        recalls.append(recall(rows, exact(vectors, vectors[q], everything, 10)))
    assert np.mean(recalls) >= 0.95


@pytest.mark.parametrize("exact_max_rows", [0, 20_000])
def test_filtered_dense_leg_only_returns_allowed_rows(
    ivf: tuple[SearchIndex, np.ndarray], exact_max_rows: int
) -> None:
    index, vectors = ivf
    index.exact_max_rows = exact_max_rows  # 0: always through FAISS with an ID selector
    try:
        filters = SearchFilters(role="thesis", content_type="analysis")
        mask = index.mask(filters)
        assert mask is not None and 0 < mask.sum() < N
        recalls = []
        for q in range(1, N, 200):
            rows, scores = index.dense_leg(vectors[q], mask, 20)
            assert all(mask[r] for r in rows) and len(rows) == 20
            assert scores == sorted(scores, reverse=True)
            recalls.append(recall(rows, exact(vectors, vectors[q], mask, 20)))
        assert np.mean(recalls) >= (1.0 if exact_max_rows else 0.9)
    finally:
        index.exact_max_rows = 20_000


def test_a_rare_filter_returns_every_allowed_row(ivf: tuple[SearchIndex, np.ndarray]) -> None:
    index, vectors = ivf
    mask = index.mask(SearchFilters(entity_ids=frozenset({"ent:/rare"})))
    assert mask is not None
    rows, _ = index.dense_leg(vectors[5], mask, 100)
    assert sorted(rows) == list(range(0, N, 50))


def test_index_files_are_checksummed_in_the_manifest(tmp_path: Path) -> None:
    units, vectors = synthetic(200)
    data = DataDir(tmp_path)
    opened = publish_snapshot(
        data,
        {"search_units": units},
        as_of=AS_OF,
        write_files=lambda folder: {"search": build_search_files(folder, units, vectors)},
    )
    files = opened.manifest.files
    assert VECTORS_FILE in files and IVF_FILE not in files
    assert any(name.startswith(LEXICAL_DIR + "/") for name in files)
    assert opened.manifest.metadata["search"]["dense"] == "flat"
    (opened.path / VECTORS_FILE).write_bytes(b"tampered")
    with pytest.raises(SnapshotError, match="vectors.npy"):
        open_snapshot(opened.path, verify=True)
