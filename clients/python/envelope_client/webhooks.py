"""Verifying the signature of a webhook delivery (docs/WEBHOOKS.md).

The ``Service-Signature`` header is ``t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>``,
with a second ``v1`` during a secret rotation. This is the same check as envelope-core's
``webhook::signature::verify``, case for case (``clients/webhook-vectors.json`` holds the cases
both are tested on). Written by hand: clients/generate.sh keeps this module.

Verify the raw body, before parsing it: a body parsed and serialized again is not the bytes that
were signed::

    from envelope_client.webhooks import construct_event

    event = construct_event(raw_body, headers["Service-Signature"], "whsec_...")
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from typing import Any, Literal, Sequence, Union

#: The request header that carries the signature.
SIGNATURE_HEADER = "Service-Signature"

#: How far the header's timestamp may be from now by default: 5 minutes, either way.
DEFAULT_TOLERANCE_SECONDS = 300

#: Why a signature was refused, as envelope-core's ``SignatureError`` names it.
Reason = Literal["malformed", "timestamp_out_of_tolerance", "no_match"]

Body = Union[bytes, bytearray, memoryview, str]

_MESSAGES = {
    "malformed": "the signature header is malformed",
    "timestamp_out_of_tolerance": "the timestamp is outside the tolerance",
    "no_match": "no signature matches",
}

# What Rust's ``i64::from_str`` takes: an optional sign and ASCII digits (``int()`` would also
# take spaces, underscores and other digits).
_TIMESTAMP = re.compile(r"[+-]?[0-9]+")
_I64 = (-(2**63), 2**63 - 1)


class WebhookSignatureError(ValueError):
    """A delivery that must not be trusted; ``reason`` says which check failed."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(_MESSAGES[reason])
        #: ``malformed`` (no ``t=`` whole number, no ``v1=``, or a part that is not
        #: ``key=value``), ``timestamp_out_of_tolerance`` (a replayed or delayed request), or
        #: ``no_match`` (no ``v1=`` is the HMAC of the body under the secret).
        self.reason: Reason = reason


def _bytes(body: Body) -> bytes:
    return body.encode("utf-8") if isinstance(body, str) else bytes(body)


def sign(secret: str, timestamp: int, body: Body) -> str:
    """The hex HMAC-SHA256 of ``"<timestamp>.<body>"`` under ``secret`` (the whole ``whsec_...``)."""
    mac = hmac.new(secret.encode("utf-8"), digestmod=hashlib.sha256)
    mac.update(f"{int(timestamp)}.".encode("ascii"))
    mac.update(_bytes(body))
    return mac.hexdigest()


def signature_header(secrets: Sequence[str], timestamp: int, body: Body) -> str:
    """A ``Service-Signature`` value for ``body``, one ``v1`` per secret: what the service sends.

    Useful to test a receiver.
    """
    return ",".join([f"t={int(timestamp)}"] + [f"v1={sign(s, timestamp, body)}" for s in secrets])


def verify(
    body: Body,
    header: str,
    secret: str,
    tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
    now: int | float | None = None,
) -> None:
    """Checks ``header`` (the ``Service-Signature`` value) for the raw ``body`` under the
    endpoint's ``secret``.

    Raises :class:`WebhookSignatureError` unless one of its ``v1`` signatures matches and its
    timestamp is within ``tolerance_seconds`` of ``now`` (Unix seconds; default the system clock).
    """
    timestamp = None
    candidates = []
    for part in header.split(","):
        key, eq, value = part.strip().partition("=")
        if not eq:
            raise WebhookSignatureError("malformed")
        if key == "t":
            if not _TIMESTAMP.fullmatch(value) or not _I64[0] <= int(value) <= _I64[1]:
                raise WebhookSignatureError("malformed")
            timestamp = int(value)
        elif key == "v1":
            candidates.append(value)
        # Other schemes are ignored, as Stripe's verifiers do.
    if timestamp is None or not candidates:
        raise WebhookSignatureError("malformed")
    current = int(time.time() if now is None else now)
    if abs(current - timestamp) > int(tolerance_seconds):
        raise WebhookSignatureError("timestamp_out_of_tolerance")
    expected = sign(secret, timestamp, body).encode("ascii")
    # Every candidate is compared in constant time (hmac.compare_digest), none skipped.
    matched = False
    for candidate in candidates:
        if hmac.compare_digest(candidate.encode("utf-8"), expected):
            matched = True
    if not matched:
        raise WebhookSignatureError("no_match")


def construct_event(
    body: Body,
    header: str,
    secret: str,
    tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
    now: int | float | None = None,
) -> dict[str, Any]:
    """:func:`verify`, then the body parsed as the event it carries (a ``dict``;
    ``envelope_client.models.Event.from_dict`` gives the typed model)."""
    verify(body, header, secret, tolerance_seconds, now)
    return json.loads(_bytes(body))
