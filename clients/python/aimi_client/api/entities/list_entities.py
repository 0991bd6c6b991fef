from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.entity_list import EntityList
from ...models.error_body import ErrorBody
from ...models.http_validation_error import HTTPValidationError
from ...models.list_entities_confidence_type_0 import ListEntitiesConfidenceType0
from ...models.list_entities_direction_type_0 import ListEntitiesDirectionType0
from ...models.list_entities_notability_type_0 import ListEntitiesNotabilityType0
from ...models.list_entities_scale_type_0 import ListEntitiesScaleType0
from ...models.list_entities_sort import ListEntitiesSort
from ...models.list_entities_stability_type_0 import ListEntitiesStabilityType0
from ...models.list_entities_theme_type_0 import ListEntitiesThemeType0
from ...models.list_entities_type_type_0 import ListEntitiesTypeType0
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    theme: ListEntitiesThemeType0 | None | Unset = UNSET,
    type_: ListEntitiesTypeType0 | None | Unset = UNSET,
    name: None | str | Unset = UNSET,
    sort: ListEntitiesSort | Unset = ListEntitiesSort.SIGNAL_COUNT,
    direction: ListEntitiesDirectionType0 | None | Unset = UNSET,
    confidence: ListEntitiesConfidenceType0 | None | Unset = UNSET,
    stability: ListEntitiesStabilityType0 | None | Unset = UNSET,
    scale: ListEntitiesScaleType0 | None | Unset = UNSET,
    notability: ListEntitiesNotabilityType0 | None | Unset = UNSET,
    min_signals: int | Unset = 2,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 25,
    q: None | str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_theme: None | str | Unset
    if isinstance(theme, Unset):
        json_theme = UNSET
    elif isinstance(theme, ListEntitiesThemeType0):
        json_theme = theme.value
    else:
        json_theme = theme
    params["theme"] = json_theme

    json_type_: None | str | Unset
    if isinstance(type_, Unset):
        json_type_ = UNSET
    elif isinstance(type_, ListEntitiesTypeType0):
        json_type_ = type_.value
    else:
        json_type_ = type_
    params["type"] = json_type_

    json_name: None | str | Unset
    if isinstance(name, Unset):
        json_name = UNSET
    else:
        json_name = name
    params["name"] = json_name

    json_sort: str | Unset = UNSET
    if not isinstance(sort, Unset):
        json_sort = sort.value

    params["sort"] = json_sort

    json_direction: None | str | Unset
    if isinstance(direction, Unset):
        json_direction = UNSET
    elif isinstance(direction, ListEntitiesDirectionType0):
        json_direction = direction.value
    else:
        json_direction = direction
    params["direction"] = json_direction

    json_confidence: None | str | Unset
    if isinstance(confidence, Unset):
        json_confidence = UNSET
    elif isinstance(confidence, ListEntitiesConfidenceType0):
        json_confidence = confidence.value
    else:
        json_confidence = confidence
    params["confidence"] = json_confidence

    json_stability: None | str | Unset
    if isinstance(stability, Unset):
        json_stability = UNSET
    elif isinstance(stability, ListEntitiesStabilityType0):
        json_stability = stability.value
    else:
        json_stability = stability
    params["stability"] = json_stability

    json_scale: None | str | Unset
    if isinstance(scale, Unset):
        json_scale = UNSET
    elif isinstance(scale, ListEntitiesScaleType0):
        json_scale = scale.value
    else:
        json_scale = scale
    params["scale"] = json_scale

    json_notability: None | str | Unset
    if isinstance(notability, Unset):
        json_notability = UNSET
    elif isinstance(notability, ListEntitiesNotabilityType0):
        json_notability = notability.value
    else:
        json_notability = notability
    params["notability"] = json_notability

    params["min_signals"] = min_signals

    json_cursor: None | str | Unset
    if isinstance(cursor, Unset):
        json_cursor = UNSET
    else:
        json_cursor = cursor
    params["cursor"] = json_cursor

    params["limit"] = limit

    json_q: None | str | Unset
    if isinstance(q, Unset):
        json_q = UNSET
    else:
        json_q = q
    params["q"] = json_q

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/entities",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EntityList | ErrorBody | HTTPValidationError | None:
    if response.status_code == 200:
        response_200 = EntityList.from_dict(response.json())

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
) -> Response[EntityList | ErrorBody | HTTPValidationError]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    theme: ListEntitiesThemeType0 | None | Unset = UNSET,
    type_: ListEntitiesTypeType0 | None | Unset = UNSET,
    name: None | str | Unset = UNSET,
    sort: ListEntitiesSort | Unset = ListEntitiesSort.SIGNAL_COUNT,
    direction: ListEntitiesDirectionType0 | None | Unset = UNSET,
    confidence: ListEntitiesConfidenceType0 | None | Unset = UNSET,
    stability: ListEntitiesStabilityType0 | None | Unset = UNSET,
    scale: ListEntitiesScaleType0 | None | Unset = UNSET,
    notability: ListEntitiesNotabilityType0 | None | Unset = UNSET,
    min_signals: int | Unset = 2,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 25,
    q: None | str | Unset = UNSET,
) -> Response[EntityList | ErrorBody | HTTPValidationError]:
    """List entity profiles

     Cursor-paginated entity profiles without `related_entities`. Pass `next_cursor` back as `cursor`
    until `has_more` is false; a cursor only works with the `sort` that issued it. The default
    `min_signals=2` returns the human-reviewed set; `min_signals=1` adds single-signal entities and
    unreviewed names found by discovery. Sorts: `signal_count` (most first), `first_seen` (newest
    first), `trend` (share of voice, highest first); ties go to `entity_id` ascending. Label filters
    match nothing below 8 signals, where labels are null.

    Args:
        theme (ListEntitiesThemeType0 | None | Unset): Entities with at least one signal carrying
            this theme label. Matched in any case (`regulatory & legal` works); URL-encode it in a
            query or path. Shorthands such as `C&I` are unknown labels: 404, whose message names the
            canonical one.
        type_ (ListEntitiesTypeType0 | None | Unset): Only entities of this type.
        name (None | str | Unset): Substring of the display name, matched in any case with runs of
            spaces folded. Blank → 400.
        sort (ListEntitiesSort | Unset): `signal_count`: most signals first; `first_seen`: newest
            first; `trend`: signals in the last 4 complete weeks, most first. Ties by `entity_id`.
            Default: ListEntitiesSort.SIGNAL_COUNT.
        direction (ListEntitiesDirectionType0 | None | Unset): Only entities with this
            `direction`. Entities below 8 signals have no label and never match.
        confidence (ListEntitiesConfidenceType0 | None | Unset): Only entities with this
            `confidence`. Entities below 8 signals have no label and never match.
        stability (ListEntitiesStabilityType0 | None | Unset): Only entities with this
            `stability`. Entities below 8 signals have no label and never match.
        scale (ListEntitiesScaleType0 | None | Unset): Only entities with this `scale` (below 8
            signals: `Small`).
        notability (ListEntitiesNotabilityType0 | None | Unset): Only entities with this
            `notability`. Entities below 8 signals have no label and never match.
        min_signals (int | Unset): Minimum `signal_count`. The default 2 is the human-reviewed
            set; 1 adds single-signal entities and names found by discovery. Default: 2.
        cursor (None | str | Unset): Opaque: the previous page's `next_cursor`, passed back
            unchanged. Omit it, or send it empty, for the first page (on the change feed: from the
            oldest change, so keep polling with the last non-null cursor instead). 400 when it is not
            a cursor this API issued, or was issued for another `sort` or endpoint.
        limit (int | Unset): Page size, 1–50. Default: 25.
        q (None | str | Unset): Renamed `name` on 2026-06-12; ignored.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EntityList | ErrorBody | HTTPValidationError]
    """

    kwargs = _get_kwargs(
        theme=theme,
        type_=type_,
        name=name,
        sort=sort,
        direction=direction,
        confidence=confidence,
        stability=stability,
        scale=scale,
        notability=notability,
        min_signals=min_signals,
        cursor=cursor,
        limit=limit,
        q=q,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    theme: ListEntitiesThemeType0 | None | Unset = UNSET,
    type_: ListEntitiesTypeType0 | None | Unset = UNSET,
    name: None | str | Unset = UNSET,
    sort: ListEntitiesSort | Unset = ListEntitiesSort.SIGNAL_COUNT,
    direction: ListEntitiesDirectionType0 | None | Unset = UNSET,
    confidence: ListEntitiesConfidenceType0 | None | Unset = UNSET,
    stability: ListEntitiesStabilityType0 | None | Unset = UNSET,
    scale: ListEntitiesScaleType0 | None | Unset = UNSET,
    notability: ListEntitiesNotabilityType0 | None | Unset = UNSET,
    min_signals: int | Unset = 2,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 25,
    q: None | str | Unset = UNSET,
) -> EntityList | ErrorBody | HTTPValidationError | None:
    """List entity profiles

     Cursor-paginated entity profiles without `related_entities`. Pass `next_cursor` back as `cursor`
    until `has_more` is false; a cursor only works with the `sort` that issued it. The default
    `min_signals=2` returns the human-reviewed set; `min_signals=1` adds single-signal entities and
    unreviewed names found by discovery. Sorts: `signal_count` (most first), `first_seen` (newest
    first), `trend` (share of voice, highest first); ties go to `entity_id` ascending. Label filters
    match nothing below 8 signals, where labels are null.

    Args:
        theme (ListEntitiesThemeType0 | None | Unset): Entities with at least one signal carrying
            this theme label. Matched in any case (`regulatory & legal` works); URL-encode it in a
            query or path. Shorthands such as `C&I` are unknown labels: 404, whose message names the
            canonical one.
        type_ (ListEntitiesTypeType0 | None | Unset): Only entities of this type.
        name (None | str | Unset): Substring of the display name, matched in any case with runs of
            spaces folded. Blank → 400.
        sort (ListEntitiesSort | Unset): `signal_count`: most signals first; `first_seen`: newest
            first; `trend`: signals in the last 4 complete weeks, most first. Ties by `entity_id`.
            Default: ListEntitiesSort.SIGNAL_COUNT.
        direction (ListEntitiesDirectionType0 | None | Unset): Only entities with this
            `direction`. Entities below 8 signals have no label and never match.
        confidence (ListEntitiesConfidenceType0 | None | Unset): Only entities with this
            `confidence`. Entities below 8 signals have no label and never match.
        stability (ListEntitiesStabilityType0 | None | Unset): Only entities with this
            `stability`. Entities below 8 signals have no label and never match.
        scale (ListEntitiesScaleType0 | None | Unset): Only entities with this `scale` (below 8
            signals: `Small`).
        notability (ListEntitiesNotabilityType0 | None | Unset): Only entities with this
            `notability`. Entities below 8 signals have no label and never match.
        min_signals (int | Unset): Minimum `signal_count`. The default 2 is the human-reviewed
            set; 1 adds single-signal entities and names found by discovery. Default: 2.
        cursor (None | str | Unset): Opaque: the previous page's `next_cursor`, passed back
            unchanged. Omit it, or send it empty, for the first page (on the change feed: from the
            oldest change, so keep polling with the last non-null cursor instead). 400 when it is not
            a cursor this API issued, or was issued for another `sort` or endpoint.
        limit (int | Unset): Page size, 1–50. Default: 25.
        q (None | str | Unset): Renamed `name` on 2026-06-12; ignored.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EntityList | ErrorBody | HTTPValidationError
    """

    return sync_detailed(
        client=client,
        theme=theme,
        type_=type_,
        name=name,
        sort=sort,
        direction=direction,
        confidence=confidence,
        stability=stability,
        scale=scale,
        notability=notability,
        min_signals=min_signals,
        cursor=cursor,
        limit=limit,
        q=q,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    theme: ListEntitiesThemeType0 | None | Unset = UNSET,
    type_: ListEntitiesTypeType0 | None | Unset = UNSET,
    name: None | str | Unset = UNSET,
    sort: ListEntitiesSort | Unset = ListEntitiesSort.SIGNAL_COUNT,
    direction: ListEntitiesDirectionType0 | None | Unset = UNSET,
    confidence: ListEntitiesConfidenceType0 | None | Unset = UNSET,
    stability: ListEntitiesStabilityType0 | None | Unset = UNSET,
    scale: ListEntitiesScaleType0 | None | Unset = UNSET,
    notability: ListEntitiesNotabilityType0 | None | Unset = UNSET,
    min_signals: int | Unset = 2,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 25,
    q: None | str | Unset = UNSET,
) -> Response[EntityList | ErrorBody | HTTPValidationError]:
    """List entity profiles

     Cursor-paginated entity profiles without `related_entities`. Pass `next_cursor` back as `cursor`
    until `has_more` is false; a cursor only works with the `sort` that issued it. The default
    `min_signals=2` returns the human-reviewed set; `min_signals=1` adds single-signal entities and
    unreviewed names found by discovery. Sorts: `signal_count` (most first), `first_seen` (newest
    first), `trend` (share of voice, highest first); ties go to `entity_id` ascending. Label filters
    match nothing below 8 signals, where labels are null.

    Args:
        theme (ListEntitiesThemeType0 | None | Unset): Entities with at least one signal carrying
            this theme label. Matched in any case (`regulatory & legal` works); URL-encode it in a
            query or path. Shorthands such as `C&I` are unknown labels: 404, whose message names the
            canonical one.
        type_ (ListEntitiesTypeType0 | None | Unset): Only entities of this type.
        name (None | str | Unset): Substring of the display name, matched in any case with runs of
            spaces folded. Blank → 400.
        sort (ListEntitiesSort | Unset): `signal_count`: most signals first; `first_seen`: newest
            first; `trend`: signals in the last 4 complete weeks, most first. Ties by `entity_id`.
            Default: ListEntitiesSort.SIGNAL_COUNT.
        direction (ListEntitiesDirectionType0 | None | Unset): Only entities with this
            `direction`. Entities below 8 signals have no label and never match.
        confidence (ListEntitiesConfidenceType0 | None | Unset): Only entities with this
            `confidence`. Entities below 8 signals have no label and never match.
        stability (ListEntitiesStabilityType0 | None | Unset): Only entities with this
            `stability`. Entities below 8 signals have no label and never match.
        scale (ListEntitiesScaleType0 | None | Unset): Only entities with this `scale` (below 8
            signals: `Small`).
        notability (ListEntitiesNotabilityType0 | None | Unset): Only entities with this
            `notability`. Entities below 8 signals have no label and never match.
        min_signals (int | Unset): Minimum `signal_count`. The default 2 is the human-reviewed
            set; 1 adds single-signal entities and names found by discovery. Default: 2.
        cursor (None | str | Unset): Opaque: the previous page's `next_cursor`, passed back
            unchanged. Omit it, or send it empty, for the first page (on the change feed: from the
            oldest change, so keep polling with the last non-null cursor instead). 400 when it is not
            a cursor this API issued, or was issued for another `sort` or endpoint.
        limit (int | Unset): Page size, 1–50. Default: 25.
        q (None | str | Unset): Renamed `name` on 2026-06-12; ignored.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EntityList | ErrorBody | HTTPValidationError]
    """

    kwargs = _get_kwargs(
        theme=theme,
        type_=type_,
        name=name,
        sort=sort,
        direction=direction,
        confidence=confidence,
        stability=stability,
        scale=scale,
        notability=notability,
        min_signals=min_signals,
        cursor=cursor,
        limit=limit,
        q=q,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    theme: ListEntitiesThemeType0 | None | Unset = UNSET,
    type_: ListEntitiesTypeType0 | None | Unset = UNSET,
    name: None | str | Unset = UNSET,
    sort: ListEntitiesSort | Unset = ListEntitiesSort.SIGNAL_COUNT,
    direction: ListEntitiesDirectionType0 | None | Unset = UNSET,
    confidence: ListEntitiesConfidenceType0 | None | Unset = UNSET,
    stability: ListEntitiesStabilityType0 | None | Unset = UNSET,
    scale: ListEntitiesScaleType0 | None | Unset = UNSET,
    notability: ListEntitiesNotabilityType0 | None | Unset = UNSET,
    min_signals: int | Unset = 2,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 25,
    q: None | str | Unset = UNSET,
) -> EntityList | ErrorBody | HTTPValidationError | None:
    """List entity profiles

     Cursor-paginated entity profiles without `related_entities`. Pass `next_cursor` back as `cursor`
    until `has_more` is false; a cursor only works with the `sort` that issued it. The default
    `min_signals=2` returns the human-reviewed set; `min_signals=1` adds single-signal entities and
    unreviewed names found by discovery. Sorts: `signal_count` (most first), `first_seen` (newest
    first), `trend` (share of voice, highest first); ties go to `entity_id` ascending. Label filters
    match nothing below 8 signals, where labels are null.

    Args:
        theme (ListEntitiesThemeType0 | None | Unset): Entities with at least one signal carrying
            this theme label. Matched in any case (`regulatory & legal` works); URL-encode it in a
            query or path. Shorthands such as `C&I` are unknown labels: 404, whose message names the
            canonical one.
        type_ (ListEntitiesTypeType0 | None | Unset): Only entities of this type.
        name (None | str | Unset): Substring of the display name, matched in any case with runs of
            spaces folded. Blank → 400.
        sort (ListEntitiesSort | Unset): `signal_count`: most signals first; `first_seen`: newest
            first; `trend`: signals in the last 4 complete weeks, most first. Ties by `entity_id`.
            Default: ListEntitiesSort.SIGNAL_COUNT.
        direction (ListEntitiesDirectionType0 | None | Unset): Only entities with this
            `direction`. Entities below 8 signals have no label and never match.
        confidence (ListEntitiesConfidenceType0 | None | Unset): Only entities with this
            `confidence`. Entities below 8 signals have no label and never match.
        stability (ListEntitiesStabilityType0 | None | Unset): Only entities with this
            `stability`. Entities below 8 signals have no label and never match.
        scale (ListEntitiesScaleType0 | None | Unset): Only entities with this `scale` (below 8
            signals: `Small`).
        notability (ListEntitiesNotabilityType0 | None | Unset): Only entities with this
            `notability`. Entities below 8 signals have no label and never match.
        min_signals (int | Unset): Minimum `signal_count`. The default 2 is the human-reviewed
            set; 1 adds single-signal entities and names found by discovery. Default: 2.
        cursor (None | str | Unset): Opaque: the previous page's `next_cursor`, passed back
            unchanged. Omit it, or send it empty, for the first page (on the change feed: from the
            oldest change, so keep polling with the last non-null cursor instead). 400 when it is not
            a cursor this API issued, or was issued for another `sort` or endpoint.
        limit (int | Unset): Page size, 1–50. Default: 25.
        q (None | str | Unset): Renamed `name` on 2026-06-12; ignored.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EntityList | ErrorBody | HTTPValidationError
    """

    return (
        await asyncio_detailed(
            client=client,
            theme=theme,
            type_=type_,
            name=name,
            sort=sort,
            direction=direction,
            confidence=confidence,
            stability=stability,
            scale=scale,
            notability=notability,
            min_signals=min_signals,
            cursor=cursor,
            limit=limit,
            q=q,
        )
    ).parsed
