import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.http_validation_error import HTTPValidationError
from ...models.search_results import SearchResults
from ...models.search_units_content_type_type_0 import SearchUnitsContentTypeType0
from ...models.search_units_role_type_0 import SearchUnitsRoleType0
from ...models.search_units_theme_type_0 import SearchUnitsThemeType0
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    q: None | str | Unset = UNSET,
    similar_to: None | str | Unset = UNSET,
    role: None | SearchUnitsRoleType0 | Unset = UNSET,
    entity: None | str | Unset = UNSET,
    theme: None | SearchUnitsThemeType0 | Unset = UNSET,
    content_type: None | SearchUnitsContentTypeType0 | Unset = UNSET,
    published_after: datetime.datetime | None | Unset = UNSET,
    published_before: datetime.datetime | None | Unset = UNSET,
    window: None | str | Unset = UNSET,
    recency_boost: float | Unset = 0.0,
    limit: int | Unset = 10,
    diversity_cap: int | Unset = 2,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_q: None | str | Unset
    if isinstance(q, Unset):
        json_q = UNSET
    else:
        json_q = q
    params["q"] = json_q

    json_similar_to: None | str | Unset
    if isinstance(similar_to, Unset):
        json_similar_to = UNSET
    else:
        json_similar_to = similar_to
    params["similar_to"] = json_similar_to

    json_role: None | str | Unset
    if isinstance(role, Unset):
        json_role = UNSET
    elif isinstance(role, SearchUnitsRoleType0):
        json_role = role.value
    else:
        json_role = role
    params["role"] = json_role

    json_entity: None | str | Unset
    if isinstance(entity, Unset):
        json_entity = UNSET
    else:
        json_entity = entity
    params["entity"] = json_entity

    json_theme: None | str | Unset
    if isinstance(theme, Unset):
        json_theme = UNSET
    elif isinstance(theme, SearchUnitsThemeType0):
        json_theme = theme.value
    else:
        json_theme = theme
    params["theme"] = json_theme

    json_content_type: None | str | Unset
    if isinstance(content_type, Unset):
        json_content_type = UNSET
    elif isinstance(content_type, SearchUnitsContentTypeType0):
        json_content_type = content_type.value
    else:
        json_content_type = content_type
    params["content_type"] = json_content_type

    json_published_after: None | str | Unset
    if isinstance(published_after, Unset):
        json_published_after = UNSET
    elif isinstance(published_after, datetime.datetime):
        json_published_after = published_after.isoformat()
    else:
        json_published_after = published_after
    params["published_after"] = json_published_after

    json_published_before: None | str | Unset
    if isinstance(published_before, Unset):
        json_published_before = UNSET
    elif isinstance(published_before, datetime.datetime):
        json_published_before = published_before.isoformat()
    else:
        json_published_before = published_before
    params["published_before"] = json_published_before

    json_window: None | str | Unset
    if isinstance(window, Unset):
        json_window = UNSET
    else:
        json_window = window
    params["window"] = json_window

    params["recency_boost"] = recency_boost

    params["limit"] = limit

    params["diversity_cap"] = diversity_cap

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/search",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | HTTPValidationError | SearchResults | None:
    if response.status_code == 200:
        response_200 = SearchResults.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 422:
        response_422 = HTTPValidationError.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = ErrorBody.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorBody | HTTPValidationError | SearchResults]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    q: None | str | Unset = UNSET,
    similar_to: None | str | Unset = UNSET,
    role: None | SearchUnitsRoleType0 | Unset = UNSET,
    entity: None | str | Unset = UNSET,
    theme: None | SearchUnitsThemeType0 | Unset = UNSET,
    content_type: None | SearchUnitsContentTypeType0 | Unset = UNSET,
    published_after: datetime.datetime | None | Unset = UNSET,
    published_before: datetime.datetime | None | Unset = UNSET,
    window: None | str | Unset = UNSET,
    recency_boost: float | Unset = 0.0,
    limit: int | Unset = 10,
    diversity_cap: int | Unset = 2,
) -> Response[ErrorBody | HTTPValidationError | SearchResults]:
    """Search verified units

     Exactly one of `q` (hybrid: BM25 over the units and MiniLM cosine, each filtered first, fused by
    reciprocal rank with k = 60; when every word of `q` is in the title, or in one passage of the
    complete text, of no more than a few signals, the best of them are lifted to the first page even if
    none of their units carries those words, each served as its verified unit nearest the passage that
    matched, and a line of five or more words that the text of at most three signals holds word for word
    (one forgotten word of one index term allowed) ranks first; parts of `q` in double quotes are
    phrases: `"wafer-scale inference"` keeps only units of signals whose title or text holds those words
    in that order) or `similar_to` (a unit id: cosine of stored embeddings, the unit itself excluded).
    `relevance_score` is the fused score (for a lifted unit at least its floor) or the cosine, times the
    recency factor `1 − b + b·2^(−age_days/30)` when `recency_boost` b > 0 (age from the snapshot's
    `as_of`). At most `diversity_cap` units per signal. `entity` keeps units whose own text names the
    entity (or a family member). Not paginated: the best `limit` hits.

    Args:
        q (None | str | Unset): Natural-language query, 1–2000 characters, not blank. Words in
            double quotes are a phrase (`"inference cloud"`): only signals whose title or text holds
            it, in that order, answer. Exactly one of `q` and `similar_to`.
        similar_to (None | str | Unset): A unit `id`: units whose stored embeddings are most
            similar (topical, not agreement: contradicting units can match); the unit itself is
            excluded. Unknown → 404. Exactly one of `q` and `similar_to`.
        role (None | SearchUnitsRoleType0 | Unset): Only units of this role (`thesis`, `synopsis`,
            `argument`, `claim`).
        entity (None | str | Unset): Public entity id (`ent:/…`) or exact display name or alias,
            in any case; a family covers its members. Unknown → 404, never an empty list.
        theme (None | SearchUnitsThemeType0 | Unset): One of the 12 canonical theme labels (either
            axis). Matched in any case (`regulatory & legal` works); URL-encode it in a query or path.
            Shorthands such as `C&I` are unknown labels: 404, whose message names the canonical one.
        content_type (None | SearchUnitsContentTypeType0 | Unset): `analysis` (argued positions)
            or `event` (factual reports).
        published_after (datetime.datetime | None | Unset): Inclusive lower bound on
            `published_at`: ISO 8601 date (2026-03-01) or date-time, UTC when it has no offset. 400
            together with `window`, or when later than `published_before`.
        published_before (datetime.datetime | None | Unset): Exclusive upper bound on
            `published_at`: ISO 8601 date or date-time, UTC when it has no offset.
        window (None | str | Unset): Relative lower bound on `published_at`, measured back from
            the snapshot's `as_of`: d = days, w = weeks, m = 30-day months (e.g. 7d, 2w, 1m; 1–9999).
            400 together with `published_after`.
        recency_boost (float | Unset): 0–1: a soft preference for newer signals (scores times `1 −
            b + b·2^(−age_days/30)`); 0 turns it off. Never excludes older units. Default: 0.0.
        limit (int | Unset): How many hits to return, 1–100 (the best ones). Default: 10.
        diversity_cap (int | Unset): At most this many units from one signal, 1–100. Default: 2.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | HTTPValidationError | SearchResults]
    """

    kwargs = _get_kwargs(
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

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    q: None | str | Unset = UNSET,
    similar_to: None | str | Unset = UNSET,
    role: None | SearchUnitsRoleType0 | Unset = UNSET,
    entity: None | str | Unset = UNSET,
    theme: None | SearchUnitsThemeType0 | Unset = UNSET,
    content_type: None | SearchUnitsContentTypeType0 | Unset = UNSET,
    published_after: datetime.datetime | None | Unset = UNSET,
    published_before: datetime.datetime | None | Unset = UNSET,
    window: None | str | Unset = UNSET,
    recency_boost: float | Unset = 0.0,
    limit: int | Unset = 10,
    diversity_cap: int | Unset = 2,
) -> ErrorBody | HTTPValidationError | SearchResults | None:
    """Search verified units

     Exactly one of `q` (hybrid: BM25 over the units and MiniLM cosine, each filtered first, fused by
    reciprocal rank with k = 60; when every word of `q` is in the title, or in one passage of the
    complete text, of no more than a few signals, the best of them are lifted to the first page even if
    none of their units carries those words, each served as its verified unit nearest the passage that
    matched, and a line of five or more words that the text of at most three signals holds word for word
    (one forgotten word of one index term allowed) ranks first; parts of `q` in double quotes are
    phrases: `"wafer-scale inference"` keeps only units of signals whose title or text holds those words
    in that order) or `similar_to` (a unit id: cosine of stored embeddings, the unit itself excluded).
    `relevance_score` is the fused score (for a lifted unit at least its floor) or the cosine, times the
    recency factor `1 − b + b·2^(−age_days/30)` when `recency_boost` b > 0 (age from the snapshot's
    `as_of`). At most `diversity_cap` units per signal. `entity` keeps units whose own text names the
    entity (or a family member). Not paginated: the best `limit` hits.

    Args:
        q (None | str | Unset): Natural-language query, 1–2000 characters, not blank. Words in
            double quotes are a phrase (`"inference cloud"`): only signals whose title or text holds
            it, in that order, answer. Exactly one of `q` and `similar_to`.
        similar_to (None | str | Unset): A unit `id`: units whose stored embeddings are most
            similar (topical, not agreement: contradicting units can match); the unit itself is
            excluded. Unknown → 404. Exactly one of `q` and `similar_to`.
        role (None | SearchUnitsRoleType0 | Unset): Only units of this role (`thesis`, `synopsis`,
            `argument`, `claim`).
        entity (None | str | Unset): Public entity id (`ent:/…`) or exact display name or alias,
            in any case; a family covers its members. Unknown → 404, never an empty list.
        theme (None | SearchUnitsThemeType0 | Unset): One of the 12 canonical theme labels (either
            axis). Matched in any case (`regulatory & legal` works); URL-encode it in a query or path.
            Shorthands such as `C&I` are unknown labels: 404, whose message names the canonical one.
        content_type (None | SearchUnitsContentTypeType0 | Unset): `analysis` (argued positions)
            or `event` (factual reports).
        published_after (datetime.datetime | None | Unset): Inclusive lower bound on
            `published_at`: ISO 8601 date (2026-03-01) or date-time, UTC when it has no offset. 400
            together with `window`, or when later than `published_before`.
        published_before (datetime.datetime | None | Unset): Exclusive upper bound on
            `published_at`: ISO 8601 date or date-time, UTC when it has no offset.
        window (None | str | Unset): Relative lower bound on `published_at`, measured back from
            the snapshot's `as_of`: d = days, w = weeks, m = 30-day months (e.g. 7d, 2w, 1m; 1–9999).
            400 together with `published_after`.
        recency_boost (float | Unset): 0–1: a soft preference for newer signals (scores times `1 −
            b + b·2^(−age_days/30)`); 0 turns it off. Never excludes older units. Default: 0.0.
        limit (int | Unset): How many hits to return, 1–100 (the best ones). Default: 10.
        diversity_cap (int | Unset): At most this many units from one signal, 1–100. Default: 2.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | HTTPValidationError | SearchResults
    """

    return sync_detailed(
        client=client,
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
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    q: None | str | Unset = UNSET,
    similar_to: None | str | Unset = UNSET,
    role: None | SearchUnitsRoleType0 | Unset = UNSET,
    entity: None | str | Unset = UNSET,
    theme: None | SearchUnitsThemeType0 | Unset = UNSET,
    content_type: None | SearchUnitsContentTypeType0 | Unset = UNSET,
    published_after: datetime.datetime | None | Unset = UNSET,
    published_before: datetime.datetime | None | Unset = UNSET,
    window: None | str | Unset = UNSET,
    recency_boost: float | Unset = 0.0,
    limit: int | Unset = 10,
    diversity_cap: int | Unset = 2,
) -> Response[ErrorBody | HTTPValidationError | SearchResults]:
    """Search verified units

     Exactly one of `q` (hybrid: BM25 over the units and MiniLM cosine, each filtered first, fused by
    reciprocal rank with k = 60; when every word of `q` is in the title, or in one passage of the
    complete text, of no more than a few signals, the best of them are lifted to the first page even if
    none of their units carries those words, each served as its verified unit nearest the passage that
    matched, and a line of five or more words that the text of at most three signals holds word for word
    (one forgotten word of one index term allowed) ranks first; parts of `q` in double quotes are
    phrases: `"wafer-scale inference"` keeps only units of signals whose title or text holds those words
    in that order) or `similar_to` (a unit id: cosine of stored embeddings, the unit itself excluded).
    `relevance_score` is the fused score (for a lifted unit at least its floor) or the cosine, times the
    recency factor `1 − b + b·2^(−age_days/30)` when `recency_boost` b > 0 (age from the snapshot's
    `as_of`). At most `diversity_cap` units per signal. `entity` keeps units whose own text names the
    entity (or a family member). Not paginated: the best `limit` hits.

    Args:
        q (None | str | Unset): Natural-language query, 1–2000 characters, not blank. Words in
            double quotes are a phrase (`"inference cloud"`): only signals whose title or text holds
            it, in that order, answer. Exactly one of `q` and `similar_to`.
        similar_to (None | str | Unset): A unit `id`: units whose stored embeddings are most
            similar (topical, not agreement: contradicting units can match); the unit itself is
            excluded. Unknown → 404. Exactly one of `q` and `similar_to`.
        role (None | SearchUnitsRoleType0 | Unset): Only units of this role (`thesis`, `synopsis`,
            `argument`, `claim`).
        entity (None | str | Unset): Public entity id (`ent:/…`) or exact display name or alias,
            in any case; a family covers its members. Unknown → 404, never an empty list.
        theme (None | SearchUnitsThemeType0 | Unset): One of the 12 canonical theme labels (either
            axis). Matched in any case (`regulatory & legal` works); URL-encode it in a query or path.
            Shorthands such as `C&I` are unknown labels: 404, whose message names the canonical one.
        content_type (None | SearchUnitsContentTypeType0 | Unset): `analysis` (argued positions)
            or `event` (factual reports).
        published_after (datetime.datetime | None | Unset): Inclusive lower bound on
            `published_at`: ISO 8601 date (2026-03-01) or date-time, UTC when it has no offset. 400
            together with `window`, or when later than `published_before`.
        published_before (datetime.datetime | None | Unset): Exclusive upper bound on
            `published_at`: ISO 8601 date or date-time, UTC when it has no offset.
        window (None | str | Unset): Relative lower bound on `published_at`, measured back from
            the snapshot's `as_of`: d = days, w = weeks, m = 30-day months (e.g. 7d, 2w, 1m; 1–9999).
            400 together with `published_after`.
        recency_boost (float | Unset): 0–1: a soft preference for newer signals (scores times `1 −
            b + b·2^(−age_days/30)`); 0 turns it off. Never excludes older units. Default: 0.0.
        limit (int | Unset): How many hits to return, 1–100 (the best ones). Default: 10.
        diversity_cap (int | Unset): At most this many units from one signal, 1–100. Default: 2.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | HTTPValidationError | SearchResults]
    """

    kwargs = _get_kwargs(
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

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    q: None | str | Unset = UNSET,
    similar_to: None | str | Unset = UNSET,
    role: None | SearchUnitsRoleType0 | Unset = UNSET,
    entity: None | str | Unset = UNSET,
    theme: None | SearchUnitsThemeType0 | Unset = UNSET,
    content_type: None | SearchUnitsContentTypeType0 | Unset = UNSET,
    published_after: datetime.datetime | None | Unset = UNSET,
    published_before: datetime.datetime | None | Unset = UNSET,
    window: None | str | Unset = UNSET,
    recency_boost: float | Unset = 0.0,
    limit: int | Unset = 10,
    diversity_cap: int | Unset = 2,
) -> ErrorBody | HTTPValidationError | SearchResults | None:
    """Search verified units

     Exactly one of `q` (hybrid: BM25 over the units and MiniLM cosine, each filtered first, fused by
    reciprocal rank with k = 60; when every word of `q` is in the title, or in one passage of the
    complete text, of no more than a few signals, the best of them are lifted to the first page even if
    none of their units carries those words, each served as its verified unit nearest the passage that
    matched, and a line of five or more words that the text of at most three signals holds word for word
    (one forgotten word of one index term allowed) ranks first; parts of `q` in double quotes are
    phrases: `"wafer-scale inference"` keeps only units of signals whose title or text holds those words
    in that order) or `similar_to` (a unit id: cosine of stored embeddings, the unit itself excluded).
    `relevance_score` is the fused score (for a lifted unit at least its floor) or the cosine, times the
    recency factor `1 − b + b·2^(−age_days/30)` when `recency_boost` b > 0 (age from the snapshot's
    `as_of`). At most `diversity_cap` units per signal. `entity` keeps units whose own text names the
    entity (or a family member). Not paginated: the best `limit` hits.

    Args:
        q (None | str | Unset): Natural-language query, 1–2000 characters, not blank. Words in
            double quotes are a phrase (`"inference cloud"`): only signals whose title or text holds
            it, in that order, answer. Exactly one of `q` and `similar_to`.
        similar_to (None | str | Unset): A unit `id`: units whose stored embeddings are most
            similar (topical, not agreement: contradicting units can match); the unit itself is
            excluded. Unknown → 404. Exactly one of `q` and `similar_to`.
        role (None | SearchUnitsRoleType0 | Unset): Only units of this role (`thesis`, `synopsis`,
            `argument`, `claim`).
        entity (None | str | Unset): Public entity id (`ent:/…`) or exact display name or alias,
            in any case; a family covers its members. Unknown → 404, never an empty list.
        theme (None | SearchUnitsThemeType0 | Unset): One of the 12 canonical theme labels (either
            axis). Matched in any case (`regulatory & legal` works); URL-encode it in a query or path.
            Shorthands such as `C&I` are unknown labels: 404, whose message names the canonical one.
        content_type (None | SearchUnitsContentTypeType0 | Unset): `analysis` (argued positions)
            or `event` (factual reports).
        published_after (datetime.datetime | None | Unset): Inclusive lower bound on
            `published_at`: ISO 8601 date (2026-03-01) or date-time, UTC when it has no offset. 400
            together with `window`, or when later than `published_before`.
        published_before (datetime.datetime | None | Unset): Exclusive upper bound on
            `published_at`: ISO 8601 date or date-time, UTC when it has no offset.
        window (None | str | Unset): Relative lower bound on `published_at`, measured back from
            the snapshot's `as_of`: d = days, w = weeks, m = 30-day months (e.g. 7d, 2w, 1m; 1–9999).
            400 together with `published_after`.
        recency_boost (float | Unset): 0–1: a soft preference for newer signals (scores times `1 −
            b + b·2^(−age_days/30)`); 0 turns it off. Never excludes older units. Default: 0.0.
        limit (int | Unset): How many hits to return, 1–100 (the best ones). Default: 10.
        diversity_cap (int | Unset): At most this many units from one signal, 1–100. Default: 2.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | HTTPValidationError | SearchResults
    """

    return (
        await asyncio_detailed(
            client=client,
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
    ).parsed
