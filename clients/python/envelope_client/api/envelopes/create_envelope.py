from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_envelope_multipart import CreateEnvelopeMultipart
from ...models.create_envelope_request import CreateEnvelopeRequest
from ...models.envelope import Envelope
from ...models.error import Error
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: CreateEnvelopeRequest | CreateEnvelopeMultipart | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/envelopes",
    }

    if isinstance(body, CreateEnvelopeRequest):
        _kwargs["json"] = body.to_dict()

        headers["Content-Type"] = "application/json"
    if isinstance(body, CreateEnvelopeMultipart):
        _kwargs["files"] = body.to_multipart()

        headers["Content-Type"] = "multipart/form-data; boundary=+++"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Envelope | Error | None:
    if response.status_code == 201:
        response_201 = Envelope.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 402:
        response_402 = Error.from_dict(response.json())

        return response_402

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
) -> Response[Envelope | Error]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CreateEnvelopeRequest | CreateEnvelopeMultipart | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[Envelope | Error]:
    """Create an envelope

     From a template or an uploaded PDF; sent at once unless `send` is false.

    Args:
        idempotency_key (str | Unset):
        body (CreateEnvelopeRequest): Give `template`, or a PDF as `file_base64` with `file_name`,
            or documents in `files` (after a template's or a PDF's, or alone).
        body (CreateEnvelopeMultipart): Strings are raw text parts; objects, arrays, booleans and
            numbers are JSON text. Or one `payload` part holds every parameter. The PDF is the part
            named `file`; several `file` parts are several documents, in order.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Envelope | Error]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: CreateEnvelopeRequest | CreateEnvelopeMultipart | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Envelope | Error | None:
    """Create an envelope

     From a template or an uploaded PDF; sent at once unless `send` is false.

    Args:
        idempotency_key (str | Unset):
        body (CreateEnvelopeRequest): Give `template`, or a PDF as `file_base64` with `file_name`,
            or documents in `files` (after a template's or a PDF's, or alone).
        body (CreateEnvelopeMultipart): Strings are raw text parts; objects, arrays, booleans and
            numbers are JSON text. Or one `payload` part holds every parameter. The PDF is the part
            named `file`; several `file` parts are several documents, in order.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Envelope | Error
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CreateEnvelopeRequest | CreateEnvelopeMultipart | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[Envelope | Error]:
    """Create an envelope

     From a template or an uploaded PDF; sent at once unless `send` is false.

    Args:
        idempotency_key (str | Unset):
        body (CreateEnvelopeRequest): Give `template`, or a PDF as `file_base64` with `file_name`,
            or documents in `files` (after a template's or a PDF's, or alone).
        body (CreateEnvelopeMultipart): Strings are raw text parts; objects, arrays, booleans and
            numbers are JSON text. Or one `payload` part holds every parameter. The PDF is the part
            named `file`; several `file` parts are several documents, in order.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Envelope | Error]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: CreateEnvelopeRequest | CreateEnvelopeMultipart | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Envelope | Error | None:
    """Create an envelope

     From a template or an uploaded PDF; sent at once unless `send` is false.

    Args:
        idempotency_key (str | Unset):
        body (CreateEnvelopeRequest): Give `template`, or a PDF as `file_base64` with `file_name`,
            or documents in `files` (after a template's or a PDF's, or alone).
        body (CreateEnvelopeMultipart): Strings are raw text parts; objects, arrays, booleans and
            numbers are JSON text. Or one `payload` part holds every parameter. The PDF is the part
            named `file`; several `file` parts are several documents, in order.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Envelope | Error
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
