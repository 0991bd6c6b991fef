from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.http_validation_error import HTTPValidationError
from ...models.story_detail import StoryDetail
from ...types import Response


def _get_kwargs(
    story_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/stories/{story_id}".format(
            story_id=quote(str(story_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | HTTPValidationError | StoryDetail | None:
    if response.status_code == 200:
        response_200 = StoryDetail.from_dict(response.json())

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
) -> Response[ErrorBody | HTTPValidationError | StoryDetail]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    story_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | HTTPValidationError | StoryDetail]:
    """One story with its signals

     One story with its signals (newest first), `parts` (a roundup's units that report this story's
    event, when a roundup is among its signals) and, when a rebuild merged or split it, `merged_from` /
    `split_from`.

    Args:
        story_id (str): The story's `story_id`; unknown → 404.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | HTTPValidationError | StoryDetail]
    """

    kwargs = _get_kwargs(
        story_id=story_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    story_id: str,
    *,
    client: AuthenticatedClient,
) -> ErrorBody | HTTPValidationError | StoryDetail | None:
    """One story with its signals

     One story with its signals (newest first), `parts` (a roundup's units that report this story's
    event, when a roundup is among its signals) and, when a rebuild merged or split it, `merged_from` /
    `split_from`.

    Args:
        story_id (str): The story's `story_id`; unknown → 404.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | HTTPValidationError | StoryDetail
    """

    return sync_detailed(
        story_id=story_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    story_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | HTTPValidationError | StoryDetail]:
    """One story with its signals

     One story with its signals (newest first), `parts` (a roundup's units that report this story's
    event, when a roundup is among its signals) and, when a rebuild merged or split it, `merged_from` /
    `split_from`.

    Args:
        story_id (str): The story's `story_id`; unknown → 404.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | HTTPValidationError | StoryDetail]
    """

    kwargs = _get_kwargs(
        story_id=story_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    story_id: str,
    *,
    client: AuthenticatedClient,
) -> ErrorBody | HTTPValidationError | StoryDetail | None:
    """One story with its signals

     One story with its signals (newest first), `parts` (a roundup's units that report this story's
    event, when a roundup is among its signals) and, when a rebuild merged or split it, `merged_from` /
    `split_from`.

    Args:
        story_id (str): The story's `story_id`; unknown → 404.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | HTTPValidationError | StoryDetail
    """

    return (
        await asyncio_detailed(
            story_id=story_id,
            client=client,
        )
    ).parsed
