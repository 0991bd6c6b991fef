"""Near-duplicate collapse in the search executor (docs/design.md §8): one hit per normalized text,
shown as the earliest-published copy the filters allow; copies consume neither ``limit`` nor
``diversity_cap``; ``similar_to`` never returns the unit's own copies. On a small synthetic
snapshot whose vectors are a function of the normalized text, so copies score alike in both
legs, as real copies do; and on the demo snapshot."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from analytics.copies import copy_of, normalized_text
from analytics.schema import SEARCH_UNITS
from retrieval.engine import SearchFilters, SearchIndex, SearchRequest
from retrieval.index import build_search_files
from warehouse.embeddings import load_minilm
from warehouse.paths import DataDir
from warehouse.snapshot import OpenedSnapshot, publish_snapshot

AS_OF = datetime(2026, 5, 1, tzinfo=UTC)
CHIP = "Nvidia ships the new inference chip to cloud providers."
# signal, days before AS_OF, content type, texts (in the signal's order)
SIGNALS = [
    ("s1", 5, "analysis", [CHIP, "The inference chip doubles memory bandwidth."]),
    ("s2", 9, "event", ["NVIDIA ships the new inference chip to cloud  providers.", "Other news."]),
    ("s3", 7, "analysis", ["“Nvidia ships the new inference chip to cloud providers.”"]),
    ("s4", 3, "analysis", ["Inference chip prices fall as supply grows.", CHIP]),
    ("s5", 2, "event", ["A second inference chip vendor raises a round."]),
    ("s6", 1, "analysis", ["Cloud providers buy chips for inference at scale."]),
]


def vector_of(text: str) -> np.ndarray:
    key = pl.select(normalized_text(pl.lit(text))).item()
    seed = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little")
    vector = np.random.default_rng(seed).normal(size=384)
    return (vector / np.linalg.norm(vector)).astype(np.float32)


def search_unit(
    signal: str,
    position: int,
    text: str,
    *,
    title: str,
    content_type: str,
    published_at: datetime,
    unit_json: bytes = b"{}",
) -> dict[str, object]:
    """One SEARCH_UNITS row of a claim with no entities or themes (``copy_of`` unset)."""
    return {
        "unit_id": f"{signal}_u{position}",
        "signal_id": signal,
        "role": "claim",
        "content_type": content_type,
        "published_at": published_at,
        "entity_ids": [],
        "themes": [],
        "text": text,
        "title": title,
        "copy_of": None,
        "unit_json": unit_json,
        "citation_json": b"{}",
    }


def search_units(*, with_copy_of: bool = True) -> pl.DataFrame:
    rows = [
        search_unit(
            signal,
            position,
            text,
            title=f"Signal {signal}",
            content_type=content_type,
            published_at=AS_OF - timedelta(days=days),
        )
        for signal, days, content_type, texts in SIGNALS
        for position, text in enumerate(texts)
    ]
    frame = pl.DataFrame(rows, schema=SEARCH_UNITS, orient="row")
    if not with_copy_of:
        return frame.drop("copy_of")
    return frame.with_columns(copy_of(frame))


def open_index(root: Path, units: pl.DataFrame) -> SearchIndex:
    vectors = np.stack([vector_of(t) for t in units["text"].to_list()])
    opened = publish_snapshot(
        DataDir(root),
        {"search_units": units},
        as_of=AS_OF,
        write_files=lambda folder: {"search": build_search_files(folder, units, vectors)},
    )
    return SearchIndex(opened, AS_OF)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    return open_index(tmp_path_factory.mktemp("copies"), search_units())


def ids(index: SearchIndex, **request: object) -> list[str]:
    query = SearchRequest(
        query_vector=vector_of(CHIP),
        query_text="Nvidia inference chip cloud providers",
        **request,  # type: ignore[arg-type]
    )
    return [index.unit_ids[hit.row] for hit in index.search(query)]


def keys(unit_ids: list[str]) -> list[str]:
    """The normalized texts of the units."""
    text_of = {
        f"{signal}_u{position}": text
        for signal, _days, _type, signal_texts in SIGNALS
        for position, text in enumerate(signal_texts)
    }
    return [pl.select(normalized_text(pl.lit(text_of[u]))).item() for u in unit_ids]


def test_a_text_is_one_hit_shown_as_its_earliest_published_copy(index: SearchIndex) -> None:
    found = ids(index, limit=10, diversity_cap=2)
    assert len(set(keys(found))) == len(found)
    # four units hold CHIP's text (s1_u0, s2_u0, s3_u0, s4_u1); s2 was published first
    assert found[0] == "s2_u0"
    assert not {"s1_u0", "s3_u0", "s4_u1"} & set(found)
    # every other text is still found: 5 more, each once
    assert len(found) == 1 + 5


def test_a_filter_that_excludes_the_earliest_copy_shows_the_next_one(index: SearchIndex) -> None:
    found = ids(index, limit=10, filters=SearchFilters(content_type="analysis"))
    assert found[0] == "s3_u0"  # s2 is an event; s3 (7 days old) precedes s1 and s4
    assert not {"s1_u0", "s4_u1", "s2_u0"} & set(found)


def test_copies_take_no_place_in_the_limit_nor_in_a_signals_cap(index: SearchIndex) -> None:
    found = ids(index, limit=10, diversity_cap=1)
    # one unit per signal; s1's and s4's copies of the chip text did not use their signal's
    # single place, so their other units are there
    assert found[0] == "s2_u0"
    assert {"s1_u1", "s4_u0"} <= set(found)
    # s3 holds nothing but a copy, so five signals
    assert len(found) == len({u.split("_")[0] for u in found}) == 5


@pytest.mark.parametrize("cap", [1, 2])
def test_a_shorter_limit_is_a_prefix_of_a_longer_one(index: SearchIndex, cap: int) -> None:
    full = ids(index, limit=10, diversity_cap=cap)
    for limit in range(1, len(full) + 1):
        assert ids(index, limit=limit, diversity_cap=cap) == full[:limit]


def test_similar_to_never_returns_the_units_own_copies(index: SearchIndex) -> None:
    row = index.row_of("s1_u0")
    query = SearchRequest(
        query_vector=np.asarray(index.vectors[row]),
        query_text=None,
        filters=SearchFilters(exclude_row=row),
        limit=20,
        diversity_cap=20,
    )
    found = [index.unit_ids[hit.row] for hit in index.search(query)]
    assert not {"s1_u0", "s2_u0", "s3_u0", "s4_u1"} & set(found)
    assert len(found) == 5  # every other text once


def test_a_snapshot_without_marked_copies_collapses_alike(tmp_path: Path) -> None:
    old = open_index(tmp_path, search_units(with_copy_of=False))
    request = SearchRequest(query_vector=vector_of(CHIP), query_text="inference chip", limit=10)
    found = [old.unit_ids[hit.row] for hit in old.search(request)]
    assert found[0] == "s2_u0" and len(set(keys(found))) == len(found)


def test_search_units_mark_copies() -> None:
    marked = search_units()
    by_id = dict(marked.select("unit_id", "copy_of").iter_rows())
    assert {by_id[u] for u in ("s1_u0", "s2_u0", "s3_u0", "s4_u1")} == {"s2_u0"}
    assert by_id["s5_u0"] == "s5_u0"


def test_demo_top_tens_never_repeat_a_text(demo_snapshot: OpenedSnapshot) -> None:
    """docs/design.md §8 on the demo corpus, whose generator repeats sentences across signals: in
    the top 10 of 100 queries (signal titles), no two hits share a normalized text — while the same
    rankings without the collapse do repeat texts, so the check is not vacuous."""
    index = SearchIndex(demo_snapshot, demo_snapshot.manifest.as_of)
    frame = demo_snapshot.read_table("search_units")
    key_of = frame.select(normalized_text(pl.col("text"))).to_series().to_list()
    titles = (
        demo_snapshot.read_table("signals").sort("signal_id")["title"].unique(maintain_order=True)
    )
    queries = titles.to_list()[:: max(1, len(titles) // 100)][:100]
    vectors = load_minilm()(queries)

    def top_keys(search_index: SearchIndex) -> list[list[str]]:
        return [
            [
                key_of[hit.row]
                for hit in search_index.search(
                    SearchRequest(query_vector=vector, query_text=query, limit=10)
                )
            ]
            for query, vector in zip(queries, vectors, strict=True)
        ]

    assert len(queries) == 100
    for keys_of_query in top_keys(index):
        assert len(keys_of_query) == 10 and len(set(keys_of_query)) == 10
    index.copy_group = np.full(index.size, -1, dtype=np.int64)  # as before the collapse
    repeated = sum(len(set(k)) < len(k) for k in top_keys(index))
    assert repeated > 0
