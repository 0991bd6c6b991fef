from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.http_validation_error import HTTPValidationError
from ...models.list_stories_theme_type_0 import ListStoriesThemeType0
from ...models.story_list import StoryList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    entity: None | str | Unset = UNSET,
    theme: ListStoriesThemeType0 | None | Unset = UNSET,
    window: None | str | Unset = UNSET,
    min_sources: int | Unset = 1,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 25,
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
    elif isinstance(theme, ListStoriesThemeType0):
        json_theme = theme.value
    else:
        json_theme = theme
    params["theme"] = json_theme

    json_window: None | str | Unset
    if isinstance(window, Unset):
        json_window = UNSET
    else:
        json_window = window
    params["window"] = json_window

    params["min_sources"] = min_sources

    json_cursor: None | str | Unset
    if isinstance(cursor, Unset):
        json_cursor = UNSET
    else:
        json_cursor = cursor
    params["cursor"] = json_cursor

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/stories",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | HTTPValidationError | StoryList | None:
    if response.status_code == 200:
        response_200 = StoryList.from_dict(response.json())

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
) -> Response[ErrorBody | HTTPValidationError | StoryList]:
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
    theme: ListStoriesThemeType0 | None | Unset = UNSET,
    window: None | str | Unset = UNSET,
    min_sources: int | Unset = 1,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 25,
) -> Response[ErrorBody | HTTPValidationError | StoryList]:
    """List stories, newest activity first

     Cursor-paginated stories: signals about the same event or development, grouped within a rolling
    window of days (a story keeps its id as it grows). Newest activity (`last_seen`) first, ties by
    `story_id`. `independent_sources` counts distinct publishers (authors, else domains): chapters,
    parts, reprints and near-copies once. `window` keeps stories active in it (measured back from the
    snapshot's `as_of`); `entity` matches the entity or a family member; `min_sources` is the least
    `independent_sources`. Pass `next_cursor` back as `cursor` until `has_more` is false.

    Args:
        entity (None | str | Unset): Stories whose signals mention this entity: public id
            (`ent:/…`) or exact display name or alias, in any case; a family covers its members.
            Unknown → 404, never an empty list.
        theme (ListStoriesThemeType0 | None | Unset): Stories with a signal carrying this theme
            label. Matched in any case (`regulatory & legal` works); URL-encode it in a query or path.
            Shorthands such as `C&I` are unknown labels: 404, whose message names the canonical one.
        window (None | str | Unset): Stories active in the window: `last_seen` at or after the
            snapshot's `as_of` minus this (d = days, w = weeks, m = 30-day months; e.g. 7d, 2w, 1m;
            1–9999).
        min_sources (int | Unset): Minimum `independent_sources`; 1 (the default) includes single-
            signal stories. Default: 1.
        cursor (None | str | Unset): Opaque: the previous page's `next_cursor`, passed back
            unchanged. Omit it, or send it empty, for the first page (on the change feed: from the
            oldest change, so keep polling with the last non-null cursor instead). 400 when it is not
            a cursor this API issued, or was issued for another `sort` or endpoint.
        limit (int | Unset): Page size, 1–50. Default: 25.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | HTTPValidationError | StoryList]
    """

    kwargs = _get_kwargs(
        entity=entity,
        theme=theme,
        window=window,
        min_sources=min_sources,
        cursor=cursor,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    entity: None | str | Unset = UNSET,
    theme: ListStoriesThemeType0 | None | Unset = UNSET,
    window: None | str | Unset = UNSET,
    min_sources: int | Unset = 1,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 25,
) -> ErrorBody | HTTPValidationError | StoryList | None:
    """List stories, newest activity first

     Cursor-paginated stories: signals about the same event or development, grouped within a rolling
    window of days (a story keeps its id as it grows). Newest activity (`last_seen`) first, ties by
    `story_id`. `independent_sources` counts distinct publishers (authors, else domains): chapters,
    parts, reprints and near-copies once. `window` keeps stories active in it (measured back from the
    snapshot's `as_of`); `entity` matches the entity or a family member; `min_sources` is the least
    `independent_sources`. Pass `next_cursor` back as `cursor` until `has_more` is false.

    Args:
        entity (None | str | Unset): Stories whose signals mention this entity: public id
            (`ent:/…`) or exact display name or alias, in any case; a family covers its members.
            Unknown → 404, never an empty list.
        theme (ListStoriesThemeType0 | None | Unset): Stories with a signal carrying this theme
            label. Matched in any case (`regulatory & legal` works); URL-encode it in a query or path.
            Shorthands such as `C&I` are unknown labels: 404, whose message names the canonical one.
        window (None | str | Unset): Stories active in the window: `last_seen` at or after the
            snapshot's `as_of` minus this (d = days, w = weeks, m = 30-day months; e.g. 7d, 2w, 1m;
            1–9999).
        min_sources (int | Unset): Minimum `independent_sources`; 1 (the default) includes single-
            signal stories. Default: 1.
        cursor (None | str | Unset): Opaque: the previous page's `next_cursor`, passed back
            unchanged. Omit it, or send it empty, for the first page (on the change feed: from the
            oldest change, so keep polling with the last non-null cursor instead). 400 when it is not
            a cursor this API issued, or was issued for another `sort` or endpoint.
        limit (int | Unset): Page size, 1–50. Default: 25.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | HTTPValidationError | StoryList
    """

    return sync_detailed(
        client=client,
        entity=entity,
        theme=theme,
        window=window,
        min_sources=min_sources,
        cursor=cursor,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    entity: None | str | Unset = UNSET,
    theme: ListStoriesThemeType0 | None | Unset = UNSET,
    window: None | str | Unset = UNSET,
    min_sources: int | Unset = 1,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 25,
) -> Response[ErrorBody | HTTPValidationError | StoryList]:
    """List stories, newest activity first

     Cursor-paginated stories: signals about the same event or development, grouped within a rolling
    window of days (a story keeps its id as it grows). Newest activity (`last_seen`) first, ties by
    `story_id`. `independent_sources` counts distinct publishers (authors, else domains): chapters,
    parts, reprints and near-copies once. `window` keeps stories active in it (measured back from the
    snapshot's `as_of`); `entity` matches the entity or a family member; `min_sources` is the least
    `independent_sources`. Pass `next_cursor` back as `cursor` until `has_more` is false.

    Args:
        entity (None | str | Unset): Stories whose signals mention this entity: public id
            (`ent:/…`) or exact display name or alias, in any case; a family covers its members.
            Unknown → 404, never an empty list.
        theme (ListStoriesThemeType0 | None | Unset): Stories with a signal carrying this theme
            label. Matched in any case (`regulatory & legal` works); URL-encode it in a query or path.
            Shorthands such as `C&I` are unknown labels: 404, whose message names the canonical one.
        window (None | str | Unset): Stories active in the window: `last_seen` at or after the
            snapshot's `as_of` minus this (d = days, w = weeks, m = 30-day months; e.g. 7d, 2w, 1m;
            1–9999).
        min_sources (int | Unset): Minimum `independent_sources`; 1 (the default) includes single-
            signal stories. Default: 1.
        cursor (None | str | Unset): Opaque: the previous page's `next_cursor`, passed back
            unchanged. Omit it, or send it empty, for the first page (on the change feed: from the
            oldest change, so keep polling with the last non-null cursor instead). 400 when it is not
            a cursor this API issued, or was issued for another `sort` or endpoint.
        limit (int | Unset): Page size, 1–50. Default: 25.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | HTTPValidationError | StoryList]
    """

    kwargs = _get_kwargs(
        entity=entity,
        theme=theme,
        window=window,
        min_sources=min_sources,
        cursor=cursor,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    entity: None | str | Unset = UNSET,
    theme: ListStoriesThemeType0 | None | Unset = UNSET,
    window: None | str | Unset = UNSET,
    min_sources: int | Unset = 1,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 25,
) -> ErrorBody | HTTPValidationError | StoryList | None:
    """List stories, newest activity first

     Cursor-paginated stories: signals about the same event or development, grouped within a rolling
    window of days (a story keeps its id as it grows). Newest activity (`last_seen`) first, ties by
    `story_id`. `independent_sources` counts distinct publishers (authors, else domains): chapters,
    parts, reprints and near-copies once. `window` keeps stories active in it (measured back from the
    snapshot's `as_of`); `entity` matches the entity or a family member; `min_sources` is the least
    `independent_sources`. Pass `next_cursor` back as `cursor` until `has_more` is false.

    Args:
        entity (None | str | Unset): Stories whose signals mention this entity: public id
            (`ent:/…`) or exact display name or alias, in any case; a family covers its members.
            Unknown → 404, never an empty list.
        theme (ListStoriesThemeType0 | None | Unset): Stories with a signal carrying this theme
            label. Matched in any case (`regulatory & legal` works); URL-encode it in a query or path.
            Shorthands such as `C&I` are unknown labels: 404, whose message names the canonical one.
        window (None | str | Unset): Stories active in the window: `last_seen` at or after the
            snapshot's `as_of` minus this (d = days, w = weeks, m = 30-day months; e.g. 7d, 2w, 1m;
            1–9999).
        min_sources (int | Unset): Minimum `independent_sources`; 1 (the default) includes single-
            signal stories. Default: 1.
        cursor (None | str | Unset): Opaque: the previous page's `next_cursor`, passed back
            unchanged. Omit it, or send it empty, for the first page (on the change feed: from the
            oldest change, so keep polling with the last non-null cursor instead). 400 when it is not
            a cursor this API issued, or was issued for another `sort` or endpoint.
        limit (int | Unset): Page size, 1–50. Default: 25.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | HTTPValidationError | StoryList
    """

    return (
        await asyncio_detailed(
            client=client,
            entity=entity,
            theme=theme,
            window=window,
            min_sources=min_sources,
            cursor=cursor,
            limit=limit,
        )
    ).parsed
