"""The story method's variants that were measured and not shipped (docs/quality.md, "Stories"):
complete linkage, entity and term gates, a size-aware attach bar, entity weights by day
frequency and burstiness. The product carries none of them (issue 47): ``BenchParams`` is
``analytics.stories.StoryParams`` plus these fields, and ``cluster`` passes them to
``analytics.stories.cluster_signals`` through its ``StoryVariant`` hook. With every variant
field at its default, ``cluster`` is the shipped method.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields

import numpy as np
import polars as pl

from analytics.embedding import FloatMatrix
from analytics.stories import StoryParams, TermIdf, cluster_signals, jaccard

_PRODUCT = {f.name for f in fields(StoryParams)}


@dataclass(frozen=True)
class BenchParams:
    """The shipped parameters (``StoryParams``, same defaults) and the variants' fields."""

    window_days: int = StoryParams.window_days
    link: float = StoryParams.link
    attach: float = StoryParams.attach
    entity_weight: float = StoryParams.entity_weight
    span_days: int | None = StoryParams.span_days
    # the within-day linkage: "average", or "complete" (every pair of a cluster above the cut)
    linkage: str = "average"
    # a day's cluster joins an open story only when they share at least one linked entity
    attach_needs_entity: bool = False
    # two signals of one day that share no linked entity are similar only when their cosine
    # is at least this (None: no gate); below it, their similarity is 0
    pair_gate: float | None = None
    # the attach bar of an open story rises by this much per doubling of its signal count
    attach_per_doubling: float = 0.0
    # two signals of one day are similar only when their term cosine is at least this
    term_gate: float | None = None
    term_weight: float = StoryParams.term_weight
    term_days: int = StoryParams.term_days
    # a day's cluster joins an open story only when their term cosine is at least this
    attach_term_gate: float | None = None
    attach_term_weight: float = StoryParams.attach_term_weight
    # the entity overlap weighs each entity log(1 + n / df) over the day's signals
    entity_idf: bool = False
    # burstiness: None, "times" (IDF × burst factor) or "only" (the burst factor); the factor
    # is log(1 + df_day / (expected + 1)), expected = the term's document frequency over the
    # ``term_days`` days before, scaled to the day's signal count
    term_burst: str | None = None

    def __post_init__(self) -> None:
        if self.term_burst not in (None, "times", "only"):
            raise ValueError(f"term_burst: None, 'times' or 'only', not {self.term_burst!r}")
        if self.linkage not in ("average", "complete"):
            raise ValueError(f"linkage: 'average' or 'complete', not {self.linkage!r}")

    def product(self) -> StoryParams:
        """The shipped fields."""
        return StoryParams(**{k: v for k, v in asdict(self).items() if k in _PRODUCT})

    def variant(self) -> Variant | None:
        """The hook for the variant fields; None when every one is at its default."""
        return None if self.product_only() else Variant(self)

    def product_only(self) -> bool:
        return all(
            getattr(self, f.name) == f.default for f in fields(self) if f.name not in _PRODUCT
        )


class Variant:
    """``analytics.stories.StoryVariant`` for a ``BenchParams``."""

    def __init__(self, params: BenchParams) -> None:
        self.params = params
        self.linkage = params.linkage

    def uses_terms(self) -> bool:
        return self.params.term_gate is not None

    def attaches_by_terms(self) -> bool:
        return self.params.attach_term_gate is not None

    def term_vectors(self, idf: TermIdf, terms: list[frozenset[str]]) -> list[dict[str, float]]:
        burst = self.params.term_burst
        if burst is None:
            return idf.vectors(terms)
        day_df: dict[str, int] = {}
        for ts in terms:
            for t in ts:
                day_df[t] = day_df.get(t, 0) + 1
        before = idf.n - len(terms)

        def weight(t: str) -> float:
            expected = (idf.df[t] - day_df[t]) * len(terms) / before if before else 0.0
            factor = math.log1p(day_df[t] / (expected + 1.0))
            return factor if burst == "only" else math.log(idf.n / idf.df[t]) * factor

        return idf.vectors(terms, weight)

    def entity_overlap(self, sets: Sequence[frozenset[str]]) -> FloatMatrix:
        if not self.params.entity_idf:
            return jaccard(sets)
        df: dict[str, int] = {}
        for s in sets:
            for key in s:
                df[key] = df.get(key, 0) + 1
        n = np.float32(len(sets))
        # in float32, as the overlap was computed when these variants were measured
        return jaccard(sets, {k: float(np.log1p(n / np.float32(d))) for k, d in df.items()})

    def day_similarity(
        self, similarity: FloatMatrix, cosine: FloatMatrix, overlap: FloatMatrix, terms: FloatMatrix
    ) -> FloatMatrix:
        p = self.params
        if p.term_gate is not None:
            similarity = np.where(terms >= p.term_gate, similarity, 0.0)
        if p.pair_gate is not None:
            similarity = np.where((overlap > 0) | (cosine >= p.pair_gate), similarity, 0.0)
        return similarity

    def attach_bar(self, bar: float, size: int, shared_entities: int) -> float | None:
        p = self.params
        if p.attach_needs_entity and not shared_entities:
            return None
        return bar + p.attach_per_doubling * float(np.log2(max(size, 1)))

    def attach_terms_ok(self, term_score: float) -> bool:
        gate = self.params.attach_term_gate
        return gate is None or term_score >= gate


def cluster(
    signals: pl.DataFrame,
    vectors: FloatMatrix,
    signal_entities: Mapping[str, frozenset[str]],
    params: BenchParams | None = None,
) -> list[int]:
    """``analytics.stories.cluster_signals`` with ``params``' variants."""
    params = params or BenchParams()
    return cluster_signals(signals, vectors, signal_entities, params.product(), params.variant())
