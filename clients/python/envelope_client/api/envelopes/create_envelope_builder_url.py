from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.builder_url import BuilderUrl
from ...models.builder_url_request import BuilderUrlRequest
from ...models.error import Error
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    body: BuilderUrlRequest | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/envelopes/{id}/builder_url".format(
            id=quote(str(id), safe=""),
        ),
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> BuilderUrl | Error | None:
    if response.status_code == 200:
        response_200 = BuilderUrl.from_dict(response.json())

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

    if response.status_code == 408:
        response_408 = Error.from_dict(response.json())

        return response_408

    if response.status_code == 409:
        response_409 = Error.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = Error.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = Error.from_dict(response.json())

        return response_415

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
) -> Response[BuilderUrl | Error]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: BuilderUrlRequest | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[BuilderUrl | Error]:
    """Get a builder link to this draft envelope

     A link to the builder page (extensions E11), where a person places fields on the rendered pages of
    this draft envelope and sends it, valid for one hour. Only drafts: any other status is 409
    `invalid_state`. The token is stored hashed and never logged. docs/BUILDER.md.

    Args:
        id (str):
        idempotency_key (str | Unset):
        body (BuilderUrlRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BuilderUrl | Error]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: BuilderUrlRequest | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> BuilderUrl | Error | None:
    """Get a builder link to this draft envelope

     A link to the builder page (extensions E11), where a person places fields on the rendered pages of
    this draft envelope and sends it, valid for one hour. Only drafts: any other status is 409
    `invalid_state`. The token is stored hashed and never logged. docs/BUILDER.md.

    Args:
        id (str):
        idempotency_key (str | Unset):
        body (BuilderUrlRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BuilderUrl | Error
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: BuilderUrlRequest | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[BuilderUrl | Error]:
    """Get a builder link to this draft envelope

     A link to the builder page (extensions E11), where a person places fields on the rendered pages of
    this draft envelope and sends it, valid for one hour. Only drafts: any other status is 409
    `invalid_state`. The token is stored hashed and never logged. docs/BUILDER.md.

    Args:
        id (str):
        idempotency_key (str | Unset):
        body (BuilderUrlRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BuilderUrl | Error]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: BuilderUrlRequest | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> BuilderUrl | Error | None:
    """Get a builder link to this draft envelope

     A link to the builder page (extensions E11), where a person places fields on the rendered pages of
    this draft envelope and sends it, valid for one hour. Only drafts: any other status is 409
    `invalid_state`. The token is stored hashed and never logged. docs/BUILDER.md.

    Args:
        id (str):
        idempotency_key (str | Unset):
        body (BuilderUrlRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BuilderUrl | Error
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
