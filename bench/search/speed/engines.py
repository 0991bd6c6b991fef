"""The engines the search benchmark times, behind one small interface: ours (``SearchIndex``
over a published snapshot), a bare loop (tantivy + FAISS + RRF, no service around it, over the
same index files), LanceDB hybrid search (its RRF reranker), and the exact reference (exact
dense leg + the same lexical leg, RRF k = 60).

``prepare(spec)`` turns a filter into the engine's own form once (untimed); ``search(text,
vector, prepared)`` is the timed call and returns the top ``LIMIT`` rows (row = position in
``search_units``, the same in every engine).
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
import tantivy

from bench.search.speed.corpus import FilterSpec, FloatMatrix
from retrieval.engine import (
    MIN_DEPTH,
    RRF_K,
    SHIPPED,
    SearchFilters,
    SearchIndex,
    SearchRequest,
    Variant,
    query_terms,
)
from retrieval.index import (
    ENTITY,
    IVF_FILE,
    LEXICAL_DIR,
    PUBLISHED,
    QUERY_STOP_LANGUAGE,
    ROLE,
    ROW,
    TEXT,
    THEME,
    VECTORS_FILE,
)
from warehouse.snapshot import OpenedSnapshot

LIMIT = 10
API_DIVERSITY_CAP = 2  # the API's default
NO_CAP = LIMIT  # at most LIMIT per signal among LIMIT hits: no cap at all
# Our executor's depth per leg for LIMIT = 10 (max(100, 4·limit·max(1, 3 − cap))); every
# engine fetches this many per leg.
DEPTH = max(MIN_DEPTH, 4 * LIMIT * max(1, 3 - API_DIVERSITY_CAP))
# The retrieval function every engine in the race computes, and the exact reference too:
# unit-text BM25 + dense cosine, RRF k = 60, DEPTH per leg. Our executor as shipped also
# searches the signal's title as a second lexical field (boosted TITLE_WEIGHT) and adds a
# title-match leg; LanceDB and the bare loop cannot compute that function, so in the race our
# executor runs with only these two legs and with its index's ``title_field`` off
# (``text_only``). ``ours-shipped`` times the full function beside it, for its cost only.
FAIR_LEGS = ("lexical", "dense")
# The race's function with the source legs (issue 30) beside it: a unit of a signal whose title,
# or one of whose passages, holds every term of the query is lifted to a floor score. LanceDB
# and the bare loop have no such legs; ``ours-sources`` is measured against an exact reference
# of this function (``exact.json``'s ``cap-sources``), the others as before.
SOURCE_LEGS = (*FAIR_LEGS, "source")


def text_only(index: SearchIndex) -> SearchIndex:
    """``index`` with the title field off: its lexical leg searches the unit text alone."""
    index.title_field = False
    return index


class Engine(Protocol):
    def prepare(self, spec: FilterSpec) -> Any: ...

    def search(self, text: str, vector: FloatMatrix, prepared: Any) -> list[int]: ...


def search_filters(spec: FilterSpec) -> SearchFilters:
    return SearchFilters(
        role=spec.role,
        theme=spec.theme,
        entity_ids=frozenset({spec.entity}) if spec.entity is not None else None,
        published_from_us=spec.published_from_us,
        published_before_us=spec.published_before_us,
    )


# -- ours ------------------------------------------------------------------------------------


class Ours:
    """``SearchIndex.search`` as the API calls it (minus the thread hop). By default the race's
    function (``FAIR_LEGS``, title field off); ``shipped=True``: all three legs and the title
    field, as ``aimi serve`` runs it; ``legs``: the race's function with other legs (e.g.
    ``SOURCE_LEGS``), title field off."""

    def __init__(
        self,
        index: SearchIndex,
        *,
        diversity_cap: int = API_DIVERSITY_CAP,
        shipped: bool = False,
        legs: tuple[str, ...] = FAIR_LEGS,
    ) -> None:
        self.index = index if shipped else text_only(index)
        self.diversity_cap = diversity_cap
        self.shipped = shipped
        self.legs = legs

    def prepare(self, spec: FilterSpec) -> SearchFilters:
        return search_filters(spec)

    def search(self, text: str, vector: FloatMatrix, prepared: Any) -> list[int]:
        request = SearchRequest(
            query_vector=vector,
            query_text=text,
            filters=prepared,
            limit=LIMIT,
            diversity_cap=self.diversity_cap,
        )
        # shipped: the engine's own variant, all four legs
        variant = SHIPPED if self.shipped else Variant(legs=self.legs)
        return [hit.row for hit in self.index.search(request, variant)]


class ExactIndex(SearchIndex):
    """Our executor with the IVF index removed: the dense leg scores every allowed row exactly.
    The race's function: title field off here, and search it with ``legs=FAIR_LEGS``; the same
    executor as ``Ours``, so near-duplicate collapse and the diversity cap apply alike.
    Dense results are memoized by depth until ``forget()`` (call it for every new query or
    filter), so the capped and uncapped reference rankings and the dense-leg reference share
    one scan."""

    def __init__(self, opened: OpenedSnapshot, as_of: datetime) -> None:
        super().__init__(opened, as_of)
        self.ivf = None
        text_only(self)
        self._memo: dict[int, tuple[list[int], list[float]]] = {}

    def forget(self) -> None:
        self._memo.clear()

    def dense_leg(
        self, vector: FloatMatrix, mask: npt.NDArray[np.bool_] | None, depth: int
    ) -> tuple[list[int], list[float]]:
        if depth not in self._memo:
            self._memo[depth] = super().dense_leg(vector, mask, depth)
        return self._memo[depth]


# -- bare loop -------------------------------------------------------------------------------


@dataclass(frozen=True)
class BareFilter:
    spec: FilterSpec
    role_code: int | None


class BareLoop:
    """tantivy + FAISS + RRF in a few lines over the same files ours reads: the filter as
    integer-coded numpy masks, a tantivy boolean query of the same terms as ours (stop words
    dropped) with zero-scoring filter clauses, FAISS IVF with an
    ``IDSelectorBitmap`` for any filter (nprobe scaled by the filter's selectivity, as ours;
    exact numpy only when the corpus has no IVF index), RRF k = 60, no diversity cap, no
    recency."""

    def __init__(
        self,
        folder: Path,
        roles: list[str],
        published_us: npt.NDArray[np.int64],
        themes: list[list[str] | None],
        entity_ids: list[list[str] | None],
        nprobe: int,
    ) -> None:
        import faiss
        import tantivy

        self.lexical = tantivy.Index.open(str(folder / LEXICAL_DIR))
        self.searcher = self.lexical.searcher()
        self.schema = self.lexical.schema
        self.vectors = np.load(folder / VECTORS_FILE)
        self.size = len(self.vectors)
        self.ivf: Any = None
        if (folder / IVF_FILE).is_file():
            self.ivf = faiss.read_index(str(folder / IVF_FILE))
            self.ivf.nprobe = nprobe
        self.nprobe = nprobe
        self.role_names = sorted(set(roles))
        codes = {name: i for i, name in enumerate(self.role_names)}
        self.role_codes = np.asarray([codes[r] for r in roles], dtype=np.uint8)
        self.published_us = published_us
        self.theme_rows = _rows_by_member(themes)
        self.entity_rows = _rows_by_member(entity_ids)

    def prepare(self, spec: FilterSpec) -> BareFilter:
        code = self.role_names.index(spec.role) if spec.role is not None else None
        return BareFilter(spec, code)

    def _mask(self, f: BareFilter) -> npt.NDArray[np.bool_] | None:
        spec = f.spec
        if spec == FilterSpec(spec.name):
            return None
        mask = np.ones(self.size, dtype=bool)
        if f.role_code is not None:
            mask &= self.role_codes == f.role_code
        for value, rows_of in ((spec.theme, self.theme_rows), (spec.entity, self.entity_rows)):
            if value is not None:
                member = np.zeros(self.size, dtype=bool)
                member[rows_of.get(value, np.zeros(0, dtype=np.int64))] = True
                mask &= member
        if spec.published_from_us is not None:
            mask &= self.published_us >= spec.published_from_us
        if spec.published_before_us is not None:
            mask &= self.published_us < spec.published_before_us
        return mask

    def _term(self, field: str, value: str) -> Any:
        import tantivy

        return tantivy.Query.term_query(self.schema, field, value, index_option="basic")

    def search(self, text: str, vector: FloatMatrix, prepared: Any) -> list[int]:
        import tantivy

        f: BareFilter = prepared
        spec = f.spec
        mask = self._mask(f)
        # lexical leg: the query's terms as one disjunction, each filter a zero-scoring clause
        union = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Should, tantivy.Query.term_query(self.schema, TEXT, term))
                for term in query_terms(text)
            ]
        )
        clauses = []
        if spec.role is not None:
            clauses.append(self._term(ROLE, spec.role))
        if spec.theme is not None:
            clauses.append(self._term(THEME, spec.theme))
        if spec.entity is not None:
            clauses.append(self._term(ENTITY, spec.entity))
        if spec.published_from_us is not None:
            clauses.append(
                tantivy.Query.range_query(
                    self.schema,
                    PUBLISHED,
                    tantivy.FieldType.Integer,
                    spec.published_from_us,
                    spec.published_before_us,
                    include_upper=spec.published_before_us is None,
                )
            )
        must = [(tantivy.Occur.Must, union)] + [
            (tantivy.Occur.Must, tantivy.Query.const_score_query(c, 0.0)) for c in clauses
        ]
        hits = self.searcher.search(tantivy.Query.boolean_query(must), DEPTH, count=False).hits
        values = (
            self.searcher.fast_field_values(ROW, [address for _score, address in hits])
            if hits
            else []
        )
        lexical = [row for row in values if isinstance(row, int)]
        dense = self._dense(vector, mask)
        # fusion
        fused: dict[int, float] = {}
        for ranked in (lexical, dense):
            for rank, row in enumerate(ranked, start=1):
                fused[row] = fused.get(row, 0.0) + 1.0 / (RRF_K + rank)
        return sorted(fused, key=lambda row: (-fused[row], row))[:LIMIT]

    def dense(self, vector: FloatMatrix, prepared: Any) -> list[int]:
        return self._dense(vector, self._mask(prepared))

    def _dense(self, vector: FloatMatrix, mask: npt.NDArray[np.bool_] | None) -> list[int]:
        import faiss

        allowed = self.size if mask is None else int(mask.sum())
        if allowed == 0:
            return []
        if self.ivf is None:
            rows = np.arange(self.size) if mask is None else np.flatnonzero(mask)
            scores = self.vectors[rows] @ vector
            take = min(DEPTH, len(rows))
            top = (
                np.argpartition(-scores, take - 1)[:take]
                if take < len(rows)
                else np.arange(len(rows))
            )
            ranked: list[int] = rows[top[np.argsort(-scores[top], kind="stable")]].tolist()
            return ranked
        query = vector.reshape(1, -1)
        if mask is None:
            ids = self.ivf.search(query, DEPTH)[1][0]
        else:
            params = faiss.SearchParametersIVF()
            bitmap = np.packbits(mask, bitorder="little")
            params.sel = faiss.IDSelectorBitmap(self.size, faiss.swig_ptr(bitmap))
            params.nprobe = min(self.ivf.nlist, math.ceil(self.nprobe * self.size / allowed))
            ids = self.ivf.search(query, DEPTH, params=params)[1][0]
        found: list[int] = ids[ids >= 0].tolist()
        return found


def _rows_by_member(lists: list[list[str] | None]) -> dict[str, npt.NDArray[np.int64]]:
    rows: dict[str, list[int]] = {}
    for row, values in enumerate(lists):
        for value in set(values or []):
            rows.setdefault(value, []).append(row)
    return {value: np.asarray(found, dtype=np.int64) for value, found in rows.items()}


# -- LanceDB ---------------------------------------------------------------------------------


def lance_text(text: str) -> str:
    """The words LanceDB's full-text search gets: the query's words without our stop words,
    as ours and the bare loop search them (its index stems them as ours does)."""
    words = re.findall(r"\w+", text)
    return " ".join(w for w in words if _without_stop_words().analyze(w)) or " ".join(words)


@functools.cache
def _without_stop_words() -> Any:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stopword(QUERY_STOP_LANGUAGE))
        .build()
    )


@dataclass(frozen=True)
class LanceConfig:
    """One LanceDB vector index and its query parameters."""

    name: str
    index_type: str | None  # None: no vector index (exact scan)
    index_args: tuple[tuple[str, Any], ...] = ()
    nprobes: int | None = None
    refine_factor: int | None = None
    ef: int | None = None
    # above ``nprobes``: more partitions searched only when too few rows were found (a
    # selective prefilter); 0 = no limit
    maximum_nprobes: int | None = None


LANCE_CONFIGS = {
    c.name: c
    for c in (
        LanceConfig("flat", None),
        LanceConfig("ivf_pq-default", "IVF_PQ"),
        LanceConfig("ivf_pq-np32-rf10", "IVF_PQ", nprobes=32, refine_factor=10),
        LanceConfig("ivf_flat-np24", "IVF_FLAT", nprobes=24),
        LanceConfig("ivf_flat-np8", "IVF_FLAT", nprobes=8),
        LanceConfig("ivf_flat-np12", "IVF_FLAT", nprobes=12),
        LanceConfig("ivf_flat-np48", "IVF_FLAT", nprobes=48),
        LanceConfig("ivf_flat-np96", "IVF_FLAT", nprobes=96),
        LanceConfig("ivf_flat-np200", "IVF_FLAT", nprobes=200),
        LanceConfig("ivf_flat-np400", "IVF_FLAT", nprobes=400),
        LanceConfig("ivf_flat-np48-max0", "IVF_FLAT", nprobes=48, maximum_nprobes=0),
        LanceConfig("ivf_hnsw_sq-ef150", "IVF_HNSW_SQ", ef=150),
        LanceConfig("ivf_hnsw_sq-ef60", "IVF_HNSW_SQ", ef=60),
        LanceConfig("ivf_hnsw_sq-ef100", "IVF_HNSW_SQ", ef=100),
    )
}
LANCE_TABLE = "units"


def lance_dir(config: LanceConfig) -> Path:
    """Where (under a size's folder) the table with this config's vector index lives."""
    if config.index_type is None:
        return Path("lance")
    args = "".join(f"-{k}{v}" for k, v in config.index_args)
    return Path(f"lance-{config.index_type.lower()}{args}")


def lance_where(spec: FilterSpec) -> str | None:
    clauses: list[str] = []
    if spec.role is not None:
        clauses.append(f"role = '{spec.role}'")
    if spec.theme is not None:
        clauses.append(f"array_has_any(themes, ['{spec.theme}'])")
    if spec.entity is not None:
        clauses.append(f"array_has_any(entity_ids, ['{spec.entity}'])")
    if spec.published_from_us is not None:
        clauses.append(f"published_at >= {_lance_timestamp(spec.published_from_us)}")
    if spec.published_before_us is not None:
        clauses.append(f"published_at < {_lance_timestamp(spec.published_before_us)}")
    return " AND ".join(clauses) or None


def _lance_timestamp(us: int) -> str:
    moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=us)
    return f"arrow_cast('{moment:%Y-%m-%dT%H:%M:%S.%f}Z', 'Timestamp(Microsecond, Some(\"UTC\"))')"


class Lance:
    """LanceDB hybrid search: vector + FTS legs each fetching ``DEPTH`` rows under the same
    prefilter, fused by its ``RRFReranker(K=60)``; the first ``LIMIT`` fused rows."""

    def __init__(self, db_dir: Path, config: LanceConfig) -> None:
        import lancedb
        from lancedb.rerankers import RRFReranker

        self.table = lancedb.connect(str(db_dir)).open_table(LANCE_TABLE)
        self.config = config
        self.reranker = RRFReranker(K=RRF_K)

    def prepare(self, spec: FilterSpec) -> str | None:
        return lance_where(spec)

    def _tune(self, query: Any) -> Any:
        c = self.config
        if c.nprobes is not None:
            query = query.nprobes(c.nprobes)
        if c.maximum_nprobes is not None:
            query = query.maximum_nprobes(c.maximum_nprobes)
        if c.refine_factor is not None:
            query = query.refine_factor(c.refine_factor)
        if c.ef is not None:
            query = query.ef(c.ef)
        return query

    def search(self, text: str, vector: FloatMatrix, prepared: Any) -> list[int]:
        query = (
            self.table.search(query_type="hybrid", vector_column_name="vector", fts_columns="text")
            .vector(vector)
            .text(lance_text(text))
        )
        if prepared is not None:
            query = query.where(prepared, prefilter=True)
        query = self._tune(query.rerank(self.reranker).limit(DEPTH).select(["row"]))
        rows: list[int] = query.to_arrow()["row"].to_pylist()
        return rows[:LIMIT]

    def dense(self, vector: FloatMatrix, prepared: Any) -> list[int]:
        """The vector leg alone, as the hybrid query runs it (for its recall)."""
        query = self.table.search(vector, vector_column_name="vector")
        if prepared is not None:
            query = query.where(prepared, prefilter=True)
        query = self._tune(query.limit(DEPTH).select(["row"]))
        rows: list[int] = query.to_arrow()["row"].to_pylist()
        return rows
