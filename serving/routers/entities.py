"""``GET /v1/entities`` (keyset-paged profiles), ``GET /v1/entities/trending`` and
``GET /v1/entities/{name_or_id}``, answered from the snapshot's pre-rendered JSON bytes."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from analytics.entities import EntityType
from analytics.profiles import TypePrimary
from analytics.trends import Mode
from serving import service
from serving.catalog import EntitySort
from serving.deps import ApiKeyDep, SnapshotDep
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
from serving.responses import DEFAULT_LIMIT, DEPRECATION_HEADERS, MAX_LIMIT
from serving.service import (
    ABOUT,
    DEFAULT_MIN_SIGNALS,
    MAX_NAME_CHARS,
    MAX_NAME_OR_ID_CHARS,
    MAX_THEME_CHARS,
)

router = APIRouter(tags=["entities"])


@router.get(
    "/entities",
    response_model=EntityList,
    responses=error_responses(400, 401, 404, 503, 429),
    summary="List entity profiles",
    description=ABOUT["list_entities"],
)
async def list_entities(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    theme: Annotated[
        str | None,
        Query(
            max_length=MAX_THEME_CHARS,
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
    ] = DEFAULT_MIN_SIGNALS,
    cursor: Annotated[str | None, Query(description="`next_cursor` of the last page.")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
    q: Annotated[
        str | None,
        Query(deprecated=True, description="Renamed `name` on 2026-06-12; ignored."),
    ] = None,
) -> Response:
    body = service.list_entities(
        snapshot,
        theme=theme,
        entity_type=entity_type,
        name=name,
        sort=sort,
        direction=direction,
        confidence=confidence,
        stability=stability,
        scale=scale,
        notability=notability,
        min_signals=min_signals,
        cursor=cursor,
        limit=limit,
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
    description=ABOUT["get_trending_entities"],
)
async def trending_entities(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    mode: Annotated[Mode, Query()],
    theme: Annotated[
        str | None,
        Query(max_length=MAX_THEME_CHARS, description="A canonical theme label. Unknown → 404."),
    ] = None,
    type_primary: Annotated[TypePrimary | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
) -> Response:
    body = service.trending_entities(
        snapshot, mode, theme=theme, type_primary=type_primary, limit=limit
    )
    return Response(body, media_type="application/json")


@router.get(
    "/entities/{name_or_id:path}",
    response_model=EntityProfileDetail,
    response_model_exclude_none=True,
    responses=error_responses(400, 401, 404, 503, 429),
    summary="One entity profile with related entities",
    description=ABOUT["get_entity_profile"],
)
async def get_entity(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    name_or_id: Annotated[
        str, Path(max_length=MAX_NAME_OR_ID_CHARS, description="Public id or display name.")
    ],
) -> Response:
    return Response(service.entity_profile(snapshot, name_or_id), media_type="application/json")
