"""Whole sources in search (issue 30): each signal's title and complete text are indexed, so words
no unit carries still find it when they name few signals; the hit is the allowed verified unit
nearest the passage that matched (the central statement's span standing in when none did),
lifted to a floor score; a query's parts in double quotes are phrases only signals holding them
answer; a snapshot without these indexes is refused. On a small synthetic snapshot whose source
texts are longer than their units, with vectors that are a hash of the text (the dense leg knows
nothing of the sources)."""

from __future__ import annotations

import shutil
from datetime import timedelta
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from analytics.copies import copy_of
from analytics.schema import SEARCH_UNITS
from analytics.schema import SIGNALS as SIGNALS_TABLE
from retrieval.engine import (
    CONTAINED_FLOORS,
    CONTAINED_MAX_SOURCES,
    CONTAINED_TOP,
    RRF_K,
    SHIPPED,
    VERBATIM_MIN_WORDS,
    VERBATIM_SLOP,
    SearchFilters,
    SearchIndex,
    SearchRequest,
    Variant,
    _lift,
    quoted_phrases,
)
from retrieval.index import SOURCES_DIR, build_search_files, passages, phrase_terms
from tests.retrieval.test_search_copies import AS_OF, vector_of
from warehouse.embeddings import load_minilm
from warehouse.paths import DataDir
from warehouse.snapshot import OpenedSnapshot, SnapshotError, publish_snapshot
from warehouse.tables import read_table

THESIS = "Orbital freight demand will double by 2030."
LAUNCH = "Launch prices fell forty percent last year."
INSURE = "Insurers now cover reusable boosters."
PHRASE = "copper kettles whistle loudly near the lighthouse"
OPENING = (
    "Opening remarks wander through harbour logistics and weather patterns before the main "
    "point arrives."
)
MIDDLE = (
    "Meanwhile analysts debate tariffs, pensions, rainfall, vineyards, bridges, ferries, "
    "museums, bakeries, choirs, gardens, libraries, orchards, marathons, chess and tulips."
)
NEAR_INSURE = f"Some say {PHRASE}."
TAIL = (
    "Afterwards the report lists appendices, glossaries, footnotes, errata, indexes, maps, "
    "charts, tables, figures, credits, acknowledgements, colophons, sources and contacts."
)
LONG_TEXT = " ".join([OPENING, THESIS, MIDDLE, LAUNCH, MIDDLE, NEAR_INSURE, INSURE, TAIL])
# the same words as the phrase, not in its order
SCRAMBLED = "The lighthouse near loudly whistle kettles copper, they wrote."
TITLE = "Quarterly outlook for orbital freight"
# signal, title, content type, source text, units as (role, text)
SIGNALS = [
    (
        "s_long",
        TITLE,
        "analysis",
        LONG_TEXT,
        [("thesis", THESIS), ("claim", LAUNCH), ("claim", INSURE)],
    ),
    (
        "s_scrambled",
        "Notes from the coast",
        "event",
        f"Harbour notes. {SCRAMBLED} Ferries ran late.",
        [("synopsis", "Ferries ran late.")],
    ),
    *[
        (
            f"s_fill{i}",
            f"Filler post {i}",
            "event" if i % 2 else "analysis",
            f"Unrelated note {i} about markets and rates. Bond yields moved {i} points.",
            [("synopsis", f"Bond yields moved {i} points.")],
        )
        for i in range(30)
    ],
]


def extra_signals(count: int) -> list[tuple[str, str, str, str, list[tuple[str, str]]]]:
    """``count`` signals whose titles and texts all hold "saffron harvest"."""
    return [
        (
            f"s_extra{i}",
            f"Saffron harvest report {i}",
            "event",
            f"Field note {i}. The saffron harvest came in early this year. Prices held.",
            [("synopsis", "Prices held.")],
        )
        for i in range(count)
    ]


