"""``GET /v1/entities`` (keyset-paged profiles), ``GET /v1/entities/trending`` and
``GET /v1/entities/{name_or_id}``, answered from the snapshot's pre-rendered JSON bytes; the
lists' parameters are declared in ``serving.arguments``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Response

from readmodel import service
from readmodel.models import EntityList, EntityProfileDetail, TrendingList, error_responses
from readmodel.responses import DEPRECATION_HEADERS
from readmodel.service import ABOUT, MAX_NAME_OR_ID_CHARS
from serving.arguments import ENTITIES, TRENDING
from serving.deps import ApiKeyDep, SnapshotDep
from serving.openapi import example

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
@ENTITIES.route
async def list_entities(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    *,
    q: Annotated[
        str | None,
        Query(deprecated=True, description="Renamed `name` on 2026-06-12; ignored."),
    ] = None,
    **given: Any,
) -> Response:
    body = service.list_entities(snapshot, **ENTITIES.forward(given))
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
@TRENDING.route
async def trending_entities(_principal: ApiKeyDep, snapshot: SnapshotDep, **given: Any) -> Response:
    body = service.trending_entities(snapshot, **TRENDING.forward(given))
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
