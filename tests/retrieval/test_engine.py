"""``GET /v1/search`` over a small real snapshot (units linked to a registry, fixed themes, MiniLM
vectors): filters inside both legs, RRF, diversity, recency, similar_to, and the 400/404/422
rules (docs/api.md §4.2, §8; docs/design.md §8, §9)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from fastapi.testclient import TestClient

from readmodel.models import SearchResults
from retrieval.engine import (
    CONTAINED_FLOORS,
    LEG_WEIGHTS,
    POST_FILTER_MIN_SHARE,
    RRF_K,
    SearchFilters,
    SearchIndex,
    SearchRequest,
    Variant,
    query_terms,
)
from retrieval.index import ROWS_BY_UNIT_ID
from serving.app import create_app
from tests.serving.conftest import AS_OF, DEV_KEY, make_settings
from tests.serving.test_filters import GROUP, REGISTRY, tagged  # noqa: F401  (fixture)
from warehouse.paths import DataDir
from warehouse.snapshot import open_current

QUERY = "funding round for new data centers"


@pytest.fixture(scope="module")
def api(tagged: tuple[Path, pl.DataFrame]) -> Iterator[TestClient]:  # noqa: F811
    with TestClient(create_app(make_settings(tagged[0])), headers={"X-API-Key": DEV_KEY}) as c:
        yield c


@pytest.fixture(scope="module")
def index(tagged: tuple[Path, pl.DataFrame]) -> SearchIndex:  # noqa: F811
    opened = open_current(DataDir(tagged[0]))
    assert opened is not None
    return SearchIndex(opened, AS_OF)


@pytest.fixture(scope="module")
def units(tagged: tuple[Path, pl.DataFrame]) -> pl.DataFrame:  # noqa: F811
    opened = open_current(DataDir(tagged[0]))
    assert opened is not None
    return opened.read_table("search_units").with_row_index("row")


def search(api: TestClient, **params: Any) -> list[dict[str, Any]]:
    response = api.get("/v1/search", params=params)
    assert response.status_code == 200, response.text
    body = response.json()
    SearchResults.model_validate(body)
    results: list[dict[str, Any]] = body["results"]
    return results


def test_hits_carry_the_detail_unit_and_a_full_citation(api: TestClient) -> None:
    response = api.get("/v1/search", params={"q": QUERY, "limit": 5})
    body = response.json()
    assert body["query"] == QUERY and "similar_to" not in body
    assert len(body["results"]) == 5
    for hit in body["results"]:
        detail = api.get(f"/v1/signals/{hit['citation']['signal_id']}").json()
        assert hit["unit"] in detail["units"]  # the same object as in the signal detail
        citation = hit["citation"]
        for field in ("title", "url", "domain", "published_at"):
            assert citation[field] == detail[field]
    scores = [hit["relevance_score"] for hit in body["results"]]
    assert scores == sorted(scores, reverse=True)
    assert scores[0] <= sum(LEG_WEIGHTS.values()) / (RRF_K + 1)


def test_fused_scores_are_weighted_rrf_of_the_legs(index: SearchIndex) -> None:
    from retrieval.query_embedder import QueryEmbedder

    vector = QueryEmbedder()([QUERY])[0]
    filters = SearchFilters()
    lexical = index.lexical_leg(QUERY, filters, 100)
    dense, _ = index.dense_leg(vector, None, 100)
    assert lexical and dense
    expected: dict[int, float] = {}
    for ranked, weight in ((lexical, LEG_WEIGHTS["lexical"]), (dense, LEG_WEIGHTS["dense"])):
        for rank, row in enumerate(ranked, start=1):
            expected[row] = expected.get(row, 0.0) + weight / (RRF_K + rank)
    for row, rank in index.title_leg(QUERY, None).items():
        expected[row] = expected.get(row, 0.0) + LEG_WEIGHTS["title"] / (RRF_K + rank)
    # the source legs lift their units to a floor, never lower a score
    titled, in_passage = index.contained_legs(QUERY, None)
    for ranked, floor in (
        (titled, CONTAINED_FLOORS["title"]),
        (in_passage, CONTAINED_FLOORS["passage"]),
    ):
        for rank, row in enumerate(ranked, start=1):
            expected[row] = max(expected.get(row, 0.0), floor / (RRF_K + rank))
    hits = index.search(
        SearchRequest(query_vector=vector, query_text=QUERY, limit=10, diversity_cap=100)
    )
    best = sorted(expected.items(), key=lambda item: (-item[1], index.unit_ids[item[0]]))[:10]
    assert [h.row for h in hits] == [row for row, _ in best]
    assert [h.score for h in hits] == pytest.approx([score for _, score in best])
    only_lexical = index.search(
        SearchRequest(query_vector=vector, query_text=QUERY, limit=5, diversity_cap=100),
        Variant(legs=("lexical",)),
    )
    assert [h.row for h in only_lexical] == lexical[:5]


def test_query_terms_drop_stop_words_unless_nothing_else_is_left() -> None:
    assert query_terms("The funding of the new data centers") == ["fund", "new", "data", "center"]
    assert query_terms("To be or not to be") == ["to", "be", "or", "not"]  # only stop words
    assert query_terms("role:claim AND (funding") == ["role", "claim", "fund"]  # syntax is text
    assert query_terms("?!") == []


def test_date_masks_include_the_start_and_exclude_the_end(index: SearchIndex) -> None:
    published = index.published_us
    start, end = sorted((int(published[5]), int(published[9])))
    for from_us, before_us in ((start, end), (start, None), (None, end), (end, start)):
        expected = np.ones(index.size, dtype=bool)
        if from_us is not None:
            expected &= published >= from_us
        if before_us is not None:
            expected &= published < before_us
        filters = SearchFilters(published_from_us=from_us, published_before_us=before_us)
        assert np.array_equal(index.mask(filters), expected)


LEXICAL_FILTERS = [
    SearchFilters(role="claim"),
    SearchFilters(content_type="analysis"),
    SearchFilters(theme="Capital & Investment"),
    SearchFilters(entity_ids=frozenset({"ent:/texas00000"})),
    SearchFilters(role="claim", theme="Infrastructure"),
    SearchFilters(
        published_from_us=1_774_000_000_000_000, published_before_us=1_775_300_000_000_000
    ),
]


@pytest.mark.parametrize("filters", LEXICAL_FILTERS)
def test_a_filter_never_reorders_the_lexical_leg(
    index: SearchIndex, filters: SearchFilters
) -> None:
    """Filtered, the leg is the unfiltered ranking with disallowed rows removed, whether the
    filters are query clauses or applied to the ranked rows, and however deep it goes."""
    mask = index.mask(filters)
    assert mask is not None and 0 < mask.sum() < index.size
    everything = index.lexical_leg(QUERY, SearchFilters(), index.size)
    expected = [row for row in everything if mask[row]]
    try:
        for share in (0.0, 2.0):  # always rank, then drop; always filter in the query
            index.post_filter_min_share = share
            for depth in (3, 10, index.size):
                assert index.lexical_leg(QUERY, filters, depth) == expected[:depth]
    finally:
        index.post_filter_min_share = POST_FILTER_MIN_SHARE


def shown(units: pl.DataFrame, keep: Any) -> set[str]:
    """The units a complete result list shows among those ``keep`` allows: per text, the
    earliest-published allowed copy (docs/design.md §8)."""
    allowed = [u for u in units.iter_rows(named=True) if keep(u)]
    first: dict[str, str] = {}
    for u in sorted(allowed, key=lambda u: (u["published_at"], u["unit_id"])):
        first.setdefault(u["copy_of"], u["unit_id"])
    return set(first.values())


@pytest.mark.parametrize(
    ("params", "keep"),
    [
        ({"role": "claim"}, lambda u: u["role"] == "claim"),
        ({"content_type": "analysis"}, lambda u: u["content_type"] == "analysis"),
        ({"theme": "Capital & Investment"}, lambda u: "Capital & Investment" in u["themes"]),
        ({"entity": "Texas"}, lambda u: "ent:/texas00000" in u["entity_ids"]),
        (
            {"entity": "cobalt group"},  # the family: the group and its member
            lambda u: bool({GROUP.entity_id, "ent:/cobaltcmp0"} & set(u["entity_ids"])),
        ),
        (
            {"published_after": "2026-03-20", "published_before": "2026-04-05"},
            lambda u: "2026-03-20" <= u["published_at"].date().isoformat() < "2026-04-05",
        ),
        ({"window": "2w"}, lambda u: (AS_OF - u["published_at"]).days < 14),
    ],
)
def test_each_filter_holds_and_never_drops_a_unit_that_exists(
    api: TestClient, units: pl.DataFrame, params: dict[str, str], keep: Any
) -> None:
    allowed = shown(units, keep)
    assert 0 < len(allowed) < units.height
    hits = search(api, q=QUERY, limit=100, diversity_cap=100, **params)
    # filter first: every allowed unit is a dense candidate, so all of them come back
    assert {h["unit"]["id"] for h in hits} == allowed
    first = units.row(0, named=True)
    similar = search(api, similar_to=first["unit_id"], limit=100, diversity_cap=100, **params)
    # the unit and its copies are never its own similar hits
    others = shown(units, lambda u: keep(u) and u["copy_of"] != first["copy_of"])
    assert {h["unit"]["id"] for h in similar} == others


def test_filters_combine(api: TestClient, units: pl.DataFrame) -> None:
    allowed = shown(units, lambda u: u["role"] == "claim" and "Infrastructure" in u["themes"])
    hits = search(api, q=QUERY, role="claim", theme="Infrastructure", limit=100, diversity_cap=9)
    assert {h["unit"]["id"] for h in hits} == allowed


def test_diversity_cap_limits_units_per_signal(api: TestClient, units: pl.DataFrame) -> None:
    for cap in (1, 2, 3):
        hits = search(api, q=QUERY, limit=20, diversity_cap=cap)
        per_signal = Counter(h["citation"]["signal_id"] for h in hits)
        assert max(per_signal.values()) <= cap
        assert len(hits) == 20 or min(per_signal.values()) == cap
    # every signal holding the first copy of some text shows once (a signal holding only later
    # copies of other signals' texts shows none: its texts are shown as the first copies)
    holders = units.filter(pl.col("unit_id") == pl.col("copy_of"))["signal_id"].n_unique()
    assert 0 < holders <= 20
    assert len(search(api, q=QUERY, limit=100, diversity_cap=1)) == holders


def test_recency_boost_scales_scores_by_age(api: TestClient) -> None:
    plain = {h["unit"]["id"]: h for h in search(api, q=QUERY, limit=100, diversity_cap=100)}
    boosted = search(api, q=QUERY, limit=100, diversity_cap=100, recency_boost=1)
    assert len(boosted) == len(plain)
    for hit in boosted:
        age = (AS_OF - pl.Series([hit["citation"]["published_at"]]).str.to_datetime()[0]).days
        factor = hit["relevance_score"] / plain[hit["unit"]["id"]]["relevance_score"]
        assert factor == pytest.approx(2 ** (-age / 30), rel=0.05)
    newest_first = [h["citation"]["published_at"] for h in boosted[:5]]
    assert max(newest_first) == max(h["citation"]["published_at"] for h in boosted)
    half = search(api, q=QUERY, limit=100, diversity_cap=100, recency_boost=0.5)
    assert {h["unit"]["id"] for h in half} == set(plain)  # a boost never excludes


def test_similar_to_ranks_by_cosine_and_excludes_the_unit(
    api: TestClient, index: SearchIndex
) -> None:
    unit_id = index.unit_ids[3]
    body = api.get("/v1/search", params={"similar_to": unit_id, "limit": 8}).json()
    assert body["similar_to"] == unit_id and "query" not in body
    ids = [h["unit"]["id"] for h in body["results"]]
    assert unit_id not in ids and len(ids) == 8
    own = np.asarray(index.vectors[3])
    for hit in body["results"]:
        row = index.row_of(hit["unit"]["id"])
        assert hit["relevance_score"] == pytest.approx(float(index.vectors[row] @ own), abs=1e-5)


@pytest.mark.parametrize(
    ("params", "status", "field"),
    [
        ({}, 400, "q"),
        ({"q": "chips", "similar_to": "u_x"}, 400, "similar_to"),
        ({"q": "   "}, 400, "q"),
        ({"q": "chips", "window": "2w", "published_after": "2026-01-01"}, 400, "window"),
        (
            {"q": "chips", "published_after": "2026-05-01", "published_before": "2026-01-01"},
            400,
            "published_after",
        ),
        ({"similar_to": "u_doesnotexist"}, 404, "similar_to"),
        ({"q": "chips", "entity": "Nobody Inc"}, 404, "entity"),
        ({"q": "chips", "theme": "C&I"}, 404, "theme"),
    ],
)
def test_parameter_errors(api: TestClient, params: dict[str, str], status: int, field: str) -> None:
    response = api.get("/v1/search", params=params)
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["field"] == field and error["status"] == status


@pytest.mark.parametrize(
    "params",
    [
        {"q": "x" * 2001},
        {"q": ""},
        {"q": "chips", "limit": 0},
        {"q": "chips", "limit": 101},
        {"q": "chips", "diversity_cap": 0},
        {"q": "chips", "diversity_cap": 101},
        {"q": "chips", "recency_boost": 1.5},
        {"q": "chips", "recency_boost": -0.1},
        {"q": "chips", "role": "opinion"},
        {"q": "chips", "content_type": "essay"},
        {"q": "chips", "window": "3y"},
    ],
)
def test_range_and_enum_violations_are_422(api: TestClient, params: dict[str, Any]) -> None:
    response = api.get("/v1/search", params=params)
    assert response.status_code == 422, response.text
    assert "detail" in response.json()


def test_defaults_and_query_syntax_is_plain_text(api: TestClient) -> None:
    assert len(search(api, q=QUERY)) == 10  # default limit
    assert len(search(api, q="role:claim AND (funding")) > 0  # no parser error, no 500
    assert len(search(api, q="?!")) > 0  # no words: the dense leg still answers


def test_queries_drop_the_english_stop_set_of_lucene_and_no_other_word() -> None:
    # the set Elasticsearch's `english` analyzer drops, which tantivy's English filter gives
    lucene = (
        "a an and are as at be but by for if in into is it no not of on or such that the "
        "their then there these they this to was will with"
    ).split()
    assert all(query_terms(f"{word} chips") == ["chip"] for word in lucene)
    assert query_terms("who what when where why how") == [
        "who",
        "what",
        "when",
        "where",
        "whi",
        "how",
    ]


@pytest.mark.parametrize("fast_path", [True, False])
def test_searches_run_at_most_search_threads_at_once(
    tagged: tuple[Path, pl.DataFrame],  # noqa: F811
    fast_path: bool,
) -> None:
    """Eight concurrent searches, ``AIMI_SEARCH_THREADS=2``: never more than two embed at once,
    and all eight answer (the rest wait their turn)."""
    settings = make_settings(tagged[0]).model_copy(update={"search_threads": 2})
    app = create_app(settings, fast_path=fast_path)
    running, most = 0, 0
    lock = threading.Lock()

    with TestClient(app, headers={"X-API-Key": DEV_KEY}) as client:
        embed = app.state.query_embedder

        def watched(texts: Any) -> Any:  # the real encoder, counted while it runs
            nonlocal running, most
            with lock:
                running += 1
                most = max(most, running)
            try:
                time.sleep(0.2)  # long enough that unbounded searches would overlap
                return embed(texts)
            finally:
                with lock:
                    running -= 1

        app.state.query_embedder = watched
        with ThreadPoolExecutor(8) as pool:
            statuses = list(
                pool.map(
                    lambda i: client.get("/v1/search", params={"q": f"{QUERY} {i}"}).status_code,
                    range(8),
                )
            )
    assert statuses == [200] * 8
    assert most == 2


def test_a_publish_stores_the_search_rows_in_unit_id_order(
    tagged: tuple[Path, pl.DataFrame],  # noqa: F811
    index: SearchIndex,
    units: pl.DataFrame,
) -> None:
    """So a server opening it neither sorts the ids nor maps them to rows in a dict."""
    opened = open_current(DataDir(tagged[0]))
    assert opened is not None
    assert opened.manifest.metadata["search"]["rows"] == ROWS_BY_UNIT_ID
    assert units["unit_id"].to_list() == sorted(units["unit_id"].to_list())
    assert index.id_rank.tolist() == list(range(index.size))
    for row, unit_id in enumerate(units["unit_id"].to_list()):
        assert index.row_of(unit_id) == row
    for absent in ("", "no such unit", units["unit_id"][0][:-1], "\U0010ffff"):
        assert index.row_of(absent) is None


def test_lexical_ties_come_in_unit_id_order(index: SearchIndex) -> None:
    """Rows stored in id order make tantivy's ties (in document order) the API's tie-break."""
    import tantivy

    union = tantivy.Query.boolean_query(index._term_clauses(query_terms(QUERY)))
    result = index.searcher.search(union, 50, count=False)
    rows = index.searcher.fast_field_values("row", [address for _, address in result.hits])
    scored = list(zip([score for score, _ in result.hits], rows, strict=True))
    ties = [(a, b) for (x, a), (y, b) in pairwise(scored) if x == y]
    assert ties  # this small corpus has many
    assert all(index.unit_ids[a] < index.unit_ids[b] for a, b in ties)


def test_role_and_content_type_masks_are_booleans_even_beside_nulls() -> None:
    from retrieval.engine import _value_masks

    masks = _value_masks(pl.Series(["claim", None, "thesis", "claim"]))
    assert set(masks) == {"claim", "thesis"}
    assert masks["claim"].dtype == np.bool_
    assert masks["claim"].tolist() == [True, False, False, True]


def test_search_rows_in_another_order_are_mapped_at_open(
    tagged: tuple[Path, pl.DataFrame],  # noqa: F811
    index: SearchIndex,
    tmp_path: Path,
) -> None:
    """A snapshot whose rows are not in id order (published before they were stored so):
    ids are ranked and mapped to rows at open, and the dense leg answers the same."""
    from retrieval.index import VECTORS_FILE, build_search_files
    from retrieval.query_embedder import QueryEmbedder
    from warehouse.snapshot import publish_snapshot

    opened = open_current(DataDir(tagged[0]))
    assert opened is not None
    tables = {name: opened.read_table(name) for name in opened.manifest.tables}
    shuffled = np.random.default_rng(7).permutation(index.size)
    rows = tables["search_units"][shuffled]
    vectors = np.load(opened.path / VECTORS_FILE)[shuffled]
    tables["search_units"] = rows
    other = publish_snapshot(
        DataDir(tmp_path),
        tables,
        as_of=AS_OF,
        write_files=lambda folder: {"search": build_search_files(folder, rows, vectors)},
    )
    assert "rows" not in other.manifest.metadata["search"]
    moved = SearchIndex(other, AS_OF)
    for rank, unit_id in enumerate(index.unit_ids.to_list()):
        row = moved.row_of(unit_id)
        assert row is not None and moved.unit_ids[row] == unit_id
        assert moved.id_rank[row] == rank
    assert moved.row_of("no such unit") is None
    # a manifest that claims id order for rows that are not in it is not believed
    claimed = publish_snapshot(
        DataDir(tmp_path),
        tables,
        as_of=AS_OF,
        write_files=lambda folder: {
            "search": {**build_search_files(folder, rows, vectors), "rows": ROWS_BY_UNIT_ID}
        },
    )
    misled = SearchIndex(claimed, AS_OF)
    assert all(
        misled.unit_ids[misled.row_of(unit_id)] == unit_id  # type: ignore[index]
        for unit_id in index.unit_ids.to_list()
    )
    vector = QueryEmbedder()([QUERY])[0]
    request = SearchRequest(query_vector=vector, query_text=QUERY, limit=20)
    dense = Variant(legs=("dense",))
    expected = [(index.unit_ids[h.row], h.score) for h in index.search(request, dense)]
    got = [(moved.unit_ids[h.row], h.score) for h in moved.search(request, dense)]
    assert [u for u, _ in got] == [u for u, _ in expected]
    assert [s for _, s in got] == pytest.approx([s for _, s in expected])
