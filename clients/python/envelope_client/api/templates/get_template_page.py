from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...types import Response


def _get_kwargs(
    id: str,
    page: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/templates/{id}/pages/{page}".format(
            id=quote(str(id), safe=""),
            page=quote(str(page), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | str | None:
    if response.status_code == 200:
        response_200 = cast(str, response.content)
        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Error.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())

        return response_404

    if response.status_code == 422:
        response_422 = Error.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Error.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = Error.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = Error.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Error | str]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    page: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Error | str]:
    """Get a picture of a page of a template

     The page of the uploaded PDF as a PNG (no fields drawn), its pixels proportional to the page's
    points (extensions E11). Drawn in a worker process within CPU, memory and time limits and cached;
    `Cache-Control: no-store`. A page that cannot be drawn within them is 422 `page_not_drawable`; every
    worker busy is 503 with `Retry-After`.

    Args:
        id (str):
        page (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | str]
    """

    kwargs = _get_kwargs(
        id=id,
        page=page,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    page: str,
    *,
    client: AuthenticatedClient | Client,
) -> Error | str | None:
    """Get a picture of a page of a template

     The page of the uploaded PDF as a PNG (no fields drawn), its pixels proportional to the page's
    points (extensions E11). Drawn in a worker process within CPU, memory and time limits and cached;
    `Cache-Control: no-store`. A page that cannot be drawn within them is 422 `page_not_drawable`; every
    worker busy is 503 with `Retry-After`.

    Args:
        id (str):
        page (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | str
    """

    return sync_detailed(
        id=id,
        page=page,
        client=client,
    ).parsed


async def asyncio_detailed(
    id: str,
    page: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Error | str]:
    """Get a picture of a page of a template

     The page of the uploaded PDF as a PNG (no fields drawn), its pixels proportional to the page's
    points (extensions E11). Drawn in a worker process within CPU, memory and time limits and cached;
    `Cache-Control: no-store`. A page that cannot be drawn within them is 422 `page_not_drawable`; every
    worker busy is 503 with `Retry-After`.

    Args:
        id (str):
        page (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | str]
    """

    kwargs = _get_kwargs(
        id=id,
        page=page,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    page: str,
    *,
    client: AuthenticatedClient | Client,
) -> Error | str | None:
    """Get a picture of a page of a template

     The page of the uploaded PDF as a PNG (no fields drawn), its pixels proportional to the page's
    points (extensions E11). Drawn in a worker process within CPU, memory and time limits and cached;
    `Cache-Control: no-store`. A page that cannot be drawn within them is 422 `page_not_drawable`; every
    worker busy is 503 with `Retry-After`.

    Args:
        id (str):
        page (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | str
    """

    return (
        await asyncio_detailed(
            id=id,
            page=page,
            client=client,
        )
    ).parsed
