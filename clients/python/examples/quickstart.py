"""Quick start: a template from a PDF, an envelope from it for the template's two roles, every
signature made by the test helper (test keys only), and the signed PDF downloaded.

    pip install ./clients/python
    ENVELOPE_URL=http://127.0.0.1:8080 ENVELOPE_API_KEY=sk_test_... \\
        python3 clients/python/examples/quickstart.py examples/contract.pdf signed.pdf

``examples/contract.pdf`` (at the top of the repository) has text tags for a ``Client`` and a
``Provider`` and a sender data field ``start_date``.
"""

from __future__ import annotations

import io
import os
import sys
from urllib.parse import urlsplit

from envelope_client import AuthenticatedClient
from envelope_client.api.envelopes import create_envelope, get_envelope_file
from envelope_client.api.files import download_file
from envelope_client.api.templates import create_template
from envelope_client.api.test_helpers import complete_test_envelope
from envelope_client.helpers import connect, unwrap
from envelope_client.models import (
    CreateEnvelopeRequest,
    CreateTemplateMultipart,
    Envelope,
    GetEnvelopeFileKind,
)
from envelope_client.types import File


def quickstart(client: AuthenticatedClient, pdf: bytes) -> tuple[Envelope, bytes]:
    """The whole walk, from the PDF's bytes to the signed copy's."""
    # The PDF goes up as multipart/form-data (JSON with `file_base64` works too).
    template = unwrap(
        create_template.sync(
            client=client,
            body=CreateTemplateMultipart(
                file=File(payload=io.BytesIO(pdf), file_name="contract.pdf", mime_type="application/pdf"),
                name="Services agreement",
            ),
        )
    )
    print(f"template {template.id}: roles {', '.join(template.roles)}")

    sent = unwrap(
        create_envelope.sync(
            client=client,
            body=CreateEnvelopeRequest.from_dict(
                {
                    "template": template.id,
                    "signers": {
                        "Client": {"name": "Zoë Client", "email": "zoe@example.com"},
                        "Provider": {"name": "Paul Provider", "email": "paul@example.com"},
                    },
                    "data": {"start_date": "2027-01-01"},
                }
            ),
        )
    )
    print(f"envelope {sent.id}: {sent.status}")

    envelope = unwrap(complete_test_envelope.sync(sent.id, client=client))
    print(f"envelope {envelope.id}: {envelope.status}")

    # A file link is valid for 5 minutes; its token is the secret (no API key needed).
    link = unwrap(get_envelope_file.sync(envelope.id, GetEnvelopeFileKind.SIGNED, client=client))
    token = urlsplit(link.url).path.rsplit("/", 1)[1]
    signed = unwrap(download_file.sync(token, client=client)).payload.read()
    print(f"signed PDF: {len(signed)} bytes")
    return envelope, signed


def main() -> None:
    pdf_path = sys.argv[1] if len(sys.argv) > 1 else "examples/contract.pdf"
    out_path = sys.argv[2] if len(sys.argv) > 2 else "signed.pdf"
    client = connect(os.environ.get("ENVELOPE_URL", "http://127.0.0.1:8080"), os.environ["ENVELOPE_API_KEY"])
    with open(pdf_path, "rb") as f:
        _, signed = quickstart(client, f.read())
    with open(out_path, "wb") as f:
        f.write(signed)
    print(f"written to {out_path}")


if __name__ == "__main__":
    main()