def tables(extra: int = 0) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The search rows, each signal's text, each unit's span in it."""
    rows, spans = [], []
    signals = [*SIGNALS, *extra_signals(extra)]
    for n, (signal, title, content_type, text, units) in enumerate(signals):
        for position, (role, unit_text) in enumerate(units):
            unit_id = f"{signal}_u{position}"
            start = text.index(unit_text)
            spans.append((unit_id, start, start + len(unit_text)))
            rows.append(
                {
                    "unit_id": unit_id,
                    "signal_id": signal,
                    "role": role,
                    "content_type": content_type,
                    "published_at": AS_OF - timedelta(days=n + 1),
                    "entity_ids": [],
                    "themes": [],
                    "text": unit_text,
                    "title": title,
                    "copy_of": None,
                    "unit_json": b"{}",
                    "citation_json": b"{}",
                }
            )
    frame = pl.DataFrame(rows, schema=SEARCH_UNITS, orient="row").sort("unit_id")
    sources = pl.DataFrame(
        [(signal, text) for signal, _t, _c, text, _u in signals],
        schema={"signal_id": pl.String, "text": pl.String},
        orient="row",
    )
    unit_spans = pl.DataFrame(
        spans,
        schema={"unit_id": pl.String, "start_char": pl.Int64, "end_char": pl.Int64},
        orient="row",
    )
    return frame.with_columns(copy_of(frame)), sources, unit_spans


def publish(root: Path, *, whole_sources: bool = True, extra: int = 0) -> SearchIndex:
    units, sources, unit_spans = tables(extra)
    vectors = np.stack([vector_of(t) for t in units["text"].to_list()])

    def write(folder: Path) -> dict[str, object]:
        params = build_search_files(folder, units, vectors, sources=sources, unit_spans=unit_spans)
        if not whole_sources:  # as a snapshot published before issue 30 was
            shutil.rmtree(folder / SOURCES_DIR)
            del params["sources"]
        return {"search": params}

    opened = publish_snapshot(
        DataDir(root), {"search_units": units}, as_of=AS_OF, write_files=write
    )
    return SearchIndex(opened, AS_OF)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    return publish(tmp_path_factory.mktemp("sources"))


def found(
    index: SearchIndex, query: str, legs: tuple[str, ...] | None = None, **request: object
) -> list[str]:
    search = SearchRequest(query_vector=vector_of(query), query_text=query, **request)  # type: ignore[arg-type]
    variant = SHIPPED if legs is None else Variant(legs=legs)
    return [index.unit_ids[hit.row] for hit in index.search(search, variant)]


def source_hits(index: SearchIndex, query: str, **filters: object) -> list[str]:
    """The units the source legs lift: by title, then by passage."""
    mask = index.mask(SearchFilters(**filters))  # type: ignore[arg-type]
    titled, in_passage = index.contained_legs(query, mask)
    return [index.unit_ids[row] for row in titled + in_passage]


def test_words_no_unit_carries_find_their_source(index: SearchIndex) -> None:
    query = "analysts debate tariffs pensions rainfall vineyards"  # from the text, in no unit
    assert not any(u.startswith("s_long") for u in found(index, query, ("lexical", "title")))
    hits = found(index, query)
    assert hits and hits[0].startswith("s_long_")
    # the leg's hits are units: every one is a row the snapshot serves
    assert set(hits) <= set(index.unit_ids.to_list())


@pytest.mark.parametrize(
    ("query", "nearest"),
    [
        # a passage just before the insurance claim: that claim, not the thesis nor the launch
        (PHRASE, "s_long_u2"),
        # the opening, before the thesis
        ("opening remarks wander through harbour logistics", "s_long_u0"),
        # the tail, after the last unit
        ("appendices glossaries footnotes errata", "s_long_u2"),
        # the title only: no passage matched, the central statement stands for the source
        ("quarterly outlook", "s_long_u0"),
    ],
)
def test_the_hit_is_the_unit_nearest_the_matched_passage(
    index: SearchIndex, query: str, nearest: str
) -> None:
    assert [u for u in source_hits(index, query) if u.startswith("s_long")] == [nearest]


def test_the_source_legs_are_silent_when_the_words_name_many_signals(
    index: SearchIndex,
) -> None:
    # every filler post's text holds "bond yields", every filler title "filler post"
    assert index.contained_legs("bond yields moved", None) == ([], [])
    assert index.contained_legs("filler post", None) == ([], [])
    # a word of one filler's text (its number) narrows them to one
    titled, in_passage = index.contained_legs("bond yields moved 17 points", None)
    assert titled == [] and [index.unit_ids[r] for r in in_passage] == ["s_fill17_u0"]
    # words that are in no single passage together lift nothing
    assert index.contained_legs("opening remarks colophons", None) == ([], [])


def test_the_source_legs_lift_at_most_their_top_few(tmp_path: Path) -> None:
    # more holders than CONTAINED_TOP but no more than CONTAINED_MAX_SOURCES
    assert CONTAINED_TOP < 5 <= CONTAINED_MAX_SOURCES
    index = publish(tmp_path, extra=5)
    titled, in_passage = index.contained_legs("saffron harvest", None)
    assert len(titled) == CONTAINED_TOP and len(in_passage) == CONTAINED_TOP
    assert {index.unit_ids[r].split("_u")[0] for r in titled} <= {f"s_extra{i}" for i in range(5)}


def test_a_lifted_unit_scores_at_least_its_floor(index: SearchIndex) -> None:
    query = "analysts debate tariffs pensions rainfall vineyards"
    vector = vector_of(query)
    filters = SearchFilters()
    expected: dict[int, float] = {}
    for ranked in (index.lexical_leg(query, filters, 100), index.dense_leg(vector, None, 100)[0]):
        for rank, row in enumerate(ranked, start=1):
            expected[row] = expected.get(row, 0.0) + 1 / (RRF_K + rank)
    titled, in_passage = index.contained_legs(query, None)
    assert titled == [] and len(in_passage) == 1
    lifted = in_passage[0]
    floor = CONTAINED_FLOORS["passage"] / (RRF_K + 1)
    assert expected.get(lifted, 0.0) < floor  # the unit legs alone would not rank it first
    hits = index.search(SearchRequest(query_vector=vector, query_text=query, diversity_cap=100))
    assert hits[0].row == lifted and hits[0].score == pytest.approx(floor)
    # every other hit keeps its fused score
    assert all(hit.score == pytest.approx(expected[hit.row]) for hit in hits[1:])


def test_a_filter_moves_the_hit_to_the_nearest_allowed_unit(index: SearchIndex) -> None:
    # the title only, claims only: the claim nearest the (refused) central statement
    assert source_hits(index, "quarterly outlook", role="claim")[0] == "s_long_u1"
    assert source_hits(index, PHRASE, role="thesis") == ["s_long_u0"]
    # a filter no unit of the source passes drops the source
    assert not any(u.startswith("s_long") for u in source_hits(index, PHRASE, role="synopsis"))
    assert not any(u.startswith("s_long") for u in source_hits(index, PHRASE, content_type="event"))


def test_filters_hold_in_the_fused_search_with_the_source_leg(index: SearchIndex) -> None:
    signals = {
        s: (c, AS_OF - timedelta(days=n + 1)) for n, (s, _t, c, _x, _u) in enumerate(SIGNALS)
    }
    after = AS_OF - timedelta(days=3)
    filters = SearchFilters(
        content_type="event", published_from_us=int(after.timestamp() * 1_000_000)
    )
    hits = found(index, f"{PHRASE} ferries markets", filters=filters, limit=20)
    assert hits
    for unit_id in hits:
        content_type, published = signals[unit_id.rsplit("_u", 1)[0]]
        assert content_type == "event" and published >= after
    assert "s_scrambled_u0" in hits  # the only event published after the bound with the words


def test_the_nearest_rule_breaks_ties_by_overlap(index: SearchIndex) -> None:
    rows = index.signal_rows(int(index.signal_code[index.row_of("s_long_u0")]))
    start, end = (int(v) for v in index.spans[index.row_of("s_long_u1")])
    # a span inside the launch claim: that claim; a span between two units: the nearer one
    assert index.unit_ids[index._nearest(int(rows[0]), rows, (start + 2, end - 2))] == "s_long_u1"
    thesis_end = int(index.spans[index.row_of("s_long_u0")][1])
    assert index.unit_ids[index._nearest(int(rows[0]), rows, (thesis_end + 3, thesis_end + 9))] == (
        "s_long_u0"
    )


def test_passages_overlap_so_a_short_run_of_words_lies_in_one() -> None:
    text = " ".join(f"w{i}" for i in range(40))
    spans = passages(text)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    words = [text[a:b].split() for a, b in spans]
    for first in range(40 - 9 + 1):  # every run of nine words is inside one passage
        run = [f"w{i}" for i in range(first, first + 9)]
        assert any(all(w in passage for w in run) for passage in words)
    assert passages("") == [] and passages("one") == [(0, 3)]


def test_a_phrase_matches_only_sources_holding_it_in_order(index: SearchIndex) -> None:
    unquoted = found(index, PHRASE, limit=20)
    assert {u.rsplit("_u", 1)[0] for u in unquoted} >= {"s_long", "s_scrambled"}
    quoted = found(index, f'"{PHRASE}"', limit=20)
    assert quoted and {u.rsplit("_u", 1)[0] for u in quoted} == {"s_long"}
    assert quoted[0] == "s_long_u2"  # the unit nearest the phrase
    # a phrase beside free words: the phrase restricts, the words rank
    assert {u.rsplit("_u", 1)[0] for u in found(index, f'ferries "{PHRASE}"', limit=20)} == {
        "s_long"
    }
    # a phrase in the title counts; stop words and stemming as the index has them
    assert found(index, '"the Quarterly Outlooks for orbital"', limit=5) == []
    assert found(index, '"quarterly outlook for orbital"', limit=5)[0].startswith("s_long")
    # no source holds it: nothing
    assert found(index, '"lighthouse copper kettles"') == []


def test_a_line_typed_word_for_word_ranks_its_nearest_unit_first(index: SearchIndex) -> None:
    # seven words in order in s_long's text; s_scrambled holds them out of order
    assert len(PHRASE.split()) >= VERBATIM_MIN_WORDS
    (lifted,) = index.verbatim_leg(PHRASE, None)
    assert index.unit_ids[lifted] == "s_long_u2"  # the unit nearest the line
    base = SearchRequest(
        query_vector=vector_of(PHRASE), query_text=PHRASE, diversity_cap=100, limit=20
    )
    fused = index.search(base, Variant(legs=("lexical", "dense", "title")))
    hits = index.search(base)
    assert hits[0].row == lifted and hits[0].score > fused[0].score
    # off, the unit keeps its passage floor (s_scrambled's passage holds the words too)
    rank = index.contained_legs(PHRASE, None)[1].index(lifted) + 1
    off = index.search(base, Variant(verbatim_rank=None))
    assert next(h.score for h in off if h.row == lifted) == pytest.approx(
        CONTAINED_FLOORS["passage"] / (RRF_K + rank)
    )
    # at a lower rank it scores just above the fused list's hit at that rank
    third = index.search(base, Variant(verbatim_rank=3))
    score = next(h.score for h in third if h.row == lifted)
    assert fused[2].score < score <= max(fused[1].score, CONTAINED_FLOORS["passage"] / (RRF_K + 1))


def test_the_verbatim_rule_needs_enough_words_in_order_in_few_signals(tmp_path: Path) -> None:
    index = publish(tmp_path, extra=5)
    # the same words out of order, or too few words: nothing
    assert index.verbatim_leg("kettles copper whistle loudly near the lighthouse", None) == []
    assert index.verbatim_leg("near the lighthouse", None) == []
    # words are what the reader typed between spaces, not index terms: four words, five terms
    assert index.verbatim_leg("copper-kettles whistle loudly near", None) == []
    assert len(phrase_terms("copper-kettles whistle loudly near")) == 5
    assert index.verbatim_leg("copper-kettles whistle loudly near the", None)
    # in the texts of more signals than CONTAINED_TOP: silent (a stock phrase, not a line)
    line = "the saffron harvest came in early this year"
    assert index.verbatim_leg(line, None) == []
    assert len(index.phrase_sources([phrase_terms(line)])) == 5 > CONTAINED_TOP
    # punctuation and case do not matter; stop words count as words
    assert index.verbatim_leg("Copper kettles, whistle loudly near THE lighthouse!", None)
    # a word the reader forgot (VERBATIM_SLOP), not two
    assert VERBATIM_SLOP == 1
    assert index.verbatim_leg("copper kettles loudly near the lighthouse", None)
    assert index.verbatim_leg("copper kettles loudly near the lighthouse", None, slop=0) == []
    assert index.verbatim_leg("copper kettles loudly the lighthouse", None) == []
    assert index.verbatim_leg("copper kettles loudly the lighthouse", None, slop=2)
    assert index.verbatim_leg("orbital kettles whistle loudly lighthouse", None) == []


def test_the_verbatim_rows_lead_even_a_title_lift_in_their_bm25_order() -> None:
    # the unit legs disagree (no row above 1 / 61), a title lift puts row 3 at 1.7 / 61
    scores = {1: 1 / (RRF_K + 1), 2: 1 / (RRF_K + 2)}
    _lift(scores, SHIPPED, ([3], [], (1, 0)), [5, 4])  # 5 first by BM25
    order = sorted(scores, key=lambda row: -scores[row])
    assert order == [5, 4, 3, 1, 2]
    assert scores[3] == pytest.approx(CONTAINED_FLOORS["title"] / (RRF_K + 1))
    # off, or nothing else scored: the floors alone
    off = {1: 1 / (RRF_K + 1)}
    _lift(off, Variant(verbatim_rank=None), ([], [], (0, 0)), [])
    assert off == {1: 1 / (RRF_K + 1)}
    alone: dict[int, float] = {}
    _lift(alone, SHIPPED, ([], [], (0, 0)), [7])
    assert alone == {7: CONTAINED_FLOORS["passage"] / (RRF_K + 1)}
    with pytest.raises(ValueError, match="from 1"):
        _lift({1: 0.1}, Variant(verbatim_rank=0), ([], [], (0, 0)), [7])


def test_the_verbatim_rule_keeps_to_the_filters(index: SearchIndex) -> None:
    mask = index.mask(SearchFilters(role="thesis"))
    assert [index.unit_ids[r] for r in index.verbatim_leg(PHRASE, mask)] == ["s_long_u0"]
    for refused in (SearchFilters(role="synopsis"), SearchFilters(content_type="event")):
        assert index.verbatim_leg(PHRASE, index.mask(refused)) == []
        request = SearchRequest(
            query_vector=vector_of(PHRASE), query_text=PHRASE, filters=refused, limit=20
        )
        assert not any(index.unit_ids[h.row].startswith("s_long") for h in index.search(request))


def test_quoted_phrases_are_the_quoted_parts_with_terms() -> None:
    assert quoted_phrases('a "Big Chips" b "" "of the" c "unclosed') == [
        ["big", "chip"],
        ["of", "the"],
    ]
    assert quoted_phrases("no quotes") == []


def test_a_snapshot_without_the_source_index_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SnapshotError, match="rebuild it"):
        publish(tmp_path, whole_sources=False)


# -- on the demo snapshot ------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_lines(
    demo_data_dir: DataDir, demo_snapshot: OpenedSnapshot
) -> tuple[SearchIndex, list[tuple[str, str, np.ndarray]]]:
    """The demo index, and queries the source legs answer: for served signals in id order, the
    six words around the middle of the signal's complete text (the warehouse's), kept when a
    passage holding them all names few enough signals (the legs then speak) — with the signal
    and the query's MiniLM vector."""
    index = SearchIndex(demo_snapshot, demo_snapshot.manifest.as_of)
    served = set(demo_snapshot.read_table("search_units")["signal_id"].to_list())
    texts = read_table(demo_data_dir, "signals", SIGNALS_TABLE).select("signal_id", "text")
    row_signal = demo_snapshot.read_table("search_units")["signal_id"].to_list()
    picked: list[tuple[str, str]] = []
    for signal_id, text in texts.sort("signal_id").iter_rows():
        words = (text or "").split()
        if signal_id not in served or len(words) < 24:
            continue
        query = " ".join(words[len(words) // 2 - 3 : len(words) // 2 + 3])
        lifted = index.contained_legs(query, None)[1]
        if any(row_signal[row] == signal_id for row in lifted):
            picked.append((signal_id, query))
        if len(picked) == 12:
            break
    vectors = load_minilm()([query for _s, query in picked])
    return index, [(s, q, v) for (s, q), v in zip(picked, vectors, strict=True)]


def _request(query: str, vector: np.ndarray, **extra: object) -> SearchRequest:
    return SearchRequest(query_vector=vector, query_text=query, **extra)  # type: ignore[arg-type]


def test_demo_a_line_from_the_middle_finds_its_post(
    demo_lines: tuple[SearchIndex, list[tuple[str, str, np.ndarray]]],
    demo_snapshot: OpenedSnapshot,
) -> None:
    """The unit the passage leg lifts for the post is in the top 10 — or the copy of its text
    that is shown for it (the demo repeats sentences across posts: docs/design.md §8)."""
    index, lines = demo_lines
    row_signal = demo_snapshot.read_table("search_units")["signal_id"].to_list()
    assert len(lines) == 12

    def shown(
        signal_id: str, query: str, vector: np.ndarray, legs: tuple[str, ...] | None = None
    ) -> bool:
        (lifted,) = [r for r in index.contained_legs(query, None)[1] if row_signal[r] == signal_id]
        variant = SHIPPED if legs is None else Variant(legs=legs)
        rows = {hit.row for hit in index.search(_request(query, vector), variant)}
        return bool(rows & set(index.copies(lifted).tolist()))

    missed = 0
    for signal_id, query, vector in lines:
        assert shown(signal_id, query, vector), (signal_id, query)
        missed += not shown(signal_id, query, vector, ("lexical", "dense", "title"))
    # without the source legs the same words miss some of these units
    assert missed, "the unit legs alone find every one: the check is vacuous"


@pytest.mark.parametrize(
    "filters",
    [
        {"role": "claim"},
        {"content_type": "analysis"},
        {"published_from_us": "middle"},
    ],
)
def test_demo_filters_caps_copies_and_limits_hold_with_the_source_legs(
    demo_lines: tuple[SearchIndex, list[tuple[str, str, np.ndarray]]],
    filters: dict[str, object],
) -> None:
    index, lines = demo_lines
    if filters.get("published_from_us") == "middle":
        filters = {"published_from_us": int(np.median(index.published_us))}
    search_filters = SearchFilters(**filters)  # type: ignore[arg-type]
    mask = index.mask(search_filters)
    assert mask is not None and 0 < mask.sum() < index.size
    lifted_any = 0
    for _signal_id, query, vector in lines:
        titled, in_passage = index.contained_legs(query, mask)
        assert all(mask[row] for row in titled + in_passage)  # a lifted unit is allowed
        lifted_any += len(titled + in_passage)
        hits = index.search(_request(query, vector, filters=search_filters, limit=10))
        assert all(mask[hit.row] for hit in hits)
        groups = [int(index.copy_group[hit.row]) for hit in hits]
        marked = [g for g in groups if g >= 0]
        assert len(marked) == len(set(marked))  # a text is one hit
        capped = index.search(
            _request(query, vector, filters=search_filters, limit=10, diversity_cap=1)
        )
        signals = [int(index.signal_code[hit.row]) for hit in capped]
        assert len(signals) == len(set(signals))
        shorter = index.search(_request(query, vector, filters=search_filters, limit=4))
        assert [h.row for h in shorter] == [h.row for h in hits[:4]]
    assert lifted_any  # the legs spoke under the filter


# -- the evaluation options (bench/search/quality/sources.py compares rules with them) ------


def test_contained_holders_counts_the_signals_each_leg_found(index: SearchIndex) -> None:
    titled, in_passage, holders = index.contained_holders(PHRASE, None)
    assert (titled, in_passage) == index.contained_legs(PHRASE, None)
    # the phrase's words are in one passage of s_long and in s_scrambled's one sentence
    assert holders[1] == len(in_passage) == 2
    assert index.contained_holders("bond yields moved", None)[2][1] == 0  # too many: silent
    assert index.contained_holders("quarterly outlook", None)[2] == (1, 0)


def test_a_floor_for_a_leg_that_found_one_signal_applies_to_it_alone(index: SearchIndex) -> None:
    query = "analysts debate tariffs pensions rainfall vineyards"  # one passage of one signal
    (lifted,) = index.contained_holders(query, None)[1]
    vector = vector_of(query)

    def score_of(request: SearchRequest, variant: Variant = SHIPPED) -> float:
        return next(hit.score for hit in index.search(request, variant) if hit.row == lifted)

    base = SearchRequest(query_vector=vector, query_text=query, diversity_cap=100)
    shipped = score_of(base)
    assert shipped == pytest.approx(CONTAINED_FLOORS["passage"] / (RRF_K + 1))
    raised = score_of(base, Variant(unique_floors=(1.0, 9.0)))
    assert raised == pytest.approx(9.0 / (RRF_K + 1))
    # the phrase names two signals: the one-signal floor leaves it alone
    two = SearchRequest(query_vector=vector_of(PHRASE), query_text=PHRASE, diversity_cap=100)
    assert [(h.row, h.score) for h in index.search(two)] == [
        (h.row, h.score) for h in index.search(two, Variant(unique_floors=(9.0, 9.0)))
    ]


def test_a_lift_rank_puts_a_lifted_unit_above_the_fused_list_at_that_rank(
    index: SearchIndex,
) -> None:
    query = "appendices glossaries footnotes errata"
    titled, in_passage = index.contained_legs(query, None)
    lifted = set(titled + in_passage)
    assert lifted
    base = SearchRequest(
        query_vector=vector_of(query), query_text=query, diversity_cap=100, limit=20
    )
    fused = index.search(base, Variant(legs=("lexical", "dense", "title")))
    first = index.search(base, Variant(lift_rank=1))
    assert {h.row for h in first[: len(lifted)]} == lifted
    assert all(h.score > fused[0].score for h in first[: len(lifted)])
