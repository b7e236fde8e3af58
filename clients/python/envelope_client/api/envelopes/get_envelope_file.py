from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.file_link import FileLink
from ...models.get_envelope_file_kind import GetEnvelopeFileKind
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    kind: GetEnvelopeFileKind,
    *,
    document: int | Unset = UNSET,
    field: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["document"] = document

    params["field"] = field

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/envelopes/{id}/files/{kind}".format(
            id=quote(str(id), safe=""),
            kind=quote(str(kind), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | FileLink | None:
    if response.status_code == 200:
        response_200 = FileLink.from_dict(response.json())

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

    if response.status_code == 409:
        response_409 = Error.from_dict(response.json())

        return response_409

    if response.status_code == 410:
        response_410 = Error.from_dict(response.json())

        return response_410

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
) -> Response[Error | FileLink]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    kind: GetEnvelopeFileKind,
    *,
    client: AuthenticatedClient | Client,
    document: int | Unset = UNSET,
    field: str | Unset = UNSET,
) -> Response[Error | FileLink]:
    """Get a download link for a file of an envelope

    Args:
        id (str):
        kind (GetEnvelopeFileKind):
        document (int | Unset):
        field (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | FileLink]
    """

    kwargs = _get_kwargs(
        id=id,
        kind=kind,
        document=document,
        field=field,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    kind: GetEnvelopeFileKind,
    *,
    client: AuthenticatedClient | Client,
    document: int | Unset = UNSET,
    field: str | Unset = UNSET,
) -> Error | FileLink | None:
    """Get a download link for a file of an envelope

    Args:
        id (str):
        kind (GetEnvelopeFileKind):
        document (int | Unset):
        field (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | FileLink
    """

    return sync_detailed(
        id=id,
        kind=kind,
        client=client,
        document=document,
        field=field,
    ).parsed


async def asyncio_detailed(
    id: str,
    kind: GetEnvelopeFileKind,
    *,
    client: AuthenticatedClient | Client,
    document: int | Unset = UNSET,
    field: str | Unset = UNSET,
) -> Response[Error | FileLink]:
    """Get a download link for a file of an envelope

    Args:
        id (str):
        kind (GetEnvelopeFileKind):
        document (int | Unset):
        field (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | FileLink]
    """

    kwargs = _get_kwargs(
        id=id,
        kind=kind,
        document=document,
        field=field,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    kind: GetEnvelopeFileKind,
    *,
    client: AuthenticatedClient | Client,
    document: int | Unset = UNSET,
    field: str | Unset = UNSET,
) -> Error | FileLink | None:
    """Get a download link for a file of an envelope

    Args:
        id (str):
        kind (GetEnvelopeFileKind):
        document (int | Unset):
        field (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | FileLink
    """

    return (
        await asyncio_detailed(
            id=id,
            kind=kind,
            client=client,
            document=document,
            field=field,
        )
    ).parsed
