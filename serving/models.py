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
from analytics.schema import ContentType, UnitRole

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
    429: "Rate limit exceeded (`rate_limited`).",
    503: "No snapshot loaded yet (`unavailable`); retry after `retry_after` seconds.",
}


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """``responses=`` entries documenting the error body for each status."""
    return {
        status: {"model": ErrorBody, "description": _ERROR_DESCRIPTIONS[status]}
        for status in statuses
    }
