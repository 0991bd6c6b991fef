from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.refresh_result import RefreshResult
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/admin/refresh",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | RefreshResult | None:
    if response.status_code == 200:
        response_200 = RefreshResult.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = ErrorBody.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = ErrorBody.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorBody | RefreshResult]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | RefreshResult]:
    """Refresh the derived views and embeddings, publish and serve

     Re-materializes the aggregate views behind entity profiles, co-occurrence, the theme overview and
    the weekly counts, embeds units not embedded yet, publishes a snapshot and serves it before
    answering. Needs `X-Admin-Secret`; an API key is not enough. While a refresh or a build runs,
    another is refused with 503 and `retry_after`. The clock is `AIMI_AS_OF` when set, else the one the
    data dir remembers from `aimi build --as-of` or `--demo`, else now. Failed attempts are limited:
    past 10 a minute (per server process), every attempt is refused with 429 until the minute ends.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | RefreshResult]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
) -> ErrorBody | RefreshResult | None:
    """Refresh the derived views and embeddings, publish and serve

     Re-materializes the aggregate views behind entity profiles, co-occurrence, the theme overview and
    the weekly counts, embeds units not embedded yet, publishes a snapshot and serves it before
    answering. Needs `X-Admin-Secret`; an API key is not enough. While a refresh or a build runs,
    another is refused with 503 and `retry_after`. The clock is `AIMI_AS_OF` when set, else the one the
    data dir remembers from `aimi build --as-of` or `--demo`, else now. Failed attempts are limited:
    past 10 a minute (per server process), every attempt is refused with 429 until the minute ends.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | RefreshResult
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | RefreshResult]:
    """Refresh the derived views and embeddings, publish and serve

     Re-materializes the aggregate views behind entity profiles, co-occurrence, the theme overview and
    the weekly counts, embeds units not embedded yet, publishes a snapshot and serves it before
    answering. Needs `X-Admin-Secret`; an API key is not enough. While a refresh or a build runs,
    another is refused with 503 and `retry_after`. The clock is `AIMI_AS_OF` when set, else the one the
    data dir remembers from `aimi build --as-of` or `--demo`, else now. Failed attempts are limited:
    past 10 a minute (per server process), every attempt is refused with 429 until the minute ends.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | RefreshResult]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
) -> ErrorBody | RefreshResult | None:
    """Refresh the derived views and embeddings, publish and serve

     Re-materializes the aggregate views behind entity profiles, co-occurrence, the theme overview and
    the weekly counts, embeds units not embedded yet, publishes a snapshot and serves it before
    answering. Needs `X-Admin-Secret`; an API key is not enough. While a refresh or a build runs,
    another is refused with 503 and `retry_after`. The clock is `AIMI_AS_OF` when set, else the one the
    data dir remembers from `aimi build --as-of` or `--demo`, else now. Failed attempts are limited:
    past 10 a minute (per server process), every attempt is refused with 429 until the minute ends.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | RefreshResult
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
