"""``GET /v1/signals`` (keyset-paged cards) and ``GET /v1/signals/{signal_id}`` (detail), both
answered from the snapshot's pre-rendered JSON bytes; the list's parameters are declared in
``serving.arguments``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Response

from readmodel import service
from readmodel.models import SignalDetail, SignalList, error_responses
from readmodel.responses import DEPRECATION_HEADERS
from readmodel.service import ABOUT
from serving.arguments import SIGNALS
from serving.deps import ApiKeyDep, SnapshotDep
from serving.openapi import example

router = APIRouter(tags=["signals"])

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
@SIGNALS.route
async def list_signals(
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    *,
    q: Annotated[
        str | None,
        Query(deprecated=True, description="Renamed `keyword` on 2026-06-12; ignored."),
    ] = None,
    **given: Any,
) -> Response:
    body = service.list_signals(snapshot, **SIGNALS.forward(given))
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
