"""Benchmark corpora for search at scale: perturbed copies of a real snapshot's units and MiniLM
vectors, the query set, and the filters timed.

Everything is generated at run time from a data dir outside the repository (its current
snapshot's ``search_units`` and the warehouse's ``unit_embeddings``); no corpus text is ever
written into the repository. Copy 0 of a unit is the unit itself; copy c > 0 has its words
perturbed (some dropped, some replaced by words drawn from the whole corpus), its vector
perturbed by Gaussian noise (cosine to the original ≈ ``VECTOR_COSINE``), its date moved back
by up to ``DATE_SHIFT_DAYS`` days (never past the snapshot's ``as_of``) and its own signal id
(``<signal>~c``), so per-signal diversity caps still see signals of a realistic size.

The source legs (issue 30) search each signal's title and complete text: copy 0 of a signal
keeps its real title, its complete text (the warehouse's ``signals`` table beside the snapshot)
and its units' real spans in it (the snapshot's ``units``); copy c > 0 has its title and text
perturbed word by word as its units are, and each unit's span carried over to where its words
went. A data dir without the warehouse table gives no texts, and each signal's text is then its
units' texts (``build_search_files``' fallback).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import numpy.typing as npt
import polars as pl

from analytics.copies import copy_of
from analytics.embedding import EMBEDDING_DIM
from analytics.schema import SEARCH_UNITS, SIGNALS
from retrieval.index import VECTORS_FILE
from warehouse.paths import DataDir
from warehouse.snapshot import open_current
from warehouse.tables import read_table

FloatMatrix = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]

WORD_DROP = 0.10
WORD_SWAP = 0.15
VECTOR_COSINE = 0.85  # mean cosine between a copy's vector and its original's
DATE_SHIFT_DAYS = 365
QUERY_COUNT = 200
_US_PER_DAY = 86_400 * 1_000_000


@dataclass(frozen=True)
class Source:
    """The real units (``search_units`` columns) and their MiniLM vectors, row-aligned."""

    units: pl.DataFrame
    vectors: FloatMatrix
    as_of: datetime
    # each signal's complete text (``signal_id``, ``text``), None when the data dir lacks it
    texts: pl.DataFrame | None = None
    # per unit row, its (start, end) in its signal's text; (-1, -1) when not known
    spans: IntArray | None = None


@dataclass(frozen=True)
class SourceTexts:
    """The synthetic corpus's whole sources, as ``build_search_files`` takes them."""

    sources: pl.DataFrame  # signal_id, text
    unit_spans: pl.DataFrame  # unit_id, start_char, end_char


def load_source(data_dir: Path) -> Source:
    """The current snapshot's search rows with the warehouse's vectors (or, when that table is
    absent, the snapshot's own ``vectors.npy``, which holds the same vectors row by row), and
    the served signals' complete texts and the units' spans in them when the warehouse holds
    them."""
    data = DataDir(data_dir)
    opened = open_current(data, verify=False)
    if opened is None:
        raise SystemExit(f"{data_dir} has no snapshot")
    units = opened.read_table("search_units")
    table = data_dir / "warehouse" / "unit_embeddings.parquet"
    if table.is_file():
        embeddings = pl.read_parquet(table)
        joined = units.select("unit_id").join(
            embeddings, on="unit_id", how="left", maintain_order="left"
        )
        if joined["vector"].null_count():
            raise SystemExit(f"{joined['vector'].null_count()} units have no vector in {table}")
        vectors = joined["vector"].to_numpy().astype(np.float32, copy=False)
    else:
        vectors = np.load(opened.path / VECTORS_FILE)
    vectors = np.ascontiguousarray(vectors.reshape(-1, EMBEDDING_DIM), dtype=np.float32)
    texts: pl.DataFrame | None = None
    spans: IntArray | None = None
    if (data_dir / "warehouse" / "signals.parquet").is_file():
        served = units["signal_id"].unique().implode()
        texts = (
            read_table(data, "signals", SIGNALS)
            .select("signal_id", "text")
            .filter(pl.col("signal_id").is_in(served))
        )
        missing = units["signal_id"].n_unique() - texts.height
        if missing or texts["text"].null_count():
            raise SystemExit(f"the warehouse lacks the texts of {missing} served signals")
        located = (
            units.select("unit_id", "signal_id")
            .join(
                opened.read_table("units").select("unit_id", "start_char", "end_char"),
                on="unit_id",
                how="left",
                maintain_order="left",
            )
            .join(texts.select("signal_id", length=pl.col("text").str.len_chars()), on="signal_id")
        )
        inside = (
            (pl.col("start_char") >= 0)
            & (pl.col("start_char") < pl.col("end_char"))
            & (pl.col("end_char") <= pl.col("length"))
        ).fill_null(False)
        spans = (
            located.select(
                pl.when(inside).then(pl.col("start_char")).otherwise(-1),
                pl.when(inside).then(pl.col("end_char")).otherwise(-1),
            )
            .to_numpy()
            .astype(np.int64)
        )
    return Source(units, vectors, opened.manifest.as_of, texts, spans)


