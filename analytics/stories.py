"""Stories (docs/design.md §7): signals about the same event or development, grouped within a
rolling window of days, each story with a stable id, a title, first and last seen, its signals,
entities and themes, and its independent sources.

The method, chosen by the numbers in docs/quality.md ("Stories"):

1. A signal's vector is the mean of its units' MiniLM vectors (the build embedded them already),
   unit length; its terms are the words, names, versions and amounts of its title and text
   (``signal_terms``), each weighed by its IDF over the signals of the day clustered and the
   ``term_days`` days before it (``_TermIdf``), so a name few posts carry weighs much and a word
   every post carries nothing. Two signals' similarity is their cosine plus ``entity_weight``
   times the Jaccard overlap of the entities they link plus ``term_weight`` times the cosine
   of their IDF-weighted term vectors: what makes two posts one event is that they name the
   same specific thing.
2. Each UTC day's signals are clustered by average linkage, cut at ``link``.
3. Days are taken in order; a day's cluster joins the open story (one whose last signal is at
   most ``window_days`` days old and whose first is at most ``span_days`` days old) whose
   centroid it is most similar to (cosine + entity bonus + ``attach_term_weight`` times the
   cosine of their summed term vectors), when that is at least ``attach``; otherwise it starts
   a story. A story therefore grows across days and publishes, but a busy subject cannot hold
   one story open for weeks; an earlier day's stories never depend on a later day's signals
   (the IDF looks back only).

The other fields of ``StoryParams`` (complete linkage, entity and term gates, a size-aware
attach bar, entity weights by day frequency) are variants that were measured and not chosen
(docs/quality.md); their defaults leave the method as described.

Ids: a story is named after its earliest signal (``story_id_for``); ``carry_ids`` then gives each
story the id of the previous snapshot's story it shares most signals with, so a story keeps its
id as it grows, and records the previous ids it absorbed (a merge) or was cut from (a split).

Input only: signals' time, title, text-derived vectors, entities, themes, domains, authors and
content hashes. Publisher annotations of a corpus (AINews ``issue``/``section``, which ingest
keeps in ``sources.extra``) are never read: they are labels for evaluation only.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import re
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Protocol

import numpy as np
import orjson
import polars as pl

from analytics.copies import normalized_text
from analytics.embedding import EMBEDDING_DIM, FloatMatrix
from analytics.records import iso_utc
from analytics.render import CENTRAL_ROLES, served_signals
from analytics.roundups import RoundupParams, item_vectors, roundup_items
from analytics.schema import SERVED_STORIES, STORIES, STORY_SIGNALS

SIGNAL_ID = "signal_id"
STORY_ID = "story_id"
STORY_PREFIX = "sty_"


@dataclass(frozen=True)
class StoryParams:
    """The method's parameters (docs/quality.md, "Stories", "Against hand-judged events" and
    "Stories that name the same thing": chosen on AINews 2024, checked on 2025)."""

    # a story stays open for new signals this many days after its last one
    window_days: int = 3
    # average-linkage cut within one day, on cosine + entity bonus + term bonus
    link: float = 0.6
    # a day's cluster joins an open story when its centroid similarity is at least this
    attach: float = 0.9
    # weight of the Jaccard overlap of linked entities, added to the cosine
    entity_weight: float = 0.3
    # a story takes no signal published more than this many UTC days after its first day
    # (None: no cap), so a busy subject cannot hold one story open for weeks
    span_days: int | None = 4
    # weight of the IDF-weighted cosine of two signals' title + text terms (``signal_terms``,
    # ``TermIdf``: IDF over the signals of the day clustered and the ``term_days`` days before
    # it, so a day never depends on a later one), added to a day's similarity
    term_weight: float = 1.0
    # the days before the day clustered that the IDF is counted over (with that day)
    term_days: int = 90
    # weight of the cosine of a day's cluster's and an open story's summed term vectors, added
    # to the attach score
    attach_term_weight: float = 0.5


class StoryVariant(Protocol):
    """A change to the method that a benchmark measures (bench/stories/variants.py) and the
    product never makes: ``cluster_signals`` asks it at each step it may change. The product
    passes none."""

    linkage: str  # the within-day scipy linkage method ("average" when shipped)

    def uses_terms(self) -> bool:
        """Whether the variant reads term vectors even when the weights are 0."""

    def attaches_by_terms(self) -> bool:
        """Whether the variant scores the attach term cosine even when its weight is 0."""

    def term_vectors(self, idf: TermIdf, terms: list[frozenset[str]]) -> list[dict[str, float]]:
        """A day's term vectors (shipped: ``idf.vectors(terms)``)."""

    def entity_overlap(self, sets: Sequence[frozenset[str]]) -> FloatMatrix:
        """A day's pairwise entity overlap (shipped: ``jaccard(sets)``)."""

    def day_similarity(
        self, similarity: FloatMatrix, cosine: FloatMatrix, overlap: FloatMatrix, terms: FloatMatrix
    ) -> FloatMatrix:
        """A day's similarity from the shipped one and its parts (``terms``: the term cosine,
        zeros when terms are not read)."""

    def attach_bar(self, bar: float, size: int, shared_entities: int) -> float | None:
        """The attach bar of an open story of ``size`` signals sharing ``shared_entities``
        entities with the cluster (None: it may not attach)."""

    def attach_terms_ok(self, term_score: float) -> bool:
        """Whether a cluster with this term cosine to the story may attach to it."""


def signal_vectors(
    signal_ids: Sequence[str], unit_signal_ids: Sequence[str], unit_vectors: FloatMatrix
) -> FloatMatrix:
    """Per signal of ``signal_ids``, the unit-length mean of its units' vectors (row i of
    ``unit_vectors`` belongs to ``unit_signal_ids[i]``); zeros for a signal without units."""
    index = {sid: i for i, sid in enumerate(signal_ids)}
    out = np.zeros((len(signal_ids), EMBEDDING_DIM), dtype=np.float32)
    rows = np.fromiter((index.get(s, -1) for s in unit_signal_ids), dtype=np.int64)
    keep = rows >= 0
    np.add.at(out, rows[keep], unit_vectors[keep])
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.divide(out, norms, out=out, where=norms > 0)
    return out


