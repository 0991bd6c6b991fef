"""``GET /v1/search``: hybrid (BM25 + dense, RRF; signals whose title or one passage holds every
word of the query lifted when they are few) search over verified units, or units similar to a
given unit; filters apply inside every leg (docs/design.md §8)."""

from __future__ import annotations

from functools import partial
from typing import Annotated

from anyio import to_thread
from fastapi import APIRouter, Query, Request, Response

from analytics.schema import UnitRole
from readmodel import service
from readmodel.models import SearchResults, error_responses
from readmodel.service import (
    ABOUT,
    DEFAULT_DIVERSITY_CAP,
    DEFAULT_SEARCH_LIMIT,
    MAX_QUERY_CHARS,
    MAX_SEARCH_LIMIT,
    MAX_UNIT_ID_CHARS,
)
from serving.deps import ApiKeyDep, SnapshotDep
from serving.openapi import example
from serving.routers.signals import (
    ContentTypeFilter,
    EntityFilter,
    PublishedAfter,
    PublishedBefore,
    ThemeFilter,
    WindowFilter,
)

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
async def search(
    request: Request,
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    q: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=MAX_QUERY_CHARS,
            description=f"Natural-language query, 1–{MAX_QUERY_CHARS} characters, not blank. "
            'Words in double quotes are a phrase (`"inference cloud"`): only signals whose '
            "title or text holds it, in that order, answer. Exactly one of `q` and "
            "`similar_to`.",
        ),
    ] = None,
    similar_to: Annotated[
        str | None,
        Query(
            max_length=MAX_UNIT_ID_CHARS,
            description="A unit `id`: units whose stored embeddings are most similar (topical, "
            "not agreement: contradicting units can match); the unit itself is excluded. "
            "Unknown → 404. Exactly one of `q` and `similar_to`.",
        ),
    ] = None,
    role: Annotated[
        UnitRole | None,
        Query(description="Only units of this role (`thesis`, `synopsis`, `argument`, `claim`)."),
    ] = None,
    entity: EntityFilter = None,
    theme: ThemeFilter = None,
    content_type: ContentTypeFilter = None,
    published_after: PublishedAfter = None,
    published_before: PublishedBefore = None,
    window: WindowFilter = None,
    recency_boost: Annotated[
        float,
        Query(
            ge=0,
            le=1,
            description="0–1: a soft preference for newer signals (scores times "
            "`1 − b + b·2^(−age_days/30)`); 0 turns it off. Never excludes older units.",
        ),
    ] = 0.0,
    limit: Annotated[
        int,
        Query(
            ge=1,
            le=MAX_SEARCH_LIMIT,
            description=f"How many hits to return, 1–{MAX_SEARCH_LIMIT} (the best ones).",
        ),
    ] = DEFAULT_SEARCH_LIMIT,
    diversity_cap: Annotated[
        int,
        Query(
            ge=1,
            le=MAX_SEARCH_LIMIT,
            description=f"At most this many units from one signal, 1–{MAX_SEARCH_LIMIT}.",
        ),
    ] = DEFAULT_DIVERSITY_CAP,
) -> Response:
    answer = partial(
        service.search,
        snapshot,
        request.app.state.query_embedder,
        q=q,
        similar_to=similar_to,
        role=role,
        entity=entity,
        theme=theme,
        content_type=content_type,
        published_after=published_after,
        published_before=published_before,
        window=window,
        recency_boost=recency_boost,
        limit=limit,
        diversity_cap=diversity_cap,
    )
    # embedding the query and both legs block: keep them off the event loop
    body = await to_thread.run_sync(answer, limiter=request.app.state.search_limiter)
    return Response(body, media_type="application/json")
