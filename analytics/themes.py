"""The 12 canonical theme labels (docs/design.md §6), their lookup, and multi-label theme tagging.

A signal gets a label on an axis when the embedding similarity of its title and leading text to
the label's description, plus weighted keyword evidence, clears a threshold tuned on data
(``bench/analytics/quality/themes.py``). Only the canonical labels ever leave this module:
shorthands such as ``C&I`` are unknown labels whose error names the canonical one.

The labels are the contract and are written here; the descriptions and keywords tagging matches
them on are data (``registry/themes.yaml``, loaded and checked by
``warehouse.themes.load_theme_taxonomy``) and reach the functions below as a ``ThemeTaxonomy``.
"""

from __future__ import annotations

import difflib
import importlib
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal, NamedTuple

import numpy as np
import numpy.typing as npt
import polars as pl

from analytics.embedding import Embedder, FloatMatrix

Axis = Literal["value_chain", "market_force"]
AXES: tuple[Axis, ...] = ("value_chain", "market_force")

SIGNAL_ID = "signal_id"
VALUE_CHAIN = "value_chain"
MARKET_FORCE = "market_force"
_LABEL_LIST: pl.DataType = pl.List(pl.String)
THEME_TAGS = pl.Schema(
    {SIGNAL_ID: pl.String(), VALUE_CHAIN: _LABEL_LIST, MARKET_FORCE: _LABEL_LIST}
)

# The contract: the canonical labels per axis, in canonical order (docs/design.md §6).
THEME_LABELS: dict[Axis, tuple[str, ...]] = {
    "value_chain": (
        "Semiconductors & Hardware",
        "Infrastructure",
        "Data",
        "Foundation Models",
        "Tooling & Platforms",
        "Applications",
    ),
    "market_force": (
        "Competitive Dynamics",
        "Capital & Investment",
        "Regulatory & Legal",
        "Talent & Labor",
        "Technology & Scientific Innovation",
        "Adoption & Demand",
    ),
}

# docs/design.md §6: shorthands are never served; as filters they are unknown labels whose message
# names the canonical label.
SHORTHANDS: dict[str, str] = {
    "S&H": "Semiconductors & Hardware",
    "FM": "Foundation Models",
    "T&P": "Tooling & Platforms",
    "CD": "Competitive Dynamics",
    "C&I": "Capital & Investment",
    "R&L": "Regulatory & Legal",
    "T&L": "Talent & Labor",
    "T&SI": "Technology & Scientific Innovation",
    "A&D": "Adoption & Demand",
}

_AXIS_OF: dict[str, Axis] = {label: axis for axis in AXES for label in THEME_LABELS[axis]}
_BY_FOLDED: dict[str, str] = {label.casefold(): label for label in _AXIS_OF}
_SHORTHAND_FOLDED: dict[str, str] = {k.casefold(): v for k, v in SHORTHANDS.items()}


