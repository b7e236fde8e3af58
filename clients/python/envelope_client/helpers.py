"""What the generated client leaves to its caller: a client set up with an API key, and errors
raised rather than returned. Written by hand: clients/generate.sh keeps this module.

The generated operations (``envelope_client.api.<tag>.<operation>``) return the API's ``Error``
model for a documented error status; :func:`unwrap` turns that into an exception::

    from envelope_client.helpers import connect, unwrap
    from envelope_client.api.account import get_account

    account = unwrap(get_account.sync(client=connect("http://127.0.0.1:8080", "sk_test_...")))
"""

from __future__ import annotations

from typing import TypeVar

import httpx

from .client import AuthenticatedClient
from .models.error import Error

T = TypeVar("T")


class ApiError(Exception):
    """The API answered an error (its flat body: ``status``, ``code``, ``param``, ``message``)."""

    def __init__(self, error: Error) -> None:
        super().__init__(f"{error.status} {error.code.value}: {error.message}")
        #: The error as the API sent it.
        self.error = error

    @property
    def status(self) -> int:
        """The HTTP status."""
        return self.error.status

    @property
    def code(self) -> str:
        """The error's code, such as ``resource_missing`` (decisions.md's table)."""
        return self.error.code.value

    @property
    def param(self) -> str | None:
        """The parameter at fault as a dotted path (``signers.2.email``), or None."""
        return self.error.param


def connect(base_url: str, api_key: str, timeout: float = 60.0) -> AuthenticatedClient:
    """A client for ``base_url`` (no ``/v1``) that sends ``api_key`` (``sk_test_...`` or
    ``sk_live_...``: the key's mode is the data's mode) as a bearer token, and raises
    ``errors.UnexpectedStatus`` for an undocumented status."""
    return AuthenticatedClient(
        base_url=base_url.rstrip("/"),
        token=api_key,
        raise_on_unexpected_status=True,
        timeout=httpx.Timeout(timeout),
    )


def unwrap(result: Error | T | None) -> T:
    """The result of a generated ``sync``/``asyncio`` call, or :class:`ApiError` when the API
    answered an error."""
    if isinstance(result, Error):
        raise ApiError(result)
    if result is None:
        # Only for a status the document does not list, which connect() already raises.
        raise ValueError("the API's answer was not one the document describes")
    return result
