"""Near-duplicate units (docs/design.md §8): units whose normalized text is identical are copies of
one another — a syndicated essay under two outlets, a sentence repeated across signals — and a
result list shows each text once, as the earliest-published signal's unit.

Normalization folds what a reader does not see as a difference: Unicode compatibility forms,
case, every kind of quotation mark and apostrophe (removed: ``OpenAI’s`` and ``OpenAI's`` and
``"OpenAI"`` are the same text) and runs of whitespace.
"""

from __future__ import annotations

import polars as pl

# Straight and typographic quotes, primes and the backtick: removed, not unified, so a copy
# that quotes a phrase and one that does not still agree.
QUOTE_CHARACTERS = "\"'`´‘’‚‛“”„‟‹›«»′″"
_QUOTES = "[" + QUOTE_CHARACTERS + "]"
COPY_OF = "copy_of"


def normalized_text(text: pl.Expr) -> pl.Expr:
    """The text two copies share: NFKC, lower case, no quotes, single spaces, no outer space."""
    return (
        text.str.normalize("NFKC")
        .str.to_lowercase()
        .str.replace_all(_QUOTES, "")
        .str.replace_all(r"\s+", " ")
        .str.strip_chars()
    )


def copy_of(units: pl.DataFrame) -> pl.Series:
    """Per row of ``units`` (columns ``unit_id``, ``published_at``, ``text``): the id of the
    earliest-published unit with the same normalized text — the row's own id when it is the
    first or only one. Ties on the publication time go to the smaller unit id, the order
    ``copy_order`` gives."""
    if units.height == 0:
        return pl.Series(COPY_OF, [], dtype=pl.String)
    keyed = units.select(
        pl.int_range(pl.len()).alias("_row"),
        "unit_id",
        "published_at",
        normalized_text(pl.col("text")).alias("_key"),
    )
    first = (
        keyed.sort("published_at", "unit_id")
        .group_by("_key", maintain_order=True)
        .agg(pl.col("unit_id").first().alias(COPY_OF))
    )
    return keyed.join(first, on="_key", how="left").sort("_row")[COPY_OF]


def copy_order(units: pl.DataFrame) -> pl.DataFrame:
    """The copies only: rows (``row``, their position in ``units``) of every text that more
    than one unit holds, with ``copy_of`` naming the group, each group's rows in the order
    their hit is chosen (published first, then unit id). ``units`` has ``unit_id``,
    ``published_at`` and ``copy_of``."""
    return (
        units.select(pl.int_range(pl.len()).alias("row"), "unit_id", "published_at", COPY_OF)
        .filter(pl.len().over(COPY_OF) > 1)
        .sort(COPY_OF, "published_at", "unit_id")
        .select("row", COPY_OF)
    )