class UnknownTheme(ValueError):
    """A label that is not one of the 12 canonical themes (or not on the requested axis).

    ``message`` is meant for the user; ``suggestion`` is the canonical label they probably
    meant, when there is one.
    """

    # as a filter or path, an unknown theme is a missing resource (docs/design.md §6)
    status = 404

    def __init__(self, message: str, *, label: str, suggestion: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.label = label
        self.suggestion = suggestion


def _suggest(label: str) -> str | None:
    folded = label.strip().casefold()
    if folded in _SHORTHAND_FOLDED:
        return _SHORTHAND_FOLDED[folded]
    if folded in _BY_FOLDED:
        return _BY_FOLDED[folded]
    # "Regulatory and Legal", "regulatory&legal": the same words with another joiner
    joined = re.sub(r"\s*(?:&|\band\b|\+|/)\s*", " & ", folded)
    joined = re.sub(r"\s+", " ", joined).strip()
    if joined in _BY_FOLDED:
        return _BY_FOLDED[joined]
    close = difflib.get_close_matches(joined, list(_BY_FOLDED), n=1, cutoff=0.6)
    if close:
        return _BY_FOLDED[close[0]]
    # one word of exactly one label ("Capital", "legal")
    words = set(re.findall(r"\w+", joined)) - {"and"}
    owners = [
        canonical
        for key, canonical in _BY_FOLDED.items()
        if words and words <= set(re.findall(r"\w+", key))
    ]
    return owners[0] if len(owners) == 1 else None


def resolve_theme(label: str, axis: str | None = None) -> tuple[Axis, str]:
    """``(axis, canonical label)`` for a label matched case-insensitively on the 12 canonical
    labels only; with ``axis``, the label must also belong to that axis.

    Raises ``UnknownTheme`` otherwise, naming the canonical label the user probably meant
    ("unknown theme 'C&I'; did you mean 'Capital & Investment'?").
    """
    canonical = _BY_FOLDED.get(label.casefold())
    shown = label if axis is None else f"{axis}/{label}"
    if canonical is not None and (axis is None or _AXIS_OF[canonical] == axis):
        return _AXIS_OF[canonical], canonical
    suggestion = canonical if canonical is not None else _suggest(label)
    message = f"unknown theme {shown!r}"
    if suggestion is not None:
        target = suggestion if axis is None else f"{_AXIS_OF[suggestion]}/{suggestion}"
        message += f"; did you mean {target!r}?"
    else:
        message += "; themes are " + "; ".join(f"{a}: {', '.join(THEME_LABELS[a])}" for a in AXES)
    raise UnknownTheme(message, label=label, suggestion=suggestion)


@dataclass(frozen=True)
class Theme:
    """One label: its axis, the sentences its embedding is built from, and keyword evidence as
    (regular-expression fragment, weight) pairs matched on whole words, any case."""

    axis: Axis
    label: str
    description: tuple[str, ...]
    keywords: tuple[tuple[str, float], ...]


class KeywordIndex(NamedTuple):
    """All labels' keywords as one pattern: group ``k{i}`` is distinct term ``i``, and
    ``owners[i]`` the (label index, weight) pairs it counts for.

    ``terms_in`` finds what ``pattern.finditer`` finds, faster: Python's engine tries every
    alternative at every word start (488 terms: ~7 ms of CPU for a 1,000-character lead, most
    of theme tagging's time outside MiniLM), so each ASCII character a term can start with has
    its own alternation of just those terms, in the same order (``by_first``); a word starting
    with another character (non-ASCII: case folding may map it onto an ASCII letter) is tried
    on all of them (``anywhere``). A term whose first character is not known (see
    ``first_chars``) is in every alternation."""

    pattern: re.Pattern[str]
    owners: tuple[tuple[tuple[int, float], ...], ...]
    # where a match may start: a word start at a character some alternation handles
    starts: re.Pattern[str] | None = None
    by_first: dict[str, re.Pattern[str]] | None = None
    anywhere: re.Pattern[str] | None = None

    def terms_in(self, text: str) -> set[int]:
        """The distinct terms ``pattern.finditer`` matches in ``text`` (leftmost first, not
        overlapping, the first term in order at each place)."""
        found: set[int] = set()
        if self.starts is None or self.by_first is None or self.anywhere is None:
            for match in self.pattern.finditer(text):
                if match.lastgroup is not None:
                    found.add(int(match.lastgroup[1:]))
            return found
        pos = 0
        while (start := self.starts.search(text, pos)) is not None:
            at = start.start()
            char = text[at]
            terms = self.by_first.get(char.lower()) if char.isascii() else self.anywhere
            hit = terms.match(text, at) if terms is not None else None
            if hit is None:
                pos = at + 1
                continue
            if hit.lastgroup is not None:
                found.add(int(hit.lastgroup[1:]))
            pos = hit.end()
        return found


# the characters an ASCII ``\d`` or ``\w`` matches (a non-ASCII one goes to ``anywhere``)
_ASCII_DIGITS = frozenset("0123456789")
_ASCII_WORD = frozenset("abcdefghijklmnopqrstuvwxyz_") | _ASCII_DIGITS
_LEAD = r"(?<![\w-])"
_TAIL = r"(?![\w-])"


# the standard library's own regular-expression parser (no stubs: typed Any here)
_RE_CONSTANTS: Any = importlib.import_module("re._constants")
_RE_PARSER: Any = importlib.import_module("re._parser")


def first_chars(fragment: str) -> frozenset[str] | None:
    """The lower-case ASCII characters a match of ``fragment`` (case-insensitive) can start
    with; None when that is not known (it may start with anything, or with a non-ASCII
    character, or match nothing at all: an empty match)."""
    try:
        parsed = _RE_PARSER.parse(fragment, re.IGNORECASE)
    except re.error:
        return None
    chars, empty = _first_of_sequence(list(parsed.data))
    return None if empty or not chars else chars


def _first_of_sequence(
    items: list[tuple[object, object]],
) -> tuple[frozenset[str] | None, bool]:
    """(first characters of the sequence, whether it can match nothing)."""
    chars: set[str] = set()
    for op, av in items:
        one, empty = _first_of_item(op, av)
        if one is None:
            return None, False
        chars |= one
        if not empty:
            return frozenset(chars), False
    return frozenset(chars), True


def _first_of_item(op: object, av: object) -> tuple[frozenset[str] | None, bool]:
    c = _RE_CONSTANTS
    if op is c.LITERAL and isinstance(av, int):
        return (frozenset({chr(av).lower()}), False) if av < 128 else (None, False)
    if op is c.IN and isinstance(av, list):
        return _first_of_charset(av), False
    if op in (c.MAX_REPEAT, c.MIN_REPEAT) and isinstance(av, tuple):
        low, _, sub = av
        chars, empty = _first_of_sequence(list(sub))
        return chars, empty or low == 0
    if op is c.SUBPATTERN and isinstance(av, tuple):
        _, add_flags, del_flags, sub = av
        if add_flags or del_flags:  # (?-i:…) and the like: not worth following
            return None, False
        return _first_of_sequence(list(sub))
    if op is c.BRANCH and isinstance(av, tuple):
        union: set[str] = set()
        empty = False
        for branch in av[1]:
            one, can_be_empty = _first_of_sequence(list(branch))
            if one is None:
                return None, False
            union |= one
            empty = empty or can_be_empty
        return frozenset(union), empty
    return None, False


def _first_of_charset(members: list[tuple[object, object]]) -> frozenset[str] | None:
    c = _RE_CONSTANTS
    chars: set[str] = set()
    for op, av in members:
        if op is c.LITERAL and isinstance(av, int) and av < 128:
            chars.add(chr(av).lower())
        elif op is c.RANGE and isinstance(av, tuple) and av[1] < 128:
            chars |= {chr(x).lower() for x in range(av[0], av[1] + 1)}
        elif op is c.CATEGORY and av is c.CATEGORY_DIGIT:
            chars |= _ASCII_DIGITS
        elif op is c.CATEGORY and av is c.CATEGORY_WORD:
            chars |= _ASCII_WORD
        else:  # a negation, another category, a non-ASCII member
            return None
    return frozenset(chars)


def _dispatch(
    parts: list[tuple[str, frozenset[str] | None]],
) -> tuple[re.Pattern[str], dict[str, re.Pattern[str]], re.Pattern[str]]:
    """``starts``, ``by_first`` and ``anywhere`` of a ``KeywordIndex`` over ``parts`` (each
    group, in the combined pattern's order, with its first characters)."""
    flags = re.IGNORECASE
    anywhere = re.compile("(?:" + "|".join(g for g, _ in parts) + ")" + _TAIL, flags)
    unknown = any(chars is None for _, chars in parts)
    firsts = sorted(set().union(*(chars for _, chars in parts if chars is not None)))
    by_first = {
        char: re.compile(
            "(?:"
            + "|".join(g for g, chars in parts if chars is None or char in chars)
            + ")"
            + _TAIL,
            flags,
        )
        for char in firsts
    }
    if unknown:
        # a term that may start anywhere: every word start is a candidate
        starts = re.compile(_LEAD + "(?s:.)", flags)
        generic = "(?:" + "|".join(g for g, chars in parts if chars is None) + ")" + _TAIL
        for code in range(128):
            by_first.setdefault(chr(code).lower(), re.compile(generic, flags))
    else:
        members = "".join(re.escape(ch) for ch in firsts)
        starts = re.compile(_LEAD + rf"(?:[{members}]|[^\x00-\x7f])", flags)
    return starts, by_first, anywhere


@dataclass(frozen=True)
class ThemeTaxonomy:
    """The labels tagging can assign, in order (score columns follow it), with what they are
    matched on. Production uses the 12 canonical labels of ``registry/themes.yaml``, checked on
    load; tests may build smaller ones."""

    themes: tuple[Theme, ...]

    @cached_property
    def keyword_index(self) -> KeywordIndex:
        """One alternation over the distinct terms of all labels, longest first, so a text is
        scanned once; a group's index says which (label, weight) pairs the term counts for.
        Built on first use and kept on the instance. Raises ``re.error`` for a bad fragment."""
        owners: dict[str, list[tuple[int, float]]] = {}
        for i, theme in enumerate(self.themes):
            for pattern, weight in theme.keywords:
                owners.setdefault(pattern, []).append((i, weight))
        patterns = list(owners)
        # longest pattern first so a phrase wins over a word it starts with ("data center", "data")
        order = sorted(range(len(patterns)), key=lambda k: (-len(patterns[k]), k))
        parts = [rf"(?P<k{k}>{patterns[k]})" for k in order]
        compiled = re.compile(_LEAD + "(?:" + "|".join(parts) + ")" + _TAIL, re.IGNORECASE)
        terms = tuple(tuple(owners[p]) for p in patterns)
        if not patterns:
            return KeywordIndex(compiled, terms)
        starts, by_first, anywhere = _dispatch(
            [(part, first_chars(patterns[k])) for part, k in zip(parts, order, strict=True)]
        )
        return KeywordIndex(compiled, terms, starts, by_first, anywhere)


@dataclass(frozen=True)
class TaggingParams:
    """Thresholds of ``tag_themes`` (tuned in ``bench/analytics/quality/themes.py``; see
    docs/quality.md).

    A label's score is ``similarity + keyword_weight * min(evidence, evidence_cap)`` where
    ``similarity`` is the cosine between the signal and the label's closest description
    sentence and ``evidence`` the summed weights of the distinct keyword terms found. A label is
    kept when its score reaches ``threshold`` and lies within ``margin`` of the axis's best
    score; at most ``max_labels`` per axis.
    """

    keyword_weight: float = 0.2
    evidence_cap: float = 2.0
    threshold: float = 0.35
    margin: float = 0.08
    max_labels: int = 3
    lead_chars: int = 1000


DEFAULT_PARAMS = TaggingParams()


@dataclass(frozen=True)
class ThemeScores:
    """Per signal and label (columns in the taxonomy's order): description similarity and keyword
    evidence. Kept apart from the thresholds so they can be tuned without embedding again."""

    signal_ids: tuple[str, ...]
    similarity: npt.NDArray[np.float64]
    evidence: npt.NDArray[np.float64]


def keyword_evidence(text: str, taxonomy: ThemeTaxonomy) -> npt.NDArray[np.float64]:
    """Summed weights of the distinct keyword terms of each label found in ``text``."""
    index = taxonomy.keyword_index
    found = index.terms_in(text)
    out = np.zeros(len(taxonomy.themes), dtype=np.float64)
    for k in sorted(found):
        for label, weight in index.owners[k]:
            out[label] += weight
    return out


def signal_text(title: str | None, text: str | None, lead_chars: int) -> str:
    """What a signal is judged by: its title and the first ``lead_chars`` of its text."""
    return f"{title or ''}\n{(text or '')[:lead_chars]}".strip()


def _description_matrix(
    embed: Embedder, taxonomy: ThemeTaxonomy
) -> tuple[FloatMatrix, npt.NDArray[np.int64]]:
    themes = taxonomy.themes
    sentences = [s for t in themes for s in t.description]
    owners = np.array([i for i, t in enumerate(themes) for _ in t.description], dtype=np.int64)
    return embed(sentences), owners


def score_themes(
    signals: pl.DataFrame,
    embed: Embedder,
    taxonomy: ThemeTaxonomy,
    *,
    lead_chars: int = DEFAULT_PARAMS.lead_chars,
) -> ThemeScores:
    """Similarity and keyword evidence of every signal (``signal_id``, ``title``, ``text``)
    for every label of ``taxonomy``; signals are embedded in one batched call."""
    labels = len(taxonomy.themes)
    ids = tuple(signals.get_column(SIGNAL_ID).to_list())
    texts = [
        signal_text(title, text, lead_chars)
        for title, text in zip(
            signals.get_column("title").to_list(), signals.get_column("text").to_list(), strict=True
        )
    ]
    n = len(texts)
    if n == 0:
        empty = np.zeros((0, labels), dtype=np.float64)
        return ThemeScores(ids, empty, empty.copy())
    vectors = embed(texts).astype(np.float64)
    prototypes, owners = _description_matrix(embed, taxonomy)
    cosines = vectors @ prototypes.astype(np.float64).T
    # a label is as close as its closest description sentence: labels span several sub-topics
    # (power and cloud are both Infrastructure) that one averaged vector would blur
    similarity = np.full((n, labels), -1.0, dtype=np.float64)
    for label in range(labels):
        similarity[:, label] = cosines[:, owners == label].max(axis=1)
    evidence = np.stack([keyword_evidence(t, taxonomy) for t in texts])
    return ThemeScores(ids, similarity, evidence)


def labels_from_scores(
    scores: ThemeScores, taxonomy: ThemeTaxonomy, params: TaggingParams = DEFAULT_PARAMS
) -> pl.DataFrame:
    """The tags (``THEME_TAGS``) the thresholds in ``params`` give for precomputed scores
    (computed with the same ``taxonomy``).

    Within an axis, labels are ordered by score descending, then taxonomy order.
    """
    themes = taxonomy.themes
    combined = scores.similarity + params.keyword_weight * np.minimum(
        scores.evidence, params.evidence_cap
    )
    # round so labels and their order never hinge on float noise in the last bits
    combined = np.round(combined, 9)
    columns: dict[str, list[list[str]]] = {}
    for axis in AXES:
        idx = [i for i, t in enumerate(themes) if t.axis == axis]
        part = combined[:, idx]
        tags: list[list[str]] = []
        for row in part:
            best = float(row.max()) if len(row) else 0.0
            chosen = [
                j
                for j in sorted(range(len(idx)), key=lambda j: (-row[j], j))
                if row[j] >= params.threshold and row[j] >= best - params.margin
            ][: params.max_labels]
            tags.append([themes[idx[j]].label for j in chosen])
        columns[axis] = tags
    return pl.DataFrame({SIGNAL_ID: list(scores.signal_ids), **columns}, schema=THEME_TAGS)


def tag_themes(
    signals: pl.DataFrame,
    embed: Embedder,
    taxonomy: ThemeTaxonomy,
    params: TaggingParams = DEFAULT_PARAMS,
) -> pl.DataFrame:
    """Theme labels per signal: columns ``signal_id``, ``value_chain`` and ``market_force``
    (lists of the taxonomy's labels, possibly empty), one row per input signal in input order.

    ``signals`` needs ``signal_id``, ``title`` and ``text``. Deterministic for a given encoder
    and taxonomy.
    """
    scores = score_themes(signals, embed, taxonomy, lead_chars=params.lead_chars)
    return labels_from_scores(scores, taxonomy, params)
