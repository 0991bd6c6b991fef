"""``GET /v1/stories`` (keyset-paged, newest activity first) and ``GET /v1/stories/{story_id}``,
answered from the snapshot's pre-rendered JSON bytes."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from readmodel import service
from readmodel.models import StoryDetail, StoryList, error_responses
from readmodel.responses import DEFAULT_LIMIT, MAX_LIMIT
from readmodel.service import ABOUT
from serving import filters
from serving.deps import ApiKeyDep, SnapshotDep
from serving.openapi import example
from serving.routers.signals import CURSOR, PAGE_LIMIT

router = APIRouter(tags=["stories"])

_LIST_400 = "Here: a `cursor` not issued by this endpoint; a malformed `window`."


@router.get(
    "/stories",
    response_model=StoryList,
    responses=error_responses(
        400, 401, 404, 503, 429, example=example("listStories"), invalid=_LIST_400
    ),
    operation_id="listStories",
    summary="List stories, newest activity first",
    description=ABOUT["list_stories"],
)
async def list_stories(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    entity: Annotated[str | None, filters.STORY_ENTITY.query()] = None,
    theme: Annotated[str | None, filters.STORY_THEME.query()] = None,
    window: Annotated[str | None, filters.STORY_WINDOW.query()] = None,
    min_sources: Annotated[int, filters.MIN_SOURCES.query()] = 1,
    cursor: Annotated[str | None, Query(description=CURSOR)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT, description=PAGE_LIMIT)] = DEFAULT_LIMIT,
) -> Response:
    body = service.list_stories(
        snapshot,
        entity=entity,
        theme=theme,
        window=window,
        min_sources=min_sources,
        cursor=cursor,
        limit=limit,
    )
    return Response(body, media_type="application/json")


@router.get(
    "/stories/{story_id}",
    response_model=StoryDetail,
    response_model_exclude_none=True,
    responses=error_responses(401, 404, 503, 429, example=example("getStory")),
    operation_id="getStory",
    summary="One story with its signals",
    description=ABOUT["get_story"],
)
async def get_story(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    story_id: Annotated[
        str, Path(max_length=64, description="The story's `story_id`; unknown → 404.")
    ],
) -> Response:
    return Response(service.get_story(snapshot, story_id), media_type="application/json")