def jaccard(
    sets: Sequence[frozenset[str]], weights: Mapping[str, float] | None = None
) -> FloatMatrix:
    """Pairwise Jaccard overlap of ``sets`` (0 where either is empty); ``weights`` (a function
    of the vocabulary, ``jaccard_weights``) weigh each key, 1 for all when None."""
    n = len(sets)
    vocabulary: dict[str, int] = {}
    cells = [
        (row, vocabulary.setdefault(key, len(vocabulary)))
        for row, s in enumerate(sets)
        for key in s
    ]
    if not cells:
        return np.zeros((n, n), dtype=np.float32)
    incidence = np.zeros((n, len(vocabulary)), dtype=np.float32)
    for row, col in cells:
        incidence[row, col] = 1.0
    w = (
        np.asarray([weights[k] for k in vocabulary], dtype=np.float32)
        if weights is not None
        else np.ones(len(vocabulary), dtype=np.float32)
    )
    shared = (incidence * w) @ incidence.T
    sizes = incidence @ w
    union = sizes[:, None] + sizes[None, :] - shared
    out: FloatMatrix = np.divide(shared, union, out=np.zeros_like(shared), where=union > 0)
    return out


# a term: a run of letters, digits and the marks that name versions, sizes and amounts
# ("gpt-4o", "2.5", "$6.6b", "70b", "40%"); a bare integer (a count, a score, a year) is no term
_TERM = re.compile(r"[$]?[a-z0-9](?:[a-z0-9.%+_-]*[a-z0-9%])?")
_INTEGER = re.compile(r"\d+")


def signal_terms(text: str) -> frozenset[str]:
    """The distinct terms of ``text`` (lower case; bare integers and single characters
    dropped)."""
    return frozenset(
        t for t in _TERM.findall(text.lower()) if len(t) > 1 and not _INTEGER.fullmatch(t)
    )


class TermIdf:
    """Document frequencies of terms over the signals of a trailing window of days: the day
    added last and the ``days`` days before it."""

    def __init__(self, days: int) -> None:
        self.days = days
        self.df: dict[str, int] = {}
        self.n = 0
        self.added: deque[tuple[date, list[frozenset[str]]]] = deque()

    def add_day(self, day: date, terms: list[frozenset[str]]) -> None:
        """Count ``day``'s signals and forget those older than the window."""
        self.added.append((day, terms))
        for t in itertools.chain.from_iterable(terms):
            self.df[t] = self.df.get(t, 0) + 1
        self.n += len(terms)
        while (day - self.added[0][0]).days > self.days:
            _, old = self.added.popleft()
            for t in itertools.chain.from_iterable(old):
                self.df[t] -= 1
                if not self.df[t]:
                    del self.df[t]
            self.n -= len(old)

    def vectors(
        self, terms: list[frozenset[str]], weight: Callable[[str], float] | None = None
    ) -> list[dict[str, float]]:
        """Unit-length IDF-weighted binary vectors of ``terms`` (log(n / df)), or weighted by
        ``weight`` (a benchmark's variant) instead."""
        out = []
        for ts in terms:
            # in sorted order: the sums below then do not depend on the process's hash seed
            if weight is None:  # the shipped path, kept a plain comprehension (it is hot)
                w = {t: math.log(self.n / self.df[t]) for t in sorted(ts) if t in self.df}
            else:
                w = {t: weight(t) for t in sorted(ts) if t in self.df}
            norm = math.sqrt(sum(v * v for v in w.values()))
            out.append({t: v / norm for t, v in w.items() if v > 0} if norm > 0 else {})
        return out


def _term_cosine(vectors: Sequence[Mapping[str, float]]) -> FloatMatrix:
    """Pairwise cosine of sparse unit ``vectors``."""
    from scipy.sparse import csr_matrix

    n = len(vectors)
    vocabulary: dict[str, int] = {}
    columns = [vocabulary.setdefault(t, len(vocabulary)) for v in vectors for t in v]
    weights = [w for v in vectors for w in v.values()]
    pointers = np.cumsum([0, *(len(v) for v in vectors)])
    matrix = csr_matrix(
        (np.asarray(weights, dtype=np.float32), np.asarray(columns, dtype=np.int64), pointers),
        shape=(n, max(len(vocabulary), 1)),
    )
    out: FloatMatrix = np.asarray((matrix @ matrix.T).todense(), dtype=np.float32)
    return out


