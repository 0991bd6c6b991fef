from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.get_trending_entities_mode import GetTrendingEntitiesMode
from ...models.get_trending_entities_theme_type_0 import GetTrendingEntitiesThemeType0
from ...models.get_trending_entities_type_primary_type_0 import GetTrendingEntitiesTypePrimaryType0
from ...models.http_validation_error import HTTPValidationError
from ...models.trending_list import TrendingList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    mode: GetTrendingEntitiesMode,
    theme: GetTrendingEntitiesThemeType0 | None | Unset = UNSET,
    type_primary: GetTrendingEntitiesTypePrimaryType0 | None | Unset = UNSET,
    limit: int | Unset = 25,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_mode = mode.value
    params["mode"] = json_mode

    json_theme: None | str | Unset
    if isinstance(theme, Unset):
        json_theme = UNSET
    elif isinstance(theme, GetTrendingEntitiesThemeType0):
        json_theme = theme.value
    else:
        json_theme = theme
    params["theme"] = json_theme

    json_type_primary: None | str | Unset
    if isinstance(type_primary, Unset):
        json_type_primary = UNSET
    elif isinstance(type_primary, GetTrendingEntitiesTypePrimaryType0):
        json_type_primary = type_primary.value
    else:
        json_type_primary = type_primary
    params["type_primary"] = json_type_primary

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/entities/trending",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | HTTPValidationError | TrendingList | None:
    if response.status_code == 200:
        response_200 = TrendingList.from_dict(response.json())

        return response_200

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
) -> Response[ErrorBody | HTTPValidationError | TrendingList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    mode: GetTrendingEntitiesMode,
    theme: GetTrendingEntitiesThemeType0 | None | Unset = UNSET,
    type_primary: GetTrendingEntitiesTypePrimaryType0 | None | Unset = UNSET,
    limit: int | Unset = 25,
) -> Response[ErrorBody | HTTPValidationError | TrendingList]:
    """Trending entities

     Entities with at least 2 signals, reviewed set. `rising`: the `direction` label's share rule says
    Rising (the last 4 weeks' share of voice at least 1.25 times the 8 weeks' before, or new there) and
    at least 2 signals in the last complete week, by z-score, whatever the signal count: a rising entity
    is never labelled Declining or Stable; `hot`: by signals in the last complete week; `consistent`:
    active in at least 9 of the 12 weeks, by persistence; `new`: notable (its third signal) in the last
    4 complete weeks and first mentioned at most 26 weeks before that (one or two earlier mentions, a
    rumour, do not keep a name out; an old name mentioned again is not new), by signal count. Ties end
    on `entity_id`. Field names differ from the entity list (`display_name`, `type_primary`, `trend`
    with momentum numbers).

    Args:
        mode (GetTrendingEntitiesMode): `rising`: rising share of voice, by z-score; `hot`: most
            signals in the last complete week; `consistent`: active in at least 9 of the 12 weeks, by
            persistence; `new`: newly notable, by signal count.
        theme (GetTrendingEntitiesThemeType0 | None | Unset): Only entities with a signal carrying
            this theme label. Matched in any case (`regulatory & legal` works); URL-encode it in a
            query or path. Shorthands such as `C&I` are unknown labels: 404, whose message names the
            canonical one.
        type_primary (GetTrendingEntitiesTypePrimaryType0 | None | Unset): Coarse type:
            `Organization`, `Person`, `Product` (models, hardware, other) or `Other` (locations,
            events, regulation).
        limit (int | Unset): How many entities, 1–50. Default: 25.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | HTTPValidationError | TrendingList]
    """

    kwargs = _get_kwargs(
        mode=mode,
        theme=theme,
        type_primary=type_primary,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    mode: GetTrendingEntitiesMode,
    theme: GetTrendingEntitiesThemeType0 | None | Unset = UNSET,
    type_primary: GetTrendingEntitiesTypePrimaryType0 | None | Unset = UNSET,
    limit: int | Unset = 25,
) -> ErrorBody | HTTPValidationError | TrendingList | None:
    """Trending entities

     Entities with at least 2 signals, reviewed set. `rising`: the `direction` label's share rule says
    Rising (the last 4 weeks' share of voice at least 1.25 times the 8 weeks' before, or new there) and
    at least 2 signals in the last complete week, by z-score, whatever the signal count: a rising entity
    is never labelled Declining or Stable; `hot`: by signals in the last complete week; `consistent`:
    active in at least 9 of the 12 weeks, by persistence; `new`: notable (its third signal) in the last
    4 complete weeks and first mentioned at most 26 weeks before that (one or two earlier mentions, a
    rumour, do not keep a name out; an old name mentioned again is not new), by signal count. Ties end
    on `entity_id`. Field names differ from the entity list (`display_name`, `type_primary`, `trend`
    with momentum numbers).

    Args:
        mode (GetTrendingEntitiesMode): `rising`: rising share of voice, by z-score; `hot`: most
            signals in the last complete week; `consistent`: active in at least 9 of the 12 weeks, by
            persistence; `new`: newly notable, by signal count.
        theme (GetTrendingEntitiesThemeType0 | None | Unset): Only entities with a signal carrying
            this theme label. Matched in any case (`regulatory & legal` works); URL-encode it in a
            query or path. Shorthands such as `C&I` are unknown labels: 404, whose message names the
            canonical one.
        type_primary (GetTrendingEntitiesTypePrimaryType0 | None | Unset): Coarse type:
            `Organization`, `Person`, `Product` (models, hardware, other) or `Other` (locations,
            events, regulation).
        limit (int | Unset): How many entities, 1–50. Default: 25.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | HTTPValidationError | TrendingList
    """

    return sync_detailed(
        client=client,
        mode=mode,
        theme=theme,
        type_primary=type_primary,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    mode: GetTrendingEntitiesMode,
    theme: GetTrendingEntitiesThemeType0 | None | Unset = UNSET,
    type_primary: GetTrendingEntitiesTypePrimaryType0 | None | Unset = UNSET,
    limit: int | Unset = 25,
) -> Response[ErrorBody | HTTPValidationError | TrendingList]:
    """Trending entities

     Entities with at least 2 signals, reviewed set. `rising`: the `direction` label's share rule says
    Rising (the last 4 weeks' share of voice at least 1.25 times the 8 weeks' before, or new there) and
    at least 2 signals in the last complete week, by z-score, whatever the signal count: a rising entity
    is never labelled Declining or Stable; `hot`: by signals in the last complete week; `consistent`:
    active in at least 9 of the 12 weeks, by persistence; `new`: notable (its third signal) in the last
    4 complete weeks and first mentioned at most 26 weeks before that (one or two earlier mentions, a
    rumour, do not keep a name out; an old name mentioned again is not new), by signal count. Ties end
    on `entity_id`. Field names differ from the entity list (`display_name`, `type_primary`, `trend`
    with momentum numbers).

    Args:
        mode (GetTrendingEntitiesMode): `rising`: rising share of voice, by z-score; `hot`: most
            signals in the last complete week; `consistent`: active in at least 9 of the 12 weeks, by
            persistence; `new`: newly notable, by signal count.
        theme (GetTrendingEntitiesThemeType0 | None | Unset): Only entities with a signal carrying
            this theme label. Matched in any case (`regulatory & legal` works); URL-encode it in a
            query or path. Shorthands such as `C&I` are unknown labels: 404, whose message names the
            canonical one.
        type_primary (GetTrendingEntitiesTypePrimaryType0 | None | Unset): Coarse type:
            `Organization`, `Person`, `Product` (models, hardware, other) or `Other` (locations,
            events, regulation).
        limit (int | Unset): How many entities, 1–50. Default: 25.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | HTTPValidationError | TrendingList]
    """

    kwargs = _get_kwargs(
        mode=mode,
        theme=theme,
        type_primary=type_primary,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    mode: GetTrendingEntitiesMode,
    theme: GetTrendingEntitiesThemeType0 | None | Unset = UNSET,
    type_primary: GetTrendingEntitiesTypePrimaryType0 | None | Unset = UNSET,
    limit: int | Unset = 25,
) -> ErrorBody | HTTPValidationError | TrendingList | None:
    """Trending entities

     Entities with at least 2 signals, reviewed set. `rising`: the `direction` label's share rule says
    Rising (the last 4 weeks' share of voice at least 1.25 times the 8 weeks' before, or new there) and
    at least 2 signals in the last complete week, by z-score, whatever the signal count: a rising entity
    is never labelled Declining or Stable; `hot`: by signals in the last complete week; `consistent`:
    active in at least 9 of the 12 weeks, by persistence; `new`: notable (its third signal) in the last
    4 complete weeks and first mentioned at most 26 weeks before that (one or two earlier mentions, a
    rumour, do not keep a name out; an old name mentioned again is not new), by signal count. Ties end
    on `entity_id`. Field names differ from the entity list (`display_name`, `type_primary`, `trend`
    with momentum numbers).

    Args:
        mode (GetTrendingEntitiesMode): `rising`: rising share of voice, by z-score; `hot`: most
            signals in the last complete week; `consistent`: active in at least 9 of the 12 weeks, by
            persistence; `new`: newly notable, by signal count.
        theme (GetTrendingEntitiesThemeType0 | None | Unset): Only entities with a signal carrying
            this theme label. Matched in any case (`regulatory & legal` works); URL-encode it in a
            query or path. Shorthands such as `C&I` are unknown labels: 404, whose message names the
            canonical one.
        type_primary (GetTrendingEntitiesTypePrimaryType0 | None | Unset): Coarse type:
            `Organization`, `Person`, `Product` (models, hardware, other) or `Other` (locations,
            events, regulation).
        limit (int | Unset): How many entities, 1–50. Default: 25.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | HTTPValidationError | TrendingList
    """

    return (
        await asyncio_detailed(
            client=client,
            mode=mode,
            theme=theme,
            type_primary=type_primary,
            limit=limit,
        )
    ).parsed
