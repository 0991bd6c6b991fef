"""The search executor (docs/design.md §8): filter-first lexical (tantivy BM25 over the unit text
and its signal's title), dense (FAISS or exact inner product) and title-match legs, reciprocal-rank
fusion, source legs that lift a unit of a few whole sources to a floor score, recency boost,
near-duplicate collapse and a per-signal diversity cap.

Filters are applied inside both legs before ranking. The lexical leg ranks the query's terms
(stop words dropped) as one disjunction; it adds the filters as zero-scoring clauses, or, when
most rows are allowed, ranks unfiltered and drops disallowed rows, falling back to the clauses
when that comes out short, so both ways give the same rows. The dense leg scores only allowed
rows (exactly, when they are few or the index is flat; through FAISS with an ID selector and a
proportionally wider probe otherwise). A leg that filled its depth may hold more: when the
fused, capped list comes out short, the depth grows 4x until the list is full or both legs are
exhausted, so a selective filter never returns fewer hits than exist. The title-match leg finds the
signals whose title the query nearly is (a reader searching for a post by its title) and ranks
all their allowed units at the signal's rank.

The source legs find a signal by words no unit carries (half a title, a line from
the middle of a post): signals whose title holds every term of the query, and signals with one
passage of their *complete* text (a window of 16 words) holding every term. They speak only
when the query's terms together name at most ``CONTAINED_MAX_SOURCES`` signals — then the
reader is after one of them; a topic's words name many — and then their best
``CONTAINED_TOP`` signals each lift one verified unit to at least a floor score (the unit's
fused score when higher), high enough for the first page, not above what the unit legs agree
on. The unit lifted is the allowed unit nearest the matching passage, by the units' character
spans (for a title, the passage best matching the query's terms; the central statement's span
when none does). A query of at least five words that the title or text of at most
``CONTAINED_TOP`` signals holds in order, give or take one index term (the verbatim rule),
ranks those signals' nearest units first. A query's parts in double quotes are phrases: only
signals whose title or text holds every phrase are searched (in every leg).

Units with the same normalized text (``analytics.copies``) are one hit: shown as the
earliest-published copy the filters allow, ranked by the best-scoring copy; the other copies
consume neither ``limit`` nor ``diversity_cap``, and ``similar_to`` never returns the unit's
own copies.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson
import polars as pl

from analytics.copies import COPY_OF, copy_of, copy_order
from analytics.embedding import FloatMatrix
from retrieval.index import (
    CONTENT_TYPE,
    END,
    ENTITY,
    PUBLISHED,
    ROLE,
    ROW,
    ROWS_BY_UNIT_ID,
    SOURCE,
    START,
    TERMS,
    TEXT,
    THEME,
    TITLE,
    open_search_files,
    phrase_terms,
    query_terms,
)
from warehouse.snapshot import OpenedSnapshot, SnapshotError

RRF_K = 60
MIN_DEPTH = 100
# Each leg's weight in the fused score, w / (RRF_K + rank).
LEG_WEIGHTS = {"lexical": 1.0, "dense": 1.0, "title": 1.0}
# The source legs (docs/journal/2026-11-28.md, "Whole sources": chosen on the partial-query
# sets' choosing half, checked on the held-out half and the known-item and topical sets): when
# the query's terms all occur in the titles of at most CONTAINED_MAX_SOURCES signals (or all in
# one passage of at most that many signals' texts), the best CONTAINED_TOP of them (by BM25 over
# titles, or over passages) each score at least floor / (RRF_K + rank). A title floor of 1.7
# puts the first such unit where one ranked about 12th by both unit legs would be; a passage's
# 1.5, about 21st.
CONTAINED_MAX_SOURCES = 10
CONTAINED_TOP = 3
CONTAINED_FLOORS = {"title": 1.7, "passage": 1.5}
# The verbatim rule (docs/journal/2026-12-01.md, "A line typed word for word"): a query of at least
# VERBATIM_MIN_WORDS words (stop words counted) that the title or complete text of at most
# CONTAINED_TOP signals holds in order, with at most VERBATIM_SLOP other index terms between
# them in all (a word the reader forgot), is a line the reader remembers; each such signal's unit
# nearest that line scores at least the fused score ranked VERBATIM_RANK-th without it, so it
# is on the first page whatever the corpus's size (a floor's place in the list depends on how
# many units both unit legs reach). A slop of 2 cost the topical set; 0 missed forgotten words.
VERBATIM_MIN_WORDS = 5
VERBATIM_SLOP = 1
VERBATIM_RANK = 1
# The central statement: the unit that stands for a source matched by its title alone.
CENTRAL_ROLES = ("thesis", "synopsis")
# A phrase: what a query holds between double quotes.
_QUOTED = re.compile(r'"([^"]*)"')
# The signal's title in the lexical leg: a second field, its BM25 weighed at half the unit
# text's (docs/journal/2026-11-25.md, "Contextual indexing": 1 hurt topical queries, 0.25 found
# fewer posts by their title).
TITLE_WEIGHT = 0.5
# The title-match leg: a signal matches when its title and the query share at least this share
# of each one's terms, i.e. the query is (nearly) the title; the best TITLE_CANDIDATES titles by
# BM25 are checked.
TITLE_MATCH_SHARE = 0.8
TITLE_CANDIDATES = 20
# Below this many allowed rows the dense leg scores them exactly instead of asking FAISS.
EXACT_MAX_ROWS = 20_000
# From this share of allowed rows up, the lexical leg ranks unfiltered (tantivy's block-max
# WAND skips most postings) and drops disallowed rows itself; below it, the filters are clauses
# of the query. Both give the same rows (docs/benchmarks.md has the crossover).
POST_FILTER_MIN_SHARE = 0.25
RECENCY_HALF_LIFE_DAYS = 30.0
_US_PER_DAY = 86_400 * 1_000_000

BoolArray = npt.NDArray[np.bool_]
Int64Array = npt.NDArray[np.int64]
Float64Array = npt.NDArray[np.float64]


@dataclass(frozen=True)
class SearchFilters:
    role: str | None = None
    content_type: str | None = None
    theme: str | None = None
    entity_ids: frozenset[str] | None = None  # any of them (an entity and its family)
    published_from_us: int | None = None  # inclusive
    published_before_us: int | None = None  # exclusive
    exclude_row: int | None = None  # similar_to: the unit itself
    # the signals, by key (first row), holding a query's phrases: set by the executor
    sources: frozenset[int] | None = None

    def any(self) -> bool:
        return any(
            value is not None
            for value in (
                self.role,
                self.content_type,
                self.theme,
                self.entity_ids,
                self.published_from_us,
                self.published_before_us,
                self.exclude_row,
                self.sources,
            )
        )


@dataclass(frozen=True)
class Hit:
    row: int
    score: float


@dataclass(frozen=True)
class SearchRequest:
    """``query_vector`` is the embedded query (hybrid) or the stored vector of ``similar_row``
    (similar_to); ``query_text`` drives the lexical leg and is None for similar_to."""

    query_vector: FloatMatrix
    query_text: str | None
    filters: SearchFilters = field(default_factory=SearchFilters)
    limit: int = 10
    diversity_cap: int = 2
    recency_boost: float = 0.0


@dataclass(frozen=True)
class Variant:
    """How the engine ranks: the shipped way (``SHIPPED``), or another a benchmark compares it
    with, handed to ``SearchIndex.search`` (the served code never passes one)."""

    legs: tuple[str, ...] = ("lexical", "dense", "title", "source")
    # the source legs' floors (None: CONTAINED_FLOORS)
    floors: tuple[float, float] | None = None
    # each source leg's floor when it found exactly one signal holding the terms (None: the
    # same as the others)
    unique_floors: tuple[float, float] | None = None
    # a lifted unit scores at least the fused score of the unit legs' and title leg's
    # ``lift_rank``-th best row (None: floors alone)
    lift_rank: int | None = None
    # the verbatim rule's rank (None: the rule off) and slop
    verbatim_rank: int | None = VERBATIM_RANK
    verbatim_slop: int = VERBATIM_SLOP


SHIPPED = Variant()


def quoted_phrases(text: str) -> list[list[str]]:
    """The phrases of a query, each as its index terms (stop words kept): the parts between
    double quotes that have any term. An unmatched quote is ignored."""
    phrases = [phrase_terms(part) for part in _QUOTED.findall(text)]
    return [terms for terms in phrases if terms]


def _kth_score(scores: dict[int, float], k: int | None) -> float:
    """Just above the ``k``-th best of ``scores`` (0 when ``k`` is None or there are fewer):
    a score that ranks ``k``-th or better."""
    if k is not None and k < 1:
        raise ValueError(f"a rank counts from 1, not {k}")
    if k is None or len(scores) < k:
        return 0.0
    ordered = np.fromiter(scores.values(), dtype=np.float64, count=len(scores))
    return float(np.nextafter(-np.partition(-ordered, k - 1)[k - 1], np.inf))


def _lift(
    scores: dict[int, float],
    variant: Variant,
    contained: tuple[list[int], list[int], tuple[int, int]],
    verbatim: list[int],
) -> None:
    """Into ``scores`` (the unit legs' and the title leg's fused scores): the source legs' rows
    at their floors, and the verbatim rule's rows at least at ``variant.verbatim_rank``."""
    floors = variant.floors or (CONTAINED_FLOORS["title"], CONTAINED_FLOORS["passage"])
    lifted, holders = contained[:2], contained[2]
    if variant.unique_floors is not None:
        floors = tuple(  # type: ignore[assignment]
            unique if count == 1 else floor
            for floor, unique, count in zip(floors, variant.unique_floors, holders, strict=True)
        )
    at_rank = _kth_score(scores, variant.lift_rank)
    for ranked, floor in zip(lifted, floors, strict=True):
        for rank, row in enumerate(ranked, start=1):
            scores[row] = max(scores.get(row, 0.0), floor / (RRF_K + rank), at_rank)
    if verbatim:
        # after the floors, so above every lifted row too; each row one step above the next,
        # so they keep their BM25 order (the passage floor when nothing else scored)
        score = _kth_score(scores, variant.verbatim_rank) or floors[1] / (RRF_K + 1)
        for row in reversed(verbatim):
            scores[row] = max(scores.get(row, 0.0), score)
            score = float(np.nextafter(scores[row], np.inf))


