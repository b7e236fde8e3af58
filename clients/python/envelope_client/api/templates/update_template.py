from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.template import Template
from ...models.update_template_request import UpdateTemplateRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    body: UpdateTemplateRequest | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v1/templates/{id}".format(
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
) -> Error | Template | None:
    if response.status_code == 200:
        response_200 = Template.from_dict(response.json())

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
) -> Response[Error | Template]:
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
    body: UpdateTemplateRequest | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> Response[Error | Template]:
    """Update a template

     `fields` takes one of two forms. Entries with `type`, `page`, `x`, `y`, `width` and `height` (a
    field object as on create) replace the template's fields whole, checked as on create with explicit
    fields: each role must be one of the template's roles (of `roles` when the same request gives it),
    pages must exist in the template's document and boxes lie inside the page. Entries of `key`, `role`,
    `filled_by` and `required` only edit the field at the same position, one entry per field. Entries of
    both forms in one request: 400 `parameter_invalid` with `param: "fields"`.

    Args:
        id (str):
        if_match (str | Unset):
        body (UpdateTemplateRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | Template]
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
    body: UpdateTemplateRequest | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> Error | Template | None:
    """Update a template

     `fields` takes one of two forms. Entries with `type`, `page`, `x`, `y`, `width` and `height` (a
    field object as on create) replace the template's fields whole, checked as on create with explicit
    fields: each role must be one of the template's roles (of `roles` when the same request gives it),
    pages must exist in the template's document and boxes lie inside the page. Entries of `key`, `role`,
    `filled_by` and `required` only edit the field at the same position, one entry per field. Entries of
    both forms in one request: 400 `parameter_invalid` with `param: "fields"`.

    Args:
        id (str):
        if_match (str | Unset):
        body (UpdateTemplateRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | Template
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
    body: UpdateTemplateRequest | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> Response[Error | Template]:
    """Update a template

     `fields` takes one of two forms. Entries with `type`, `page`, `x`, `y`, `width` and `height` (a
    field object as on create) replace the template's fields whole, checked as on create with explicit
    fields: each role must be one of the template's roles (of `roles` when the same request gives it),
    pages must exist in the template's document and boxes lie inside the page. Entries of `key`, `role`,
    `filled_by` and `required` only edit the field at the same position, one entry per field. Entries of
    both forms in one request: 400 `parameter_invalid` with `param: "fields"`.

    Args:
        id (str):
        if_match (str | Unset):
        body (UpdateTemplateRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | Template]
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
    body: UpdateTemplateRequest | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> Error | Template | None:
    """Update a template

     `fields` takes one of two forms. Entries with `type`, `page`, `x`, `y`, `width` and `height` (a
    field object as on create) replace the template's fields whole, checked as on create with explicit
    fields: each role must be one of the template's roles (of `roles` when the same request gives it),
    pages must exist in the template's document and boxes lie inside the page. Entries of `key`, `role`,
    `filled_by` and `required` only edit the field at the same position, one entry per field. Entries of
    both forms in one request: 400 `parameter_invalid` with `param: "fields"`.

    Args:
        id (str):
        if_match (str | Unset):
        body (UpdateTemplateRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | Template
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            if_match=if_match,
        )
    ).parsed
