"""``unit_embeddings``: each unit is embedded once, by unit id; gone units lose their vector."""

from __future__ import annotations

import numpy as np
import polars as pl

from analytics.schema import UNIT_EMBEDDINGS
from pipelines.defs.search.assets import embed_missing
from pipelines.publishing import SearchInput


def units(*pairs: tuple[str, str]) -> pl.DataFrame:
    return pl.DataFrame(pairs, schema={"unit_id": pl.String, "text": pl.String}, orient="row")


def test_only_new_units_are_embedded_and_gone_ones_dropped() -> None:
    first, embedded = embed_missing(
        units(("u1", "Nvidia ships a new GPU."), ("u2", "The EU passed an AI law.")),
        UNIT_EMBEDDINGS.to_frame(),
        progress=False,
    )
    assert embedded == 2 and first.schema == UNIT_EMBEDDINGS
    vectors = first["vector"].to_numpy()
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # u1 stays (its cached vector is reused as is), u2 is gone, u3 is new
    poisoned = first.with_columns(
        pl.when(pl.col("unit_id") == "u1")
        .then(pl.lit([0.5] * 384, dtype=pl.Array(pl.Float32, 384)))
        .otherwise(pl.col("vector"))
        .alias("vector")
    )
    second, embedded = embed_missing(
        units(("u1", "Nvidia ships a new GPU."), ("u3", "A startup raised $1 billion.")),
        poisoned,
        progress=False,
    )
    assert embedded == 1
    assert second["unit_id"].to_list() == ["u1", "u3"]
    assert second["vector"].to_numpy()[0][0] == 0.5  # not re-embedded
    again, embedded = embed_missing(units(("u1", "x"), ("u3", "y")), second, progress=False)
    assert embedded == 0 and again.equals(second)


def test_search_input_of_an_empty_warehouse_has_no_vectors_of_the_right_width() -> None:
    # a first run over an empty inbox (the inbox sensor starts one) publishes an empty snapshot
    empty = SearchInput.from_embeddings(units(), UNIT_EMBEDDINGS.to_frame())
    assert empty.vectors.shape == (0, 384) and empty.vectors.dtype == np.float32
