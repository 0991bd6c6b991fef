"""``GET /v1/signals`` (keyset-paged cards) and ``GET /v1/signals/{signal_id}`` (detail), both
answered from the snapshot's pre-rendered JSON bytes; the filter parameters and descriptions
``/v1/search`` shares are declared here (from ``serving.filters``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from analytics.schema import ContentType
from readmodel import service
from readmodel.models import IsoDateTime, SignalDetail, SignalList, error_responses
from readmodel.responses import DEFAULT_LIMIT, DEPRECATION_HEADERS, MAX_LIMIT
from readmodel.service import ABOUT, SignalSort
from serving import filters
from serving.deps import ApiKeyDep, SnapshotDep
from serving.openapi import example

router = APIRouter(tags=["signals"])

# The filters /v1/signals and /v1/search share (their declarations: ``serving.filters``).
EntityFilter = Annotated[str | None, filters.ENTITY.query()]
ThemeFilter = Annotated[str | None, filters.THEME.query()]
WindowFilter = Annotated[str | None, filters.WINDOW.query()]
ContentTypeFilter = Annotated[ContentType | None, filters.CONTENT_TYPE.query()]
PublishedAfter = Annotated[IsoDateTime | None, filters.PUBLISHED_AFTER.query()]
PublishedBefore = Annotated[IsoDateTime | None, filters.PUBLISHED_BEFORE.query()]
KeywordFilter = Annotated[str | None, filters.KEYWORD.query()]
PAGE_LIMIT = f"Page size, 1–{MAX_LIMIT}."
CURSOR = (
    "Opaque: the previous page's `next_cursor`, passed back unchanged. Omit it, or send it "
    "empty, for the first page (on the change feed: from the oldest change, so keep polling "
    "with the last non-null cursor instead). 400 when it is not a cursor this API issued, or "
    "was issued for another `sort` or endpoint."
)
_SIGNALS_400 = (
    "Here: `window` with `published_after`; a lower bound later than `published_before`; an "
    "empty `keyword`; a `cursor` not issued by this API or issued for another `sort`."
)


@router.get(
    "/signals",
    response_model=SignalList,
    responses=error_responses(
        400, 401, 404, 503, 429, example=example("listSignals"), invalid=_SIGNALS_400
    ),
    operation_id="listSignals",
    summary="List signals, newest first",
    description=ABOUT["list_signals"],
)
async def list_signals(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    entity: EntityFilter = None,
    theme: ThemeFilter = None,
    keyword: KeywordFilter = None,
    content_type: ContentTypeFilter = None,
    published_after: PublishedAfter = None,
    published_before: PublishedBefore = None,
    window: WindowFilter = None,
    sort: Annotated[
        SignalSort,
        Query(
            description="`published`: newest published first (ties by `signal_id`). `changed`: "
            "the change feed, oldest change first; keep its `next_cursor` and poll with it."
        ),
    ] = "published",
    cursor: Annotated[str | None, Query(description=CURSOR)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT, description=PAGE_LIMIT)] = DEFAULT_LIMIT,
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
    responses=error_responses(401, 404, 503, 429, example=example("getSignal")),
    operation_id="getSignal",
    summary="One signal with its verified units",
    description=ABOUT["get_signal"],
)
async def get_signal(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    signal_id: Annotated[str, Path(description="The signal's `signal_id`; unknown → 404.")],
) -> Response:
    return Response(service.get_signal(snapshot, signal_id), media_type="application/json")
