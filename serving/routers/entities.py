"""``GET /v1/entities`` (keyset-paged profiles), ``GET /v1/entities/trending`` and
``GET /v1/entities/{name_or_id}``, answered from the snapshot's pre-rendered JSON bytes."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from analytics.entities import EntityType, is_internal_key
from analytics.profiles import TypePrimary
from analytics.trends import Mode
from serving.catalog import EntityQuery, EntitySort
from serving.cursor import decode_entities, encode_entities
from serving.deps import ApiKeyDep, SnapshotDep
from serving.errors import InvalidParameters, NotFound
from serving.models import (
    Confidence,
    Direction,
    EntityList,
    EntityProfileDetail,
    Notability,
    Scale,
    Stability,
    TrendingList,
    error_responses,
)
from serving.responses import DEFAULT_LIMIT, DEPRECATION_HEADERS, MAX_LIMIT, json_list
from serving.routers.signals import canonical_theme
from serving.store import LoadedSnapshot

router = APIRouter(tags=["entities"])

MAX_NAME_CHARS = 200


def _shown(value: str) -> str:
    return value if len(value) <= 200 else value[:200] + "…"


@router.get(
    "/entities",
    response_model=EntityList,
    responses=error_responses(400, 401, 404, 503, 429),
    summary="List entity profiles",
    description="Cursor-paginated entity profiles without `related_entities`. Pass "
    "`next_cursor` back as `cursor` until `has_more` is false; a cursor only works with the "
    "`sort` that issued it. The default `min_signals=2` returns the human-reviewed set; "
    "`min_signals=1` adds single-signal entities and unreviewed names found by discovery. "
    "Sorts: `signal_count` (most first), `first_seen` (newest first), `trend` (share of voice, "
    "highest first); ties go to `entity_id` ascending. Label filters match nothing below 8 "
    "signals, where labels are null.",
)
async def list_entities(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    theme: Annotated[
        str | None,
        Query(
            max_length=200,
            description="A canonical theme label: entities with at least one signal carrying "
            "it. Unknown → 404.",
        ),
    ] = None,
    entity_type: Annotated[EntityType | None, Query(alias="type")] = None,
    name: Annotated[
        str | None,
        Query(
            max_length=MAX_NAME_CHARS,
            description="Substring of the display name, matched in any case.",
        ),
    ] = None,
    sort: Annotated[EntitySort, Query()] = "signal_count",
    direction: Annotated[Direction | None, Query()] = None,
    confidence: Annotated[Confidence | None, Query()] = None,
    stability: Annotated[Stability | None, Query()] = None,
    scale: Annotated[Scale | None, Query()] = None,
    notability: Annotated[Notability | None, Query()] = None,
    min_signals: Annotated[
        int,
        Query(ge=1, le=2**31, description="Minimum `signal_count`; 1 includes everything."),
    ] = 2,
    cursor: Annotated[str | None, Query(description="`next_cursor` of the last page.")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
    q: Annotated[
        str | None,
        Query(deprecated=True, description="Renamed `name` on 2026-06-12; ignored."),
    ] = None,
) -> Response:
    folded = None
    if name is not None:
        folded = " ".join(name.split()).casefold()
        if not folded:
            raise InvalidParameters("name is empty; give part of a display name", field="name")
    labels = tuple(
        (field, value)
        for field, value in (
            ("direction", direction),
            ("confidence", confidence),
            ("stability", stability),
            ("scale", scale),
            ("notability", notability),
        )
        if value is not None
    )
    query = EntityQuery(
        sort=sort,
        min_signals=min_signals,
        type=entity_type,
        name=folded,
        theme=canonical_theme(theme),
        labels=labels,
        after=None if cursor is None else decode_entities(cursor, sort),
    )
    page = snapshot.entities.page(query, limit)
    next_cursor = None if page.last is None else encode_entities(sort, page.last)
    body = json_list(
        "entities", page.items, extra=(("has_more", page.has_more), ("next_cursor", next_cursor))
    )
    headers = DEPRECATION_HEADERS if q is not None else None
    return Response(body, media_type="application/json", headers=headers)


# Declared before the profile route, whose path converter would otherwise read "trending" as
# an entity name (DESIGN §9).
@router.get(
    "/entities/trending",
    response_model=TrendingList,
    responses=error_responses(401, 404, 503, 429),
    summary="Trending entities",
    description="Entities with at least 2 signals, reviewed set. `rising`: 4-week momentum "
    "above 0 and at least 2 signals in the last complete week, by z-score; `hot`: by "
    "signals in the last complete week; `consistent`: active in at least 9 of the 12 weeks, "
    "by persistence; `new`: first seen in the last 4 complete weeks, by signal count. Ties "
    "end on `entity_id`. Field names differ from the entity list (spec §4.7).",
)
async def trending_entities(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    mode: Annotated[Mode, Query()],
    theme: Annotated[
        str | None,
        Query(max_length=200, description="A canonical theme label. Unknown → 404."),
    ] = None,
    type_primary: Annotated[TypePrimary | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
) -> Response:
    items = snapshot.entities.trending(
        mode, limit, theme=canonical_theme(theme), type_primary=type_primary
    )
    return Response(json_list("data", items), media_type="application/json")


def find_entity(snapshot: LoadedSnapshot, name_or_id: str) -> int:
    """The catalog row a path names: a public id (raw or URL-encoded) or a display name or
    alias; an internal ``type:key`` id is 400, anything unknown 404."""
    value = name_or_id.strip()
    if is_internal_key(value):
        public = next(
            (e.entity_id for e in snapshot.entity_index.by_id.values() if e.key == value), None
        )
        hint = f" ('{public}')" if public else ""
        raise InvalidParameters(
            f"'{_shown(value)}' is an internal id; use the public entity_id{hint} or the "
            "display name",
            field="name_or_id",
        )
    found = snapshot.entity_index.resolve(value)
    row = None if found is None else snapshot.entities.row_of.get(found.entity_id)
    if row is None:
        raise NotFound(f"entity '{_shown(value)}' not found")
    return row


@router.get(
    "/entities/{name_or_id:path}",
    response_model=EntityProfileDetail,
    response_model_exclude_none=True,
    responses=error_responses(400, 401, 404, 503, 429),
    summary="One entity profile with related entities",
    description="By public id (`ent:/…`, raw or URL-encoded) or URL-encoded display name or "
    "alias, whatever its signal count. `related_entities`: top 25 by signals in common.",
)
async def get_entity(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    name_or_id: Annotated[str, Path(max_length=500, description="Public id or display name.")],
) -> Response:
    row = find_entity(snapshot, name_or_id)
    return Response(snapshot.entities.profile_json[row], media_type="application/json")
