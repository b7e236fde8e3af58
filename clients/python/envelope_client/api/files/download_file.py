from http import HTTPStatus
from io import BytesIO
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...types import File, Response


def _get_kwargs(
    token: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/files/{token}".format(
            token=quote(str(token), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | Error | File | None:
    if response.status_code == 200:
        response_200 = File(payload=BytesIO(response.content))

        return response_200

    if response.status_code == 302:
        response_302 = cast(Any, None)
        return response_302

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())

        return response_404

    if response.status_code == 410:
        response_410 = Error.from_dict(response.json())

        return response_410

    if response.status_code == 429:
        response_429 = Error.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = Error.from_dict(response.json())

        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Any | Error | File]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    token: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Any | Error | File]:
    """Download the PDF behind a file link

     The `url` of a file link: no API key, the token is the secret; valid for 5 minutes. A link of kind
    `archive` gives a ZIP (`application/zip`), streamed as it is written. A server run with `--blob-
    presigned-downloads` (PDFs in S3) answers a link to an original or an audit trail with `302` to a
    presigned URL of the bucket, valid 5 minutes, that gives the same bytes with the same `Content-Type`
    and `Content-Disposition`: clients must follow redirects. Signed copies and archives are always
    `200`.

    Args:
        token (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Error | File]
    """

    kwargs = _get_kwargs(
        token=token,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    token: str,
    *,
    client: AuthenticatedClient | Client,
) -> Any | Error | File | None:
    """Download the PDF behind a file link

     The `url` of a file link: no API key, the token is the secret; valid for 5 minutes. A link of kind
    `archive` gives a ZIP (`application/zip`), streamed as it is written. A server run with `--blob-
    presigned-downloads` (PDFs in S3) answers a link to an original or an audit trail with `302` to a
    presigned URL of the bucket, valid 5 minutes, that gives the same bytes with the same `Content-Type`
    and `Content-Disposition`: clients must follow redirects. Signed copies and archives are always
    `200`.

    Args:
        token (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Error | File
    """

    return sync_detailed(
        token=token,
        client=client,
    ).parsed


async def asyncio_detailed(
    token: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Any | Error | File]:
    """Download the PDF behind a file link

     The `url` of a file link: no API key, the token is the secret; valid for 5 minutes. A link of kind
    `archive` gives a ZIP (`application/zip`), streamed as it is written. A server run with `--blob-
    presigned-downloads` (PDFs in S3) answers a link to an original or an audit trail with `302` to a
    presigned URL of the bucket, valid 5 minutes, that gives the same bytes with the same `Content-Type`
    and `Content-Disposition`: clients must follow redirects. Signed copies and archives are always
    `200`.

    Args:
        token (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Error | File]
    """

    kwargs = _get_kwargs(
        token=token,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    token: str,
    *,
    client: AuthenticatedClient | Client,
) -> Any | Error | File | None:
    """Download the PDF behind a file link

     The `url` of a file link: no API key, the token is the secret; valid for 5 minutes. A link of kind
    `archive` gives a ZIP (`application/zip`), streamed as it is written. A server run with `--blob-
    presigned-downloads` (PDFs in S3) answers a link to an original or an audit trail with `302` to a
    presigned URL of the bucket, valid 5 minutes, that gives the same bytes with the same `Content-Type`
    and `Content-Disposition`: clients must follow redirects. Signed copies and archives are always
    `200`.

    Args:
        token (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Error | File
    """

    return (
        await asyncio_detailed(
            token=token,
            client=client,
        )
    ).parsed
