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
What a search returns is still the unit as served.
"""

from __future__ import annotations

import functools
import math
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
IVF_MIN_UNITS = 50_000
# the manifest's ``rows`` when row i is the i-th unit id in code-point order
ROWS_BY_UNIT_ID = "unit_id"
IVF_NPROBE = 96  # recall@10 vs exact fusion: 0.978 at 100k, 0.981 at 1M (bench/search)
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


def lexical_schema() -> Any:
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field(ROW, stored=False, indexed=False, fast=True)
    builder.add_text_field(TEXT, stored=False, tokenizer_name=TOKENIZER)
    builder.add_text_field(TITLE, stored=False, tokenizer_name=TOKENIZER)
    for name in (ROLE, CONTENT_TYPE, ENTITY, THEME):
        builder.add_text_field(name, stored=False, tokenizer_name="raw", index_option="basic")
    builder.add_integer_field(PUBLISHED, stored=False, indexed=True, fast=True)
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
    ivf_min_units: int = IVF_MIN_UNITS,
) -> dict[str, Any]:
    """Write ``vectors.npy``, ``ivf.faiss`` (large corpora only), the ``lexical/`` index and the
    ``titles/`` index for the rows of ``units`` (columns ``signal_id``, ``title``, ``text``,
    ``role``, ``content_type``, ``published_at``, ``entity_ids``, ``themes``); returns the
    parameters for the manifest, whose ``rows`` is ``"unit_id"`` when the rows come in unit-id
    order (as a publish stores them: a server then neither sorts the ids nor maps them)."""
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
    _write_lexical(folder / LEXICAL_DIR, units)
    params["lexical"] = {
        "engine": "tantivy",
        "tokenizer": TOKENIZER,
        "scoring": "BM25",
        "fields": [TEXT, TITLE],
    }
    params["titles"] = {"signals": _write_titles(folder / TITLES_DIR, units)}
    return params


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


def _write_lexical(path: Path, units: pl.DataFrame) -> None:
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


def open_search_files(folder: Path, params: dict[str, Any], *, units: int) -> SearchFiles:
    """Open what ``build_search_files`` wrote into ``folder``; ``params`` is the manifest's
    ``search`` metadata. Raises ``ValueError`` when the vectors do not match ``units`` rows."""
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
    return SearchFiles(vectors, ivf, tantivy.Index.open(str(folder / LEXICAL_DIR)), titles, params)