def sparse_dot(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    """The dot product of two sparse vectors."""
    if len(a) > len(b):
        a, b = b, a
    return sum(w * b.get(t, 0.0) for t, w in a.items())


def average_linkage(similarity: FloatMatrix, cut: float, method: str = "average") -> list[int]:
    """Cluster labels (0..k-1, in order of first member) of average linkage (or ``method``, a
    scipy linkage method) on ``1 - similarity`` cut at distance ``1 - cut``."""
    n = similarity.shape[0]
    if n == 1:
        return [0]
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    distance = np.clip(1.0 - similarity.astype(np.float64), 0.0, None)
    np.fill_diagonal(distance, 0.0)
    tree = linkage(squareform(distance, checks=False), method=method)
    raw = fcluster(tree, t=1.0 - cut, criterion="distance")
    first: dict[int, int] = {}
    return [first.setdefault(int(label), len(first)) for label in raw]


@dataclass
class _Open:
    label: int
    total: FloatMatrix  # sum of member vectors
    entities: set[str]
    first_day: date
    last_day: date
    size: int = 0
    # the sum of its members' term vectors and its squared norm (when attaching by terms)
    terms: dict[str, float] = field(default_factory=dict)
    terms_norm2: float = 0.0


@dataclass
class _Cluster:
    """One day's cluster: its members (rows of the day), summed vector, entities and terms."""

    members: list[int]
    total: FloatMatrix
    entities: set[str]
    terms: dict[str, float]
    norm2: float


class _Clustering:
    """The state ``cluster_signals`` carries from day to day: the open stories, the term IDF and
    the next label."""

    def __init__(self, params: StoryParams, variant: StoryVariant | None) -> None:
        self.params = params
        self.variant = variant
        self.idf = TermIdf(params.term_days)
        self.open: list[_Open] = []
        self.next_label = 0
        by_terms = params.attach_term_weight > 0
        self.by_terms = by_terms or (variant is not None and variant.attaches_by_terms())
        reads = params.term_weight > 0 or self.by_terms
        self.uses_terms = reads or (variant is not None and variant.uses_terms())

    def day_labels(
        self, day: date, block: FloatMatrix, sets: list[frozenset[str]], terms: list[frozenset[str]]
    ) -> tuple[list[int], list[dict[str, float]]]:
        """The day's within-day cluster labels and its term vectors."""
        p, variant = self.params, self.variant
        cosine = block @ block.T
        overlap = variant.entity_overlap(sets) if variant is not None else jaccard(sets)
        similarity = cosine + p.entity_weight * overlap
        term_cosine = np.zeros_like(cosine)
        vectors: list[dict[str, float]] = []
        if self.uses_terms:
            self.idf.add_day(day, terms)
            if variant is not None:
                vectors = variant.term_vectors(self.idf, terms)
            else:
                vectors = self.idf.vectors(terms)
            term_cosine = _term_cosine(vectors)
            similarity = similarity + p.term_weight * term_cosine
        if variant is not None:
            similarity = variant.day_similarity(similarity, cosine, overlap, term_cosine)
        method = variant.linkage if variant is not None else "average"
        return average_linkage(similarity, p.link, method), vectors

    def close_stale(self, day: date) -> None:
        p = self.params
        self.open = [
            s
            for s in self.open
            if (day - s.last_day).days <= p.window_days
            and (p.span_days is None or (day - s.first_day).days <= p.span_days)
        ]

    def best_story(
        self, cluster: _Cluster, stories: list[_Open], centroids: FloatMatrix
    ) -> _Open | None:
        """The open story the cluster attaches to: the highest attach score at or over the bar."""
        p, variant = self.params, self.variant
        best: _Open | None = None
        best_score = p.attach
        centroid = cluster.total / max(float(np.linalg.norm(cluster.total)), 1e-12)
        cosines = centroids @ centroid
        # only stories the entity and term bonuses could lift past the bar are looked at closer
        for k in np.flatnonzero(cosines + p.entity_weight + p.attach_term_weight >= p.attach):
            story = stories[int(k)]
            union = cluster.entities | story.entities
            shared = len(cluster.entities & story.entities)
            bar: float | None = p.attach
            if variant is not None:
                bar = variant.attach_bar(p.attach, story.size, shared)
            if bar is None:
                continue
            score = float(cosines[k]) + p.entity_weight * (shared / len(union) if union else 0.0)
            if self.by_terms:
                # the term cosine is at most 1: a story it cannot lift past the bar (or past
                # the best so far) is not scored
                most = score + p.attach_term_weight * (1 + 1e-6)
                if most < bar or (best is not None and most <= best_score):
                    continue
                term_score = 0.0
                if story.terms and cluster.norm2 > 0:
                    term_score = sparse_dot(cluster.terms, story.terms) / math.sqrt(
                        cluster.norm2 * story.terms_norm2
                    )
                if variant is not None and not variant.attach_terms_ok(term_score):
                    continue
                score += p.attach_term_weight * term_score
            if score >= bar and (best is None or score > best_score):
                best, best_score = story, score
        return best

    def place(self, day: date, cluster: _Cluster, story: _Open | None) -> int:
        """Add the cluster to ``story`` (a new one when None); its label."""
        if story is None:
            zero = np.zeros(EMBEDDING_DIM, dtype=np.float32)
            story = _Open(self.next_label, zero, set(), day, day)
            self.next_label += 1
            self.open.append(story)
        story.total = story.total + cluster.total
        story.entities |= cluster.entities
        if self.by_terms:
            # |s + m|^2 = |s|^2 + 2 s.m + |m|^2
            story.terms_norm2 += 2 * sparse_dot(cluster.terms, story.terms) + cluster.norm2
            for t, w in cluster.terms.items():
                story.terms[t] = story.terms.get(t, 0.0) + w
        story.last_day = day
        story.size += len(cluster.members)
        return story.label

    def day(
        self, day: date, block: FloatMatrix, sets: list[frozenset[str]], terms: list[frozenset[str]]
    ) -> list[int]:
        """Labels of one day's signals, in the day's order."""
        day_labels, term_vectors = self.day_labels(day, block, sets, terms)
        self.close_stale(day)
        # centroids of the open stories, fixed for the day: a day's clusters are placed
        # independently of one another
        stories = list(self.open)
        centroids = np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
        if stories:
            totals = np.stack([s.total for s in stories])
            centroids = totals / np.maximum(np.linalg.norm(totals, axis=1, keepdims=True), 1e-12)
        out = [-1] * len(day_labels)
        for label in range(max(day_labels) + 1):
            members = [i for i, lab in enumerate(day_labels) if lab == label]
            summed: dict[str, float] = {}
            for i in members if self.by_terms else ():
                for t, w in term_vectors[i].items():
                    summed[t] = summed.get(t, 0.0) + w
            cluster = _Cluster(
                members,
                block[members].sum(axis=0),
                set().union(*(sets[i] for i in members)),
                summed,
                sparse_dot(summed, summed),
            )
            story = self.best_story(cluster, stories, centroids) if stories else None
            placed = self.place(day, cluster, story)
            for i in members:
                out[i] = placed
        return out


def _texts(signals: pl.DataFrame, rows: list[int]) -> list[frozenset[str]]:
    """The terms of each row's title + text, in ``rows`` order."""
    text = pl.concat_str(
        [
            pl.col(c).fill_null("") if c in signals.columns else pl.lit("")
            for c in ("title", "text")
        ],
        separator=" ",
    )
    texts = signals.select(text.alias("t"))["t"].to_list()
    return [signal_terms(texts[r]) for r in rows]


def cluster_signals(
    signals: pl.DataFrame,
    vectors: FloatMatrix,
    signal_entities: Mapping[str, frozenset[str]],
    params: StoryParams | None = None,
    variant: StoryVariant | None = None,
) -> list[int]:
    """Story labels (0..k-1) per row of ``signals`` (columns ``signal_id``, ``published_at``,
    optionally ``title`` and ``text``), ``vectors`` row-aligned and unit length. Labels number
    stories in order of their first day, then of their first signal in that day's order
    (published_at, signal_id). ``variant``: a benchmark's change to the method, never the
    product's."""
    state = _Clustering(params or StoryParams(), variant)
    n = signals.height
    labels = [-1] * n
    if n == 0:
        return labels
    order = signals.select(
        pl.int_range(pl.len()).alias("_row"),
        pl.col("published_at").dt.date().alias("_day"),
        "published_at",
        SIGNAL_ID,
    ).sort("_day", "published_at", SIGNAL_ID)
    days = order["_day"].to_list()
    all_rows = order["_row"].to_list()
    all_ids = order[SIGNAL_ID].to_list()
    terms = _texts(signals, all_rows) if state.uses_terms else [frozenset()] * n
    starts = [0, *(i for i in range(1, n) if days[i] != days[i - 1]), n]
    for start, end in itertools.pairwise(starts):
        rows = all_rows[start:end]
        sets = [signal_entities.get(s, frozenset()) for s in all_ids[start:end]]
        found = state.day(days[start], vectors[rows], sets, terms[start:end])
        for row, label in zip(rows, found, strict=True):
            labels[row] = label
    return labels


# an author field is a publisher's name when it is short and reads like a name, not like a
# sentence, markup or link text ("Jane Doe", "_akhaliq", "r/LocalLLaMA"; not "see the thread
# here: …", "**15%** binding", "Score: 279, Comments: 100")
_NAME_CHARS = 60
_NAME_SPACES = 4
_NOT_A_NAME = r"[.!?;:,]\s|https?://|\]\(|\s-\s|[*\"“”]"


def publisher_key(text: bool = True) -> pl.Expr:
    """A signal's publisher, from its ``author``, ``domain`` and (``text``) ``text`` columns:
    the author (trimmed, lower case) when it reads like a name — and, with ``text``, is not a
    plain word or phrase of the signal's own text that the text never names as ``@author`` (an
    aggregator's link text: "discussed", "Source") — else the domain (lower case, ``www.``
    dropped).
    Chapters and segments of one source share both, so they are one publisher; independent
    sources are distinct publishers, here and in ``analytics.corroboration``."""
    author = pl.col("author").fill_null("").str.strip_chars()
    named = (
        author.str.len_chars().is_between(1, _NAME_CHARS)
        & (author.str.count_matches(r"\s+") <= _NAME_SPACES)
        & ~author.str.contains(_NOT_A_NAME)
    )
    if text:
        # only a plain word or phrase can be link text ("Source", "discussed"); a handle
        # ("SakanaAILabs", "_akhaliq") is a name wherever the text mentions it
        plain = author.str.contains(r"^[A-Za-z][a-z]+$") | author.str.contains(r"\s")
        body = pl.col("text").fill_null("").str.to_lowercase()
        lower = author.str.to_lowercase()
        quoted = body.str.contains(lower, literal=True) & ~body.str.contains(
            pl.lit("@") + lower, literal=True
        )
        named = named & ~(plain & quoted)
    domain = pl.col("domain").fill_null("").str.to_lowercase().str.strip_prefix("www.")
    return (
        pl.when(named)
        .then(pl.lit("author:") + author.str.to_lowercase())
        .otherwise(pl.lit("domain:") + domain)
    )


def publisher_name(key: str) -> str:
    """What a reader sees of a publisher key: the author, else the domain."""
    return key.split(":", 1)[1] if ":" in key else key


def story_id_for(first_signal_id: str) -> str:
    """A new story's id: derived from its earliest signal's id (a roundup's item: the item's
    id), so a rebuild names it again."""
    return STORY_PREFIX + hashlib.sha256(first_signal_id.encode()).hexdigest()[:16]


def carry_ids(
    members: pl.DataFrame, previous: pl.DataFrame
) -> tuple[dict[int, str], dict[int, list[str]], dict[int, str]]:
    """Ids for this build's stories. ``members``: (``label``, ``signal_id``, ``first_id``) with
    ``first_id`` the label's earliest signal; ``previous``: the previous snapshot's
    (``signal_id``, ``story_id``).

    Each previous story's id goes to the new story holding most of its signals (ties to the
    smaller label); a new story holding several previous stories' ids keeps the one it shares
    most signals with and lists the others as ``merged_from``; a new story that got no previous
    id although it holds signals of a previous story (that story's id went elsewhere) is a split,
    ``split_from`` that id. Returns (ids, merged_from, split_from) keyed by label."""
    overlap = (
        members.join(previous.select(SIGNAL_ID, STORY_ID), on=SIGNAL_ID, how="inner")
        .group_by("label", STORY_ID)
        .len("shared")
        .sort(["shared", "label", STORY_ID], descending=[True, False, False])
    )
    taken: set[str] = set()
    ids: dict[int, str] = {}
    merged: dict[int, list[str]] = {}
    split: dict[int, str] = {}
    for label, old, _ in overlap.iter_rows():
        if old in taken:
            continue
        if label in ids:
            merged.setdefault(label, []).append(old)
        else:
            ids[label] = old
        taken.add(old)
    for label, old, _ in overlap.iter_rows():
        if label not in ids and label not in split:
            split[label] = old
    used = set(ids.values()) | set(previous[STORY_ID].to_list())
    firsts = members.group_by("label").agg(pl.col("first_id").first()).sort("label")
    for label, first_id in firsts.iter_rows():
        if label in ids:
            continue
        # a previous story's id is never reused for another story (its first signal may have
        # gone to a split-off part, whose derived id would then be that story's)
        candidate, attempt = story_id_for(first_id), 0
        while candidate in used:
            attempt += 1
            candidate = story_id_for(f"{first_id}#{attempt}")
        ids[label] = candidate
        used.add(candidate)
    return ids, {k: sorted(v) for k, v in merged.items()}, split


def entity_sets(signal_entities: pl.DataFrame) -> dict[str, frozenset[str]]:
    """Each signal's distinct entities, from (``signal_id``, ``entity_id``) rows: what the
    clustering's entity overlap reads."""
    return {
        sid: frozenset(ids)
        for sid, ids in signal_entities.group_by(SIGNAL_ID)
        .agg(pl.col("entity_id").unique())
        .iter_rows()
    }


# a title is a heading, not an event's name, once it is used on this many distinct days
GENERIC_DAYS = 3
# terms in more than this share of the story inputs name nothing specific ("model", "new")
COMMON_SHARE = 0.01
# a lead sentence longer than this is cut at a word, with an ellipsis
TITLE_CHARS = 160
_DIGIT = re.compile(r"\d")
_DATE_PREFIX = re.compile(r"^\s*\d{1,2}/\d{1,2}/\d{2,4}\s*:?\s*")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z@\"“(])")


