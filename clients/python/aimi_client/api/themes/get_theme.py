from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.get_theme_axis import GetThemeAxis
from ...models.get_theme_label import GetThemeLabel
from ...models.http_validation_error import HTTPValidationError
from ...models.theme_detail import ThemeDetail
from ...types import Response


def _get_kwargs(
    axis: GetThemeAxis,
    label: GetThemeLabel,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/themes/{axis}/{label}".format(
            axis=quote(str(axis), safe=""),
            label=quote(str(label), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | HTTPValidationError | ThemeDetail | None:
    if response.status_code == 200:
        response_200 = ThemeDetail.from_dict(response.json())

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
) -> Response[ErrorBody | HTTPValidationError | ThemeDetail]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    axis: GetThemeAxis,
    label: GetThemeLabel,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | HTTPValidationError | ThemeDetail]:
    """One theme with related themes

     `label` is a URL-encoded canonical label, matched in any case (e.g.
    `/v1/themes/market_force/Capital%20%26%20Investment`). Shorthands such as `C&I` are unknown labels:
    404, whose message names the canonical label.

    Args:
        axis (GetThemeAxis): The axis the label belongs to.
        label (GetThemeLabel): A canonical theme label of that axis; on the other axis → 404.
            Matched in any case (`regulatory & legal` works); URL-encode it in a query or path.
            Shorthands such as `C&I` are unknown labels: 404, whose message names the canonical one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | HTTPValidationError | ThemeDetail]
    """

    kwargs = _get_kwargs(
        axis=axis,
        label=label,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    axis: GetThemeAxis,
    label: GetThemeLabel,
    *,
    client: AuthenticatedClient,
) -> ErrorBody | HTTPValidationError | ThemeDetail | None:
    """One theme with related themes

     `label` is a URL-encoded canonical label, matched in any case (e.g.
    `/v1/themes/market_force/Capital%20%26%20Investment`). Shorthands such as `C&I` are unknown labels:
    404, whose message names the canonical label.

    Args:
        axis (GetThemeAxis): The axis the label belongs to.
        label (GetThemeLabel): A canonical theme label of that axis; on the other axis → 404.
            Matched in any case (`regulatory & legal` works); URL-encode it in a query or path.
            Shorthands such as `C&I` are unknown labels: 404, whose message names the canonical one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | HTTPValidationError | ThemeDetail
    """

    return sync_detailed(
        axis=axis,
        label=label,
        client=client,
    ).parsed


async def asyncio_detailed(
    axis: GetThemeAxis,
    label: GetThemeLabel,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | HTTPValidationError | ThemeDetail]:
    """One theme with related themes

     `label` is a URL-encoded canonical label, matched in any case (e.g.
    `/v1/themes/market_force/Capital%20%26%20Investment`). Shorthands such as `C&I` are unknown labels:
    404, whose message names the canonical label.

    Args:
        axis (GetThemeAxis): The axis the label belongs to.
        label (GetThemeLabel): A canonical theme label of that axis; on the other axis → 404.
            Matched in any case (`regulatory & legal` works); URL-encode it in a query or path.
            Shorthands such as `C&I` are unknown labels: 404, whose message names the canonical one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | HTTPValidationError | ThemeDetail]
    """

    kwargs = _get_kwargs(
        axis=axis,
        label=label,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    axis: GetThemeAxis,
    label: GetThemeLabel,
    *,
    client: AuthenticatedClient,
) -> ErrorBody | HTTPValidationError | ThemeDetail | None:
    """One theme with related themes

     `label` is a URL-encoded canonical label, matched in any case (e.g.
    `/v1/themes/market_force/Capital%20%26%20Investment`). Shorthands such as `C&I` are unknown labels:
    404, whose message names the canonical label.

    Args:
        axis (GetThemeAxis): The axis the label belongs to.
        label (GetThemeLabel): A canonical theme label of that axis; on the other axis → 404.
            Matched in any case (`regulatory & legal` works); URL-encode it in a query or path.
            Shorthands such as `C&I` are unknown labels: 404, whose message names the canonical one.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | HTTPValidationError | ThemeDetail
    """

    return (
        await asyncio_detailed(
            axis=axis,
            label=label,
            client=client,
        )
    ).parsed
