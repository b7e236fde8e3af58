from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.envelope import Envelope
from ...models.error import Error
from ...models.update_envelope_request import UpdateEnvelopeRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    body: UpdateEnvelopeRequest | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v1/envelopes/{id}".format(
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
    *,
    client: AuthenticatedClient | Client,
    body: UpdateEnvelopeRequest | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> Response[Envelope | Error]:
    """Change a draft, or correct a sent envelope

     Changes a `draft` envelope (extensions E11): each given member replaces the old value whole, absent
    members stay. `signers` and `fields` take the shapes and rules of create; `fields` replaces the
    envelope's explicit fields, while fields found in its documents (tags and form fields) stay and keep
    their keys. The envelope that results must pass every rule of create, with the same error codes and
    `param` paths (`fields.0`, `missing_signer`, `signer_without_fields`, `missing_data`...).
    `expires_in_days` counts from the send, as on create. A draft's change emits no event. A `sent`
    envelope that nobody has signed yet is **corrected** (extensions E14): `signers` names signers by
    role (or by position in a list without roles) and may change their `name` and `email` (`locale`
    too); signers not named stay as they are; `order`, `kind` and `in_person` must be what they are and
    `auth` cannot be given (400 with `param`). A signer whose name or email changed keeps their ID,
    their earlier links stop working and a new request goes out when it is their turn. `fields`,
    `subject`, `message`, `metadata` and `expires_in_days` (from the send; an expiry already past is
    400) change as on a draft. What changed is recorded for the audit trail (before and after for names,
    emails and the expiry), and `envelope.corrected` names it in `data.changes`; a PATCH that changes
    nothing records nothing. Any other envelope (completed, voided, or sent and signed by someone): 409
    `invalid_state`.

    Args:
        id (str):
        if_match (str | Unset):
        body (UpdateEnvelopeRequest | Unset): Every member is optional and replaces the old value
            whole.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Envelope | Error]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        if_match=if_match,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: UpdateEnvelopeRequest | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> Envelope | Error | None:
    """Change a draft, or correct a sent envelope

     Changes a `draft` envelope (extensions E11): each given member replaces the old value whole, absent
    members stay. `signers` and `fields` take the shapes and rules of create; `fields` replaces the
    envelope's explicit fields, while fields found in its documents (tags and form fields) stay and keep
    their keys. The envelope that results must pass every rule of create, with the same error codes and
    `param` paths (`fields.0`, `missing_signer`, `signer_without_fields`, `missing_data`...).
    `expires_in_days` counts from the send, as on create. A draft's change emits no event. A `sent`
    envelope that nobody has signed yet is **corrected** (extensions E14): `signers` names signers by
    role (or by position in a list without roles) and may change their `name` and `email` (`locale`
    too); signers not named stay as they are; `order`, `kind` and `in_person` must be what they are and
    `auth` cannot be given (400 with `param`). A signer whose name or email changed keeps their ID,
    their earlier links stop working and a new request goes out when it is their turn. `fields`,
    `subject`, `message`, `metadata` and `expires_in_days` (from the send; an expiry already past is
    400) change as on a draft. What changed is recorded for the audit trail (before and after for names,
    emails and the expiry), and `envelope.corrected` names it in `data.changes`; a PATCH that changes
    nothing records nothing. Any other envelope (completed, voided, or sent and signed by someone): 409
    `invalid_state`.

    Args:
        id (str):
        if_match (str | Unset):
        body (UpdateEnvelopeRequest | Unset): Every member is optional and replaces the old value
            whole.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Envelope | Error
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
        if_match=if_match,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: UpdateEnvelopeRequest | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> Response[Envelope | Error]:
    """Change a draft, or correct a sent envelope

     Changes a `draft` envelope (extensions E11): each given member replaces the old value whole, absent
    members stay. `signers` and `fields` take the shapes and rules of create; `fields` replaces the
    envelope's explicit fields, while fields found in its documents (tags and form fields) stay and keep
    their keys. The envelope that results must pass every rule of create, with the same error codes and
    `param` paths (`fields.0`, `missing_signer`, `signer_without_fields`, `missing_data`...).
    `expires_in_days` counts from the send, as on create. A draft's change emits no event. A `sent`
    envelope that nobody has signed yet is **corrected** (extensions E14): `signers` names signers by
    role (or by position in a list without roles) and may change their `name` and `email` (`locale`
    too); signers not named stay as they are; `order`, `kind` and `in_person` must be what they are and
    `auth` cannot be given (400 with `param`). A signer whose name or email changed keeps their ID,
    their earlier links stop working and a new request goes out when it is their turn. `fields`,
    `subject`, `message`, `metadata` and `expires_in_days` (from the send; an expiry already past is
    400) change as on a draft. What changed is recorded for the audit trail (before and after for names,
    emails and the expiry), and `envelope.corrected` names it in `data.changes`; a PATCH that changes
    nothing records nothing. Any other envelope (completed, voided, or sent and signed by someone): 409
    `invalid_state`.

    Args:
        id (str):
        if_match (str | Unset):
        body (UpdateEnvelopeRequest | Unset): Every member is optional and replaces the old value
            whole.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Envelope | Error]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        if_match=if_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: UpdateEnvelopeRequest | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> Envelope | Error | None:
    """Change a draft, or correct a sent envelope

     Changes a `draft` envelope (extensions E11): each given member replaces the old value whole, absent
    members stay. `signers` and `fields` take the shapes and rules of create; `fields` replaces the
    envelope's explicit fields, while fields found in its documents (tags and form fields) stay and keep
    their keys. The envelope that results must pass every rule of create, with the same error codes and
    `param` paths (`fields.0`, `missing_signer`, `signer_without_fields`, `missing_data`...).
    `expires_in_days` counts from the send, as on create. A draft's change emits no event. A `sent`
    envelope that nobody has signed yet is **corrected** (extensions E14): `signers` names signers by
    role (or by position in a list without roles) and may change their `name` and `email` (`locale`
    too); signers not named stay as they are; `order`, `kind` and `in_person` must be what they are and
    `auth` cannot be given (400 with `param`). A signer whose name or email changed keeps their ID,
    their earlier links stop working and a new request goes out when it is their turn. `fields`,
    `subject`, `message`, `metadata` and `expires_in_days` (from the send; an expiry already past is
    400) change as on a draft. What changed is recorded for the audit trail (before and after for names,
    emails and the expiry), and `envelope.corrected` names it in `data.changes`; a PATCH that changes
    nothing records nothing. Any other envelope (completed, voided, or sent and signed by someone): 409
    `invalid_state`.

    Args:
        id (str):
        if_match (str | Unset):
        body (UpdateEnvelopeRequest | Unset): Every member is optional and replaces the old value
            whole.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Envelope | Error
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            if_match=if_match,
        )
    ).parsed
