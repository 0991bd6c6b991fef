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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime

import numpy as np
import orjson
import polars as pl

from analytics.copies import normalized_text
from analytics.embedding import EMBEDDING_DIM, FloatMatrix
from analytics.records import iso_utc
from analytics.render import CENTRAL_ROLES, served_signals
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
    # the within-day linkage: "average", or "complete" (every pair of a cluster above the cut)
    linkage: str = "average"
    # a day's cluster joins an open story only when they share at least one linked entity
    attach_needs_entity: bool = False
    # two signals of one day that share no linked entity are similar only when their cosine
    # is at least this (None: no gate); below it, their similarity is 0
    pair_gate: float | None = None
    # the attach bar of an open story rises by this much per doubling of its signal count, so
    # one large story cannot absorb a whole subject
    attach_per_doubling: float = 0.0
    # evidence that two signals name the same specific thing: the IDF-weighted cosine of their
    # title + text terms (``signal_terms``, ``_TermIdf``: IDF over the signals of the day
    # clustered and the ``term_days`` days before it, so a day never depends on a later one). Two
    # signals of one day are similar only when it is at least ``term_gate`` (None: no gate)
    term_gate: float | None = None
    # weight of that term cosine, added to a day's similarity as the entity bonus is
    term_weight: float = 1.0
    # the days before the day clustered that the IDF is counted over (with that day)
    term_days: int = 90
    # a day's cluster joins an open story only when the term cosine of their summed term
    # vectors is at least this (None: no gate)
    attach_term_gate: float | None = None
    # weight of that cluster-to-story term cosine, added to the attach score
    attach_term_weight: float = 0.5
    # the entity overlap weighs each entity by its inverse frequency among the day's signals
    # (log(1 + n / df)), so a family named by many of the day's posts counts for little
    entity_idf: bool = False
    # burstiness: a term rare in the window before the day and in several of the day's
    # signals names an event. Its burst factor is log(1 + df_day / (expected + 1)), expected =
    # its document frequency over the ``term_days`` days before, scaled to the day's signal
    # count. None: IDF weights only; "times": IDF × burst factor; "only": the burst factor
    term_burst: str | None = None

    def __post_init__(self) -> None:
        if self.term_burst not in (None, "times", "only"):
            raise ValueError(f"term_burst: None, 'times' or 'only', not {self.term_burst!r}")

    def uses_terms(self) -> bool:
        return self.term_gate is not None or self.term_weight > 0 or self.attaches_by_terms()

    def attaches_by_terms(self) -> bool:
        return self.attach_term_gate is not None or self.attach_term_weight > 0


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


def _jaccard(sets: Sequence[frozenset[str]], *, weighted: bool = False) -> FloatMatrix:
    """Pairwise Jaccard overlap of ``sets`` (0 where either is empty); ``weighted``: each key
    weighs log(1 + n / df), df the number of the ``n`` sets holding it."""
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
    weights = (
        np.log1p(n / incidence.sum(axis=0)).astype(np.float32)
        if weighted
        else np.ones(len(vocabulary), dtype=np.float32)
    )
    shared = (incidence * weights) @ incidence.T
    sizes = incidence @ weights
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


class _TermIdf:
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
        self, terms: list[frozenset[str]], burst: str | None = None
    ) -> list[dict[str, float]]:
        """Unit-length IDF-weighted binary vectors of ``terms`` (log(n / df)); with ``burst``
        ("times" or "only", ``StoryParams.term_burst``) ``terms`` are the day's added last, and
        each weight is multiplied by (or replaced with) the term's burst factor."""
        day_df: dict[str, int] = {}
        for t in itertools.chain.from_iterable(terms if burst is not None else ()):
            day_df[t] = day_df.get(t, 0) + 1
        before = self.n - len(terms)

        def weight(t: str) -> float:
            idf = math.log(self.n / self.df[t])
            expected = (self.df[t] - day_df[t]) * len(terms) / before if before else 0.0
            factor = math.log1p(day_df[t] / (expected + 1.0))
            return factor if burst == "only" else idf * factor

        out = []
        for ts in terms:
            # in sorted order: the sums below then do not depend on the process's hash seed
            if burst is None:  # the shipped path, kept a plain comprehension (it is hot)
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