def perturbed_corpus(
    source: Source, size: int, vectors_out: FloatMatrix, *, seed: int = 0
) -> pl.DataFrame:
    """``size`` rows with the ``SEARCH_UNITS`` schema; fills ``vectors_out`` (``size`` × 384,
    e.g. a memory-mapped ``.npy``) with the matching vectors."""
    rng = np.random.default_rng(seed)
    real = source.units.height
    original = np.arange(size, dtype=np.int64) % real
    copy = np.arange(size, dtype=np.int64) // real
    _perturb_vectors(source.vectors, original, copy, vectors_out, rng)
    base = source.units.select(pl.all().gather(pl.Series(original)))
    texts = _perturb_texts(source.units["text"], original, copy, rng)
    titles = _perturbed_titles(source.units, original, copy, rng)
    shift_us = -rng.integers(0, DATE_SHIFT_DAYS * _US_PER_DAY, size)
    shift_us[copy == 0] = 0
    suffix = pl.Series("copy", copy).cast(pl.String)
    is_copy = pl.Series(copy > 0)
    frame = base.with_columns(
        unit_id=pl.when(is_copy)
        .then(pl.col("unit_id") + "~" + suffix)
        .otherwise(pl.col("unit_id")),
        signal_id=pl.when(is_copy)
        .then(pl.col("signal_id") + "~" + suffix)
        .otherwise(pl.col("signal_id")),
        published_at=pl.col("published_at") + pl.lit(pl.Series(shift_us).cast(pl.Duration("us"))),
        text=texts,
        title=titles,
    )
    # the perturbed texts are new texts: their copies are marked afresh
    return frame.with_columns(copy_of(frame)).select(list(SEARCH_UNITS))


def _perturb_vectors(
    vectors: FloatMatrix,
    original: npt.NDArray[np.int64],
    copy: npt.NDArray[np.int64],
    out: FloatMatrix,
    rng: np.random.Generator,
) -> None:
    # isotropic noise of norm s·√d on a unit vector: cosine ≈ 1 / √(1 + s²·d)
    scale = math.sqrt((1 / VECTOR_COSINE**2 - 1) / EMBEDDING_DIM)
    chunk = 65_536
    for start in range(0, len(original), chunk):
        rows = slice(start, start + chunk)
        block = vectors[original[rows]]
        noisy = block + rng.standard_normal(block.shape, dtype=np.float32) * np.float32(scale)
        noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
        keep = copy[rows] == 0
        noisy[keep] = block[keep]
        out[rows] = noisy


