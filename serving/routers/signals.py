"""``GET /v1/signals`` (keyset-paged cards) and ``GET /v1/signals/{signal_id}`` (detail), both
answered from the snapshot's pre-rendered JSON bytes."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from analytics.schema import ContentType
from serving import service
from serving.deps import ApiKeyDep, SnapshotDep
from serving.models import IsoDateTime, SignalDetail, SignalList, error_responses
from serving.responses import DEFAULT_LIMIT, DEPRECATION_HEADERS, MAX_LIMIT
from serving.service import (
    ABOUT,
    MAX_ENTITY_FILTER_CHARS,
    MAX_KEYWORD_CHARS,
    MAX_THEME_CHARS,
    WINDOW_PATTERN,
    SignalSort,
)

router = APIRouter(tags=["signals"])

# The filters /v1/signals and /v1/search share, declared once.
EntityFilter = Annotated[
    str | None,
    Query(
        max_length=MAX_ENTITY_FILTER_CHARS,
        description="Public entity ID or exact display name (any case, aliases too); a family "
        "covers its members. Unknown → 404.",
    ),
]
ThemeFilter = Annotated[
    str | None,
    Query(
        max_length=MAX_THEME_CHARS,
        description="One of the 12 canonical theme labels. Unknown → 404.",
    ),
]
WindowFilter = Annotated[
    str | None,
    Query(
        pattern=WINDOW_PATTERN,
        description="Relative lower bound from the snapshot's as_of: d = days, w = weeks, "
        "m = 30-day months (e.g. 7d, 2w, 1m). Not together with published_after.",
    ),
]


@router.get(
    "/signals",
    response_model=SignalList,
    responses=error_responses(400, 401, 404, 503, 429),
    summary="List signals, newest first",
    description=ABOUT["list_signals"],
)
async def list_signals(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    entity: EntityFilter = None,
    theme: ThemeFilter = None,
    keyword: Annotated[
        str | None,
        Query(
            max_length=MAX_KEYWORD_CHARS,
            description="A literal word or phrase, matched whole-word in any case against the "
            "title and the units' text; not relevance-ranked.",
        ),
    ] = None,
    content_type: Annotated[ContentType | None, Query()] = None,
    published_after: Annotated[IsoDateTime | None, Query()] = None,
    published_before: Annotated[IsoDateTime | None, Query()] = None,
    window: WindowFilter = None,
    sort: Annotated[
        SignalSort,
        Query(description="`published`: newest first. `changed`: the change feed."),
    ] = "published",
    cursor: Annotated[str | None, Query(description="`next_cursor` of the last page.")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
    q: Annotated[
        str | None,
        Query(deprecated=True, description="Renamed `keyword` on 2026-06-12; ignored."),
    ] = None,
) -> Response:
    body = service.list_signals(
        snapshot,
        entity=entity,
        theme=theme,
        keyword=keyword,
        content_type=content_type,
        published_after=published_after,
        published_before=published_before,
        window=window,
        sort=sort,
        cursor=cursor,
        limit=limit,
    )
    headers = DEPRECATION_HEADERS if q is not None else None
    return Response(body, media_type="application/json", headers=headers)


@router.get(
    "/signals/{signal_id}",
    response_model=SignalDetail,
    response_model_exclude_none=True,
    responses=error_responses(401, 404, 503, 429),
    summary="One signal with its verified units",
    description=ABOUT["get_signal"],
)
async def get_signal(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    signal_id: Annotated[str, Path(description="The signal's `signal_id`.")],
) -> Response:
    return Response(service.get_signal(snapshot, signal_id), media_type="application/json")