def title_key(title: str) -> str:
    """A title as compared across days: lower case, a leading date ("1/2/2024: ") dropped,
    punctuation folded to spaces."""
    return re.sub(r"[^a-z0-9]+", " ", _DATE_PREFIX.sub("", title.lower())).strip()


def generic_titles(items: pl.DataFrame) -> set[str]:
    """The ``title_key`` of every title used on at least ``GENERIC_DAYS`` distinct UTC days
    ("not much happened today", a recurring section heading): a title shared by many days names
    no one event."""
    keys = items.select(
        pl.col("title").fill_null("").map_elements(title_key, return_dtype=pl.String).alias("k"),
        pl.col("published_at").dt.date().alias("day"),
    ).filter(pl.col("k") != "")
    days = keys.group_by("k").agg(pl.col("day").n_unique().alias("n"))
    return set(days.filter(pl.col("n") >= GENERIC_DAYS)["k"].to_list())


def lead_title(text: str) -> str:
    """A title from a synopsis: its first sentence, cut at a word near ``TITLE_CHARS``."""
    first = _SENTENCE.split(text.strip(), maxsplit=1)[0].strip()
    if len(first) <= TITLE_CHARS:
        return first
    return first[: TITLE_CHARS - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


@dataclass(frozen=True)
class _TitleEvidence:
    """What choosing titles reads, per story input: the terms of its title and of its text with
    the common terms dropped, and whether its title is generic."""

    title_terms: list[frozenset[str]]
    text_terms: list[frozenset[str]]
    generic: list[bool]

    @classmethod
    def of(cls, items: pl.DataFrame) -> _TitleEvidence:
        titles = items["title"].fill_null("").to_list()
        texts = (
            items["text"].fill_null("").to_list() if "text" in items.columns else [""] * len(titles)
        )
        title_terms = [signal_terms(t) for t in titles]
        text_terms = [signal_terms(t) for t in texts]
        df: dict[str, int] = {}
        for ts in text_terms:
            for t in ts:
                df[t] = df.get(t, 0) + 1
        # a name, version or amount ("o1", "gpt-4o", "$6.6b") or a word of four letters or
        # more that few inputs use: short words ("the", "of", "new") name nothing
        common = {
            t
            for t, n in df.items()
            if n > max(COMMON_SHARE * len(texts), 5) or (len(t) < 4 and not _DIGIT.search(t))
        }
        generic = generic_titles(items)
        return cls(
            [ts - common for ts in title_terms],
            [ts - common for ts in text_terms],
            [not t.strip() or title_key(t) in generic for t in titles],
        )


def story_title(
    rows: Sequence[int],
    central: int,
    titles: Sequence[str],
    leads: Sequence[str],
    evidence: _TitleEvidence,
) -> str:
    """A story's title, naming its event: the central input's own title when it names something
    the story's texts name, else the member title naming most of it, else the first sentence of
    the central input's synopsis (``lead``); never a title used on ``GENERIC_DAYS`` days."""
    named = set().union(*(evidence.text_terms[r] for r in rows))

    def names(r: int) -> int:
        return 0 if evidence.generic[r] else len(evidence.title_terms[r] & named)

    if names(central) > 0:
        return titles[central]
    best = max(rows, key=lambda r: (names(r), -r))
    if names(best) > 0:
        return titles[best]
    if leads[central].strip():
        return lead_title(leads[central])
    return titles[central]


def _with_item_columns(items: pl.DataFrame, signal_entities: pl.DataFrame) -> pl.DataFrame:
    """``items`` with the columns a plain signal frame lacks: ``item_id`` (the signal id),
    ``unit_ids`` (none: the whole signal), ``entity_ids`` (the signal's), ``text`` and ``lead``
    (empty)."""
    out = items
    if "item_id" not in out.columns:
        out = out.with_columns(pl.col(SIGNAL_ID).alias("item_id"))
    if "unit_ids" not in out.columns:
        out = out.with_columns(pl.lit([], dtype=pl.List(pl.String)).alias("unit_ids"))
    for column in ("text", "lead"):
        if column not in out.columns:
            out = out.with_columns(pl.lit("").alias(column))
    if "entity_ids" not in out.columns:
        sets = signal_entities.group_by(SIGNAL_ID).agg(
            pl.col("entity_id").unique().sort().alias("entity_ids")
        )
        out = out.join(sets, on=SIGNAL_ID, how="left").with_columns(
            pl.col("entity_ids").fill_null(pl.lit([], dtype=pl.List(pl.String)))
        )
    return out


def _centrals(rows: pl.DataFrame, vectors: FloatMatrix) -> dict[int, int]:
    """The most central input of each story (``rows``: ``label``, ``_row``, in time order):
    nearest its centroid, the earliest on a tie; as positions in ``rows``."""
    label_array = rows["label"].to_numpy()
    row_array = rows["_row"].to_numpy()
    by_story = np.argsort(label_array, kind="stable")  # rows stay in time order per story
    bounds = np.flatnonzero(np.diff(label_array[by_story])) + 1
    central: dict[int, int] = {}
    for positions in np.split(by_story, bounds):
        block = vectors[row_array[positions]]
        total = block.sum(axis=0)
        centroid = total / max(float(np.linalg.norm(total)), 1e-12)
        central[int(label_array[positions[0]])] = int(positions[int(np.argmax(block @ centroid))])
    return central


def _titles(rows: pl.DataFrame, vectors: FloatMatrix) -> pl.DataFrame:
    """Per label, its ``title`` and ``title_signal_id`` (the central input's signal)."""
    central = _centrals(rows, vectors)
    evidence = _TitleEvidence.of(rows)
    titles = rows["title"].fill_null("").to_list()
    leads = rows["lead"].fill_null("").to_list()
    members: dict[int, list[int]] = {}
    for position, label in enumerate(rows["label"].to_list()):
        members.setdefault(label, []).append(position)
    ids = rows[SIGNAL_ID].to_list()
    labels = sorted(central)
    return pl.DataFrame(
        {
            "label": labels,
            "title": [story_title(members[k], central[k], titles, leads, evidence) for k in labels],
            "title_signal_id": [ids[central[k]] for k in labels],
        },
        schema={"label": pl.Int64, "title": pl.String, "title_signal_id": pl.String},
    )


def _aggregates(rows: pl.DataFrame, signal_themes: pl.DataFrame) -> pl.DataFrame:
    """Per label: its signals, counts, times, domains, authors, independent sources, entities,
    themes and parts (the units of a roundup's items in it)."""
    publisher = publisher_key("text" in rows.columns)
    part = pl.col("unit_ids").list.len() > 0
    # a reprint or near-copy of an earlier member adds no publisher
    original = pl.col("copy_key").is_null() | pl.col("copy_key").is_first_distinct().over("label")
    by_label = rows.group_by("label").agg(
        pl.col(SIGNAL_ID).unique(maintain_order=True).alias("signal_ids"),
        pl.col(SIGNAL_ID).n_unique().cast(pl.Int64).alias("signal_count"),
        pl.col("published_at").min().alias("first_seen"),
        pl.col("published_at").max().alias("last_seen"),
        pl.col("domain").drop_nulls().unique().sort().alias("domains"),
        pl.col("author").drop_nulls().unique().sort().alias("authors"),
        publisher.filter(original).n_unique().cast(pl.Int64).alias("independent_sources"),
        pl.col("entity_ids").explode().drop_nulls().unique().sort().alias("entity_ids"),
    )
    parts = (
        rows.filter(part)
        .group_by("label", SIGNAL_ID, maintain_order=True)
        .agg(pl.col("unit_ids").explode())
        .group_by("label", maintain_order=True)
        .agg(pl.struct(SIGNAL_ID, "unit_ids").alias("parts"))
    )
    # a roundup's themes are the whole digest's: a story takes its whole members' themes only
    themes = (
        rows.filter(~part)
        .select("label", SIGNAL_ID)
        .join(signal_themes.select(SIGNAL_ID, "value_chain", "market_force"), on=SIGNAL_ID)
        .group_by("label")
        .agg(
            pl.col("value_chain").explode().drop_nulls().unique().sort(),
            pl.col("market_force").explode().drop_nulls().unique().sort(),
        )
    )
    return by_label.join(parts, on="label", how="left").join(themes, on="label", how="left")


def build_stories(
    signals: pl.DataFrame,
    vectors: FloatMatrix,
    signal_entities: pl.DataFrame,
    signal_themes: pl.DataFrame,
    previous: pl.DataFrame | None = None,
    params: StoryParams | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The stories of ``signals`` and their membership: (``STORIES`` rows, ``STORY_SIGNALS`` rows).

    ``signals``: the story inputs (``story_items``: ``item_id``, ``signal_id``, ``unit_ids``,
    ``published_at``, ``title``, ``text``, ``lead``, ``domain``, ``author``, ``copy_key``,
    ``entity_ids``) or plain served signals (each one item; entities from ``signal_entities``),
    ``vectors`` row-aligned; ``copy_key`` is the same for a reprint and its original.
    ``signal_entities``: (``signal_id``, ``entity_id``); ``signal_themes``: (``signal_id``,
    ``value_chain``, ``market_force``); ``previous``: the last build's ``STORIES`` rows (or its
    whole members' (``signal_id``, ``story_id``)), whose ids carry over (``member_keys``,
    ``carry_ids``).
    """
    if signals.height == 0:
        return pl.DataFrame(schema=STORIES), pl.DataFrame(schema=STORY_SIGNALS)
    items = _with_item_columns(signals, signal_entities)
    entities = {i: frozenset(e) for i, e in items.select("item_id", "entity_ids").iter_rows()}
    labels = cluster_signals(
        items.with_columns(pl.col("item_id").alias(SIGNAL_ID)), vectors, entities, params
    )
    rows = items.with_columns(
        pl.Series("label", labels, dtype=pl.Int64), pl.int_range(pl.len()).alias("_row")
    ).sort("published_at", SIGNAL_ID, "item_id")
    keys = [
        [f"{sid}#{u}" for u in units] if units else [sid]
        for sid, units in rows.select(SIGNAL_ID, "unit_ids").iter_rows()
    ]
    members = (
        rows.select("label", pl.col("item_id").first().over("label").alias("first_id"))
        .with_columns(pl.Series(SIGNAL_ID, keys, dtype=pl.List(pl.String)))
        .explode(SIGNAL_ID)
        .unique(["label", SIGNAL_ID], keep="first", maintain_order=True)
        .select("label", SIGNAL_ID, "first_id")
    )
    ids, merged, split = carry_ids(members, member_keys(previous))
    keyed = pl.DataFrame(
        {
            "label": list(ids),
            STORY_ID: list(ids.values()),
            "merged_from": [merged.get(label, []) for label in ids],
            "split_from": [split.get(label) for label in ids],
        },
        schema={
            "label": pl.Int64,
            STORY_ID: pl.String,
            "merged_from": pl.List(pl.String),
            "split_from": pl.String,
        },
    )
    empty_list = pl.lit([], dtype=pl.List(pl.String))
    out = (
        keyed.join(_aggregates(rows, signal_themes), on="label")
        .join(_titles(rows, vectors), on="label")
        .with_columns(
            pl.col("value_chain").fill_null(empty_list),
            pl.col("market_force").fill_null(empty_list),
            pl.col("parts").fill_null(pl.lit([], dtype=STORIES["parts"])),
        )
        .select(STORIES.names())
        .cast(STORIES)
    )
    stories = out.sort(["last_seen", STORY_ID], descending=[True, False])
    membership = (
        stories.select(STORY_ID, pl.col("signal_ids").alias(SIGNAL_ID))
        .explode(SIGNAL_ID)
        .select(SIGNAL_ID, STORY_ID)
        .sort(SIGNAL_ID, STORY_ID)
    )
    return stories, membership


def member_keys(previous: pl.DataFrame | None) -> pl.DataFrame:
    """The (``signal_id``: member key, ``story_id``) rows ids are carried by (``carry_ids``),
    from a previous build's ``STORIES`` rows or plain (``signal_id``, ``story_id``) rows of whole
    members: a whole member's key is its signal id; a roundup's part has one key per unit,
    ``<signal_id>#<unit_id>``, so each item carries its own story's id."""
    if previous is None:
        return pl.DataFrame(schema=STORY_SIGNALS)
    if "signal_ids" not in previous.columns:
        return previous.select(SIGNAL_ID, STORY_ID)
    whole = previous.select(STORY_ID, pl.col("signal_ids").alias(SIGNAL_ID)).explode(SIGNAL_ID)
    parts = (
        previous.select(STORY_ID, "parts")
        .explode("parts")
        .drop_nulls("parts")
        .select(STORY_ID, pl.col("parts").struct.unnest())
    )
    keyed = parts.explode("unit_ids").select(
        (pl.col(SIGNAL_ID) + "#" + pl.col("unit_ids")).alias(SIGNAL_ID), STORY_ID
    )
    whole = whole.join(parts.select(STORY_ID, SIGNAL_ID), on=[STORY_ID, SIGNAL_ID], how="anti")
    return pl.concat([whole.select(SIGNAL_ID, STORY_ID), keyed]).drop_nulls()


def signal_story(stories: pl.DataFrame) -> dict[str, str]:
    """Each signal's story, for its card: the story it is a whole member of, else (a roundup,
    in several stories by its items) the story holding most of its units, the first id on a
    tie."""
    whole = stories.select(STORY_ID, pl.col("signal_ids").alias(SIGNAL_ID)).explode(SIGNAL_ID)
    parts = (
        stories.select(STORY_ID, "parts")
        .explode("parts")
        .drop_nulls("parts")
        .select(
            STORY_ID,
            pl.col("parts").struct.field(SIGNAL_ID).alias(SIGNAL_ID),
            pl.col("parts").struct.field("unit_ids").list.len().alias("units"),
        )
    )
    ranked = (
        whole.join(parts, on=[STORY_ID, SIGNAL_ID], how="left")
        .with_columns(pl.col("units").is_not_null().alias("is_part"))
        .sort([SIGNAL_ID, "is_part", "units", STORY_ID], descending=[False, False, True, False])
        .unique(SIGNAL_ID, keep="first", maintain_order=True)
    )
    return dict(ranked.select(SIGNAL_ID, STORY_ID).iter_rows())


def story_inputs(
    signals: pl.DataFrame, units: pl.DataFrame, unit_embeddings: pl.DataFrame, as_of: datetime
) -> tuple[pl.DataFrame, FloatMatrix]:
    """The signals stories are made of and their vectors: the served signals (a verified central
    statement; analytics count exactly these) published up to ``as_of``, with ``copy_key`` (the
    normalized text of the central statement: a reprint's is its original's, as
    ``analytics.copies`` groups units) and ``lead`` (that statement's text), and the unit-length
    mean of their units' vectors."""
    served = served_signals(signals, units).filter(pl.col("published_at") <= as_of)
    central = (
        units.filter(pl.col("role").is_in(CENTRAL_ROLES))
        .sort("signal_id", "position")
        .group_by("signal_id", maintain_order=True)
        .agg(
            normalized_text(pl.col("text")).first().alias("copy_key"),
            pl.col("text").first().alias("lead"),
        )
    )
    served = served.join(central, on=SIGNAL_ID, how="left").sort("published_at", SIGNAL_ID)
    embedded = units.select("unit_id", SIGNAL_ID).join(
        unit_embeddings.select("unit_id", "vector"), on="unit_id", how="inner"
    )
    vectors = signal_vectors(
        served[SIGNAL_ID].to_list(),
        embedded[SIGNAL_ID].to_list(),
        embedded["vector"].to_numpy().astype(np.float32).reshape(-1, EMBEDDING_DIM),
    )
    return served, vectors


def story_items(
    served: pl.DataFrame,
    vectors: FloatMatrix,
    units: pl.DataFrame,
    unit_embeddings: pl.DataFrame,
    unit_entities: pl.DataFrame,
    signal_entities: pl.DataFrame,
    params: RoundupParams | None = None,
) -> tuple[pl.DataFrame, FloatMatrix]:
    """What stories are built from (``build_stories``), row-aligned with their vectors: each
    served signal (``story_inputs``) as one item, except a roundup (``analytics.roundups``),
    which is its items: ``<signal_id>#<k>``, its units, no title, its units' text (``lead``:
    the first unit's), no ``copy_key``, its units' entities."""
    unit_vectors = dict(
        zip(
            unit_embeddings["unit_id"].to_list(),
            unit_embeddings["vector"].to_numpy().astype(np.float32).reshape(-1, EMBEDDING_DIM),
            strict=True,
        )
    )
    found = roundup_items(served, units, unit_vectors, unit_entities, params)
    whole = _with_item_columns(served, signal_entities)
    if not found:
        return whole, vectors
    text = dict(units.select("unit_id", "text").iter_rows())
    unit_entity = entity_sets(unit_entities.rename({"unit_id": SIGNAL_ID}))
    parts = pl.DataFrame(
        {
            "item_id": [i.item_id for i in found],
            SIGNAL_ID: [i.signal_id for i in found],
            "unit_ids": [list(i.unit_ids) for i in found],
            "text": [" ".join(text[u] for u in i.unit_ids) for i in found],
            "lead": [text[i.unit_ids[0]] for i in found],
            "entity_ids": [
                sorted(set().union(*(unit_entity.get(u, frozenset()) for u in i.unit_ids)))
                for i in found
            ],
        },
        schema={
            "item_id": pl.String,
            SIGNAL_ID: pl.String,
            "unit_ids": pl.List(pl.String),
            "text": pl.String,
            "lead": pl.String,
            "entity_ids": pl.List(pl.String),
        },
    )
    split = set(parts[SIGNAL_ID].to_list())
    keep = [i for i, s in enumerate(whole[SIGNAL_ID].to_list()) if s not in split]
    shared = whole.drop("item_id", "unit_ids", "text", "lead", "entity_ids", "title", "copy_key")
    parts = parts.join(shared, on=SIGNAL_ID).with_columns(
        pl.lit("").alias("title"), pl.lit(None, dtype=pl.String).alias("copy_key")
    )
    items = pl.concat([whole[keep], parts.select(whole.columns)], how="vertical_relaxed")
    out = np.concatenate([vectors[keep], item_vectors(found, unit_vectors)])
    order = items.with_row_index("_i").sort("published_at", SIGNAL_ID, "item_id")
    return order.drop("_i"), out[order["_i"].to_numpy()]


def story_counts(stories: pl.DataFrame) -> dict[str, int]:
    """Stories per entity id and per theme label (``STORIES`` rows; the labels are unique
    across both axes and never look like an entity id): ``story_count`` on the profiles, so a
    reader can tell many signals about one event from many events."""
    keys = pl.concat(
        [
            stories.select(STORY_ID, pl.col("entity_ids").alias("key")),
            stories.select(STORY_ID, pl.col("value_chain").alias("key")),
            stories.select(STORY_ID, pl.col("market_force").alias("key")),
        ]
    ).explode("key")
    counted = keys.drop_nulls("key").unique().group_by("key").len()
    return dict(zip(counted["key"].to_list(), counted["len"].to_list(), strict=True))


def _story_item(story: Mapping[str, Any], refs: list[dict[str, str]]) -> dict[str, object]:
    """A story's list form (docs/api.md §2.8)."""
    return {
        "story_id": story[STORY_ID],
        "title": story["title"],
        "first_seen": iso_utc(story["first_seen"]),
        "last_seen": iso_utc(story["last_seen"]),
        "signal_count": story["signal_count"],
        "independent_sources": story["independent_sources"],
        "domains": list(story["domains"]),
        "themes": {
            "value_chain": list(story["value_chain"]),
            "market_force": list(story["market_force"]),
        },
        "entities": refs,
    }


def _story_detail(
    story: Mapping[str, Any],
    item: dict[str, object],
    cards: Mapping[str, dict[str, object]],
    unit_text: Mapping[str, str],
) -> dict[str, object]:
    """A story's detail: its list form, its signals' cards (newest first, as the signal list),
    and the optional ``parts`` (a roundup's units that report the story's event), ``merged_from``
    and ``split_from``."""
    detail: dict[str, object] = {
        **item,
        "signals": [cards[s] for s in reversed(story["signal_ids"]) if s in cards],
    }
    parts = [
        {
            "signal_id": part[SIGNAL_ID],
            "units": [
                {"unit_id": u, "text": unit_text[u]} for u in part["unit_ids"] if u in unit_text
            ],
        }
        for part in story["parts"]
    ]
    if parts:
        detail["parts"] = parts
    if story["merged_from"]:
        detail["merged_from"] = list(story["merged_from"])
    if story["split_from"] is not None:
        detail["split_from"] = story["split_from"]
    return detail


def render_stories(
    stories: pl.DataFrame,
    signals: pl.DataFrame,
    entities: pl.DataFrame,
    units: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """The snapshot's story table (``SERVED_STORIES``), newest activity first: per story its
    list form and its detail as served (docs/api.md §2.8). ``signals``: (``signal_id``,
    ``title``, ``url``, ``published_at``, ``domain``); ``entities``: (``entity_id``, ``name``,
    ``type``); ``units``: (``unit_id``, ``text``), the text of a roundup's parts. Optional
    fields are omitted, never null."""
    ref = {
        entity_id: {"entity_id": entity_id, "name": name, "type": kind}
        for entity_id, name, kind in entities.select("entity_id", "name", "type").iter_rows()
    }
    cards = {
        row[SIGNAL_ID]: {
            "signal_id": row[SIGNAL_ID],
            "title": row["title"],
            "url": row["url"],
            "published_at": iso_utc(row["published_at"]),
            "domain": row["domain"],
        }
        for row in signals.select(SIGNAL_ID, "title", "url", "published_at", "domain").iter_rows(
            named=True
        )
    }
    unit_text: dict[str, str] = {}
    if units is not None:
        unit_text = dict(units.select("unit_id", "text").iter_rows())
    rows: list[dict[str, object]] = []
    for story in stories.sort(["last_seen", STORY_ID], descending=True).iter_rows(named=True):
        refs = sorted(
            (ref[e] for e in story["entity_ids"] if e in ref),
            key=lambda r: (r["name"].lower(), r["entity_id"]),
        )
        item = _story_item(story, refs)
        rows.append(
            {
                STORY_ID: story[STORY_ID],
                "last_seen": story["last_seen"],
                "independent_sources": story["independent_sources"],
                "entity_ids": [r["entity_id"] for r in refs],
                "themes": [*story["value_chain"], *story["market_force"]],
                "list_json": orjson.dumps(item),
                "detail_json": orjson.dumps(_story_detail(story, item, cards, unit_text)),
            }
        )
    return pl.DataFrame(rows, schema=SERVED_STORIES, orient="row")
