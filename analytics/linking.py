"""Mention linking: where the registry's surface forms occur in text, and which entity each names.

A ``Linker`` is built once from the registry and compiles every surface form into two
character-trie regexes (one case-exact, one case-insensitive) that prefer the longest form at
each position. Boundaries, overlaps and guards:

- **Whole words.** A mention may not start right after a word character, nor after a dot that
  follows one (``js`` in ``Node.js``); after a hyphen only when the word before the hyphen is a
  lowercase prefix and the mention starts with a letter (``ex-OpenAI``, ``non-Nvidia`` match,
  ``4o`` inside ``GPT-4o`` does not). It may not end before a word character (``Meta`` is not in
  ``metadata`` or ``Metaverse``, ``Arm`` not in ``Army``) nor before a dot that continues the name
  (``GPT-4`` is not in ``GPT-4.1``). Possessives, hyphenated compounds, slashes and brackets
  end a mention (``OpenAI's``, ``Nvidia-backed``, ``OpenAI/Microsoft``, ``(Anthropic)``).
- **Separators.** Inside a surface form, a space and a hyphen are interchangeable and may be
  any run of whitespace or hyphens (``GPT-4o`` = ``GPT 4o``, ``Google\\nDeepMind``). Unicode
  dashes, curly quotes and no-break spaces count as their ASCII forms.
- **Case.** Each alias keeps its rule (``AI21`` exact, ``openai`` any case). Forms of three
  characters or fewer are always matched exactly (``o1`` never matches ``O1``).
- **Overlaps.** The longest mention wins; at equal length the earlier one. A span that is a
  surface form of several entities goes to the one whose rule is exact, then whose display name
  it is, then the reviewed one, then the smallest id.
- **Guards.** (1) In an all-caps line (a shouted headline) exact-case forms of four characters
  or fewer do not count: ``SAM`` in ``SAM ALTMAN SAYS`` is no mention of a model. (2) An entity
  with ``extra["guard"] == "context"`` counts its single-word forms only when the same text
  also mentions an entity of its family tree or its ``extra["org"]``, or contains one of its
  ``extra["context"]`` words (comma-separated, any case, whole words). Multi-word forms are
  specific enough to count on their own. (3) A name inside an institution's or a prize's name
  is not a mention of it: ``London`` in ``University of London``, ``Netflix Prize``.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import polars as pl

from analytics.entities import Entity

SIGNAL_MENTIONS = pl.Schema({"signal_id": pl.String, "entity_id": pl.String})
UNIT_MENTIONS = pl.Schema({"unit_id": pl.String, "entity_id": pl.String})

ALWAYS_EXACT_MAX_CHARS = 3
SHOUTED_EXACT_MAX_CHARS = 4
CONTEXT_GUARD = "context"

# One-for-one replacements, so offsets in the normalized text are offsets in the original.
_CHAR_MAP = {
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d", "-"),
    **dict.fromkeys("\u2018\u2019\u201b\u02bc\u2032\uff07", "'"),
    **dict.fromkeys("\u00a0\u2007\u202f\u2009\u200a", " "),
}
# a substitution over the few such characters is much faster than str.translate on long text
_UNICODE_PUNCTUATION = re.compile("[" + "".join(_CHAR_MAP) + "]")
_SEPARATOR_RUN = re.compile(r"[\s\-]+")
_SEPARATOR_PATTERN = r"[\s\-]+"
# Where a mention may end: not before a word character, nor before a dot continuing the name.
_END = r"(?!\w|\.\w)"
# Where one may start; the dot and hyphen cases are decided in Python (see _starts_cleanly).
# A bare \b keeps the scan fast: it rejects positions inside words before the trie is tried.
_WORD_START = r"\b"
_OTHER_START = r"(?<!\w)"
_LOWERCASE_PREFIX = re.compile(r"[a-z]+$")
# A name inside an institution's or a prize's name names that, not itself: "University of
# London", "Tel Aviv University", "Netflix Prize".
_INSTITUTION_AFTER = re.compile(r"[ ]+(?:University|College|Institute|School|Prize|Award)\b")
_INSTITUTION_BEFORE = re.compile(r"\b(?:University|College|Institute|School) of[ ]+$")


class Mention(NamedTuple):
    """One occurrence of an entity in a text: character offsets and the text as written."""

    entity_id: str
    start: int
    end: int
    surface: str


class _Candidate(NamedTuple):
    start: int
    end: int
    entity_id: str
    exact: bool
    multiword: bool


@dataclass(frozen=True)
class _Guard:
    related: frozenset[str]  # entity ids whose mention vouches for this one
    words: re.Pattern[str] | None

    def holds(self, text: str, present: set[str]) -> bool:
        return bool(self.related & present) or (
            self.words is not None and self.words.search(text) is not None
        )


def _split_list(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def normalize_text(text: str) -> str:
    """Unicode dashes, quotes and spaces as ASCII, one character for one character."""
    return _UNICODE_PUNCTUATION.sub(lambda m: _CHAR_MAP[m.group()], text)


def _form_key(form: str) -> str:
    return _SEPARATOR_RUN.sub(" ", normalize_text(form).strip())


_Trie = dict[str, "_Trie"]
_TERMINAL = ""  # a key no character of a form can take


def _trie_pattern(forms: Iterable[str]) -> str:
    """An alternation over ``forms`` that shares prefixes and tries longer forms first."""
    root: _Trie = {}
    for form in forms:
        node = root
        for char in form:
            node = node.setdefault(char, {})
        node[_TERMINAL] = {}

    def render(node: _Trie) -> str:
        branches = [
            (_SEPARATOR_PATTERN if char == " " else re.escape(char)) + render(child)
            for char, child in sorted(node.items())
            if char != _TERMINAL
        ]
        if _TERMINAL in node:
            branches.append(_END)  # last: a longer form is always tried first
        return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"

    return render(root)


def _is_shouted(text: str, start: int, end: int) -> bool:
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    if any(c.islower() for c in line):  # ordinary text stops here, at its first lowercase
        return False
    rest = line[: start - line_start] + line[end - line_start :]
    return sum(c.isalpha() for c in rest) >= 3


def _inside_institution(text: str, start: int, end: int) -> bool:
    return (
        _INSTITUTION_AFTER.match(text, end) is not None
        or _INSTITUTION_BEFORE.search(text, max(0, start - 40), start) is not None
    )


def _starts_cleanly(text: str, start: int) -> bool:
    """No start inside a dotted name (``js`` in ``Node.js``); after a hyphen only for a
    lowercase prefix (``ex-OpenAI`` starts a mention, ``GPT-4o`` has none at ``4o``)."""
    if (
        start < 2
        or text[start - 1] not in ".-"
        or not (text[start - 2].isalnum() or text[start - 2] == "_")
    ):
        return True
    if text[start - 1] == ".":
        return False
    word_start = start - 1
    while word_start > 0 and (text[word_start - 1].isalnum() or text[word_start - 1] == "_"):
        word_start -= 1
    prefix = text[word_start : start - 1]
    return bool(_LOWERCASE_PREFIX.match(prefix)) and text[start].isalpha()


class _Matcher:
    """The surface forms of one case class, compiled; case-insensitive forms are stored lower
    case and matched against the lowered text (a case-insensitive regex is several times
    slower), except in the rare text whose lowering changes its length."""

    def __init__(self, forms: Mapping[str, str], *, exact: bool) -> None:
        self.forms = dict(forms)
        self.exact = exact
        word = [f for f in self.forms if f[0].isalnum() or f[0] == "_"]
        other = [f for f in self.forms if not (f[0].isalnum() or f[0] == "_")]
        self._sources = [
            f"{start}({_trie_pattern(group)})"
            for start, group in ((_WORD_START, word), (_OTHER_START, other))
            if group
        ]
        self._patterns = [re.compile(source) for source in self._sources]
        self._any_case: list[re.Pattern[str]] | None = None

    def spans(self, text: str) -> Iterator[tuple[int, int, str]]:
        """(start, end, form key) of every position's longest form, overlaps included."""
        patterns = self._patterns
        if not self.exact:
            lowered = text.lower()
            if len(lowered) == len(text):
                text = lowered
            else:
                if self._any_case is None:
                    self._any_case = [re.compile(s, re.IGNORECASE) for s in self._sources]
                patterns = self._any_case
        for pattern in patterns:
            position = 0
            # one search per start position, not finditer: a later, longer overlapping form
            # must still be seen, and the overlap is settled by length afterwards
            while (match := pattern.search(text, position)) is not None:
                start, end = match.span(1)
                key = _SEPARATOR_RUN.sub(" ", match.group(1))
                yield start, end, key if self.exact else key.lower()
                position = start + 1


