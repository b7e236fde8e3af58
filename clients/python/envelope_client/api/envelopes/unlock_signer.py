from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.envelope import Envelope
from ...models.error import Error
from ...models.unlock_signer_body import UnlockSignerBody
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    signer_id: str,
    *,
    body: UnlockSignerBody | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/envelopes/{id}/signers/{signer_id}/unlock".format(
            id=quote(str(id), safe=""),
            signer_id=quote(str(signer_id), safe=""),
        ),
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Envelope | Error | None:
    if response.status_code == 200:
        response_200 = Envelope.from_dict(response.json())

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
) -> Response[Envelope | Error]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    signer_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: UnlockSignerBody | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[Envelope | Error]:
    """Lift the lock of a signer's code step

     Lifts the lock that wrong access or emailed codes put on a signer's link (extensions E8): codes are
    checked again, and the count of wrong codes and the lock ladder (15 minutes, an hour, then until the
    sender acts) start again. The audit trail shows the unlock. The body is empty (`{}`) or absent.
    Errors: an unknown envelope or signer is 404 `resource_missing`; a signer who is not locked, has no
    identity check, has signed or declined, or whose envelope is not sent is 409 `invalid_state`
    (nothing is written, so a retry after success says plainly that nothing was locked; send an
    `Idempotency-Key` to replay the first answer instead).

    Args:
        id (str):
        signer_id (str):
        idempotency_key (str | Unset):
        body (UnlockSignerBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Envelope | Error]
    """

    kwargs = _get_kwargs(
        id=id,
        signer_id=signer_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    signer_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: UnlockSignerBody | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Envelope | Error | None:
    """Lift the lock of a signer's code step

     Lifts the lock that wrong access or emailed codes put on a signer's link (extensions E8): codes are
    checked again, and the count of wrong codes and the lock ladder (15 minutes, an hour, then until the
    sender acts) start again. The audit trail shows the unlock. The body is empty (`{}`) or absent.
    Errors: an unknown envelope or signer is 404 `resource_missing`; a signer who is not locked, has no
    identity check, has signed or declined, or whose envelope is not sent is 409 `invalid_state`
    (nothing is written, so a retry after success says plainly that nothing was locked; send an
    `Idempotency-Key` to replay the first answer instead).

    Args:
        id (str):
        signer_id (str):
        idempotency_key (str | Unset):
        body (UnlockSignerBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Envelope | Error
    """

    return sync_detailed(
        id=id,
        signer_id=signer_id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    id: str,
    signer_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: UnlockSignerBody | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[Envelope | Error]:
    """Lift the lock of a signer's code step

     Lifts the lock that wrong access or emailed codes put on a signer's link (extensions E8): codes are
    checked again, and the count of wrong codes and the lock ladder (15 minutes, an hour, then until the
    sender acts) start again. The audit trail shows the unlock. The body is empty (`{}`) or absent.
    Errors: an unknown envelope or signer is 404 `resource_missing`; a signer who is not locked, has no
    identity check, has signed or declined, or whose envelope is not sent is 409 `invalid_state`
    (nothing is written, so a retry after success says plainly that nothing was locked; send an
    `Idempotency-Key` to replay the first answer instead).

    Args:
        id (str):
        signer_id (str):
        idempotency_key (str | Unset):
        body (UnlockSignerBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Envelope | Error]
    """

    kwargs = _get_kwargs(
        id=id,
        signer_id=signer_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    signer_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: UnlockSignerBody | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Envelope | Error | None:
    """Lift the lock of a signer's code step

     Lifts the lock that wrong access or emailed codes put on a signer's link (extensions E8): codes are
    checked again, and the count of wrong codes and the lock ladder (15 minutes, an hour, then until the
    sender acts) start again. The audit trail shows the unlock. The body is empty (`{}`) or absent.
    Errors: an unknown envelope or signer is 404 `resource_missing`; a signer who is not locked, has no
    identity check, has signed or declined, or whose envelope is not sent is 409 `invalid_state`
    (nothing is written, so a retry after success says plainly that nothing was locked; send an
    `Idempotency-Key` to replay the first answer instead).

    Args:
        id (str):
        signer_id (str):
        idempotency_key (str | Unset):
        body (UnlockSignerBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Envelope | Error
    """

    return (
        await asyncio_detailed(
            id=id,
            signer_id=signer_id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
