"""``GET /v1/themes`` and ``GET /v1/themes/{axis}/{label}``: the 12 canonical themes, answered
from the snapshot's pre-rendered JSON bytes."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from analytics.themes import Axis
from readmodel import service
from readmodel.models import ThemeDetail, ThemeList, error_responses
from readmodel.service import ABOUT, MAX_THEME_CHARS
from serving.deps import ApiKeyDep, SnapshotDep
from serving.openapi import THEME_MATCHING, example, theme_enum

router = APIRouter(tags=["themes"])


@router.get(
    "/themes",
    response_model=ThemeList,
    responses=error_responses(401, 503, 429, example=example("listThemes")),
    operation_id="listThemes",
    summary="The 12 themes",
    description=ABOUT["get_themes"],
)
async def list_themes(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    axis: Annotated[
        Axis | None,
        Query(description="Only this axis (6 themes); both when omitted (12, value chain first)."),
    ] = None,
) -> Response:
    return Response(service.list_themes(snapshot, axis), media_type="application/json")


@router.get(
    "/themes/{axis}/{label}",
    response_model=ThemeDetail,
    responses=error_responses(401, 404, 503, 429, example=example("getTheme")),
    operation_id="getTheme",
    summary="One theme with related themes",
    description=ABOUT["get_theme"],
)
async def get_theme(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    axis: Annotated[Axis, Path(description="The axis the label belongs to.")],
    label: Annotated[
        str,
        Path(
            max_length=MAX_THEME_CHARS,
            description="A canonical theme label of that axis; on the other axis → 404. "
            + THEME_MATCHING,
            json_schema_extra=theme_enum,
        ),
    ],
) -> Response:
    return Response(service.get_theme(snapshot, axis, label), media_type="application/json")