# Compiled matchers by their forms: compiling a registry's alternations takes seconds, and a
# process that links several times (a build's two linkers over the same registry, a test
# session's builds, a long-lived Dagster code server) compiles each distinct set once.
_MATCHERS: dict[tuple[bool, frozenset[tuple[str, str]]], _Matcher] = {}
_MATCHERS_KEPT = 4
_matchers_lock = threading.Lock()


def _matcher(forms: Mapping[str, str], *, exact: bool) -> _Matcher:
    key = (exact, frozenset(forms.items()))
    with _matchers_lock:
        found = _MATCHERS.get(key)
    if found is None:
        found = _Matcher(forms, exact=exact)
        with _matchers_lock:
            while len(_MATCHERS) >= _MATCHERS_KEPT:
                del _MATCHERS[next(iter(_MATCHERS))]  # the oldest
            _MATCHERS[key] = found
    return found


class Linker:
    """Finds registry entities in text. Build once per registry; ``find_mentions`` is pure."""

    def __init__(self, entities: Sequence[Entity]) -> None:
        self.entities: dict[str, Entity] = {e.entity_id: e for e in entities}
        exact: dict[str, list[tuple[tuple[int, int, int, str], str]]] = {}
        folded: dict[str, list[tuple[tuple[int, int, int, str], str]]] = {}
        for entity in entities:
            for alias in entity.surface_forms():
                key = _form_key(alias.text)
                if not key:
                    continue
                is_exact = alias.case == "exact" or len(key) <= ALWAYS_EXACT_MAX_CHARS
                # lower sorts first: exact rule, display name, reviewed, then the id
                rank = (
                    0 if is_exact else 1,
                    0 if _form_key(entity.name).lower() == key.lower() else 1,
                    0 if entity.reviewed else 1,
                    entity.entity_id,
                )
                table = exact if is_exact else folded
                table.setdefault(key if is_exact else key.lower(), []).append(
                    (rank, entity.entity_id)
                )
        self._exact = {k: min(v)[1] for k, v in exact.items()}
        self._folded = {k: min(v)[1] for k, v in folded.items()}
        self._matchers = [
            _matcher(self._exact, exact=True),
            _matcher(self._folded, exact=False),
        ]
        self._guards = self._build_guards(entities)

    def _build_guards(self, entities: Sequence[Entity]) -> dict[str, _Guard]:
        by_key = {e.key: e.entity_id for e in entities}
        parent = {e.entity_id: e.family for e in entities if e.family in self.entities}

        def root(entity_id: str) -> str:
            seen = {entity_id}
            while (up := parent.get(entity_id)) is not None and up not in seen:
                seen.add(up)
                entity_id = up
            return entity_id

        index = EntityIndex(entities)
        guards: dict[str, _Guard] = {}
        for entity in entities:
            if entity.extra.get("guard") != CONTEXT_GUARD:
                continue
            related = index.family(root(entity.entity_id)) - {entity.entity_id}
            for ref in _split_list(entity.extra.get("org", "")):
                related |= index.family(by_key.get(ref, ref))
            words = _split_list(entity.extra.get("context", ""))
            pattern = (
                re.compile(
                    r"(?<!\w)(?:" + "|".join(re.escape(w) for w in words) + r")(?!\w)",
                    re.IGNORECASE,
                )
                if words
                else None
            )
            guards[entity.entity_id] = _Guard(frozenset(related), pattern)
        return guards

    def is_surface_form(self, phrase: str) -> bool:
        """Whether ``phrase`` is (by its case rule) one of the registry's surface forms."""
        key = _form_key(phrase)
        return key in self._exact or key.lower() in self._folded

    def _candidates(self, text: str) -> list[_Candidate]:
        found: list[_Candidate] = []
        for matcher in self._matchers:
            for start, end, key in matcher.spans(text):
                entity_id = matcher.forms.get(key)
                if entity_id is not None and _starts_cleanly(text, start):
                    found.append(_Candidate(start, end, entity_id, matcher.exact, " " in key))
        return found

    def find_mentions(self, text: str, *, vouched: Collection[str] = ()) -> list[Mention]:
        """Mentions of registry entities in ``text``, in order, non-overlapping, guarded.

        ``vouched`` entities pass their context guard without further evidence (a unit whose
        signal already satisfied the guard).
        """
        normalized = normalize_text(text)
        candidates = self._candidates(normalized)
        # longest first; at equal length the earlier, then the exact-case form
        candidates.sort(key=lambda c: (c.start - c.end, c.start, not c.exact))
        taken: list[_Candidate] = []
        occupied = bytearray(len(normalized))
        for candidate in candidates:
            if any(occupied[candidate.start : candidate.end]):
                continue
            occupied[candidate.start : candidate.end] = b"\x01" * (candidate.end - candidate.start)
            if not (
                candidate.exact
                and candidate.end - candidate.start <= SHOUTED_EXACT_MAX_CHARS
                and _is_shouted(normalized, candidate.start, candidate.end)
            ) and not _inside_institution(normalized, candidate.start, candidate.end):
                taken.append(candidate)
        present = {c.entity_id for c in taken}
        spelled_out = {c.entity_id for c in taken if c.multiword}
        kept = [
            c
            for c in taken
            if c.multiword
            or c.entity_id not in self._guards
            or c.entity_id in vouched
            or c.entity_id in spelled_out
            or self._guards[c.entity_id].holds(normalized, present)
        ]
        kept.sort(key=lambda c: c.start)
        return [Mention(c.entity_id, c.start, c.end, text[c.start : c.end]) for c in kept]

    def entity_ids(self, text: str, *, vouched: Collection[str] = ()) -> list[str]:
        """The distinct entities mentioned in ``text``, sorted."""
        return sorted({m.entity_id for m in self.find_mentions(text, vouched=vouched)})

    def link_signals(self, signals: pl.DataFrame) -> pl.DataFrame:
        """Signal-level mentions over title and text: one row per (signal, entity), sorted."""
        rows = [
            (signal_id, entity_id)
            for signal_id, title, text in signals.select("signal_id", "title", "text").iter_rows()
            for entity_id in self.entity_ids(f"{title or ''}\n{text or ''}")
        ]
        return pl.DataFrame(rows, schema=SIGNAL_MENTIONS, orient="row").sort(
            "signal_id", "entity_id"
        )

    def link_units(
        self, units: pl.DataFrame, *, signal_mentions: pl.DataFrame | None = None
    ) -> pl.DataFrame:
        """Unit-level mentions: the unit text literally contains a surface form of the entity.

        A guarded entity's single-word form in a unit counts when the unit itself satisfies the
        guard or, given ``signal_mentions`` (``link_signals`` output), when the unit's signal
        was linked to that entity: the context that vouches for it is usually elsewhere.
        """
        by_signal: dict[str, set[str]] = {}
        if signal_mentions is not None:
            for signal_id, entity_id in signal_mentions.iter_rows():
                by_signal.setdefault(signal_id, set()).add(entity_id)
        rows = [
            (unit_id, entity_id)
            for unit_id, signal_id, text in units.select("unit_id", "signal_id", "text").iter_rows()
            for entity_id in self.entity_ids(text or "", vouched=by_signal.get(signal_id, ()))
        ]
        return pl.DataFrame(rows, schema=UNIT_MENTIONS, orient="row").sort("unit_id", "entity_id")


