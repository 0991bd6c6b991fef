"""``GET /v1/search``: hybrid (BM25 + dense, RRF; signals whose title or one passage holds every
word of the query lifted when they are few) search over verified units, or units similar to a
given unit; filters apply inside every leg (docs/design.md §8)."""

from __future__ import annotations

from functools import partial
from typing import Any

from anyio import to_thread
from fastapi import APIRouter, Request, Response

from readmodel import service
from readmodel.models import SearchResults, error_responses
from readmodel.service import ABOUT
from serving.arguments import SEARCH
from serving.deps import ApiKeyDep, SnapshotDep
from serving.openapi import example

router = APIRouter(tags=["search"])

_SEARCH_400 = (
    "Here: neither or both of `q` and `similar_to`; a blank `q`; `window` with "
    "`published_after`; a lower bound later than `published_before`."
)


@router.get(
    "/search",
    response_model=SearchResults,
    response_model_exclude_none=True,
    responses=error_responses(
        400, 401, 404, 503, 429, example=example("searchUnits"), invalid=_SEARCH_400
    ),
    operation_id="searchUnits",
    summary="Search verified units",
    description=ABOUT["search"],
)
@SEARCH.route
async def search(
    request: Request, _principal: ApiKeyDep, snapshot: SnapshotDep, **given: Any
) -> Response:
    answer = partial(
        service.search, snapshot, request.app.state.query_embedder, **SEARCH.forward(given)
    )
    # embedding the query and both legs block: keep them off the event loop
    body = await to_thread.run_sync(answer, limiter=request.app.state.search_limiter)
    return Response(body, media_type="application/json")
