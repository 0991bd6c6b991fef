"""Contextual indexing (docs/design.md §8): the signal's title is indexed beside each unit's text (a
second BM25 field) and a title-match leg finds the signal whose title the query nearly is, while
hits stay the units exactly as served. On a small synthetic snapshot whose unit texts never
repeat their signal's title, as social posts' units often do not."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import polars as pl
import pytest

from analytics.copies import copy_of
from analytics.schema import SEARCH_UNITS
from retrieval.engine import SHIPPED, SearchFilters, SearchIndex, SearchRequest, Variant
from retrieval.index import query_terms
from tests.retrieval.test_search_copies import AS_OF, open_index, search_unit, vector_of

TITLE = "Cerebras launches wafer-scale inference cloud in Europe"
# signal, title, content type, unit texts
SIGNALS = [
    ("s_target", TITLE, "event", ["The service opens next month.", "Prices start at $2 per hour."]),
    ("s_near", "Cerebras inference cloud expands", "analysis", ["Cerebras sells more chips."]),
    ("s_other", "Groq raises a new round", "event", ["Groq raised $640 million."]),
]
FILLER = [f"Unrelated note number {i} about markets and rates." for i in range(40)]


def units() -> pl.DataFrame:
    fillers = [(f"s_fill{i}", f"Filler post {i}", "analysis", [t]) for i, t in enumerate(FILLER)]
    rows = [
        search_unit(
            signal,
            position,
            text,
            title=title,
            content_type=content_type,
            published_at=AS_OF - timedelta(days=n + 1),
            unit_json=f'{{"id":"{signal}_u{position}"}}'.encode(),
        )
        for n, (signal, title, content_type, texts) in enumerate([*SIGNALS, *fillers])
        for position, text in enumerate(texts)
    ]
    frame = pl.DataFrame(rows, schema=SEARCH_UNITS, orient="row")
    return frame.with_columns(copy_of(frame))


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    index = open_index(tmp_path_factory.mktemp("context"), units())
    assert index.titles is not None
    assert index.params["titles"] == {"signals": 3 + len(FILLER)}
    return index


def found(
    index: SearchIndex, query: str, legs: tuple[str, ...] | None = None, **request: object
) -> list[str]:
    search = SearchRequest(query_vector=vector_of(query), query_text=query, **request)  # type: ignore[arg-type]
    variant = SHIPPED if legs is None else Variant(legs=legs)
    return [index.unit_ids[hit.row] for hit in index.search(search, variant)]


def test_a_title_finds_its_post_whose_units_never_say_it(index: SearchIndex) -> None:
    top = found(index, TITLE, limit=3)
    assert set(top[:2]) == {"s_target_u0", "s_target_u1"}
    # the title as the units' second lexical field finds it without the title leg too; the
    # units' own text (the dense leg here) does not
    target = {"s_target_u0", "s_target_u1"}
    assert target & set(found(index, TITLE, limit=2, legs=("lexical",)))
    assert not target & set(found(index, TITLE, limit=2, legs=("dense",)))


def test_the_title_leg_matches_only_a_query_that_nearly_is_the_title(index: SearchIndex) -> None:
    rows = index.title_leg(TITLE, None)
    assert {index.unit_ids[r] for r in rows} == {"s_target_u0", "s_target_u1"}
    assert set(rows.values()) == {1}  # both units at their signal's rank
    # stemming, case and stop words do not matter; one title word missing of eight still matches
    assert index.title_leg("the Cerebras launch of a wafer scale inference cloud in europe", None)
    assert index.title_leg("Cerebras launches wafer-scale inference cloud in", None)
    # a query that shares only part of the title is not a title match (BM25 still ranks it)
    assert not index.title_leg("Cerebras inference cloud", None)
    assert not index.title_leg("wafer-scale", None)
    assert not index.title_leg("the of", None)


def test_a_short_title_matched_exactly(index: SearchIndex) -> None:
    rows = index.title_leg("Cerebras inference cloud expands", None)
    assert {index.unit_ids[r] for r in rows} == {"s_near_u0"}


def test_filters_hold_in_the_title_leg(index: SearchIndex) -> None:
    filters = SearchFilters(content_type="analysis")
    mask = index.mask(filters)
    assert not index.title_leg(TITLE, mask)
    assert not {"s_target_u0", "s_target_u1"} & set(found(index, TITLE, filters=filters))


def test_hits_are_the_units_as_served(index: SearchIndex) -> None:
    search = SearchRequest(query_vector=vector_of(TITLE), query_text=TITLE, limit=2)
    rendered = index.render(index.search(search))
    assert all(b'"unit":{"id":"s_target_u' in body for body in rendered)
    assert all(b"Cerebras" not in body for body in rendered)  # the title is context, not text


def test_title_terms_are_the_query_analyzers() -> None:
    assert query_terms("The Launches of Cerebras") == ["launch", "cerebra"]


def test_an_index_without_titles_searches_as_before(tmp_path: Path) -> None:
    index = open_index(tmp_path, units())
    index.titles = index.title_searcher = None  # as a snapshot published before titles
    index.title_field = False
    assert index.title_leg(TITLE, None) == {}
    assert len(found(index, TITLE, limit=5)) == 5
