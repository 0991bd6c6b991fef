"""``GET /v1/stories`` (keyset-paged, newest activity first) and ``GET /v1/stories/{story_id}``,
answered from the snapshot's pre-rendered JSON bytes; the list's parameters are declared in
``serving.arguments``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Response

from readmodel import service
from readmodel.models import StoryDetail, StoryList, error_responses
from readmodel.service import ABOUT
from serving.arguments import STORIES
from serving.deps import ApiKeyDep, SnapshotDep
from serving.openapi import example

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
@STORIES.route
async def list_stories(_principal: ApiKeyDep, snapshot: SnapshotDep, **given: Any) -> Response:
    body = service.list_stories(snapshot, **STORIES.forward(given))
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
