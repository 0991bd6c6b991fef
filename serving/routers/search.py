"""``GET /v1/search``: hybrid (BM25 + dense, RRF) search over verified units, or units similar
to a given unit; filters apply inside both legs (DESIGN §8)."""

from __future__ import annotations

from typing import Annotated

from anyio import to_thread
from fastapi import APIRouter, Query, Request, Response

from analytics.schema import ContentType, UnitRole
from serving.deps import ApiKeyDep, SnapshotDep
from serving.errors import InvalidParameters, NotFound
from serving.models import IsoDateTime, SearchResults, error_responses
from serving.query_embedder import QueryEmbedder
from serving.responses import json_list
from serving.routers.signals import (
    EntityFilter,
    ThemeFilter,
    WindowFilter,
    published_bounds,
    resolve_filters,
)
from serving.search import SearchFilters, SearchRequest

router = APIRouter(tags=["search"])

MAX_QUERY_CHARS = 2000


@router.get(
    "/search",
    response_model=SearchResults,
    response_model_exclude_none=True,
    responses=error_responses(400, 401, 404, 503, 429),
    summary="Search verified units",
    description="Exactly one of `q` (hybrid: BM25 and MiniLM cosine, each filtered first, fused "
    "by reciprocal rank with k = 60) or `similar_to` (a unit id: cosine of stored embeddings, "
    "the unit itself excluded). `relevance_score` is the fused score or the cosine, times the "
    "recency factor `1 − b + b·2^(−age_days/30)` when `recency_boost` b > 0 (age from the "
    "snapshot's `as_of`). At most `diversity_cap` units per signal. `entity` keeps units whose "
    "own text names the entity (or a family member). Not paginated: the best `limit` hits.",
)
async def search(
    request: Request,
    _principal: ApiKeyDep,
    snapshot: SnapshotDep,
    q: Annotated[
        str | None,
        Query(min_length=1, max_length=MAX_QUERY_CHARS, description="Natural-language query."),
    ] = None,
    similar_to: Annotated[
        str | None, Query(max_length=200, description="A unit `id`; unknown → 404.")
    ] = None,
    role: Annotated[UnitRole | None, Query()] = None,
    entity: EntityFilter = None,
    theme: ThemeFilter = None,
    content_type: Annotated[ContentType | None, Query()] = None,
    published_after: Annotated[IsoDateTime | None, Query()] = None,
    published_before: Annotated[IsoDateTime | None, Query()] = None,
    window: WindowFilter = None,
    recency_boost: Annotated[float, Query(ge=0, le=1)] = 0.0,
    limit: Annotated[int, Query(ge=1, le=100)] = 10,
    diversity_cap: Annotated[int, Query(ge=1, le=100)] = 2,
) -> Response:
    if (q is None) == (similar_to is None):
        raise InvalidParameters(
            "give exactly one of q (a query) or similar_to (a unit id)",
            field="q" if q is None else "similar_to",
        )
    if q is not None and not q.strip():
        raise InvalidParameters("q is empty; give a query", field="q")
    set_filters = resolve_filters(snapshot, entity=entity, theme=theme, keyword=None)
    lower, upper = published_bounds(published_after, published_before, window, snapshot.as_of)
    index = snapshot.search
    exclude = None
    if similar_to is not None:
        exclude = index.row_of.get(similar_to)
        if exclude is None:
            shown = similar_to if len(similar_to) <= 200 else similar_to[:200] + "…"
            raise NotFound(f"unit '{shown}' not found", field="similar_to")
    filters = SearchFilters(
        role=role,
        content_type=content_type,
        theme=set_filters.get("theme"),
        entity_ids=set_filters.get("entity_ids"),
        published_from_us=lower,
        published_before_us=upper,
        exclude_row=exclude,
    )
    if exclude is not None:
        vector = index.vectors[exclude]
        text = None
    else:
        assert q is not None
        embed: QueryEmbedder = request.app.state.query_embedder
        vector = (await to_thread.run_sync(embed, [q]))[0]
        text = q
    query = SearchRequest(
        query_vector=vector,
        query_text=text,
        filters=filters,
        limit=limit,
        diversity_cap=diversity_cap,
        recency_boost=recency_boost,
    )
    hits = await to_thread.run_sync(index.search, query)
    echo = ("query", q) if q is not None else ("similar_to", similar_to)
    return Response(
        json_list("results", index.render(hits), (echo,)), media_type="application/json"
    )
