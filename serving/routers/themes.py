"""``GET /v1/themes`` and ``GET /v1/themes/{axis}/{label}``: the 12 canonical themes, answered
from the snapshot's pre-rendered JSON bytes."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from analytics.themes import Axis, UnknownTheme, resolve_theme
from serving.deps import ApiKeyDep, SnapshotDep
from serving.errors import NotFound
from serving.models import ThemeDetail, ThemeList, error_responses
from serving.responses import json_list

router = APIRouter(tags=["themes"])


@router.get(
    "/themes",
    response_model=ThemeList,
    responses=error_responses(401, 503, 429),
    summary="The 12 themes",
    description="Both axes in canonical order (value chain first), or one axis. Not paginated.",
)
async def list_themes(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    axis: Annotated[Axis | None, Query()] = None,
) -> Response:
    return Response(
        json_list("themes", snapshot.themes.listed(axis)), media_type="application/json"
    )


@router.get(
    "/themes/{axis}/{label}",
    response_model=ThemeDetail,
    responses=error_responses(401, 404, 503, 429),
    summary="One theme with related themes",
    description="`label` is a URL-encoded canonical label, matched in any case (e.g. "
    "`/v1/themes/market_force/Capital%20%26%20Investment`). Shorthands such as `C&I` are "
    "unknown labels: 404, whose message names the canonical label.",
)
async def get_theme(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    axis: Annotated[Axis, Path()],
    label: Annotated[str, Path(max_length=200)],
) -> Response:
    try:
        found_axis, canonical = resolve_theme(label, axis)
    except UnknownTheme as exc:
        raise NotFound(str(exc)) from None
    body = snapshot.themes.theme_json.get((found_axis, canonical))
    if body is None:  # a snapshot always carries all 12; say so rather than answer 500
        raise NotFound(f"theme '{axis}/{canonical}' is not in this snapshot")
    return Response(body, media_type="application/json")
