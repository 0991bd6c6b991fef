"""Benchmark corpora for search at scale: perturbed copies of a real snapshot's units and MiniLM
vectors, the query set, and the filters timed.

Everything is generated at run time from a data dir outside the repository (its current
snapshot's ``search_units`` and the warehouse's ``unit_embeddings``); no corpus text is ever
written into the repository. Copy 0 of a unit is the unit itself; copy c > 0 has its words
perturbed (some dropped, some replaced by words drawn from the whole corpus), its vector
perturbed by Gaussian noise (cosine to the original ≈ ``VECTOR_COSINE``), its date moved back
by up to ``DATE_SHIFT_DAYS`` days (never past the snapshot's ``as_of``) and its own signal id
(``<signal>~c``), so per-signal diversity caps still see signals of a realistic size.
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
from analytics.schema import SEARCH_UNITS
from warehouse.paths import DataDir
from warehouse.search_index import VECTORS_FILE
from warehouse.snapshot import open_current

FloatMatrix = npt.NDArray[np.float32]

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


def load_source(data_dir: Path) -> Source:
    """The current snapshot's search rows with the warehouse's vectors (or, when that table is
    absent, the snapshot's own ``vectors.npy``, which holds the same vectors row by row)."""
    opened = open_current(DataDir(data_dir), verify=False)
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
    return Source(units, vectors, opened.manifest.as_of)


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
