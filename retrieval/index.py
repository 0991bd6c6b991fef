"""The search indexes a snapshot carries (docs/design.md §8, §10): unit vectors for FAISS and a
tantivy BM25 index, both over the same unit rows, and a small tantivy index of the signals' titles,
written into the snapshot folder before it is sealed.

Row ``i`` of ``search_units`` (the snapshot table) is vector ``i`` of ``vectors.npy`` and the
document whose ``row`` fast field is ``i``. The dense index is chosen by size: exact inner
product over the memory-mapped vectors below ``IVF_MIN_UNITS`` rows, an IVF index above it
(parameters in the manifest's ``search`` metadata). Vectors have unit length, so inner product
is cosine similarity.

What is indexed carries the unit's context (docs/design.md §8): the lexical index has the signal's
title as a second field beside the unit's text, and the title index has one document per signal (its
title, the distinct query terms of the title, and its first unit row), for the title-match leg.

Whole sources are indexed too, so that words no unit carries still find their
signal: the ``sources/`` index has one document per signal (its title and its *complete* text,
a podcast segment's transcript, with the filter fields as the union over its units), the
``passages/`` index cuts each text into overlapping windows of ``PASSAGE_WORDS`` words with
their character offsets, and ``spans.npy`` holds each unit row's character span in its signal's
text. A source that matches is served as its verified unit nearest the best-matching passage
(``retrieval.engine``). A signal is keyed by its first unit row in every index (``SOURCE``).
What a search returns is still the unit as served.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from analytics.embedding import EMBEDDING_DIM

VECTORS_FILE = "vectors.npy"
IVF_FILE = "ivf.faiss"
LEXICAL_DIR = "lexical"
TITLES_DIR = "titles"
SOURCES_DIR = "sources"
PASSAGES_DIR = "passages"
SPANS_FILE = "spans.npy"
IVF_MIN_UNITS = 50_000
# the manifest's ``rows`` when row i is the i-th unit id in code-point order
ROWS_BY_UNIT_ID = "unit_id"
IVF_NPROBE = 96  # recall@10 vs exact fusion: 0.978 at 100k, 0.981 at 1M (bench/search/speed)
TOKENIZER = "en_stem"
# Dropped from queries, never from the index: tantivy's English stop set (Lucene's, the one
# Elasticsearch's `english` analyzer uses). At 1M units they made the lexical leg 4x slower
# (docs/benchmarks.md).
QUERY_STOP_LANGUAGE = "english"
# What the lexical index stores per unit: its text, its signal's title, the filter fields.
ROW, TEXT, TITLE, ROLE, CONTENT_TYPE, PUBLISHED, ENTITY, THEME = (
    "row",
    "text",
    "title",
    "role",
    "content_type",
    "published",
    "entity",
    "theme",
)
# The title index: per signal, its title (indexed), the distinct query terms of the title
# (stored, space-separated) and its first unit row (a fast field).
TERMS = "terms"
# The source and passage indexes: a signal's key (its first unit row, indexed for term-set
# filters, and fast), and a passage's character offsets in its signal's text (fast fields).
SOURCE, START, END = "source", "start", "end"
# Passages: windows of PASSAGE_WORDS words every PASSAGE_STRIDE words, so any run of up to
# PASSAGE_WORDS - PASSAGE_STRIDE + 1 words (a six-word quote, a short phrase) lies whole in one.
PASSAGE_WORDS = 16
PASSAGE_STRIDE = 8
# Words as tantivy's simple tokenizer cuts them: runs of letters and digits.
_WORD = re.compile(r"[^\W_]+")


def lexical_schema() -> Any:
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field(ROW, stored=False, indexed=False, fast=True)
    builder.add_unsigned_field(SOURCE, stored=False, indexed=True, fast=False)
    builder.add_text_field(TEXT, stored=False, tokenizer_name=TOKENIZER)
    builder.add_text_field(TITLE, stored=False, tokenizer_name=TOKENIZER)
    for name in (ROLE, CONTENT_TYPE, ENTITY, THEME):
        builder.add_text_field(name, stored=False, tokenizer_name="raw", index_option="basic")
    builder.add_integer_field(PUBLISHED, stored=False, indexed=True, fast=True)
    return builder.build()


def sources_schema() -> Any:
    """One document per signal: its key, its title and complete text as one field (plain BM25
    over the document: a second title field outweighed the text's words, docs/quality.md), and
    the filter fields of the unit index (role and entity: the union over the signal's units)."""
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field(SOURCE, stored=False, indexed=True, fast=True)
    builder.add_text_field(TEXT, stored=False, tokenizer_name=TOKENIZER)
    for name in (ROLE, CONTENT_TYPE, ENTITY, THEME):
        builder.add_text_field(name, stored=False, tokenizer_name="raw", index_option="basic")
    builder.add_integer_field(PUBLISHED, stored=False, indexed=True, fast=True)
    return builder.build()


def passages_schema() -> Any:
    """One document per passage: its signal's key, its character offsets, its text."""
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field(SOURCE, stored=False, indexed=True, fast=True)
    builder.add_unsigned_field(START, stored=False, indexed=False, fast=True)
    builder.add_unsigned_field(END, stored=False, indexed=False, fast=True)
    builder.add_text_field(TEXT, stored=False, tokenizer_name=TOKENIZER)
    return builder.build()


def titles_schema() -> Any:
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field(ROW, stored=False, indexed=False, fast=True)
    builder.add_text_field(TITLE, stored=False, tokenizer_name=TOKENIZER)
    builder.add_text_field(TERMS, stored=True, tokenizer_name="raw", index_option="basic")
    return builder.build()


def query_analyzer(*, stop_words: bool) -> Any:
    """The index's ``en_stem`` chain for query text (simple tokenizer, tokens over 40 bytes
    dropped, lower case, English Snowball stemmer), with tantivy's English stop words removed
    before stemming when ``stop_words`` is set."""
    import tantivy

    builder = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
    )
    if stop_words:
        builder = builder.filter(tantivy.Filter.stopword(QUERY_STOP_LANGUAGE))
    return builder.filter(tantivy.Filter.stemmer("english")).build()


@functools.cache
def _analyzers() -> tuple[Any, Any]:
    return query_analyzer(stop_words=True), query_analyzer(stop_words=False)


def phrase_terms(text: str) -> list[str]:
    """The index terms of ``text`` in order, stop words kept (the index keeps them): the words of
    a phrase query."""
    return list(_analyzers()[1].analyze(text))


def query_terms(text: str) -> list[str]:
    """The distinct index terms of ``text``, in order, through the index's own analyzer: how a
    query and a title are compared. Stop words are dropped unless nothing else is left ("to be
    or not to be" still searches). No query syntax reaches tantivy, so a user's ``role:claim``
    or ``AND`` is text, not an operator."""
    without_stop_words, with_stop_words = _analyzers()
    terms = without_stop_words.analyze(text) or with_stop_words.analyze(text)
    return list(dict.fromkeys(terms))


def ivf_lists(n: int) -> int:
    """IVF list count for ``n`` vectors: about 4·√n, a power-of-two-free integer in 64…16384."""
    return max(64, min(16_384, int(4 * math.sqrt(n))))


def build_search_files(
    folder: Path,
    units: pl.DataFrame,
    vectors: npt.NDArray[np.float32],
    *,
    sources: pl.DataFrame | None = None,
    unit_spans: pl.DataFrame | None = None,
    ivf_min_units: int = IVF_MIN_UNITS,
) -> dict[str, Any]:
    """Write ``vectors.npy``, ``ivf.faiss`` (large corpora only), the ``lexical/`` index, the
    ``titles/`` index and the whole-source indexes (``sources/``, ``passages/``, ``spans.npy``)
    for the rows of ``units`` (columns ``signal_id``, ``title``, ``text``, ``role``,
    ``content_type``, ``published_at``, ``entity_ids``, ``themes``); returns the parameters for
    the manifest, whose ``rows`` is ``"unit_id"`` when the rows come in unit-id order (as a
    publish stores them: a server then neither sorts the ids nor maps them).

    ``sources`` (``signal_id``, ``text``) is each signal's complete text, and ``unit_spans``
    (``unit_id``, ``start_char``, ``end_char``, as in UNITS) where each unit lies in it; every
    signal of ``units`` must have a text. Without ``sources`` (a synthetic corpus, a copy of a
    snapshot's tables) a signal's text is its units' texts, one a line, in row order."""
    if vectors.shape != (units.height, EMBEDDING_DIM):
        raise ValueError(f"{vectors.shape[0]} vectors for {units.height} units")
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    np.save(folder / VECTORS_FILE, vectors)
    params: dict[str, Any] = {"units": units.height, "dim": EMBEDDING_DIM, "metric": "cosine"}
    if units["unit_id"].is_sorted() and units["unit_id"].n_unique() == units.height:
        params["rows"] = ROWS_BY_UNIT_ID
    if units.height >= ivf_min_units:
        params |= _write_ivf(folder / IVF_FILE, vectors)
    else:
        params |= {"dense": "flat"}
    whole = source_texts(units, sources, unit_spans)
    _write_lexical(folder / LEXICAL_DIR, units, whole.key_of_row)
    params["lexical"] = {
        "engine": "tantivy",
        "tokenizer": TOKENIZER,
        "scoring": "BM25",
        "fields": [TEXT, TITLE],
    }
    params["titles"] = {"signals": _write_titles(folder / TITLES_DIR, units)}
    np.save(folder / SPANS_FILE, whole.spans)
    params["sources"] = {
        "signals": len(whole.keys),
        "text": "source" if sources is not None else "units",
        "passages": _write_sources(folder, units, whole),
        "passage_words": PASSAGE_WORDS,
        "passage_stride": PASSAGE_STRIDE,
        "spans_known": int(np.count_nonzero(whole.spans[:, 0] >= 0)),
    }
    return params


@dataclass(frozen=True)
class SourceTexts:
    """Per signal (in order of first row): its key (first row), title and text; per unit row,
    its signal's key and its character span in that text ((-1, -1) when not known)."""

    keys: list[int]
    titles: list[str]
    texts: list[str]
    key_of_row: npt.NDArray[np.int64]
    spans: npt.NDArray[np.int64]


def source_texts(
    units: pl.DataFrame, sources: pl.DataFrame | None, unit_spans: pl.DataFrame | None = None
) -> SourceTexts:
    """Each signal's text (``sources``, or its units' texts one a line) and each unit's span in
    it: its ``start_char``/``end_char`` in ``unit_spans`` when they lie in the text, else
    unknown."""
    rows = units.select(
        pl.int_range(pl.len(), dtype=pl.Int64).alias("row"), "signal_id", "title", "text"
    )
    groups = rows.group_by("signal_id", maintain_order=True).agg(
        pl.col("row"), pl.col("title").first(), pl.col("text")
    )
    row_lists: list[list[int]] = groups["row"].to_list()
    keys = [row_list[0] for row_list in row_lists]
    key_of_row = np.empty(units.height, dtype=np.int64)
    spans = np.full((units.height, 2), -1, dtype=np.int64)
    texts: list[str] = []
    if sources is None:
        for row_list, unit_texts in zip(row_lists, groups["text"].to_list(), strict=True):
            at = 0
            for row, unit_text in zip(row_list, unit_texts, strict=True):
                spans[row] = (at, at + len(unit_text))
                at += len(unit_text) + 1
            texts.append("\n".join(unit_texts))
    else:
        text_of = dict(sources.select("signal_id", "text").iter_rows())
        missing = [s for s in groups["signal_id"] if text_of.get(s) is None]
        if missing:
            raise ValueError(f"{len(missing)} signals have no source text, e.g. {missing[0]}")
        texts = [text_of[s] for s in groups["signal_id"]]
        if unit_spans is not None:
            length = {s: len(text_of[s]) for s in groups["signal_id"]}
            located = units.select("unit_id", "signal_id").join(
                unit_spans.select("unit_id", "start_char", "end_char"),
                on="unit_id",
                how="left",
                maintain_order="left",
            )
            for row, (_unit_id, signal_id, start, end) in enumerate(located.iter_rows()):
                if start is not None and end is not None and 0 <= start < end <= length[signal_id]:
                    spans[row] = (start, end)
    for key, row_list in zip(keys, row_lists, strict=True):
        key_of_row[row_list] = key
    return SourceTexts(keys, groups["title"].to_list(), texts, key_of_row, spans)


def passages(text: str) -> list[tuple[int, int]]:
    """The character spans of ``text``'s passages: windows of ``PASSAGE_WORDS`` words starting
    every ``PASSAGE_STRIDE`` words, the last one ending at the last word; none without words."""
    words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    spans = []
    for first in range(0, len(words), PASSAGE_STRIDE):
        last = min(first + PASSAGE_WORDS, len(words)) - 1
        spans.append((words[first][0], words[last][1]))
        if last == len(words) - 1:
            break
    return spans


def _write_sources(folder: Path, units: pl.DataFrame, whole: SourceTexts) -> int:
    """The ``sources/`` index (a document per signal) and the ``passages/`` index; returns the
    number of passages."""
    import tantivy

    facts = (
        units.select(
            pl.col("signal_id"),
            pl.col("role"),
            pl.col("content_type"),
            pl.col("published_at").dt.epoch("us").alias("published"),
            pl.col("entity_ids"),
            pl.col("themes"),
        )
        .group_by("signal_id", maintain_order=True)
        .agg(
            pl.col("role").unique().sort(),
            pl.col("content_type").first(),
            pl.col("published").first(),
            pl.col("entity_ids")
            .list.explode(keep_nulls=False, empty_as_null=False)
            .drop_nulls()
            .unique()
            .sort(),
            pl.col("themes").first(),
        )
    )
    (folder / SOURCES_DIR).mkdir()
    index = tantivy.Index(sources_schema(), path=str(folder / SOURCES_DIR), reuse=False)
    writer = index.writer(heap_size=128_000_000, num_threads=1)
    (folder / PASSAGES_DIR).mkdir()
    passage_index = tantivy.Index(passages_schema(), path=str(folder / PASSAGES_DIR), reuse=False)
    passage_writer = passage_index.writer(heap_size=128_000_000, num_threads=1)
    count = 0
    for key, title, text, (_signal, roles, content_type, published, entity_ids, themes) in zip(
        whole.keys, whole.titles, whole.texts, facts.iter_rows(), strict=True
    ):
        doc = tantivy.Document()
        doc.add_unsigned(SOURCE, key)
        doc.add_text(TEXT, f"{title}\n{text}")
        for role in roles:
            doc.add_text(ROLE, role)
        doc.add_text(CONTENT_TYPE, content_type)
        doc.add_integer(PUBLISHED, int(published))
        for entity_id in entity_ids:
            doc.add_text(ENTITY, entity_id)
        for theme in themes or []:
            doc.add_text(THEME, theme)
        writer.add_document(doc)
        for start, end in passages(text):
            passage = tantivy.Document()
            passage.add_unsigned(SOURCE, key)
            passage.add_unsigned(START, start)
            passage.add_unsigned(END, end)
            passage.add_text(TEXT, text[start:end])
            passage_writer.add_document(passage)
            count += 1
    for each in (writer, passage_writer):
        each.commit()
        each.wait_merging_threads()
    return count


def _write_ivf(path: Path, vectors: npt.NDArray[np.float32]) -> dict[str, Any]:
    import faiss

    n = vectors.shape[0]
    nlist = ivf_lists(n)
    quantizer = faiss.IndexFlatIP(EMBEDDING_DIM)
    index = faiss.IndexIVFFlat(quantizer, EMBEDDING_DIM, nlist, faiss.METRIC_INNER_PRODUCT)
    # k-means on a sample is as good as on everything for this purpose and far cheaper
    sample_size = min(n, 64 * nlist)
    sample = vectors[np.random.default_rng(0).choice(n, size=sample_size, replace=False)]
    index.train(sample)
    index.add(vectors)
    faiss.write_index(index, str(path))
    return {"dense": "ivf_flat", "nlist": nlist, "nprobe": IVF_NPROBE, "trained_on": sample_size}


def _write_lexical(path: Path, units: pl.DataFrame, key_of_row: npt.NDArray[np.int64]) -> None:
    import tantivy

    path.mkdir()
    index = tantivy.Index(lexical_schema(), path=str(path), reuse=False)
    writer = index.writer(heap_size=256_000_000, num_threads=1)
    published = units["published_at"].dt.epoch("us").to_list()
    for row, (text, title, role, content_type, entity_ids, themes) in enumerate(
        units.select("text", "title", "role", "content_type", "entity_ids", "themes").iter_rows()
    ):
        doc = tantivy.Document()
        doc.add_unsigned(ROW, row)
        doc.add_unsigned(SOURCE, int(key_of_row[row]))
        doc.add_text(TEXT, text)
        doc.add_text(TITLE, title)
        doc.add_text(ROLE, role)
        doc.add_text(CONTENT_TYPE, content_type)
        doc.add_integer(PUBLISHED, int(published[row]))
        for entity_id in entity_ids or []:
            doc.add_text(ENTITY, entity_id)
        for theme in themes or []:
            doc.add_text(THEME, theme)
        writer.add_document(doc)
    writer.commit()
    writer.wait_merging_threads()


def _write_titles(path: Path, units: pl.DataFrame) -> int:
    """One document per signal: its title and title terms, keyed by its first unit row."""
    import tantivy

    path.mkdir()
    index = tantivy.Index(titles_schema(), path=str(path), reuse=False)
    writer = index.writer(heap_size=64_000_000, num_threads=1)
    firsts = (
        units.select(pl.int_range(pl.len()).alias("row"), "signal_id", "title")
        .unique("signal_id", keep="first", maintain_order=True)
        .iter_rows()
    )
    signals = 0
    for row, _signal_id, title in firsts:
        doc = tantivy.Document()
        doc.add_unsigned(ROW, row)
        doc.add_text(TITLE, title)
        doc.add_text(TERMS, " ".join(query_terms(title)))
        writer.add_document(doc)
        signals += 1
    writer.commit()
    writer.wait_merging_threads()
    return signals


@dataclass(frozen=True)
class SearchFiles:
    """A snapshot's search indexes, opened: the vectors (memory-mapped, row ``i`` = unit row
    ``i``), the IVF index when the snapshot has one, the tantivy index, and the title index
    (None in a snapshot published before titles were indexed)."""

    vectors: npt.NDArray[np.float32]
    ivf: Any
    lexical: Any
    titles: Any
    params: dict[str, Any]
    sources: Any
    passages: Any
    spans: npt.NDArray[np.int64]


def open_search_files(folder: Path, params: dict[str, Any], *, units: int) -> SearchFiles:
    """Open what ``build_search_files`` wrote into ``folder``; ``params`` is the manifest's
    ``search`` metadata. Raises ``ValueError`` when the vectors do not match ``units`` rows, and
    when the snapshot has no whole-source indexes (published by an older build: it must be
    rebuilt)."""
    import faiss
    import tantivy

    vectors = np.load(folder / VECTORS_FILE, mmap_mode="r")
    if vectors.shape[0] != units:
        raise ValueError(f"{vectors.shape[0]} vectors for {units} units")
    ivf: Any = None
    if (folder / IVF_FILE).is_file():
        # read into memory: measured 5–10x faster per search than FAISS's mmap flag, and the
        # mapped pages end up resident after a few queries anyway (docs/benchmarks.md)
        ivf = faiss.read_index(str(folder / IVF_FILE))
        ivf.nprobe = int(params.get("nprobe", IVF_NPROBE))
    titles = None
    if (folder / TITLES_DIR).is_dir():
        titles = tantivy.Index.open(str(folder / TITLES_DIR))
    if "sources" not in params or not (folder / SOURCES_DIR).is_dir():
        raise ValueError(
            "it has no index of whole sources (it was published before search indexed each "
            "signal's complete text); rebuild it: `aimi build` publishes a new snapshot"
        )
    spans = np.load(folder / SPANS_FILE)
    if spans.shape != (units, 2):
        raise ValueError(f"{spans.shape[0]} unit spans for {units} units")
    return SearchFiles(
        vectors,
        ivf,
        tantivy.Index.open(str(folder / LEXICAL_DIR)),
        titles,
        params,
        tantivy.Index.open(str(folder / SOURCES_DIR)),
        tantivy.Index.open(str(folder / PASSAGES_DIR)),
        spans,
    )
