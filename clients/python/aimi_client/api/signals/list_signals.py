import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.http_validation_error import HTTPValidationError
from ...models.list_signals_content_type_type_0 import ListSignalsContentTypeType0
from ...models.list_signals_sort import ListSignalsSort
from ...models.list_signals_theme_type_0 import ListSignalsThemeType0
from ...models.signal_list import SignalList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    entity: None | str | Unset = UNSET,
    theme: ListSignalsThemeType0 | None | Unset = UNSET,
    keyword: None | str | Unset = UNSET,
    content_type: ListSignalsContentTypeType0 | None | Unset = UNSET,
    published_after: datetime.datetime | None | Unset = UNSET,
    published_before: datetime.datetime | None | Unset = UNSET,
    window: None | str | Unset = UNSET,
    sort: ListSignalsSort | Unset = ListSignalsSort.PUBLISHED,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 25,
    q: None | str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_entity: None | str | Unset
    if isinstance(entity, Unset):
        json_entity = UNSET
    else:
        json_entity = entity
    params["entity"] = json_entity

    json_theme: None | str | Unset
    if isinstance(theme, Unset):
        json_theme = UNSET
    elif isinstance(theme, ListSignalsThemeType0):
        json_theme = theme.value
    else:
        json_theme = theme
    params["theme"] = json_theme

    json_keyword: None | str | Unset
    if isinstance(keyword, Unset):
        json_keyword = UNSET
    else:
        json_keyword = keyword
    params["keyword"] = json_keyword

    json_content_type: None | str | Unset
    if isinstance(content_type, Unset):
        json_content_type = UNSET
    elif isinstance(content_type, ListSignalsContentTypeType0):
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

    json_sort: str | Unset = UNSET
    if not isinstance(sort, Unset):
        json_sort = sort.value

    params["sort"] = json_sort

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
        "url": "/v1/signals",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | HTTPValidationError | SignalList | None:
    if response.status_code == 200:
        response_200 = SignalList.from_dict(response.json())

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
) -> Response[ErrorBody | HTTPValidationError | SignalList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    entity: None | str | Unset = UNSET,
    theme: ListSignalsThemeType0 | None | Unset = UNSET,
    keyword: None | str | Unset = UNSET,
    content_type: ListSignalsContentTypeType0 | None | Unset = UNSET,
    published_after: datetime.datetime | None | Unset = UNSET,
    published_before: datetime.datetime | None | Unset = UNSET,
    window: None | str | Unset = UNSET,
    sort: ListSignalsSort | Unset = ListSignalsSort.PUBLISHED,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 25,
    q: None | str | Unset = UNSET,
) -> Response[ErrorBody | HTTPValidationError | SignalList]:
    """List signals, newest first

     Cursor-paginated signal cards. Pass `next_cursor` back as `cursor` until `has_more` is false; paging
    is keyset-based, so a snapshot published between pages neither skips nor repeats a signal. `window`
    is measured back from the snapshot's `as_of`; `published_after` is inclusive and `published_before`
    exclusive. `sort=changed` is the change feed: oldest change first; its `next_cursor` is a resume
    point returned even on the last page (null only when nothing changed after `cursor`); a reprocessed
    signal reappears once, at its new position. A cursor only works with the `sort` that issued it.

    Args:
        entity (None | str | Unset): Public entity id (`ent:/…`) or exact display name or alias,
            in any case; a family covers its members. Unknown → 404, never an empty list.
        theme (ListSignalsThemeType0 | None | Unset): One of the 12 canonical theme labels (either
            axis). Matched in any case (`regulatory & legal` works); URL-encode it in a query or path.
            Shorthands such as `C&I` are unknown labels: 404, whose message names the canonical one.
        keyword (None | str | Unset): A literal word or phrase, matched whole-word in any case
            against the title and the units' text; not relevance-ranked. Empty or blank → 400.
        content_type (ListSignalsContentTypeType0 | None | Unset): `analysis` (argued positions)
            or `event` (factual reports).
        published_after (datetime.datetime | None | Unset): Inclusive lower bound on
            `published_at`: ISO 8601 date (2026-03-01) or date-time, UTC when it has no offset. 400
            together with `window`, or when later than `published_before`.
        published_before (datetime.datetime | None | Unset): Exclusive upper bound on
            `published_at`: ISO 8601 date or date-time, UTC when it has no offset.
        window (None | str | Unset): Relative lower bound on `published_at`, measured back from
            the snapshot's `as_of`: d = days, w = weeks, m = 30-day months (e.g. 7d, 2w, 1m; 1–9999).
            400 together with `published_after`.
        sort (ListSignalsSort | Unset): `published`: newest published first (ties by `signal_id`).
            `changed`: the change feed, oldest change first; keep its `next_cursor` and poll with it.
            Default: ListSignalsSort.PUBLISHED.
        cursor (None | str | Unset): Opaque: the previous page's `next_cursor`, passed back
            unchanged. Omit it, or send it empty, for the first page (on the change feed: from the
            oldest change, so keep polling with the last non-null cursor instead). 400 when it is not
            a cursor this API issued, or was issued for another `sort` or endpoint.
        limit (int | Unset): Page size, 1–50. Default: 25.
        q (None | str | Unset): Renamed `keyword` on 2026-06-12; ignored.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | HTTPValidationError | SignalList]
    """

    kwargs = _get_kwargs(
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
        q=q,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    entity: None | str | Unset = UNSET,
    theme: ListSignalsThemeType0 | None | Unset = UNSET,
    keyword: None | str | Unset = UNSET,
    content_type: ListSignalsContentTypeType0 | None | Unset = UNSET,
    published_after: datetime.datetime | None | Unset = UNSET,
    published_before: datetime.datetime | None | Unset = UNSET,
    window: None | str | Unset = UNSET,
    sort: ListSignalsSort | Unset = ListSignalsSort.PUBLISHED,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 25,
    q: None | str | Unset = UNSET,
) -> ErrorBody | HTTPValidationError | SignalList | None:
    """List signals, newest first

     Cursor-paginated signal cards. Pass `next_cursor` back as `cursor` until `has_more` is false; paging
    is keyset-based, so a snapshot published between pages neither skips nor repeats a signal. `window`
    is measured back from the snapshot's `as_of`; `published_after` is inclusive and `published_before`
    exclusive. `sort=changed` is the change feed: oldest change first; its `next_cursor` is a resume
    point returned even on the last page (null only when nothing changed after `cursor`); a reprocessed
    signal reappears once, at its new position. A cursor only works with the `sort` that issued it.

    Args:
        entity (None | str | Unset): Public entity id (`ent:/…`) or exact display name or alias,
            in any case; a family covers its members. Unknown → 404, never an empty list.
        theme (ListSignalsThemeType0 | None | Unset): One of the 12 canonical theme labels (either
            axis). Matched in any case (`regulatory & legal` works); URL-encode it in a query or path.
            Shorthands such as `C&I` are unknown labels: 404, whose message names the canonical one.
        keyword (None | str | Unset): A literal word or phrase, matched whole-word in any case
            against the title and the units' text; not relevance-ranked. Empty or blank → 400.
        content_type (ListSignalsContentTypeType0 | None | Unset): `analysis` (argued positions)
            or `event` (factual reports).
        published_after (datetime.datetime | None | Unset): Inclusive lower bound on
            `published_at`: ISO 8601 date (2026-03-01) or date-time, UTC when it has no offset. 400
            together with `window`, or when later than `published_before`.
        published_before (datetime.datetime | None | Unset): Exclusive upper bound on
            `published_at`: ISO 8601 date or date-time, UTC when it has no offset.
        window (None | str | Unset): Relative lower bound on `published_at`, measured back from
            the snapshot's `as_of`: d = days, w = weeks, m = 30-day months (e.g. 7d, 2w, 1m; 1–9999).
            400 together with `published_after`.
        sort (ListSignalsSort | Unset): `published`: newest published first (ties by `signal_id`).
            `changed`: the change feed, oldest change first; keep its `next_cursor` and poll with it.
            Default: ListSignalsSort.PUBLISHED.
        cursor (None | str | Unset): Opaque: the previous page's `next_cursor`, passed back
            unchanged. Omit it, or send it empty, for the first page (on the change feed: from the
            oldest change, so keep polling with the last non-null cursor instead). 400 when it is not
            a cursor this API issued, or was issued for another `sort` or endpoint.
        limit (int | Unset): Page size, 1–50. Default: 25.
        q (None | str | Unset): Renamed `keyword` on 2026-06-12; ignored.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | HTTPValidationError | SignalList
    """

    return sync_detailed(
        client=client,
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
        q=q,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    entity: None | str | Unset = UNSET,
    theme: ListSignalsThemeType0 | None | Unset = UNSET,
    keyword: None | str | Unset = UNSET,
    content_type: ListSignalsContentTypeType0 | None | Unset = UNSET,
    published_after: datetime.datetime | None | Unset = UNSET,
    published_before: datetime.datetime | None | Unset = UNSET,
    window: None | str | Unset = UNSET,
    sort: ListSignalsSort | Unset = ListSignalsSort.PUBLISHED,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 25,
    q: None | str | Unset = UNSET,
) -> Response[ErrorBody | HTTPValidationError | SignalList]:
    """List signals, newest first

     Cursor-paginated signal cards. Pass `next_cursor` back as `cursor` until `has_more` is false; paging
    is keyset-based, so a snapshot published between pages neither skips nor repeats a signal. `window`
    is measured back from the snapshot's `as_of`; `published_after` is inclusive and `published_before`
    exclusive. `sort=changed` is the change feed: oldest change first; its `next_cursor` is a resume
    point returned even on the last page (null only when nothing changed after `cursor`); a reprocessed
    signal reappears once, at its new position. A cursor only works with the `sort` that issued it.

    Args:
        entity (None | str | Unset): Public entity id (`ent:/…`) or exact display name or alias,
            in any case; a family covers its members. Unknown → 404, never an empty list.
        theme (ListSignalsThemeType0 | None | Unset): One of the 12 canonical theme labels (either
            axis). Matched in any case (`regulatory & legal` works); URL-encode it in a query or path.
            Shorthands such as `C&I` are unknown labels: 404, whose message names the canonical one.
        keyword (None | str | Unset): A literal word or phrase, matched whole-word in any case
            against the title and the units' text; not relevance-ranked. Empty or blank → 400.
        content_type (ListSignalsContentTypeType0 | None | Unset): `analysis` (argued positions)
            or `event` (factual reports).
        published_after (datetime.datetime | None | Unset): Inclusive lower bound on
            `published_at`: ISO 8601 date (2026-03-01) or date-time, UTC when it has no offset. 400
            together with `window`, or when later than `published_before`.
        published_before (datetime.datetime | None | Unset): Exclusive upper bound on
            `published_at`: ISO 8601 date or date-time, UTC when it has no offset.
        window (None | str | Unset): Relative lower bound on `published_at`, measured back from
            the snapshot's `as_of`: d = days, w = weeks, m = 30-day months (e.g. 7d, 2w, 1m; 1–9999).
            400 together with `published_after`.
        sort (ListSignalsSort | Unset): `published`: newest published first (ties by `signal_id`).
            `changed`: the change feed, oldest change first; keep its `next_cursor` and poll with it.
            Default: ListSignalsSort.PUBLISHED.
        cursor (None | str | Unset): Opaque: the previous page's `next_cursor`, passed back
            unchanged. Omit it, or send it empty, for the first page (on the change feed: from the
            oldest change, so keep polling with the last non-null cursor instead). 400 when it is not
            a cursor this API issued, or was issued for another `sort` or endpoint.
        limit (int | Unset): Page size, 1–50. Default: 25.
        q (None | str | Unset): Renamed `keyword` on 2026-06-12; ignored.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | HTTPValidationError | SignalList]
    """

    kwargs = _get_kwargs(
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
        q=q,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    entity: None | str | Unset = UNSET,
    theme: ListSignalsThemeType0 | None | Unset = UNSET,
    keyword: None | str | Unset = UNSET,
    content_type: ListSignalsContentTypeType0 | None | Unset = UNSET,
    published_after: datetime.datetime | None | Unset = UNSET,
    published_before: datetime.datetime | None | Unset = UNSET,
    window: None | str | Unset = UNSET,
    sort: ListSignalsSort | Unset = ListSignalsSort.PUBLISHED,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 25,
    q: None | str | Unset = UNSET,
) -> ErrorBody | HTTPValidationError | SignalList | None:
    """List signals, newest first

     Cursor-paginated signal cards. Pass `next_cursor` back as `cursor` until `has_more` is false; paging
    is keyset-based, so a snapshot published between pages neither skips nor repeats a signal. `window`
    is measured back from the snapshot's `as_of`; `published_after` is inclusive and `published_before`
    exclusive. `sort=changed` is the change feed: oldest change first; its `next_cursor` is a resume
    point returned even on the last page (null only when nothing changed after `cursor`); a reprocessed
    signal reappears once, at its new position. A cursor only works with the `sort` that issued it.

    Args:
        entity (None | str | Unset): Public entity id (`ent:/…`) or exact display name or alias,
            in any case; a family covers its members. Unknown → 404, never an empty list.
        theme (ListSignalsThemeType0 | None | Unset): One of the 12 canonical theme labels (either
            axis). Matched in any case (`regulatory & legal` works); URL-encode it in a query or path.
            Shorthands such as `C&I` are unknown labels: 404, whose message names the canonical one.
        keyword (None | str | Unset): A literal word or phrase, matched whole-word in any case
            against the title and the units' text; not relevance-ranked. Empty or blank → 400.
        content_type (ListSignalsContentTypeType0 | None | Unset): `analysis` (argued positions)
            or `event` (factual reports).
        published_after (datetime.datetime | None | Unset): Inclusive lower bound on
            `published_at`: ISO 8601 date (2026-03-01) or date-time, UTC when it has no offset. 400
            together with `window`, or when later than `published_before`.
        published_before (datetime.datetime | None | Unset): Exclusive upper bound on
            `published_at`: ISO 8601 date or date-time, UTC when it has no offset.
        window (None | str | Unset): Relative lower bound on `published_at`, measured back from
            the snapshot's `as_of`: d = days, w = weeks, m = 30-day months (e.g. 7d, 2w, 1m; 1–9999).
            400 together with `published_after`.
        sort (ListSignalsSort | Unset): `published`: newest published first (ties by `signal_id`).
            `changed`: the change feed, oldest change first; keep its `next_cursor` and poll with it.
            Default: ListSignalsSort.PUBLISHED.
        cursor (None | str | Unset): Opaque: the previous page's `next_cursor`, passed back
            unchanged. Omit it, or send it empty, for the first page (on the change feed: from the
            oldest change, so keep polling with the last non-null cursor instead). 400 when it is not
            a cursor this API issued, or was issued for another `sort` or endpoint.
        limit (int | Unset): Page size, 1–50. Default: 25.
        q (None | str | Unset): Renamed `keyword` on 2026-06-12; ignored.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | HTTPValidationError | SignalList
    """

    return (
        await asyncio_detailed(
            client=client,
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
            q=q,
        )
    ).parsed
