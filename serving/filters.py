"""The list filters, declared once: each one's type, bounds and what it says to a REST client
and to an MCP client. The REST routes take their query parameters from here (``query()``), the
MCP tools their arguments (``field()``) and the fast path its readers (``read``), so the three
transports take the same values under the same bounds. The texts differ where the transports
do: a REST client reads of status codes (404, 400), an MCP client of tool errors.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Annotated, Any

from fastapi import Query
from pydantic import Field, TypeAdapter, ValidationError

from analytics.entities import EntityType
from analytics.schema import ContentType
from analytics.trends import MIN_LABELLED
from readmodel.models import Confidence, Direction, IsoDateTime, Notability, Scale, Stability
from readmodel.service import (
    MAX_ENTITY_FILTER_CHARS,
    MAX_KEYWORD_CHARS,
    MAX_NAME_CHARS,
    MAX_THEME_CHARS,
    WINDOW_PATTERN,
)
from serving.openapi import THEME_MATCHING, theme_enum


class Declined(ValueError):
    """A value the route would reject or read differently: the fast path leaves it to FastAPI."""


@dataclass(frozen=True)
class ListFilter:
    """One filter: its type (``annotation``), bounds, and its texts for REST (``rest``) and
    MCP (``mcp``; None: no description, the type says it all)."""

    annotation: Any
    rest: str
    mcp: str | None = None
    max_length: int | None = None
    pattern: str | None = None
    ge: int | None = None
    le: int | None = None
    # the OpenAPI schema only (the theme labels' enum): the value is still read as a string
    rest_schema: Callable[[dict[str, Any]], None] | None = field(default=None, compare=False)

    def bounds(self) -> dict[str, Any]:
        given = {
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


_THEME_FOR_MCP = "One of the 12 canonical theme labels (any case). Unknown → error."
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
# The schema lists the 12 labels; the route also takes them in any case (THEME_MATCHING), so
# the check stays the service's and an unknown label stays a 404, not a 422.
THEME = ListFilter(
    str | None,
    rest="One of the 12 canonical theme labels (either axis). " + THEME_MATCHING,
    mcp=_THEME_FOR_MCP,
    max_length=MAX_THEME_CHARS,
    rest_schema=theme_enum,
)
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
SIGNAL_FILTERS: dict[str, ListFilter] = {
    "entity": ENTITY,
    "theme": THEME,
    "keyword": KEYWORD,
    "content_type": CONTENT_TYPE,
    "published_after": PUBLISHED_AFTER,
    "published_before": PUBLISHED_BEFORE,
    "window": WINDOW,
}
# what /v1/search filters on, of the above
SEARCH_FILTERS = (
    "entity",
    "theme",
    "content_type",
    "published_after",
    "published_before",
    "window",
)

# /v1/entities and its MCP tool
ENTITY_THEME = ListFilter(
    str | None,
    rest="Entities with at least one signal carrying this theme label. " + THEME_MATCHING,
    mcp=_THEME_FOR_MCP,
    max_length=MAX_THEME_CHARS,
    rest_schema=theme_enum,
)
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
ENTITY_FILTERS: dict[str, ListFilter] = {
    "theme": ENTITY_THEME,
    "type": ENTITY_TYPE,
    "name": NAME,
    "direction": DIRECTION,
    "confidence": CONFIDENCE,
    "stability": STABILITY,
    "scale": SCALE,
    "notability": NOTABILITY,
    "min_signals": MIN_SIGNALS,
}

# /v1/stories and its MCP tool
STORY_ENTITY = ListFilter(
    str | None,
    rest="Stories whose signals mention this entity: public id (`ent:/…`) or exact display name "
    "or alias, in any case; a family covers its members. Unknown → 404, never an empty list.",
    mcp="Public entity ID or exact display name (any case, aliases too); a family covers its "
    "members. Unknown → error.",
    max_length=MAX_ENTITY_FILTER_CHARS,
)
STORY_THEME = ListFilter(
    str | None,
    rest="Stories with a signal carrying this theme label. " + THEME_MATCHING,
    mcp=_THEME_FOR_MCP,
    max_length=MAX_THEME_CHARS,
    rest_schema=theme_enum,
)
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
STORY_FILTERS: dict[str, ListFilter] = {
    "entity": STORY_ENTITY,
    "theme": STORY_THEME,
    "window": STORY_WINDOW,
    "min_sources": MIN_SOURCES,
}
