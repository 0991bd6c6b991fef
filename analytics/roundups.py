"""Roundups (issue 45): a signal that covers several unrelated items — a newsletter's daily
digest, a "this week in AI" post, a chapter list — is split into its items before stories are
built, the way a long podcast is cut into segments, so each item can join the story of its own
event and a digest never glues ten unrelated stories into one.

A roundup is recognised from its text alone, never from a corpus's annotations:

1. its verified units are laid out on the signal's text (``start_char``/``end_char``); units
   whose spans overlap are one *segment* (a claim and the synopsis restating it);
2. adjacent segments that share a linked entity or whose MiniLM vectors have cosine at least
   ``RoundupParams.join`` are one *item* (an announcement and its figures);
3. the signal is a roundup when it has at least ``min_items`` items and they are *broad*: the
   mean pairwise cosine of the items' vectors is at most ``breadth`` (a post about one launch
   stays closer to itself than a digest of unrelated launches) and most of its items name an
   entity no other item names — at least ``min_items`` of them and at least ``own_share`` of
   all (a post about one launch keeps naming it, with its discussion; a digest names new players
   item after item; a long analysis of one subject cites a few players among arguments that
   name none, so a count alone would take any long enough analysis for a digest) — or when its
   text is a list (at least ``min_items`` lines opening with a bullet or a number) of at least
   ``min_items`` items.

A player named only where a segment credits words to someone — an *attributed remark*: a
quotation credited to its speaker ("“…,” said Clara Raman, an analyst at Larchmont Research",
"“…,” Raman said") or words credited to a person introduced by their role at an organisation
("Priya Shah, an analyst at Northgate Capital, said demand would hold"; ``_ATTRIBUTION``) — is
who speaks, not what the item is about: an attributed remark's players do not make its item one
naming a player of its own (a news report's lead, an analyst's reaction, background and what
comes next are one event, not a digest of four), though they still count as named by it for the
other items. The test reads a segment's text on the signal (its units' spans), not where each
entity is named (``unit_entities`` has no positions), so it leaves out the attributions whose
sentence usually names its subject too: a sentence opening on its speaker ("Meta said it
will…"), "according to X" ("Acme will supply the racks, according to people familiar with the
contract"), "X told Reuters". A remark that does name its subject ("“Acme's model is the
fastest,” said Jane Roe") gives that subject up; a digest item counts by its other segments
(docs/journal/2026-12-07.md, "Roundups: a quoted voice is no item of its own").

Units without a span on the text (an abstractive summary of the whole) belong to no item: a
summary of everything is not an item of one event.

Each item of a roundup becomes a story input of its own: id ``<signal_id>#<k>`` (k from 0, in
text order), the roundup's time, publisher and domain, no title (a digest's title names the
digest, not the item), its units' text, the unit-length mean of its units' vectors and the union
of its units' entities. Every other signal is one item, as it was.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from analytics.embedding import EMBEDDING_DIM, FloatMatrix

ITEM_SEPARATOR = "#"
# a line that opens a list entry: a bullet, or a number and a dot or parenthesis
_LIST_LINE = re.compile(r"^\s*(?:[-*•▪–]|\d{1,2}[.)])\s+\S", re.MULTILINE)
# a verb crediting words to their speaker; after a quotation the wider set, since a participle
# ("…, noted for its speed", "with X, added FP8") cannot follow a closed quotation
_SAID = r"(?:said|says|told|tells|wrote|writes|argued|argues|warned|warns)"
_SPEECH = r"(?:said|says|told|tells|added|adds|noted|notes|wrote|writes|argued|argues|warned|warns)"
# a quotation just closed ("…,” ", "…?\" "; a straight quote after ", " opens one)
_CLOSED = r"[,!?…][”\"]\s*"
# a role at an organisation ("an analyst at Larchmont Research", "the chief executive of Y")
_ROLE = r"[^,.;:“”\"]{0,80}?\b(?:at|of|for|with)\s[^,;:“”\"]{1,80}"
# a name: one to four capitalised words
_NAME = r"(?:[A-Z][\w.'&-]*\s+){0,3}[A-Z][\w.'&-]*"
# an attributed remark: a quotation credited to its speaker, or words credited to a person
# introduced by their role at an organisation. Left out, because the sentence's subject is
# usually named in it too and a sentence is all the test reads: a sentence opening on its
# speaker ("Meta said it will…", "Marvell, the chipmaker, said…"), "according to X" ("Acme
# will supply the racks, according to people familiar with the contract") and "X told Reuters".
_ATTRIBUTION = re.compile(
    rf"{_CLOSED}{_SPEECH}\s+[A-Z]"  # "“…,” said Clara Raman"
    # "“…,” Raman said", "“…,” Raman, the CTO of Y, said", "“…,” she added"
    rf"|{_CLOSED}(?:[A-Z][^“”\".;]{{0,140}}?\s|(?:he|she|they)\s+){_SPEECH}\b"
    # "Priya Shah, an analyst at Northgate Capital, said …"
    rf"|{_NAME},\s+an?\s[^,.;:“”\"]{{0,80}}?\bat\s[^,;:“”\"]{{1,80}},\s+{_SAID}\b"
    # "…, said Clara Raman, an analyst at Larchmont Research"
    rf"|\b{_SAID}\s+{_NAME},\s+an?\s[^,.;:“”\"]{{0,80}}?\bat\s"
    # "Daniel Holm, the chief executive of Y, put it bluntly: “…”"
    rf"|{_NAME},\s+(?:an?|the)\s{_ROLE},[^“”\".;:]{{0,60}}:\s*[“\"]"
)


@dataclass(frozen=True)
class RoundupParams:
    """What makes a signal a roundup (docs/journal/2026-12-07.md ("Stories a reader can
    trust"): set by reading AINews memos and social posts and the spread of these two
    measures over them, before any judged figure was computed)."""

    # a roundup has at least this many items
    min_items: int = 3
    # the mean pairwise cosine of its items' vectors is at most this (topics far apart)
    breadth: float = 0.35
    # adjacent segments at least this similar (or sharing an entity) are one item
    join: float = 0.55
    # at least this share of the items name a player no other item names (besides at least
    # ``min_items`` of them): "most items", set from the rule's reading of a digest, not fit to a
    # corpus (docs/journal/2026-12-07.md, "Roundups: long analyses are no digests")
    own_share: float = 0.5


@dataclass(frozen=True)
class Item:
    """One item of a roundup: its units (in text order) and its place among the items."""

    signal_id: str
    index: int
    unit_ids: tuple[str, ...]

    @property
    def item_id(self) -> str:
        return f"{self.signal_id}{ITEM_SEPARATOR}{self.index}"


def _segments(rows: Sequence[tuple[str, int, int]]) -> list[list[str]]:
    """Unit ids grouped by overlapping spans: ``rows`` are (unit_id, start, end), any order."""
    out: list[list[str]] = []
    reach = -1
    for unit_id, start, end in sorted(rows, key=lambda r: (r[1], r[2], r[0])):
        if out and start < reach:
            out[-1].append(unit_id)
            reach = max(reach, end)
        else:
            out.append([unit_id])
            reach = end
    return out


def _mean(vectors: FloatMatrix) -> FloatMatrix:
    total = vectors.sum(axis=0)
    norm = float(np.linalg.norm(total))
    out: FloatMatrix = total / norm if norm > 0 else total
    return out


def _broad(
    groups: list[list[int]],
    seg_vectors: list[FloatMatrix],
    seg_entities: list[frozenset[str]],
    seg_attributed: list[bool],
    params: RoundupParams,
) -> bool:
    """Whether the items cover unrelated subjects: far apart in meaning (mean pairwise cosine
    at most ``breadth``) and most of them (at least ``min_items`` and ``own_share`` of all)
    naming an entity no other item names (a post about one launch keeps naming it; a digest
    names a new player per item; an analysis's arguments mostly name none) outside an
    attributed remark (a quoted voice is no subject of its own)."""
    vectors = np.stack([_mean(np.stack([seg_vectors[i] for i in g])) for g in groups])
    cosine = vectors @ vectors.T
    n = len(groups)
    if (float(cosine.sum()) - float(np.trace(cosine))) / (n * (n - 1)) > params.breadth:
        return False
    named = [frozenset().union(*(seg_entities[i] for i in g)) for g in groups]
    subjects = [
        frozenset().union(*(seg_entities[i] for i in g if not seg_attributed[i])) for g in groups
    ]
    own = sum(
        1
        for k, mine in enumerate(subjects)
        if mine - frozenset().union(*(x for j, x in enumerate(named) if j != k))
    )
    return own >= params.min_items and own >= params.own_share * n


def attributed(sentence: str) -> bool:
    """Whether ``sentence`` is an attributed remark: quoted speech or words credited to a named
    speaker or source (``_ATTRIBUTION``)."""
    return _ATTRIBUTION.search(sentence) is not None


def _attributed(
    text: str, units: Sequence[tuple[str, int, int]], segments: list[list[str]]
) -> list[bool]:
    """Per segment, whether its text on the signal (from its first unit's start to its last
    unit's end) is an attributed remark."""
    span = {u: (start, end) for u, start, end in units}
    return [
        attributed(text[min(span[u][0] for u in s) : max(span[u][1] for u in s)]) for s in segments
    ]


def split_items(
    signal_id: str,
    text: str,
    units: Sequence[tuple[str, int, int]],
    vectors: Mapping[str, FloatMatrix],
    entities: Mapping[str, frozenset[str]],
    params: RoundupParams | None = None,
) -> list[Item]:
    """The items of one signal when it is a roundup, else ``[]``. ``units``: its units with a
    span, (unit_id, start_char, end_char); ``vectors`` and ``entities`` by unit id."""
    params = params or RoundupParams()
    segments = [s for s in _segments(units) if any(u in vectors for u in s)]
    if len(segments) < params.min_items:
        return []
    seg_vectors = [_mean(np.stack([vectors[u] for u in s if u in vectors])) for s in segments]
    seg_entities = [frozenset().union(*(entities.get(u, frozenset()) for u in s)) for s in segments]
    groups: list[list[int]] = [[0]]
    for i in range(1, len(segments)):
        close = float(seg_vectors[i] @ seg_vectors[i - 1]) >= params.join
        if close or seg_entities[i] & seg_entities[i - 1]:
            groups[-1].append(i)
        else:
            groups.append([i])
    if len(groups) < params.min_items:
        return []
    listed = len(_LIST_LINE.findall(text)) >= params.min_items
    if not listed and not _broad(
        groups, seg_vectors, seg_entities, _attributed(text, units, segments), params
    ):
        return []
    return [
        Item(signal_id, k, tuple(u for i in g for u in segments[i])) for k, g in enumerate(groups)
    ]


def roundup_items(
    signals: pl.DataFrame,
    units: pl.DataFrame,
    unit_vectors: Mapping[str, FloatMatrix],
    unit_entities: pl.DataFrame,
    params: RoundupParams | None = None,
) -> list[Item]:
    """The items of every roundup among ``signals`` (``signal_id``, ``text``). ``units``:
    (``unit_id``, ``signal_id``, ``start_char``, ``end_char``); ``unit_vectors`` by unit id;
    ``unit_entities``: (``unit_id``, ``entity_id``)."""
    spans = units.filter(
        pl.col("start_char").is_not_null()
        & pl.col("end_char").is_not_null()
        & pl.col("signal_id").is_in(signals["signal_id"].implode())
    ).select("signal_id", "unit_id", "start_char", "end_char")
    by_signal: dict[str, list[tuple[str, int, int]]] = {}
    for signal_id, unit_id, start, end in spans.iter_rows():
        by_signal.setdefault(signal_id, []).append((unit_id, start, end))
    entity_sets: dict[str, frozenset[str]] = {
        unit_id: frozenset(ids)
        for unit_id, ids in unit_entities.group_by("unit_id")
        .agg(pl.col("entity_id").unique())
        .iter_rows()
    }
    texts = dict(signals.select("signal_id", pl.col("text").fill_null("")).iter_rows())
    out: list[Item] = []
    for signal_id in sorted(by_signal):
        out += split_items(
            signal_id, texts[signal_id], by_signal[signal_id], unit_vectors, entity_sets, params
        )
    return out


def item_vectors(items: Sequence[Item], unit_vectors: Mapping[str, FloatMatrix]) -> FloatMatrix:
    """Per item, the unit-length mean of its units' vectors."""
    out = np.zeros((len(items), EMBEDDING_DIM), dtype=np.float32)
    for row, item in enumerate(items):
        found = [unit_vectors[u] for u in item.unit_ids if u in unit_vectors]
        if found:
            out[row] = _mean(np.stack(found))
    return out