def _perturb_texts(
    texts: pl.Series,
    original: npt.NDArray[np.int64],
    copy: npt.NDArray[np.int64],
    rng: np.random.Generator,
) -> pl.Series:
    words = texts.str.split(" ")
    vocabulary = words.explode().drop_nulls()
    exploded = (
        pl.DataFrame({"row": np.arange(len(original)), "original": original, "copy": copy})
        .join(
            pl.DataFrame({"original": np.arange(texts.len()), "word": words}),
            on="original",
            maintain_order="left",
        )
        .explode("word")
    )
    draw = rng.random(exploded.height)
    replacement = vocabulary.gather(rng.integers(0, vocabulary.len(), exploded.height))
    is_copy = exploded["copy"] > 0
    perturbed = exploded.with_columns(
        word=pl.when(pl.Series(draw < WORD_SWAP) & is_copy)
        .then(replacement)
        .otherwise(pl.col("word")),
        keep=~(pl.Series(draw > 1 - WORD_DROP) & is_copy),
    )
    joined = (
        perturbed.filter("keep")
        .group_by("row", maintain_order=True)
        .agg(pl.col("word").str.join(" "))
        .sort("row")
    )
    if joined.height != len(original):  # every word of a unit dropped: keep its first
        joined = (
            pl.DataFrame({"row": np.arange(len(original))})
            .join(joined, on="row", how="left")
            .with_columns(pl.col("word").fill_null(""))
        )
    return joined["word"].rename("text")


def _perturbed_titles(
    units: pl.DataFrame,
    original: IntArray,
    copy: IntArray,
    rng: np.random.Generator,
) -> pl.Series:
    """Each unit's signal title, perturbed once per signal copy (all its units share it), so
    a copy's title is not its original's and a title names its few signals, as in real data."""
    signal_code = units["signal_id"].rank("dense").cast(pl.Int64).to_numpy() - 1
    signals = int(signal_code.max()) + 1 if len(signal_code) else 0
    title_of = np.empty(signals, dtype=object)
    title_of[signal_code] = units["title"].to_numpy()
    pairs = np.unique(signal_code[original] * (int(copy.max()) + 1) + copy)
    pair_signal, pair_copy = pairs // (int(copy.max()) + 1), pairs % (int(copy.max()) + 1)
    perturbed = _perturb_texts(
        pl.Series(title_of.tolist(), dtype=pl.String), pair_signal, pair_copy, rng
    )
    at = np.searchsorted(pairs, signal_code[original] * (int(copy.max()) + 1) + copy)
    return perturbed.gather(pl.Series(at)).rename("title")


