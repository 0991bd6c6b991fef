"""``GET /v1/entities`` (keyset-paged profiles), ``GET /v1/entities/trending`` and
``GET /v1/entities/{name_or_id}``, answered from the snapshot's pre-rendered JSON bytes."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from analytics.entities import EntityType
from analytics.profiles import TypePrimary
from analytics.trends import Mode
from readmodel import service
from readmodel.catalog import EntitySort
from readmodel.models import (
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
from readmodel.responses import DEFAULT_LIMIT, DEPRECATION_HEADERS, MAX_LIMIT
from readmodel.service import (
    ABOUT,
    DEFAULT_MIN_SIGNALS,
    MAX_NAME_OR_ID_CHARS,
    MAX_THEME_CHARS,
)
from serving import filters
from serving.deps import ApiKeyDep, SnapshotDep
from serving.openapi import THEME_MATCHING, example, theme_enum
from serving.routers.signals import CURSOR, PAGE_LIMIT

router = APIRouter(tags=["entities"])

_LIST_400 = "Here: a blank `name`; a `cursor` not issued by this API or issued for another `sort`."


@router.get(
    "/entities",
    response_model=EntityList,
    responses=error_responses(
        400, 401, 404, 503, 429, example=example("listEntities"), invalid=_LIST_400
    ),
    operation_id="listEntities",
    summary="List entity profiles",
    description=ABOUT["list_entities"],
)
async def list_entities(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    theme: Annotated[str | None, filters.ENTITY_THEME.query()] = None,
    entity_type: Annotated[EntityType | None, filters.ENTITY_TYPE.query(alias="type")] = None,
    name: Annotated[str | None, filters.NAME.query()] = None,
    sort: Annotated[
        EntitySort,
        Query(
            description="`signal_count`: most signals first; `first_seen`: newest first; "
            "`trend`: signals in the last 4 complete weeks, most first. Ties by `entity_id`."
        ),
    ] = "signal_count",
    direction: Annotated[Direction | None, filters.DIRECTION.query()] = None,
    confidence: Annotated[Confidence | None, filters.CONFIDENCE.query()] = None,
    stability: Annotated[Stability | None, filters.STABILITY.query()] = None,
    scale: Annotated[Scale | None, filters.SCALE.query()] = None,
    notability: Annotated[Notability | None, filters.NOTABILITY.query()] = None,
    min_signals: Annotated[int, filters.MIN_SIGNALS.query()] = DEFAULT_MIN_SIGNALS,
    cursor: Annotated[str | None, Query(description=CURSOR)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT, description=PAGE_LIMIT)] = DEFAULT_LIMIT,
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
# an entity name (docs/design.md §9).
@router.get(
    "/entities/trending",
    response_model=TrendingList,
    responses=error_responses(401, 404, 503, 429, example=example("getTrendingEntities")),
    operation_id="getTrendingEntities",
    summary="Trending entities",
    description=ABOUT["get_trending_entities"],
)
async def trending_entities(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    mode: Annotated[
        Mode,
        Query(
            description="`rising`: rising share of voice, by z-score; `hot`: most signals in "
            "the last complete week; `consistent`: active in at least 9 of the 12 weeks, by "
            "persistence; `new`: newly notable, by signal count."
        ),
    ],
    theme: Annotated[
        str | None,
        Query(
            max_length=MAX_THEME_CHARS,
            description="Only entities with a signal carrying this theme label. " + THEME_MATCHING,
            json_schema_extra=theme_enum,
        ),
    ] = None,
    type_primary: Annotated[
        TypePrimary | None,
        Query(
            description="Coarse type: `Organization`, `Person`, `Product` (models, hardware, "
            "other) or `Other` (locations, events, regulation)."
        ),
    ] = None,
    limit: Annotated[
        int, Query(ge=1, le=MAX_LIMIT, description=f"How many entities, 1–{MAX_LIMIT}.")
    ] = DEFAULT_LIMIT,
) -> Response:
    body = service.trending_entities(
        snapshot, mode, theme=theme, type_primary=type_primary, limit=limit
    )
    return Response(body, media_type="application/json")


@router.get(
    "/entities/{name_or_id:path}",
    response_model=EntityProfileDetail,
    response_model_exclude_none=True,
    responses=error_responses(
        400,
        401,
        404,
        503,
        429,
        example=example("getEntity"),
        invalid="Here: an internal `type:key` id instead of the public `ent:/…` one.",
    ),
    operation_id="getEntity",
    summary="One entity profile with related entities",
    description=ABOUT["get_entity_profile"],
)
async def get_entity(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    name_or_id: Annotated[
        str,
        Path(
            max_length=MAX_NAME_OR_ID_CHARS,
            description="Public id (`ent:/…`, raw or URL-encoded) or URL-encoded display name "
            "or alias, in any case. Unknown → 404.",
        ),
    ],
) -> Response:
    return Response(service.entity_profile(snapshot, name_or_id), media_type="application/json")