class EntityIndex:
    """Resolves what a client sends as an entity filter — a public id, a display name in any
    case, or an alias (by its case rule first, then in any case: case rules keep running text
    from false hits, an explicit query means what it says) — and expands a family to its
    members. Ties go to reviewed entries, then to the smallest id. Built once per snapshot."""

    def __init__(self, entities: Sequence[Entity]) -> None:
        self.by_id = {e.entity_id: e for e in entities}
        self._by_name: dict[str, Entity] = {}
        self._by_alias_exact: dict[str, Entity] = {}
        self._by_alias_folded: dict[str, Entity] = {}
        self._by_alias_any_case: dict[str, Entity] = {}
        for entity in sorted(entities, key=lambda e: (not e.reviewed, e.entity_id)):
            self._by_name.setdefault(_form_key(entity.name).lower(), entity)
            for alias in entity.aliases:
                key = _form_key(alias.text)
                if alias.case == "exact":
                    self._by_alias_exact.setdefault(key, entity)
                else:
                    self._by_alias_folded.setdefault(key.lower(), entity)
                self._by_alias_any_case.setdefault(key.lower(), entity)
        self._children: dict[str, list[str]] = {}
        for entity in entities:
            if entity.family is not None and entity.family != entity.entity_id:
                self._children.setdefault(entity.family, []).append(entity.entity_id)

    def resolve(self, query: str) -> Entity | None:
        wanted = _form_key(query)
        if not wanted:
            return None
        if wanted in self.by_id:
            return self.by_id[wanted]
        folded = wanted.lower()
        return (
            self._by_name.get(folded)
            or self._by_alias_exact.get(wanted)
            or self._by_alias_folded.get(folded)
            or self._by_alias_any_case.get(folded)
        )

    def family(self, entity_id: str) -> set[str]:
        """The entity and all its descendants; a cycle in a hand-edited registry cannot hang."""
        found, stack = {entity_id}, [entity_id]
        while stack:
            for child in self._children.get(stack.pop(), ()):
                if child not in found:
                    found.add(child)
                    stack.append(child)
        return found


def family_closure(entities: Sequence[Entity]) -> dict[str, set[str]]:
    """Entity id → itself and all its descendants, so a family name covers its members."""
    index = EntityIndex(entities)
    return {e.entity_id: index.family(e.entity_id) for e in entities}


def resolve_entity(query: str, entities: Sequence[Entity]) -> Entity | None:
    """The entity a filter value names (see ``EntityIndex.resolve``); family coverage is the
    caller's (``family_closure``)."""
    return EntityIndex(entities).resolve(query)