def perturbed_sources(source: Source, frame: pl.DataFrame, *, seed: int = 2) -> SourceTexts | None:
    """The whole sources of ``perturbed_corpus``'s ``frame`` (same ``size``): copy 0 of each
    signal its real text and its units' real spans; copy c > 0 its text with each word dropped
    (``WORD_DROP``) or replaced by a word of the corpus's texts (``WORD_SWAP``), and each unit's
    span moved with its first and last word. None when ``source`` has no texts."""
    if source.texts is None or source.spans is None:
        return None
    rng = np.random.default_rng(seed)
    size, real = frame.height, source.units.height
    original = np.arange(size, dtype=np.int64) % real
    copy = np.arange(size, dtype=np.int64) // real
    signal_ids = source.texts["signal_id"].to_list()
    code_of = {s: i for i, s in enumerate(signal_ids)}
    unit_signal = np.asarray([code_of[s] for s in source.units["signal_id"].to_list()])
    # every text as words split on single spaces: joined again by one space they are the text
    words = source.texts["text"].str.split(" ")
    counts = words.list.len().to_numpy().astype(np.int64)
    first_word = np.concatenate([[0], np.cumsum(counts)[:-1]])
    flat = words.explode()
    lengths = flat.str.len_chars().to_numpy().astype(np.int64)
    word_signal = np.repeat(np.arange(len(signal_ids)), counts)
    step = lengths + 1  # each word's offset in its text: the words and spaces before it
    cumulative = np.cumsum(step) - step
    starts = cumulative - cumulative[first_word][word_signal]
    # each unit's first and last word (global indices)
    spans = source.spans
    known = spans[:, 0] >= 0
    unit_first = np.full(real, -1, dtype=np.int64)
    unit_last = np.full(real, -1, dtype=np.int64)
    ends_of_text = first_word + counts  # one past each text's last word
    for row in np.flatnonzero(known):
        sig = unit_signal[row]
        lo, hi = first_word[sig], ends_of_text[sig]
        text_starts = starts[lo:hi]
        unit_first[row] = lo + np.searchsorted(text_starts, spans[row, 0], side="right") - 1
        unit_last[row] = lo + np.searchsorted(text_starts, spans[row, 1], side="left") - 1
    vocabulary = flat.filter(flat.str.len_chars() > 0)
    vocabulary_lengths = vocabulary.str.len_chars().to_numpy().astype(np.int64)
    out_ids: list[pl.Series] = []
    out_texts: list[pl.Series] = []
    span_start = np.full(size, -1, dtype=np.int64)
    span_end = np.full(size, -1, dtype=np.int64)
    for c in range(int(copy.max()) + 1):
        rows = np.flatnonzero(copy == c)
        present = np.unique(unit_signal[original[rows]])
        suffix = "" if c == 0 else f"~{c}"
        ids = pl.Series([signal_ids[i] + suffix for i in present], dtype=pl.String)
        if c == 0:
            out_ids.append(ids)
            out_texts.append(source.texts["text"].gather(pl.Series(present)))
            span_start[rows], span_end[rows] = spans[original[rows], 0], spans[original[rows], 1]
            continue
        draw = rng.random(len(lengths))
        pick = rng.integers(0, len(vocabulary), len(lengths))
        swap = draw < WORD_SWAP
        keep = ~(draw > 1 - WORD_DROP)
        new_length = np.where(keep, np.where(swap, vocabulary_lengths[pick], lengths), 0)
        new_step = np.where(keep, new_length + 1, 0)
        cumulative = np.cumsum(new_step) - new_step
        new_starts = cumulative - cumulative[first_word][word_signal]
        text_length = np.maximum(
            np.add.reduceat(new_step, first_word) - 1 if len(new_step) else np.zeros(0), 0
        )
        # the texts of the signals present in this copy
        chosen = np.isin(word_signal, present) & keep
        kept_words = pl.Series(np.flatnonzero(chosen))
        text_words = pl.DataFrame(
            {
                "signal": word_signal[chosen],
                "word": pl.select(
                    pl.when(pl.lit(pl.Series(swap[chosen])))
                    .then(pl.lit(vocabulary.gather(pl.Series(pick[chosen]))))
                    .otherwise(pl.lit(flat.gather(kept_words)))
                ).to_series(),
            }
        )
        joined = text_words.group_by("signal", maintain_order=True).agg(
            pl.col("word").str.join(" ")
        )
        text_of = dict(zip(joined["signal"].to_list(), joined["word"].to_list(), strict=True))
        out_ids.append(ids)
        out_texts.append(pl.Series([text_of.get(int(i), "") for i in present], dtype=pl.String))
        # units: start at their first word's new place, end at their last kept word's end
        orig = original[rows]
        has = unit_first[orig] >= 0
        a, b = unit_first[orig[has]], unit_last[orig[has]]
        new_a = new_starts[a]
        new_b = np.where(keep[b], new_starts[b] + new_length[b], new_starts[b] - 1)
        limit = text_length[unit_signal[orig[has]]]
        good = (new_a >= 0) & (new_a < new_b) & (new_b <= limit)
        target = rows[has]
        span_start[target[good]], span_end[target[good]] = new_a[good], new_b[good]
    sources = pl.DataFrame({"signal_id": pl.concat(out_ids), "text": pl.concat(out_texts)})
    unit_spans = pl.DataFrame(
        {"unit_id": frame["unit_id"], "start_char": span_start, "end_char": span_end}
    ).with_columns(
        pl.when(pl.col("start_char") >= 0).then(pl.col("start_char")),
        pl.when(pl.col("end_char") >= 0).then(pl.col("end_char")),
    )
    return SourceTexts(sources, unit_spans)