class SearchIndex:
    """A snapshot's search rows, vectors (memory-mapped) and lexical index."""

    def __init__(self, opened: OpenedSnapshot, as_of: datetime) -> None:
        """Read ``opened``'s search rows and open its index files, in steps: the rows' order
        by unit id, their grouping by signal, the masks and orders the filters read, the
        near-duplicate groups, the rows by theme and entity, then the vectors and the lexical,
        title and source indexes."""
        frame = _search_frame(opened)
        self.size = frame.height
        params: dict[str, Any] = opened.manifest.metadata.get("search", {})
        self._order_by_id(frame["unit_id"], params)
        self._group_by_signal(frame["signal_id"])
        self._index_filters(frame)
        self._group_copies(frame)
        self.theme_rows = rows_by_member(frame["themes"])
        self.entity_rows = rows_by_member(frame["entity_ids"])
        # kept as columns, read per hit: a million Python bytes objects took seconds at open
        self.unit_json: pl.Series = frame["unit_json"]
        self.citation_json: pl.Series = frame["citation_json"]
        self.as_of_us = int(as_of.timestamp() * 1_000_000)
        self._open_files(opened, params)
        none = np.zeros(self.size, dtype=bool)
        self.central = np.logical_or.reduce(
            [self.role_masks.get(role, none) for role in CENTRAL_ROLES]
        )

    def _order_by_id(self, unit_ids: pl.Series, params: dict[str, Any]) -> None:
        """Each row's unit id; the ids in code-point order and the row of each (None: row i
        holds the i-th id, as a publish stores them); and each row's position in id order, the
        tie-break (sorting a million ids took about a second at open, mapping them to rows in a
        dict half a second)."""
        self.unit_ids: pl.Series = unit_ids
        # the mark is checked, not trusted: a wrong one would map ids to other units' rows
        if params.get("rows") == ROWS_BY_UNIT_ID and self.unit_ids.is_sorted():
            self._ids_sorted, self._row_at = self.unit_ids, None
            self.id_rank = np.arange(self.size, dtype=np.int64)
        else:  # a snapshot published before its rows were stored in id order
            order = self.unit_ids.arg_sort()
            self._ids_sorted = self.unit_ids.gather(order)
            self._row_at = order.to_numpy().astype(np.int64)
            self.id_rank = np.empty(self.size, dtype=np.int64)
            self.id_rank[self._row_at] = np.arange(self.size, dtype=np.int64)

    def _group_by_signal(self, signal_ids: pl.Series) -> None:
        """One code per signal, and each signal's rows in row order, laid end to end: signal
        c's rows are by_signal[signal_starts[c]:signal_starts[c + 1]] (grouped by hashing:
        270,000 small arrays, or sorting the ids, took seconds at open)."""
        signals, self.by_signal, self.signal_starts = _groups(
            signal_ids, pl.int_range(self.size, dtype=pl.Int64, eager=True)
        )
        self.signal_code = np.empty(self.size, dtype=np.int64)
        self.signal_code[self.by_signal] = np.repeat(
            np.arange(len(signals), dtype=np.int64), np.diff(self.signal_starts)
        )

    def _index_filters(self, frame: pl.DataFrame) -> None:
        """What the role, content type and date filters read: one mask per role and content
        type, built once (comparing strings per query cost 10 ms at 1M units,
        docs/benchmarks.md), and the rows by publication time, so that a date filter marks one
        slice of it instead of comparing every row twice (1.9 ms at 1M units)."""
        self.role_masks = _value_masks(frame["role"])
        self.content_type_masks = _value_masks(frame["content_type"])
        self.published_us = frame["published_at"].dt.epoch("us").to_numpy().astype(np.int64)
        self.by_published = np.argsort(self.published_us, kind="stable")
        self.published_sorted = self.published_us[self.by_published]

    def _group_copies(self, frame: pl.DataFrame) -> None:
        """The near-duplicates: each row of a text that several units hold → its group, and
        each group's rows in the order its hit is chosen (the earliest-published first)."""
        if COPY_OF not in frame.columns:  # a snapshot published before copies were marked
            frame = frame.with_columns(copy_of(frame))
        copies = copy_order(frame)
        self.copy_group = np.full(self.size, -1, dtype=np.int64)
        self.copy_rows: list[Int64Array] = []
        if copies.height:
            rows_in_order = copies["row"].to_numpy().astype(np.int64)
            keys = copies[COPY_OF].to_numpy()
            starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
            self.copy_rows = np.split(rows_in_order, starts[1:])
            self.copy_group[rows_in_order] = np.repeat(
                np.arange(len(starts)), np.diff(np.append(starts, len(rows_in_order)))
            )

    def _open_files(self, opened: OpenedSnapshot, params: dict[str, Any]) -> None:
        """The snapshot's search files: the vectors (memory-mapped) and their FAISS index, the
        lexical index, the title index of the title-match leg, and the source and passage
        indexes of the source legs and phrases with each row's span in its signal's text."""
        try:
            files = open_search_files(opened.path, params, units=self.size)
        except ValueError as exc:
            raise SnapshotError(f"snapshot {opened.snapshot_id}: {exc}") from None
        self.vectors: npt.NDArray[np.float32] = files.vectors
        self.params = params
        self.ivf: Any = files.ivf
        if self.ivf is not None:
            self.nprobe = int(self.ivf.nprobe)
        self.exact_max_rows = EXACT_MAX_ROWS
        self.post_filter_min_share = POST_FILTER_MIN_SHARE
        self.lexical = files.lexical
        self.searcher = self.lexical.searcher()
        self.schema = self.lexical.schema
        self.title_field = TITLE in params.get("lexical", {}).get("fields", ())
        # the title-match leg: the title index, and each signal's rows in row order
        self.titles = files.titles
        self.title_searcher = None if self.titles is None else self.titles.searcher()
        # the source legs and phrases: signals by title and complete text, their passages, each
        # row's span in its signal's text
        self.source_searcher = files.sources.searcher()
        self.source_schema = files.sources.schema
        self.passage_searcher = files.passages.searcher()
        self.passage_schema = files.passages.schema
        self.spans = np.asarray(files.spans, dtype=np.int64)

    def row_of(self, unit_id: str) -> int | None:
        """The row holding ``unit_id``, or None when no row does."""
        at = bisect_left(self._ids_sorted, unit_id)
        if at == self.size or self._ids_sorted[at] != unit_id:
            return None
        return at if self._row_at is None else int(self._row_at[at])

    def signal_rows(self, code: int) -> Int64Array:
        """The rows of the signal with ``code``, ascending."""
        rows: Int64Array = self.by_signal[self.signal_starts[code] : self.signal_starts[code + 1]]
        return rows

    # -- filters ---------------------------------------------------------------------------

    def mask(self, filters: SearchFilters) -> BoolArray | None:
        """Allowed rows, or None when nothing is filtered."""
        if not filters.any():
            return None
        mask = np.ones(self.size, dtype=bool)
        none = np.zeros(self.size, dtype=bool)
        if filters.role is not None:
            mask &= self.role_masks.get(filters.role, none)
        if filters.content_type is not None:
            mask &= self.content_type_masks.get(filters.content_type, none)
        if filters.theme is not None:
            mask &= self._rows_mask([filters.theme], self.theme_rows)
        if filters.entity_ids is not None:
            mask &= self._rows_mask(filters.entity_ids, self.entity_rows)
        if filters.published_from_us is not None or filters.published_before_us is not None:
            mask &= self._published_mask(filters.published_from_us, filters.published_before_us)
        if filters.exclude_row is not None:
            # similar_to: the unit and its copies are never its own similar hits
            mask[self.copies(filters.exclude_row)] = False
        if filters.sources is not None:
            codes = self.signal_code[np.fromiter(filters.sources, np.int64, len(filters.sources))]
            mask &= np.isin(self.signal_code, codes)
        return mask

    def copies(self, row: int) -> Int64Array:
        """The rows holding ``row``'s normalized text, ``row`` included."""
        group = int(self.copy_group[row])
        if group < 0:
            return np.asarray([row], dtype=np.int64)
        return self.copy_rows[group]

    def _published_mask(self, from_us: int | None, before_us: int | None) -> BoolArray:
        """Rows published in [from_us, before_us); either bound may be open."""
        first = 0 if from_us is None else np.searchsorted(self.published_sorted, from_us, "left")
        end = (
            self.size
            if before_us is None
            else np.searchsorted(self.published_sorted, before_us, "left")
        )
        mask = np.zeros(self.size, dtype=bool)
        mask[self.by_published[first:end]] = True
        return mask

    def _rows_mask(self, values: Iterable[str], rows_of: dict[str, Int64Array]) -> BoolArray:
        mask = np.zeros(self.size, dtype=bool)
        for value in values:
            if value in rows_of:
                mask[rows_of[value]] = True
        return mask

    def _filter_clauses(self, filters: SearchFilters) -> list[Any]:
        """One clause per filter, each scoring 0: a filter decides membership, never rank."""
        import tantivy

        schema = self.schema
        clauses = []

        def term(name: str, value: str) -> Any:
            return tantivy.Query.term_query(schema, name, value, index_option="basic")

        if filters.role is not None:
            clauses.append(term(ROLE, filters.role))
        if filters.content_type is not None:
            clauses.append(term(CONTENT_TYPE, filters.content_type))
        if filters.theme is not None:
            clauses.append(term(THEME, filters.theme))
        if filters.entity_ids is not None:
            clauses.append(tantivy.Query.term_set_query(schema, ENTITY, sorted(filters.entity_ids)))
        if filters.published_from_us is not None or filters.published_before_us is not None:
            clauses.append(
                tantivy.Query.range_query(
                    schema,
                    PUBLISHED,
                    tantivy.FieldType.Integer,
                    filters.published_from_us,
                    filters.published_before_us,
                    include_upper=filters.published_before_us is None,
                )
            )
        if filters.sources is not None:
            clauses.append(tantivy.Query.term_set_query(schema, SOURCE, sorted(filters.sources)))
        if filters.exclude_row is not None:  # only similar_to excludes, and it has no text leg
            raise ValueError("the lexical leg does not exclude rows")
        return [tantivy.Query.const_score_query(clause, 0.0) for clause in clauses]

    def _ranked_rows(self, query: Any, depth: int) -> list[int]:
        result = self.searcher.search(query, depth, count=False)
        addresses = [address for _score, address in result.hits]
        if not addresses:
            return []
        values = self.searcher.fast_field_values(ROW, addresses)
        return [row for row in values if isinstance(row, int)]

    def lexical_leg(
        self, text: str, filters: SearchFilters, depth: int, mask: BoolArray | None = None
    ) -> list[int]:
        """Allowed rows in BM25 order, at most ``depth``; empty when the text has no terms.
        ``mask`` is ``self.mask(filters)``, passed in when the caller has it already."""
        import tantivy

        terms = query_terms(text)
        if not terms:
            return []
        union = tantivy.Query.boolean_query(self._term_clauses(terms))
        if not filters.any():
            return self._ranked_rows(union, depth)
        if mask is None:
            mask = self.mask(filters)
        assert mask is not None
        allowed = int(np.count_nonzero(mask))
        if allowed == 0:
            return []
        if allowed >= self.post_filter_min_share * self.size:
            # enough allowed rows that the top-ranked ones, filtered, very likely fill the
            # depth; when they do not and more rows matched, the filtered query decides
            wanted = min(self.size, math.ceil(2 * depth * self.size / allowed))
            ranked = self._ranked_rows(union, wanted)
            kept = [row for row in ranked if mask[row]]
            if len(kept) >= depth or len(ranked) < wanted:
                return kept[:depth]
        clauses = [(tantivy.Occur.Must, union)]
        clauses += [(tantivy.Occur.Must, clause) for clause in self._filter_clauses(filters)]
        return self._ranked_rows(tantivy.Query.boolean_query(clauses), depth)

    def _term_clauses(self, terms: list[str]) -> list[tuple[Any, Any]]:
        """Each term in the unit text, and in the signal's title at ``TITLE_WEIGHT``."""
        import tantivy

        clauses = []
        for term in terms:
            clauses.append(
                (tantivy.Occur.Should, tantivy.Query.term_query(self.schema, TEXT, term))
            )
            if self.title_field:
                title = tantivy.Query.term_query(self.schema, TITLE, term)
                clauses.append(
                    (tantivy.Occur.Should, tantivy.Query.boost_query(title, TITLE_WEIGHT))
                )
        return clauses

    def title_leg(self, text: str, mask: BoolArray | None) -> dict[int, int]:
        """Allowed rows of the signals whose title the query (nearly) is — they share at least
        ``TITLE_MATCH_SHARE`` of each one's terms — as row → rank: every row of a signal takes
        its signal's rank, best overlap first. Empty for most queries."""
        import tantivy

        if self.title_searcher is None:
            return {}
        terms = query_terms(text)
        if not terms:
            return {}
        wanted = set(terms)
        query = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Should, tantivy.Query.term_query(self.titles.schema, TITLE, t))
                for t in terms
            ]
        )
        hits = self.title_searcher.search(query, TITLE_CANDIDATES, count=False).hits
        if not hits:
            return {}
        addresses = [address for _score, address in hits]
        first_rows = self.title_searcher.fast_field_values(ROW, addresses)
        matched: list[tuple[float, int]] = []
        for address, first_row in zip(addresses, first_rows, strict=True):
            title_terms = set((self.title_searcher.doc(address).get_first(TERMS) or "").split())
            common = len(wanted & title_terms)
            if common >= TITLE_MATCH_SHARE * max(len(wanted), len(title_terms)):
                matched.append((-common / max(len(wanted), len(title_terms)), int(first_row)))
        ranks: dict[int, int] = {}
        for rank, (_overlap, first_row) in enumerate(sorted(matched), start=1):
            rows = self.signal_rows(int(self.signal_code[first_row]))
            for row in rows.tolist() if mask is None else rows[mask[rows]].tolist():
                ranks[row] = rank
        return ranks

    # -- whole sources ---------------------------------------------------------------------

    def _phrase_clause(
        self, schema: Any, terms: list[str], fields: tuple[str, ...], slop: int = 0
    ) -> Any:
        """Matches ``terms`` as a phrase (one term: the term) in any of ``fields``, with at most
        ``slop`` other terms between them in all."""
        import tantivy

        words: list[str | tuple[int, str]] = list(terms)
        queries = [
            tantivy.Query.term_query(schema, name, terms[0])
            if len(terms) == 1
            else tantivy.Query.phrase_query(schema, name, words, slop=slop)
            for name in fields
        ]
        if len(queries) == 1:
            return queries[0]
        return tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in queries])

    def phrase_sources(self, phrases: list[list[str]]) -> frozenset[int]:
        """The keys of the signals whose title or text holds every phrase."""
        import tantivy

        query = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Must, self._phrase_clause(self.source_schema, p, (TEXT,)))
                for p in phrases
            ]
        )
        count = self.source_searcher.search(query, 1, count=True).count
        if not count:
            return frozenset()
        hits = self.source_searcher.search(query, count, count=False).hits
        keys = self.source_searcher.fast_field_values(SOURCE, [a for _s, a in hits])
        return frozenset(int(key) for key in keys)

    def _allowed_rows(self, key: int, mask: BoolArray | None) -> Int64Array:
        rows = self.signal_rows(int(self.signal_code[key]))
        return rows if mask is None else rows[mask[rows]]

    def contained_legs(self, text: str, mask: BoolArray | None) -> tuple[list[int], list[int]]:
        """The source legs: rows lifted for signals whose title holds every term of the query,
        and for signals with one passage holding them all — each at most ``CONTAINED_TOP``, in
        BM25 order, one allowed row per signal; empty when more than ``CONTAINED_MAX_SOURCES``
        signals (allowed or not) match, or the query has no terms."""
        titled, in_passage, _holders = self.contained_holders(text, mask)
        return titled, in_passage

    def contained_holders(
        self, text: str, mask: BoolArray | None
    ) -> tuple[list[int], list[int], tuple[int, int]]:
        """``contained_legs`` and how many signals (allowed or not) each leg found holding
        the query's terms: by title, by passage (0 when more than ``CONTAINED_MAX_SOURCES``)."""
        terms = query_terms(text)
        if not terms:
            return [], [], (0, 0)
        by_title = self._title_holders(terms)
        passages = self._passage_holders(terms)
        titled = [key for key in by_title if len(self._allowed_rows(key, mask))]
        titled = titled[:CONTAINED_TOP]
        located = self._locate(titled, terms, quoted_phrases(text), mask)
        in_passage: list[int] = []
        for key, span in passages:
            allowed = self._allowed_rows(key, mask)
            if len(allowed) and len(in_passage) < CONTAINED_TOP:
                in_passage.append(self._nearest(key, allowed, span))
        return located, in_passage, (len(by_title), len(passages))

    def verbatim_leg(
        self, text: str, mask: BoolArray | None, slop: int = VERBATIM_SLOP
    ) -> list[int]:
        """Rows lifted by the verbatim rule: for each signal whose title or complete text holds
        the query's words in order (at least ``VERBATIM_MIN_WORDS`` of them, stop words
        counted, each word a run of characters between spaces), with at most ``slop`` other
        index terms between them in all, in BM25 order, its allowed unit nearest the passage
        holding them; empty when more than ``CONTAINED_TOP`` signals (allowed or not) hold
        them."""
        # words as the reader typed them ("2.5" is one word, two index terms); the analyzer
        # splits at spaces too, so the words' terms in turn are the text's
        by_word = [phrase_terms(word) for word in text.split()]
        if sum(map(bool, by_word)) < VERBATIM_MIN_WORDS:
            return []
        terms = [term for word in by_word for term in word]
        phrase = self._phrase_clause(self.source_schema, terms, (TEXT,), slop)
        hits = self.source_searcher.search(phrase, CONTAINED_TOP + 1, count=False).hits
        if len(hits) > CONTAINED_TOP:
            return []
        keys = self.source_searcher.fast_field_values(SOURCE, [a for _s, a in hits])
        holders = [int(key) for key in keys if len(self._allowed_rows(int(key), mask))]
        return self._locate(holders, query_terms(text), [terms], mask, slop)

    def _title_holders(self, terms: list[str]) -> list[int]:
        """Keys of the signals whose title holds every term, by BM25; none when more than
        ``CONTAINED_MAX_SOURCES`` do."""
        import tantivy

        if self.title_searcher is None:
            return []
        schema = self.titles.schema
        query = tantivy.Query.boolean_query(
            [(tantivy.Occur.Must, tantivy.Query.term_query(schema, TITLE, t)) for t in terms]
        )
        result = self.title_searcher.search(query, CONTAINED_MAX_SOURCES + 1, count=False)
        if len(result.hits) > CONTAINED_MAX_SOURCES:
            return []
        rows = self.title_searcher.fast_field_values(ROW, [a for _s, a in result.hits])
        return [int(row) for row in rows]

    def _passage_holders(self, terms: list[str]) -> list[tuple[int, tuple[int, int]]]:
        """The signals with a passage holding every term, best passage first (BM25), each with
        that passage's span; none when more than ``CONTAINED_MAX_SOURCES`` signals do."""
        import tantivy

        schema = self.passage_schema
        query = tantivy.Query.boolean_query(
            [(tantivy.Occur.Must, tantivy.Query.term_query(schema, TEXT, t)) for t in terms]
        )
        limit = 8 * (CONTAINED_MAX_SOURCES + 1)
        while True:
            hits = self.passage_searcher.search(query, limit, count=False).hits
            addresses = [address for _score, address in hits]
            keys = self.passage_searcher.fast_field_values(SOURCE, addresses)
            starts = self.passage_searcher.fast_field_values(START, addresses)
            ends = self.passage_searcher.fast_field_values(END, addresses)
            best: dict[int, tuple[int, int]] = {}
            for key, start, end in zip(keys, starts, ends, strict=True):
                best.setdefault(int(key), (int(start), int(end)))
            if len(best) > CONTAINED_MAX_SOURCES:
                return []
            if len(hits) < limit:  # every matching passage seen
                return list(best.items())
            limit *= 8

    def _locate(
        self,
        keys: list[int],
        terms: list[str],
        phrases: list[list[str]],
        mask: BoolArray | None,
        slop: int = 0,
    ) -> list[int]:
        """Each signal's allowed unit nearest its best-matching passage: one holding a phrase
        (with ``slop``) if any does, else the best by BM25 of the query's terms; the central
        statement's span when no passage matched."""
        import tantivy

        allowed = {key: self._allowed_rows(key, mask) for key in keys}
        several = [key for key in keys if len(allowed[key]) > 1]
        found: dict[int, tuple[int, int]] = {}
        schema = self.passage_schema
        queries = []
        if phrases:
            queries.append(
                tantivy.Query.boolean_query(
                    [
                        (tantivy.Occur.Should, self._phrase_clause(schema, p, (TEXT,), slop))
                        for p in phrases
                    ]
                )
            )
        if terms:
            queries.append(
                tantivy.Query.boolean_query(
                    [
                        (tantivy.Occur.Should, tantivy.Query.term_query(schema, TEXT, term))
                        for term in terms
                    ]
                )
            )
        for query in queries:
            self._best_passages(query, [k for k in several if k not in found], found)
        return [
            int(allowed[key][0])
            if len(allowed[key]) == 1
            else self._nearest(key, allowed[key], found.get(key))
            for key in keys
        ]

    def _best_passages(
        self, query: Any, keys: list[int], found: dict[int, tuple[int, int]]
    ) -> None:
        """Into ``found``: each signal's best passage for ``query`` (its span), for those of
        ``keys`` with a matching passage. The top passages over all the signals are read until
        every signal has its best one or no more match."""
        import tantivy

        limit = max(64, 8 * len(keys))
        while keys:
            restricted = tantivy.Query.boolean_query(
                [
                    (
                        tantivy.Occur.Must,
                        tantivy.Query.term_set_query(self.passage_schema, SOURCE, sorted(keys)),
                    ),
                    (tantivy.Occur.Must, query),
                ]
            )
            hits = self.passage_searcher.search(restricted, limit, count=False).hits
            addresses = [address for _score, address in hits]
            sources = self.passage_searcher.fast_field_values(SOURCE, addresses)
            starts = self.passage_searcher.fast_field_values(START, addresses)
            ends = self.passage_searcher.fast_field_values(END, addresses)
            for key, start, end in zip(sources, starts, ends, strict=True):
                found.setdefault(int(key), (int(start), int(end)))
            if len(hits) < limit:
                return
            keys = [key for key in keys if key not in found]
            limit *= 8

    def _nearest(self, key: int, allowed: Int64Array, target: tuple[int, int] | None) -> int:
        """Of ``allowed`` (rows of signal ``key``), the one nearest ``target`` (a span of its
        text; None: the central statement's), by character distance; among equals the one
        overlapping it most, then the central statement, then the lowest row."""
        if target is None:
            rows = self.signal_rows(int(self.signal_code[key]))
            central = rows[self.central[rows]]
            target = (-1, -1) if len(central) == 0 else tuple(self.spans[central[0]].tolist())
        spans = self.spans[allowed]
        start, end = spans[:, 0], spans[:, 1]
        known = (start >= 0) & (target[0] >= 0)
        distance = np.where(
            known,
            np.maximum(0, np.maximum(start - target[1], target[0] - end)),
            np.iinfo(np.int64).max,
        )
        overlap = np.where(known, np.minimum(end, target[1]) - np.maximum(start, target[0]), 0)
        order = np.lexsort((allowed, ~self.central[allowed], -overlap, distance))
        return int(allowed[order[0]])

    def dense_leg(
        self, vector: FloatMatrix, mask: BoolArray | None, depth: int
    ) -> tuple[list[int], list[float]]:
        """Rows by inner product (cosine), at most ``depth``, with their similarities."""
        query = np.ascontiguousarray(vector, dtype=np.float32).reshape(1, -1)
        allowed = self.size if mask is None else int(np.count_nonzero(mask))
        if allowed == 0:
            return [], []
        if self.ivf is None or allowed <= self.exact_max_rows:
            if mask is None:
                rows = np.arange(self.size)
                scores = self.vectors @ query[0]
            else:
                rows = np.flatnonzero(mask)
                scores = self._scores_of(rows, query[0])
            take = min(depth, len(rows))
            top = (
                np.argpartition(-scores, take - 1)[:take]
                if take < len(rows)
                else np.arange(len(rows))
            )
            # score desc, then row asc: a total order, so equal scores never reorder
            order = top[np.lexsort((rows[top], -scores[top]))]
            return rows[order].tolist(), scores[order].astype(np.float64).tolist()
        return self._ivf_search(query, mask, allowed, depth)

    def _scores_of(self, rows: Int64Array, query: FloatMatrix) -> FloatMatrix:
        """Inner products of ``query`` with the vectors of ``rows``, read in place: FAISS's
        by-index kernel, 3–5x faster than numpy gathering the rows into a copy first."""
        import faiss

        scores = np.empty(len(rows), dtype=np.float32)
        faiss.fvec_inner_products_by_idx(  # type: ignore[attr-defined]
            faiss.swig_ptr(scores),
            faiss.swig_ptr(query),
            faiss.swig_ptr(self.vectors),
            faiss.swig_ptr(rows),
            self.vectors.shape[1],
            1,
            len(rows),
        )
        return scores

    def _ivf_search(
        self, query: FloatMatrix, mask: BoolArray | None, allowed: int, depth: int
    ) -> tuple[list[int], list[float]]:
        import faiss

        if mask is None:
            scores, ids = self.ivf.search(query, depth)
        else:
            # A filter leaves fewer candidates per list: probe proportionally more lists.
            nprobe = min(self.ivf.nlist, math.ceil(self.nprobe * self.size / allowed))
            bitmap = np.packbits(mask, bitorder="little")
            selector = faiss.IDSelectorBitmap(self.size, faiss.swig_ptr(bitmap))
            params = faiss.SearchParametersIVF()
            params.sel = selector
            params.nprobe = nprobe
            scores, ids = self.ivf.search(query, depth, params=params)
        keep = ids[0] >= 0
        return ids[0][keep].tolist(), scores[0][keep].astype(np.float64).tolist()

    # -- fusion ----------------------------------------------------------------------------

    def search(self, request: SearchRequest, variant: Variant = SHIPPED) -> list[Hit]:
        """The best ``limit`` hits: fused (hybrid) or cosine (similar_to), boosted, capped;
        ranked the shipped way unless a benchmark passes another ``variant``."""
        filters = request.filters
        phrases = [] if request.query_text is None else quoted_phrases(request.query_text)
        if phrases:  # only the signals holding every phrase, in every leg
            filters = replace(filters, sources=self.phrase_sources(phrases))
        mask = self.mask(filters)
        allowed = self.size if mask is None else int(np.count_nonzero(mask))
        depth = max(MIN_DEPTH, 2 * request.limit)
        contained: tuple[list[int], list[int], tuple[int, int]] | None = None
        verbatim: list[int] = []
        while True:
            scores: dict[int, float] = {}
            exhausted = True
            if request.query_text is None:  # similar_to: cosine of stored vectors
                rows, sims = self.dense_leg(request.query_vector, mask, depth)
                scores = dict(zip(rows, sims, strict=True))
                exhausted = len(rows) < depth
            else:
                text = request.query_text
                legs: list[tuple[list[int], float]] = []
                if "lexical" in variant.legs:
                    legs.append(
                        (self.lexical_leg(text, filters, depth, mask), LEG_WEIGHTS["lexical"])
                    )
                if "dense" in variant.legs:
                    legs.append(
                        (self.dense_leg(request.query_vector, mask, depth)[0], LEG_WEIGHTS["dense"])
                    )
                for ranked, weight in legs:
                    exhausted &= len(ranked) < depth
                    for rank, row in enumerate(ranked, start=1):
                        scores[row] = scores.get(row, 0.0) + weight / (RRF_K + rank)
                # complete at any depth: these legs never grow it
                if "title" in variant.legs:
                    weight = LEG_WEIGHTS["title"]
                    for row, rank in self.title_leg(text, mask).items():
                        scores[row] = scores.get(row, 0.0) + weight / (RRF_K + rank)
                if "source" in variant.legs:
                    if contained is None:
                        contained = self.contained_holders(text, mask)
                        verbatim = (
                            []
                            if variant.verbatim_rank is None
                            else self.verbatim_leg(text, mask, variant.verbatim_slop)
                        )
                    _lift(scores, variant, contained, verbatim)
            hits = self._finish(scores, request, mask)
            if len(hits) >= request.limit or exhausted or depth >= allowed:
                return hits
            depth *= 4

    def _finish(
        self, scores: dict[int, float], request: SearchRequest, mask: BoolArray | None
    ) -> list[Hit]:
        """Collapse copies, boost, order and cap per signal. A text several units hold is one
        hit, shown as its earliest-published allowed copy with its best-scoring copy's fused
        score (times the shown copy's recency factor); the other copies take no place in the
        list and no share of any signal's cap."""
        if not scores:
            return []
        rows = np.fromiter(scores, dtype=np.int64, count=len(scores))
        values = np.fromiter(scores.values(), dtype=np.float64, count=len(scores))
        rows, values = self._collapse(rows, values, mask)
        boost = request.recency_boost
        if boost > 0:
            age_days = np.maximum(self.as_of_us - self.published_us[rows], 0) / _US_PER_DAY
            values = values * (1.0 - boost + boost * np.exp2(-age_days / RECENCY_HALF_LIFE_DAYS))
        # score desc; ties by unit id asc (id_rank: the row itself when rows are in id order)
        order = np.lexsort((self.id_rank[rows], -values))
        per_signal: dict[int, int] = {}
        hits: list[Hit] = []
        for i in order:
            row = int(rows[i])
            signal = int(self.signal_code[row])
            if per_signal.get(signal, 0) >= request.diversity_cap:
                continue
            per_signal[signal] = per_signal.get(signal, 0) + 1
            hits.append(Hit(row, float(values[i])))
            if len(hits) == request.limit:
                break
        return hits

    def _collapse(
        self, rows: Int64Array, values: Float64Array, mask: BoolArray | None
    ) -> tuple[Int64Array, Float64Array]:
        """Each copy's row replaced by its group's earliest allowed copy, one row per group
        with the group's best score."""
        groups = self.copy_group[rows]
        copies = np.flatnonzero(groups >= 0)
        if len(copies) == 0:
            return rows, values
        rows = rows.copy()
        first: dict[int, int] = {}
        for i in copies.tolist():
            group = int(groups[i])
            if group not in first:
                first[group] = self._first_allowed(group, mask)
            rows[i] = first[group]
        # per shown row, the best score: sort by row, then score desc, keep each row's first
        order = np.lexsort((-values, rows))
        rows, values = rows[order], values[order]
        keep = np.concatenate(([True], rows[1:] != rows[:-1]))
        return rows[keep], values[keep]

    def _first_allowed(self, group: int, mask: BoolArray | None) -> int:
        members = self.copy_rows[group]
        if mask is None:
            return int(members[0])
        return int(members[np.argmax(mask[members])])  # a scored row is allowed: one exists

    def render(self, hits: list[Hit]) -> list[bytes]:
        return [
            b"".join(
                (
                    b'{"unit":',
                    self.unit_json[hit.row],
                    b',"citation":',
                    self.citation_json[hit.row],
                    b',"relevance_score":',
                    orjson.dumps(hit.score),
                    b"}",
                )
            )
            for hit in hits
        ]


