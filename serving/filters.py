"""The list resources' filters and paging arguments, declared once: each one's type, bounds and
what it says to a REST client and to an MCP client. The REST routes take their query parameters
from here (``query()``), the MCP tools their arguments (``field()``) and the fast path its
readers (``read``), so the three transports take the same values under the same bounds; which
resource takes which, in what order, is ``serving.arguments``. The texts differ where the
transports do: a REST client reads of status codes (404, 400), an MCP client of tool errors.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Annotated, Any

from fastapi import Query
from pydantic import Field, TypeAdapter, ValidationError

from analytics.entities import EntityType
from analytics.profiles import TypePrimary
from analytics.schema import ContentType, UnitRole
from analytics.trends import MIN_LABELLED, Mode
from readmodel.catalog import EntitySort
from readmodel.models import Confidence, Direction, IsoDateTime, Notability, Scale, Stability
from readmodel.responses import MAX_LIMIT
from readmodel.service import (
    MAX_ENTITY_FILTER_CHARS,
    MAX_KEYWORD_CHARS,
    MAX_NAME_CHARS,
    MAX_QUERY_CHARS,
    MAX_SEARCH_LIMIT,
    MAX_THEME_CHARS,
    MAX_UNIT_ID_CHARS,
    WINDOW_PATTERN,
    SignalSort,
)
from serving.openapi import THEME_MATCHING, theme_enum


class Declined(ValueError):
    """A value the route would reject or read differently: the fast path leaves it to FastAPI."""


@dataclass(frozen=True)
class ListFilter:
    """One filter or paging argument: its type (``annotation``), bounds, and its texts for REST
    (``rest``) and MCP (``mcp``; None: no description, the type says it all)."""

    annotation: Any
    rest: str
    mcp: str | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    ge: int | None = None
    le: int | None = None
    # the OpenAPI schema only (the theme labels' enum): the value is still read as a string
    rest_schema: Callable[[dict[str, Any]], None] | None = field(default=None, compare=False)

    def bounds(self) -> dict[str, Any]:
        given = {
            "min_length": self.min_length,
            "max_length": self.max_length,
            "pattern": self.pattern,
            "ge": self.ge,
            "le": self.le,
        }
        return {name: value for name, value in given.items() if value is not None}

    def query(self, **extra: Any) -> Any:
        """The FastAPI ``Query`` of a route parameter (``extra``: e.g. its ``alias``)."""
        if self.rest_schema is not None:
            extra["json_schema_extra"] = self.rest_schema
        return Query(description=self.rest, **self.bounds(), **extra)

    def field(self) -> Any:
        """The pydantic ``Field`` of an MCP tool argument."""
        if self.mcp is None:
            return Field(**self.bounds())
        return Field(description=self.mcp, **self.bounds())

    @cached_property
    def _adapter(self) -> TypeAdapter[Any]:
        bounded: Any = Annotated[self.annotation, Field(**self.bounds())]
        return TypeAdapter(bounded)

    def read(self, value: str) -> Any:
        """The fast path's reading of a query string value: what the route reads, or
        ``Declined`` for a value it would refuse."""
        try:
            return self._adapter.validate_python(value)
        except ValidationError:
            raise Declined(value) from None


def _theme(rest: str) -> ListFilter:
    """A theme label filter; ``rest`` says what it selects. The schema lists the 12 labels; the
    route also takes them in any case (THEME_MATCHING), so the check stays the service's and an
    unknown label stays a 404, not a 422."""
    return ListFilter(
        str | None,
        rest=rest + " " + THEME_MATCHING,
        mcp="One of the 12 canonical theme labels (any case). Unknown → error.",
        max_length=MAX_THEME_CHARS,
        rest_schema=theme_enum,
    )


_UNRATED = f" Entities below {MIN_LABELLED} signals have no label and never match."

# /v1/signals, /v1/search and their MCP tools
ENTITY = ListFilter(
    str | None,
    rest="Public entity id (`ent:/…`) or exact display name or alias, in any case; a family "
    "covers its members. Unknown → 404, never an empty list.",
    mcp="Public entity ID or exact display name (any case, aliases too); a family covers its "
    "members. Unknown → error.",
    max_length=MAX_ENTITY_FILTER_CHARS,
)
THEME = _theme("One of the 12 canonical theme labels (either axis).")
KEYWORD = ListFilter(
    str | None,
    rest="A literal word or phrase, matched whole-word in any case against the title and the "
    "units' text; not relevance-ranked. Empty or blank → 400.",
    mcp="A literal word or phrase, matched whole-word in any case against the title and the "
    "units' text; not relevance-ranked.",
    max_length=MAX_KEYWORD_CHARS,
)
CONTENT_TYPE = ListFilter(
    ContentType | None,
    rest="`analysis` (argued positions) or `event` (factual reports).",
)
PUBLISHED_AFTER = ListFilter(
    IsoDateTime | None,
    rest="Inclusive lower bound on `published_at`: ISO 8601 date (2026-03-01) or date-time, "
    "UTC when it has no offset. 400 together with `window`, or when later than "
    "`published_before`.",
    mcp="Published at or after (ISO 8601; UTC if no offset).",
)
PUBLISHED_BEFORE = ListFilter(
    IsoDateTime | None,
    rest="Exclusive upper bound on `published_at`: ISO 8601 date or date-time, UTC when it "
    "has no offset.",
    mcp="Published before (ISO 8601; UTC if no offset).",
)
WINDOW = ListFilter(
    str | None,
    rest="Relative lower bound on `published_at`, measured back from the snapshot's `as_of`: "
    "d = days, w = weeks, m = 30-day months (e.g. 7d, 2w, 1m; 1–9999). 400 together with "
    "`published_after`.",
    mcp="Relative lower bound from the snapshot's as_of: d = days, w = weeks, m = 30-day "
    "months (e.g. 7d, 2w, 1m). Not together with published_after.",
    pattern=WINDOW_PATTERN,
)
SIGNAL_SORT = ListFilter(
    SignalSort,
    rest="`published`: newest published first (ties by `signal_id`). `changed`: the change "
    "feed, oldest change first; keep its `next_cursor` and poll with it.",
    mcp="`published`: newest first. `changed`: the change feed.",
)

# /v1/search and its MCP tool (with the signal filters but `keyword`)
QUERY = ListFilter(
    str | None,
    rest=f"Natural-language query, 1–{MAX_QUERY_CHARS} characters, not blank. Words in double "
    'quotes are a phrase (`"inference cloud"`): only signals whose title or text holds it, in '
    "that order, answer. Exactly one of `q` and `similar_to`.",
    mcp='Natural-language query; "words in double quotes" are a phrase.',
    min_length=1,
    max_length=MAX_QUERY_CHARS,
)
SIMILAR_TO = ListFilter(
    str | None,
    rest="A unit `id`: units whose stored embeddings are most similar (topical, not agreement: "
    "contradicting units can match); the unit itself is excluded. Unknown → 404. Exactly one "
    "of `q` and `similar_to`.",
    mcp="A unit `id`.",
    max_length=MAX_UNIT_ID_CHARS,
)
ROLE = ListFilter(
    UnitRole | None,
    rest="Only units of this role (`thesis`, `synopsis`, `argument`, `claim`).",
)
RECENCY_BOOST = ListFilter(
    float,
    rest="0–1: a soft preference for newer signals (scores times `1 − b + b·2^(−age_days/30)`); "
    "0 turns it off. Never excludes older units.",
    mcp="0 = off; 1 = full recency factor.",
    ge=0,
    le=1,
)
SEARCH_LIMIT = ListFilter(
    int,
    rest=f"How many hits to return, 1–{MAX_SEARCH_LIMIT} (the best ones).",
    mcp="Results.",
    ge=1,
    le=MAX_SEARCH_LIMIT,
)
DIVERSITY_CAP = ListFilter(
    int,
    rest=f"At most this many units from one signal, 1–{MAX_SEARCH_LIMIT}.",
    mcp="Units per signal.",
    ge=1,
    le=MAX_SEARCH_LIMIT,
)

# every paged list
CURSOR = ListFilter(
    str | None,
    rest="Opaque: the previous page's `next_cursor`, passed back unchanged. Omit it, or send it "
    "empty, for the first page (on the change feed: from the oldest change, so keep polling "
    "with the last non-null cursor instead). 400 when it is not a cursor this API issued, or "
    "was issued for another `sort` or endpoint.",
    mcp="`next_cursor` of the last page.",
)
LIMIT = ListFilter(int, rest=f"Page size, 1–{MAX_LIMIT}.", mcp="Page size.", ge=1, le=MAX_LIMIT)

# /v1/entities and its MCP tool
ENTITY_THEME = _theme("Entities with at least one signal carrying this theme label.")
ENTITY_TYPE = ListFilter(EntityType | None, rest="Only entities of this type.", mcp="Entity type.")
NAME = ListFilter(
    str | None,
    rest="Substring of the display name, matched in any case with runs of spaces folded. "
    "Blank → 400.",
    mcp="Substring of the display name, matched in any case.",
    max_length=MAX_NAME_CHARS,
)
DIRECTION = ListFilter(Direction | None, rest="Only entities with this `direction`." + _UNRATED)
CONFIDENCE = ListFilter(Confidence | None, rest="Only entities with this `confidence`." + _UNRATED)
STABILITY = ListFilter(Stability | None, rest="Only entities with this `stability`." + _UNRATED)
SCALE = ListFilter(
    Scale | None,
    rest=f"Only entities with this `scale` (below {MIN_LABELLED} signals: `Small`).",
)
NOTABILITY = ListFilter(Notability | None, rest="Only entities with this `notability`." + _UNRATED)
MIN_SIGNALS = ListFilter(
    int,
    rest="Minimum `signal_count`. The default 2 is the human-reviewed set; 1 adds "
    "single-signal entities and names found by discovery.",
    mcp="Minimum `signal_count`; 1 includes everything.",
    ge=1,
    le=2**31,
)
ENTITY_SORT = ListFilter(
    EntitySort,
    rest="`signal_count`: most signals first; `first_seen`: newest first; `trend`: signals in "
    "the last 4 complete weeks, most first. Ties by `entity_id`.",
)

# /v1/entities/trending and its MCP tool
MODE = ListFilter(
    Mode,
    rest="`rising`: rising share of voice, by z-score; `hot`: most signals in the last complete "
    "week; `consistent`: active in at least 9 of the 12 weeks, by persistence; `new`: newly "
    "notable, by signal count.",
    mcp="rising, hot, consistent or new.",
)
TRENDING_THEME = _theme("Only entities with a signal carrying this theme label.")
TYPE_PRIMARY = ListFilter(
    TypePrimary | None,
    rest="Coarse type: `Organization`, `Person`, `Product` (models, hardware, other) or `Other` "
    "(locations, events, regulation).",
)
TRENDING_LIMIT = ListFilter(
    int, rest=f"How many entities, 1–{MAX_LIMIT}.", mcp="Page size.", ge=1, le=MAX_LIMIT
)

# /v1/stories and its MCP tool
STORY_ENTITY = ListFilter(
    str | None,
    rest="Stories whose signals mention this entity: public id (`ent:/…`) or exact display name "
    "or alias, in any case; a family covers its members. Unknown → 404, never an empty list.",
    mcp="Public entity ID or exact display name (any case, aliases too); a family covers its "
    "members. Unknown → error.",
    max_length=MAX_ENTITY_FILTER_CHARS,
)
STORY_THEME = _theme("Stories with a signal carrying this theme label.")
STORY_WINDOW = ListFilter(
    str | None,
    rest="Stories active in the window: `last_seen` at or after the snapshot's `as_of` minus "
    "this (d = days, w = weeks, m = 30-day months; e.g. 7d, 2w, 1m; 1–9999).",
    mcp="Stories active since the snapshot's as_of minus this: d = days, w = weeks, m = 30-day "
    "months (e.g. 7d, 2w).",
    pattern=WINDOW_PATTERN,
)
MIN_SOURCES = ListFilter(
    int,
    rest="Minimum `independent_sources`; 1 (the default) includes single-signal stories.",
    mcp="Minimum independent sources; 1 includes everything.",
    ge=1,
    le=2**31,
)
