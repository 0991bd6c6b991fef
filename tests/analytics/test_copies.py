"""Near-duplicate units: which texts count as the same, and which copy comes first."""

from __future__ import annotations

from datetime import UTC, datetime

import polars as pl
from polars.testing import assert_frame_equal

from analytics.copies import copy_of, copy_order, normalized_text


def day(d: int) -> datetime:
    return datetime(2025, 1, d, tzinfo=UTC)


def test_normalization_folds_case_quotes_whitespace_and_compatibility_forms() -> None:
    texts = pl.Series(
        [
            "OpenAI’s  model\tships",
            ' "openai\'s MODEL ships" ',
            "ＯｐｅｎＡＩ's model ships",  # full-width letters (NFKC)
            "OpenAI's model ships.",  # punctuation other than quotes is a difference
        ]
    )
    normalized = pl.select(normalized_text(pl.lit(texts))).to_series().to_list()
    assert normalized[:3] == ["openais model ships"] * 3
    assert normalized[3] == "openais model ships."


def test_each_unit_points_at_the_earliest_published_copy_ties_by_unit_id() -> None:
    units = pl.DataFrame(
        {
            "unit_id": ["u3", "u1", "u2", "u4", "u5", "u0"],
            "published_at": [day(3), day(2), day(2), day(1), day(5), day(2)],
            "text": ["Same text", "same  TEXT", "Other", "Unique", "“Same text”", "same text"],
        }
    )
    assert copy_of(units).to_list() == ["u0", "u0", "u2", "u4", "u0", "u0"]
    marked = units.with_columns(copy_of(units))
    assert_frame_equal(
        copy_order(marked),
        pl.DataFrame({"row": [5, 1, 0, 4], "copy_of": ["u0"] * 4}),
        check_dtypes=False,
    )


def test_no_units_no_copies() -> None:
    empty = pl.DataFrame(
        {"unit_id": [], "published_at": [], "text": []},
        schema={"unit_id": pl.String, "published_at": pl.Datetime("us", "UTC"), "text": pl.String},
    )
    assert copy_of(empty).to_list() == []
    assert copy_order(empty.with_columns(copy_of(empty))).height == 0
