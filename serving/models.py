"""Response models of the /v1 API, exactly the shapes of spec §2 and §7.

Most routes return pre-rendered bytes, so these models document the contract in OpenAPI and let
tests check the bytes. Optional fields that the API omits rather than nulls are typed
``X | SkipJsonSchema[None] = None``: absent from ``required``, never ``null`` in the schema.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, Field
from pydantic.json_schema import SkipJsonSchema

from analytics.entities import EntityType
from analytics.profiles import TypePrimary
from analytics.schema import ContentType, UnitRole
from analytics.themes import Axis

_ISO_DATE_START = re.compile(r"\d{4}-\d{2}-\d{2}")


def _require_iso_8601(value: Any) -> Any:
    # Pydantic would read a bare number such as 20260301 as epoch seconds; the spec says ISO.
    if isinstance(value, str) and not _ISO_DATE_START.match(value.strip()):
        raise ValueError("expected an ISO 8601 date or date-time, e.g. 2026-03-01")
    return value


IsoDateTime = Annotated[
    datetime,
    BeforeValidator(_require_iso_8601),
    Field(description="ISO 8601 date (2026-03-01) or date-time; UTC when it has no offset."),
]


class Snippet(BaseModel):
    text: str = Field(description="Verbatim locator into the source, at most 50 characters.")
    truncated: bool


class EvidencePreview(BaseModel):
    snippets: list[Snippet]


class Verification(BaseModel):
    human_reviewed: Literal[True]


class Unit(BaseModel):
    """A verified text unit (spec §2.1)."""

    id: str
    role: UnitRole
    text: str
    argument_id: str | SkipJsonSchema[None] = Field(
        default=None, description="Only when role=argument; shared by one argument's units."
    )
    entities: list[str] | SkipJsonSchema[None] = None
    verification: Verification | SkipJsonSchema[None] = Field(
        default=None, description="Present only when a human reviewer approved the unit."
    )
    evidence_preview: EvidencePreview | SkipJsonSchema[None] = None


class Themes(BaseModel):
    value_chain: list[str]
    market_force: list[str]


class EntityRef(BaseModel):
    entity_id: str
    name: str
    type: EntityType


class SignalFields(BaseModel):
    """The fields a signal card and a signal detail share (spec §2.2, §2.3)."""

    signal_id: str
    title: str
    url: str
    published_at: datetime
    content_type: ContentType
    domain: str
    verified_unit_count: int
    themes: Themes
    entities: list[EntityRef]


class SignalCard(SignalFields):
    """An item of the signal list (spec §2.2)."""

    thesis: str | SkipJsonSchema[None] = Field(
        default=None, description="Central statement of an analysis signal."
    )
    synopsis: str | SkipJsonSchema[None] = Field(
        default=None, description="Central statement of an event signal."
    )


class SignalDetail(SignalFields):
    """One signal with its verified units (spec §2.3)."""

    units: list[Unit]


class SignalList(BaseModel):
    """A page of signal cards (spec §4.3)."""

    signals: list[SignalCard]
    has_more: bool
    next_cursor: str | None


Direction = Literal["Rising", "Stable", "Declining", "New"]
ThemeDirection = Literal["Rising", "Stable", "Declining"]
Confidence = Literal["Significant", "Insignificant"]
Stability = Literal["Volatile", "Steady"]
Scale = Literal["Large", "Medium", "Small"]
Notability = Literal["High", "Medium", "Low", "Negligible"]

_UNRATED = "Null below 8 signals (spec §8)."


class ThemeTrend(BaseModel):
    share_of_voice: float = Field(
        description="Share of all signals over the trailing 4 complete weeks."
    )
    streak: int = Field(description="Consecutive growth weeks ending at the last complete week.")
    current_week: int = Field(description="Signals in the last complete Monday–Sunday week.")
    prior_week: int = Field(description="Signals in the week before it.")


class EntityTrend(ThemeTrend):
    source_diversity: int = Field(description="Distinct source domains in the 12-week window.")


class Distributions(BaseModel):
    content_type_mix: dict[str, int] = Field(
        description="Signals per content type; both keys always present."
    )
    value_chain_distribution: dict[str, int] = Field(
        description="Signals per value-chain theme; all six labels, zeros included."
    )
    market_force_distribution: dict[str, int] = Field(
        description="Signals per market-force theme; all six labels, zeros included."
    )


class EntityProfile(Distributions):
    """An entity as the list serves it (spec §2.5, without ``related_entities``)."""

    entity_id: str = Field(description="Stable public id, `ent:/…`.")
    name: str
    type: EntityType
    wikipedia_url: str | SkipJsonSchema[None] = None
    signal_count: int
    first_seen: datetime | None = Field(description="Null only without any signal.")
    last_seen: datetime | None = Field(description="Null only without any signal.")
    trend: EntityTrend
    scale: Scale
    direction: Direction | None = Field(description=_UNRATED)
    confidence: Confidence | None = Field(description=_UNRATED)
    stability: Stability | None = Field(description=_UNRATED)
    notability: Notability | None = Field(description=_UNRATED)
    notability_reasoning: str


class RelatedEntity(BaseModel):
    entity_id: str
    name: str
    type: EntityType
    co_occurrence_count: int = Field(description="Signals containing both.")


class EntityProfileDetail(EntityProfile):
    """One entity with its top 25 related entities (spec §2.5, §4.6)."""

    related_entities: list[RelatedEntity]


class EntityList(BaseModel):
    """A page of entity profiles (spec §4.5)."""

    entities: list[EntityProfile]
    has_more: bool
    next_cursor: str | None


class TrendingTrend(BaseModel):
    momentum_wow: float
    momentum_4w: float
    acceleration: float
    z_score: float
    persistence: float
    share_of_voice: float
    share_of_voice_history: list[float] = Field(description="12 weekly shares, oldest first.")
    streak: int
    current_week: int
    prior_week: int


class TrendingItem(Distributions):
    """A trending entity (spec §4.7): its own field names."""

    entity_id: str
    display_name: str
    type_primary: TypePrimary
    signal_count: int
    first_seen: datetime
    last_seen: datetime
    trend: TrendingTrend


class TrendingList(BaseModel):
    data: list[TrendingItem]


class Theme(BaseModel):
    """A theme as the list serves it (spec §2.6, without ``related_themes``)."""

    axis: Axis
    label: str
    signal_count: int
    trend: ThemeTrend
    direction: ThemeDirection | None = Field(description=_UNRATED)
    confidence: Confidence | None = Field(description=_UNRATED)
    stability: Stability | None = Field(description=_UNRATED)
    notability: Notability | None = Field(description=_UNRATED)
    notability_reasoning: str


class RelatedTheme(BaseModel):
    axis: Axis
    label: str
    co_occurrence_count: int


class ThemeDetail(Theme):
    """One theme with the themes of both axes that share its signals (spec §4.9)."""

    related_themes: list[RelatedTheme]


class ThemeList(BaseModel):
    themes: list[Theme]


class Citation(BaseModel):
    signal_id: str
    title: str | None
    url: str | None
    domain: str | None
    published_at: datetime | None


class SearchHit(BaseModel):
    """A search result (spec §2.4): the unit exactly as in its signal's detail."""

    unit: Unit
    citation: Citation
    relevance_score: float = Field(
        description="Fused reciprocal-rank score (q) or cosine similarity (similar_to), times "
        "the recency factor when recency_boost > 0. Higher is more relevant; no fixed floor."
    )