# -- queries ---------------------------------------------------------------------------------


def query_texts(source: Source, count: int = QUERY_COUNT, *, seed: int = 1) -> list[str]:
    """Short phrases (3–6 consecutive words) cut from random real units: queries whose words
    occur in the corpus, as a user's would."""
    rng = np.random.default_rng(seed)
    texts = source.units["text"].to_list()
    queries: list[str] = []
    while len(queries) < count:
        words = [
            w for w in texts[int(rng.integers(len(texts)))].split() if any(c.isalpha() for c in w)
        ]
        if len(words) < 3:
            continue
        length = int(rng.integers(3, 7))
        start = int(rng.integers(0, max(1, len(words) - length + 1)))
        queries.append(" ".join(words[start : start + length]))
    return queries


def embed_queries(texts: list[str]) -> FloatMatrix:
    from warehouse.embeddings import load_minilm

    return load_minilm()(texts)


# -- filters ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class FilterSpec:
    """One filter combination, in terms every engine can express."""

    name: str
    role: str | None = None
    theme: str | None = None
    entity: str | None = None
    published_from_us: int | None = None  # inclusive
    published_before_us: int | None = None  # exclusive


@dataclass(frozen=True)
class FilterValues:
    role: str
    theme: str
    entity: str
    window_from_us: int
    window_before_us: int
    half_year_from_us: int


def choose_filter_values(source: Source) -> FilterValues:
    """Chosen from the real units so every size uses the same values: role ``claim``; the
    theme nearest to 10 % of units; an entity named by about 5 units (≈ 0.02 %); the 30 days
    that end 60 days before the newest unit; the 180 days up to the newest unit."""
    units = source.units
    themes = units["themes"].explode().drop_nulls().value_counts(sort=True, name="n")
    theme = themes.sort((pl.col("n") - 0.10 * units.height).abs(), "themes")["themes"][0]
    entities = units["entity_ids"].explode().drop_nulls().value_counts(name="n")
    entity = entities.sort((pl.col("n") - 5).abs(), "entity_ids")["entity_ids"][0]
    newest = units["published_at"].max()
    assert isinstance(newest, datetime)
    end = newest - timedelta(days=60)
    start = end - timedelta(days=30)
    half_year = newest - timedelta(days=180)
    return FilterValues("claim", theme, entity, _us(start), _us(end), _us(half_year))


def filter_specs(values: FilterValues) -> list[FilterSpec]:
    since, until, half_year = (
        values.window_from_us,
        values.window_before_us,
        values.half_year_from_us,
    )
    return [
        FilterSpec("none"),
        FilterSpec("role", role=values.role),
        FilterSpec("theme", theme=values.theme),
        FilterSpec("30-day window", published_from_us=since, published_before_us=until),
        FilterSpec("180-day window", published_from_us=half_year),
        FilterSpec("rare entity", entity=values.entity),
        FilterSpec("role + theme", role=values.role, theme=values.theme),
        FilterSpec(
            "role + window", role=values.role, published_from_us=since, published_before_us=until
        ),
        FilterSpec(
            "role + theme + window",
            role=values.role,
            theme=values.theme,
            published_from_us=since,
            published_before_us=until,
        ),
    ]


def _us(moment: datetime) -> int:
    return (moment.astimezone(UTC) - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)


def save_json(path: Path, value: object) -> None:
    path.write_text(json.dumps(value, indent=1, default=_jsonable) + "\n")


def _jsonable(value: object) -> object:
    if isinstance(value, FilterSpec | FilterValues):
        return asdict(value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, np.integer | np.floating):
        return value.item()
    raise TypeError(type(value))