def rows_by_member(lists: pl.Series) -> dict[str, Int64Array]:
    """For list-valued columns: each value → the rows holding it, ascending (grouped by
    hashing: a Python loop over a million rows' lists took seconds at open)."""
    pairs = pl.DataFrame(
        {"row": pl.int_range(len(lists), dtype=pl.Int64, eager=True), "value": lists}
    ).explode("value")
    pairs = pairs.filter(pl.col("value").is_not_null())
    values, rows, starts = _groups(pairs["value"], pairs["row"])
    return {value: rows[starts[i] : starts[i + 1]] for i, value in enumerate(values)}


def _groups(values: pl.Series, rows: pl.Series) -> tuple[list[Any], Int64Array, Int64Array]:
    """Each distinct value (in no particular order), the rows holding it laid end to end
    (ascending, each once), and where each value's rows start (one more entry: the end)."""
    grouped = (
        pl.DataFrame({"value": values, "row": rows})
        .group_by("value")
        .agg(pl.col("row").unique().sort())
    )
    lengths = grouped["row"].list.len().to_numpy().astype(np.int64)
    flat = grouped["row"].explode().to_numpy().astype(np.int64) if grouped.height else lengths
    starts = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    return grouped["value"].to_list(), flat, starts


def _value_masks(column: pl.Series) -> dict[str, BoolArray]:
    """Each value of a string column → the mask of the rows holding it."""
    return {
        value: (column == value).fill_null(False).to_numpy()
        for value in column.unique().drop_nulls()
    }


def _search_frame(opened: OpenedSnapshot) -> pl.DataFrame:
    """The snapshot's ``search_units`` without the texts the lexical index holds (they are
    read only to mark copies in a snapshot published before copies were marked)."""
    path = opened.table_path("search_units")
    names = pl.read_parquet_schema(path)
    if COPY_OF not in names:
        return pl.read_parquet(path)
    return pl.read_parquet(path, columns=[n for n in names if n not in ("text", "title")])
