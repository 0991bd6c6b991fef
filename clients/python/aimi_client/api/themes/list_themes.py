from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.http_validation_error import HTTPValidationError
from ...models.list_themes_axis_type_0 import ListThemesAxisType0
from ...models.theme_list import ThemeList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    axis: ListThemesAxisType0 | None | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_axis: None | str | Unset
    if isinstance(axis, Unset):
        json_axis = UNSET
    elif isinstance(axis, ListThemesAxisType0):
        json_axis = axis.value
    else:
        json_axis = axis
    params["axis"] = json_axis

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/themes",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | HTTPValidationError | ThemeList | None:
    if response.status_code == 200:
        response_200 = ThemeList.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

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
) -> Response[ErrorBody | HTTPValidationError | ThemeList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    axis: ListThemesAxisType0 | None | Unset = UNSET,
) -> Response[ErrorBody | HTTPValidationError | ThemeList]:
    """The 12 themes

     Both axes in canonical order (value chain first), or one axis. Not paginated.

    Args:
        axis (ListThemesAxisType0 | None | Unset): Only this axis (6 themes); both when omitted
            (12, value chain first).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | HTTPValidationError | ThemeList]
    """

    kwargs = _get_kwargs(
        axis=axis,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    axis: ListThemesAxisType0 | None | Unset = UNSET,
) -> ErrorBody | HTTPValidationError | ThemeList | None:
    """The 12 themes

     Both axes in canonical order (value chain first), or one axis. Not paginated.

    Args:
        axis (ListThemesAxisType0 | None | Unset): Only this axis (6 themes); both when omitted
            (12, value chain first).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | HTTPValidationError | ThemeList
    """

    return sync_detailed(
        client=client,
        axis=axis,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    axis: ListThemesAxisType0 | None | Unset = UNSET,
) -> Response[ErrorBody | HTTPValidationError | ThemeList]:
    """The 12 themes

     Both axes in canonical order (value chain first), or one axis. Not paginated.

    Args:
        axis (ListThemesAxisType0 | None | Unset): Only this axis (6 themes); both when omitted
            (12, value chain first).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | HTTPValidationError | ThemeList]
    """

    kwargs = _get_kwargs(
        axis=axis,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    axis: ListThemesAxisType0 | None | Unset = UNSET,
) -> ErrorBody | HTTPValidationError | ThemeList | None:
    """The 12 themes

     Both axes in canonical order (value chain first), or one axis. Not paginated.

    Args:
        axis (ListThemesAxisType0 | None | Unset): Only this axis (6 themes); both when omitted
            (12, value chain first).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | HTTPValidationError | ThemeList
    """

    return (
        await asyncio_detailed(
            client=client,
            axis=axis,
        )
    ).parsed