def _sparse_dot(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(w * b.get(t, 0.0) for t, w in a.items())


def _average_linkage(similarity: FloatMatrix, cut: float, method: str = "average") -> list[int]:
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
    # the sum of its members' term vectors and its squared norm (attaches_by_terms)
    terms: dict[str, float] | None = None
    terms_norm2: float = 0.0


def cluster_signals(
    signals: pl.DataFrame,
    vectors: FloatMatrix,
    signal_entities: Mapping[str, frozenset[str]],
    params: StoryParams | None = None,
) -> list[int]:
    """Story labels (0..k-1) per row of ``signals`` (columns ``signal_id``, ``published_at``),
    ``vectors`` row-aligned and unit length. Labels number stories in order of their first day,
    then of their first signal in that day's order (published_at, signal_id)."""
    params = params or StoryParams()
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
    terms: list[frozenset[str]] = []
    idf = _TermIdf(params.term_days)
    if params.uses_terms():
        text = pl.concat_str(
            [
                pl.col(c).fill_null("") if c in signals.columns else pl.lit("")
                for c in ("title", "text")
            ],
            separator=" ",
        )
        texts = signals.select(text.alias("t"))["t"].to_list()
        terms = [signal_terms(texts[r]) for r in order["_row"].to_list()]
    open_stories: list[_Open] = []
    next_label = 0
    days = order["_day"].to_list()
    all_rows = order["_row"].to_list()
    all_ids = order[SIGNAL_ID].to_list()
    starts = [0, *(i for i in range(1, n) if days[i] != days[i - 1]), n]
    for start, end in itertools.pairwise(starts):
        day = days[start]
        rows = all_rows[start:end]
        ids = all_ids[start:end]
        block = vectors[rows]
        sets = [signal_entities.get(s, frozenset()) for s in ids]
        cosine = block @ block.T
        overlap = _jaccard(sets, weighted=params.entity_idf)
        similarity = cosine + params.entity_weight * overlap
        term_vectors: list[dict[str, float]] = []
        if params.uses_terms():
            idf.add_day(day, terms[start:end])
            term_vectors = idf.vectors(terms[start:end], params.term_burst)
            term_cosine = _term_cosine(term_vectors)
            similarity = similarity + params.term_weight * term_cosine
            if params.term_gate is not None:
                similarity = np.where(term_cosine >= params.term_gate, similarity, 0.0)
        if params.pair_gate is not None:
            similarity = np.where((overlap > 0) | (cosine >= params.pair_gate), similarity, 0.0)
        day_labels = _average_linkage(similarity, params.link, params.linkage)
        open_stories = [
            s
            for s in open_stories
            if (day - s.last_day).days <= params.window_days
            and (params.span_days is None or (day - s.first_day).days <= params.span_days)
        ]
        # centroids of the open stories, fixed for the day: a day's clusters are placed
        # independently of one another
        if open_stories:
            totals = np.stack([s.total for s in open_stories])
            centroids = totals / np.maximum(np.linalg.norm(totals, axis=1, keepdims=True), 1e-12)
        day_open = list(open_stories)
        for cluster in range(max(day_labels) + 1):
            members = [i for i, lab in enumerate(day_labels) if lab == cluster]
            total = block[members].sum(axis=0)
            members_entities: set[str] = set().union(*(sets[i] for i in members))
            members_terms: dict[str, float] = {}
            for i in members if params.attaches_by_terms() else ():
                for t, w in term_vectors[i].items():
                    members_terms[t] = members_terms.get(t, 0.0) + w
            members_norm2 = _sparse_dot(members_terms, members_terms)
            best: _Open | None = None
            best_score = params.attach
            if day_open:
                centroid = total / max(float(np.linalg.norm(total)), 1e-12)
                cosines = centroids @ centroid
                # only stories the entity bonus could lift past the bar are looked at closer
                lift = params.entity_weight + params.attach_term_weight
                for k in np.flatnonzero(cosines + lift >= params.attach):
                    story = day_open[int(k)]
                    union = members_entities | story.entities
                    shared = len(members_entities & story.entities)
                    if params.attach_needs_entity and not shared:
                        continue
                    score = float(cosines[k]) + params.entity_weight * (
                        shared / len(union) if union else 0.0
                    )
                    bar = params.attach + params.attach_per_doubling * float(
                        np.log2(max(story.size, 1))
                    )
                    if params.attaches_by_terms():
                        # the term cosine is at most 1: a story it cannot lift past the bar
                        # (or past the best so far) is not scored
                        most = score + params.attach_term_weight * (1 + 1e-6)
                        if most < bar or (best is not None and most <= best_score):
                            continue
                        term_score = 0.0
                        if story.terms and members_norm2 > 0:
                            term_score = _sparse_dot(members_terms, story.terms) / math.sqrt(
                                members_norm2 * story.terms_norm2
                            )
                        gate = params.attach_term_gate
                        if gate is not None and term_score < gate:
                            continue
                        score += params.attach_term_weight * term_score
                    if score >= bar and (best is None or score > best_score):
                        best, best_score = story, score
            if best is None:
                best = _Open(next_label, np.zeros(EMBEDDING_DIM, dtype=np.float32), set(), day, day)
                next_label += 1
                open_stories.append(best)
            best.total = best.total + total
            best.entities |= members_entities
            if params.attaches_by_terms():
                best.terms = best.terms or {}
                # |s + m|^2 = |s|^2 + 2 s.m + |m|^2
                best.terms_norm2 += 2 * _sparse_dot(members_terms, best.terms) + members_norm2
                for t, w in members_terms.items():
                    best.terms[t] = best.terms.get(t, 0.0) + w
            best.last_day = day
            best.size += len(members)
            for i in members:
                labels[rows[i]] = best.label
    return labels


def voice_key() -> pl.Expr:
    """A signal's voice, from its ``author`` and ``domain`` columns: the author (trimmed, lower
    case) when it has one, else the domain. Independent sources are distinct voices, here and
    in ``analytics.corroboration``."""
    return (
        pl.when(pl.col("author").str.strip_chars().str.len_chars() > 0)
        .then(pl.lit("author:") + pl.col("author").str.strip_chars().str.to_lowercase())
        .otherwise(pl.lit("domain:") + pl.col("domain").fill_null(""))
    )


def story_id_for(first_signal_id: str) -> str:
    """A new story's id: derived from its earliest signal's id, so a rebuild names it again."""
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


def build_stories(
    signals: pl.DataFrame,
    vectors: FloatMatrix,
    signal_entities: pl.DataFrame,
    signal_themes: pl.DataFrame,
    previous: pl.DataFrame | None = None,
    params: StoryParams | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The stories of ``signals`` and their membership: (``STORIES`` rows, ``STORY_SIGNALS`` rows).

    ``signals``: the served signals (``signal_id``, ``published_at``, ``title``, ``domain``,
    ``author``, ``copy_key``), ``vectors`` row-aligned (``signal_vectors``); ``copy_key`` is the
    same for a reprint and its original (the normalized text of the central statement,
    ``analytics.copies``). ``signal_entities``: (``signal_id``, ``entity_id``);
    ``signal_themes``: (``signal_id``, ``value_chain``, ``market_force``); ``previous``: the
    last build's (``signal_id``, ``story_id``), whose ids carry over (``carry_ids``).
    """
    params = params or StoryParams()
    if signals.height == 0:
        return pl.DataFrame(schema=STORIES), pl.DataFrame(schema=STORY_SIGNALS)
    labels = cluster_signals(signals, vectors, entity_sets(signal_entities), params)
    rows = signals.with_columns(
        pl.Series("label", labels, dtype=pl.Int64), pl.int_range(pl.len()).alias("_row")
    ).sort("published_at", SIGNAL_ID)
    members = rows.select(
        "label", SIGNAL_ID, pl.col(SIGNAL_ID).first().over("label").alias("first_id")
    )
    prior = previous if previous is not None else pl.DataFrame(schema=STORY_SIGNALS)
    ids, merged, split = carry_ids(members, prior)

    # the most central signal of each story: nearest its centroid, the earliest on a tie
    label_array = rows["label"].to_numpy()
    row_array = rows["_row"].to_numpy()
    id_array = rows[SIGNAL_ID].to_list()
    by_story = np.argsort(label_array, kind="stable")  # rows stay in time order per story
    bounds = np.flatnonzero(np.diff(label_array[by_story])) + 1
    central: dict[int, str] = {}
    for positions in np.split(by_story, bounds):
        block = vectors[row_array[positions]]
        total = block.sum(axis=0)
        centroid = total / max(float(np.linalg.norm(total)), 1e-12)
        central[int(label_array[positions[0]])] = id_array[
            int(positions[int(np.argmax(block @ centroid))])
        ]
    voice = voice_key()
    # a reprint or near-copy of an earlier member adds no voice
    original = pl.col("copy_key").is_null() | pl.col("copy_key").is_first_distinct().over("label")
    by_label = rows.group_by("label").agg(
        pl.col(SIGNAL_ID).alias("signal_ids"),
        pl.len().cast(pl.Int64).alias("signal_count"),
        pl.col("published_at").min().alias("first_seen"),
        pl.col("published_at").max().alias("last_seen"),
        pl.col("domain").drop_nulls().unique().sort().alias("domains"),
        pl.col("author").drop_nulls().unique().sort().alias("authors"),
        voice.filter(original).n_unique().cast(pl.Int64).alias("independent_sources"),
    )
    entity_lists = (
        rows.select("label", SIGNAL_ID)
        .join(signal_entities.select(SIGNAL_ID, "entity_id"), on=SIGNAL_ID)
        .group_by("label")
        .agg(pl.col("entity_id").unique().sort().alias("entity_ids"))
    )
    theme_lists = (
        rows.select("label", SIGNAL_ID)
        .join(signal_themes.select(SIGNAL_ID, "value_chain", "market_force"), on=SIGNAL_ID)
        .group_by("label")
        .agg(
            pl.col("value_chain").explode().drop_nulls().unique().sort(),
            pl.col("market_force").explode().drop_nulls().unique().sort(),
        )
    )
    titles = rows.select(pl.col(SIGNAL_ID).alias("title_signal_id"), "title")
    keyed = pl.DataFrame(
        {
            "label": list(ids),
            STORY_ID: list(ids.values()),
            "title_signal_id": [central[label] for label in ids],
            "merged_from": [merged.get(label, []) for label in ids],
            "split_from": [split.get(label) for label in ids],
        },
        schema={
            "label": pl.Int64,
            STORY_ID: pl.String,
            "title_signal_id": pl.String,
            "merged_from": pl.List(pl.String),
            "split_from": pl.String,
        },
    )
    empty_list = pl.lit([], dtype=pl.List(pl.String))
    out = (
        keyed.join(by_label, on="label")
        .join(entity_lists, on="label", how="left")
        .join(theme_lists, on="label", how="left")
        .join(titles, on="title_signal_id", how="left")
        .with_columns(
            pl.col("entity_ids").fill_null(empty_list),
            pl.col("value_chain").fill_null(empty_list),
            pl.col("market_force").fill_null(empty_list),
        )
        .select(STORIES.names())
        .cast(STORIES)
    )
    stories = out.sort(["last_seen", STORY_ID], descending=[True, False])
    membership = (
        stories.select(STORY_ID, SIGNAL_ID=pl.col("signal_ids"))
        .explode("SIGNAL_ID")
        .select(pl.col("SIGNAL_ID").alias(SIGNAL_ID), STORY_ID)
        .sort(SIGNAL_ID)
    )
    return stories, membership


def story_inputs(
    signals: pl.DataFrame, units: pl.DataFrame, unit_embeddings: pl.DataFrame, as_of: datetime
) -> tuple[pl.DataFrame, FloatMatrix]:
    """The signals stories are made of and their vectors: the served signals (a verified central
    statement; analytics count exactly these) published up to ``as_of``, with ``copy_key`` (the
    normalized text of the central statement: a reprint's is its original's, as
    ``analytics.copies`` groups units), and the unit-length mean of their units' vectors."""
    served = served_signals(signals, units).filter(pl.col("published_at") <= as_of)
    central = (
        units.filter(pl.col("role").is_in(CENTRAL_ROLES))
        .sort("signal_id", "position")
        .group_by("signal_id", maintain_order=True)
        .agg(normalized_text(pl.col("text")).first().alias("copy_key"))
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


def render_stories(
    stories: pl.DataFrame, signals: pl.DataFrame, entities: pl.DataFrame
) -> pl.DataFrame:
    """The snapshot's story table (``SERVED_STORIES``), newest activity first: per story its
    list form and its detail as served (docs/api.md §2.8). ``signals``: (``signal_id``,
    ``title``, ``url``, ``published_at``, ``domain``); ``entities``: (``entity_id``, ``name``,
    ``type``). Optional fields are omitted, never null."""
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
    rows: list[dict[str, object]] = []
    for story in stories.sort(["last_seen", STORY_ID], descending=True).iter_rows(named=True):
        refs = sorted(
            (ref[e] for e in story["entity_ids"] if e in ref),
            key=lambda r: (r["name"].lower(), r["entity_id"]),
        )
        item: dict[str, object] = {
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
        detail: dict[str, object] = {
            **item,
            # newest first, as the signal list
            "signals": [cards[s] for s in reversed(story["signal_ids"]) if s in cards],
        }
        if story["merged_from"]:
            detail["merged_from"] = list(story["merged_from"])
        if story["split_from"] is not None:
            detail["split_from"] = story["split_from"]
        rows.append(
            {
                STORY_ID: story[STORY_ID],
                "last_seen": story["last_seen"],
                "independent_sources": story["independent_sources"],
                "entity_ids": [r["entity_id"] for r in refs],
                "themes": [*story["value_chain"], *story["market_force"]],
                "list_json": orjson.dumps(item),
                "detail_json": orjson.dumps(detail),
            }
        )
    return pl.DataFrame(rows, schema=SERVED_STORIES, orient="row")
