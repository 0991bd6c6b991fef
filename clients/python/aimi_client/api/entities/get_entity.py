from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.entity_profile_detail import EntityProfileDetail
from ...models.error_body import ErrorBody
from ...models.http_validation_error import HTTPValidationError
from ...types import Response


def _get_kwargs(
    name_or_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/entities/{name_or_id}".format(
            name_or_id=quote(str(name_or_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EntityProfileDetail | ErrorBody | HTTPValidationError | None:
    if response.status_code == 200:
        response_200 = EntityProfileDetail.from_dict(response.json())

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
) -> Response[EntityProfileDetail | ErrorBody | HTTPValidationError]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    name_or_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[EntityProfileDetail | ErrorBody | HTTPValidationError]:
    """One entity profile with related entities

     By public id (`ent:/…`, raw or URL-encoded) or URL-encoded display name or alias, whatever its
    signal count. `related_entities`: top 25 by signals in common.

    Args:
        name_or_id (str): Public id (`ent:/…`, raw or URL-encoded) or URL-encoded display name or
            alias, in any case. Unknown → 404.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EntityProfileDetail | ErrorBody | HTTPValidationError]
    """

    kwargs = _get_kwargs(
        name_or_id=name_or_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    name_or_id: str,
    *,
    client: AuthenticatedClient,
) -> EntityProfileDetail | ErrorBody | HTTPValidationError | None:
    """One entity profile with related entities

     By public id (`ent:/…`, raw or URL-encoded) or URL-encoded display name or alias, whatever its
    signal count. `related_entities`: top 25 by signals in common.

    Args:
        name_or_id (str): Public id (`ent:/…`, raw or URL-encoded) or URL-encoded display name or
            alias, in any case. Unknown → 404.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EntityProfileDetail | ErrorBody | HTTPValidationError
    """

    return sync_detailed(
        name_or_id=name_or_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    name_or_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[EntityProfileDetail | ErrorBody | HTTPValidationError]:
    """One entity profile with related entities

     By public id (`ent:/…`, raw or URL-encoded) or URL-encoded display name or alias, whatever its
    signal count. `related_entities`: top 25 by signals in common.

    Args:
        name_or_id (str): Public id (`ent:/…`, raw or URL-encoded) or URL-encoded display name or
            alias, in any case. Unknown → 404.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EntityProfileDetail | ErrorBody | HTTPValidationError]
    """

    kwargs = _get_kwargs(
        name_or_id=name_or_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    name_or_id: str,
    *,
    client: AuthenticatedClient,
) -> EntityProfileDetail | ErrorBody | HTTPValidationError | None:
    """One entity profile with related entities

     By public id (`ent:/…`, raw or URL-encoded) or URL-encoded display name or alias, whatever its
    signal count. `related_entities`: top 25 by signals in common.

    Args:
        name_or_id (str): Public id (`ent:/…`, raw or URL-encoded) or URL-encoded display name or
            alias, in any case. Unknown → 404.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EntityProfileDetail | ErrorBody | HTTPValidationError
    """

    return (
        await asyncio_detailed(
            name_or_id=name_or_id,
            client=client,
        )
    ).parsed