class SearchResults(BaseModel):
    results: list[SearchHit]
    query: str | SkipJsonSchema[None] = Field(default=None, description="Echoed when q is used.")
    similar_to: str | SkipJsonSchema[None] = Field(
        default=None, description="Echoed when similar_to is used."
    )


class SnapshotInfo(BaseModel):
    id: str
    as_of: datetime
    built_at: datetime


class Health(BaseModel):
    """Liveness plus the snapshot being served (DESIGN §9)."""

    status: Literal["ok", "starting"]
    version: str
    snapshot: SnapshotInfo | None


class ErrorDetail(BaseModel):
    code: str
    message: str
    status: int
    field: str | None = None
    request_id: str | None = None
    retry_after: int | None = None
    reset: int | None = None


class ErrorBody(BaseModel):
    """The error body of every error status except 422 (spec §7)."""

    error: ErrorDetail


_ERROR_DESCRIPTIONS = {
    400: "Invalid parameters (`invalid_parameters`, `field` names the parameter).",
    401: "Missing, invalid or revoked API key (`unauthorized`).",
    404: "Unknown resource (`not_found`).",
    429: "Rate limit exceeded (`rate_limited`); `retry_after` and `reset` say until when, and "
    "the `Retry-After` and `X-RateLimit-*` headers repeat it.",
    500: "The refresh failed (`internal_error`); the snapshot served before stays.",
    503: "Temporarily unavailable (`unavailable`): no snapshot loaded yet, rate limiting "
    "unreachable, or (admin) another build running; retry after `retry_after` seconds.",
}


_RATE_LIMIT_HEADERS = {
    f"X-RateLimit-{part}-{window}": {
        "description": description.format(window=window.lower()),
        "schema": {"type": "integer"},
    }
    for window in ("Minute", "Monthly")
    for part, description in (
        ("Limit", "Requests allowed per {window} window for the key's tier."),
        ("Remaining", "Requests left in the current {window} window."),
        ("Reset", "Unix seconds at which the current {window} window resets."),
    )
}


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """``responses=`` entries documenting the error body for each status. With 429 (every
    route behind the API key), the success response and every error also document the
    ``X-RateLimit-*`` headers, and the 429 its ``Retry-After``."""
    responses: dict[int | str, dict[str, Any]] = {
        status: {"model": ErrorBody, "description": _ERROR_DESCRIPTIONS[status]}
        for status in statuses
    }
    if 429 in statuses:
        responses[200] = {"headers": _RATE_LIMIT_HEADERS}
        for status in statuses:
            if status != 401:  # no valid key, no quota to report
                responses[status]["headers"] = dict(_RATE_LIMIT_HEADERS)
        responses[429]["headers"]["Retry-After"] = {
            "description": "Seconds until the exceeded window resets (1–60 for the minute).",
            "schema": {"type": "integer"},
        }
    return responses


class MaterializedViews(BaseModel):
    views_refreshed: int = Field(description="How many derived views were re-materialized.")
    views: list[str] = Field(description="Their names (Dagster asset keys).")


class Embeddings(BaseModel):
    units_embedded: int = Field(description="Units embedded by this refresh (new since the last).")


class RefreshResult(BaseModel):
    """``POST /v1/admin/refresh`` (spec §4.10), with the snapshot it published."""

    status: str = Field(description="`ok` when the new snapshot is being served.")
    materialized_views: MaterializedViews
    embeddings: Embeddings
    snapshot: SnapshotInfo = Field(description="The snapshot the refresh published.")
