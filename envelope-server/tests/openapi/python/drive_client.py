"""Drives the server with the Python client that openapi-python-client generated from the
OpenAPI document (tests/openapi/client.rs generates it into a temporary directory first).

A template from a PDF (multipart), an envelope from it (JSON), the test helper completes it,
and the signed PDF is downloaded: it must start with %PDF and keep the original as its prefix.

Usage: python3 drive_client.py BASE_URL TEST_KEY PDF_PATH  (the generated package on PYTHONPATH)
"""
import io
import sys

from envelope_client import AuthenticatedClient
from envelope_client.api.envelopes import create_envelope, get_envelope_file
from envelope_client.api.files import download_file
from envelope_client.api.test_helpers import complete_test_envelope
from envelope_client.api.templates import create_template
from envelope_client.models import (
    CreateEnvelopeRequest,
    CreateTemplateMultipart,
    Envelope,
    FileLink,
    GetEnvelopeFileKind,
    SignerInput,
    Template,
)
from envelope_client.types import File


def main():
    base, key, pdf_path = sys.argv[1:4]
    with open(pdf_path, "rb") as f:
        original = f.read()
    client = AuthenticatedClient(base_url=base, token=key, raise_on_unexpected_status=True)

    template = create_template.sync(
        client=client,
        body=CreateTemplateMultipart(
            file=File(payload=io.BytesIO(original), file_name="contract.pdf", mime_type="application/pdf"),
            name="Service agreement",
            roles='["Client"]',
        ),
    )
    assert isinstance(template, Template), template
    assert template.roles == ["Client"], template.roles
    print(f"template {template.id}: {len(template.fields)} fields, roles {template.roles}")

    envelope = create_envelope.sync(
        client=client,
        body=CreateEnvelopeRequest(
            template=template.id,
            signers=[SignerInput(name="Ada Lovelace", email="ada@example.com", role="Client")],
        ),
    )
    assert isinstance(envelope, Envelope), envelope
    assert envelope.status == "sent", envelope.status
    print(f"envelope {envelope.id}: {envelope.status}")

    done = complete_test_envelope.sync(envelope.id, client=client)
    assert isinstance(done, Envelope), done
    assert done.status == "completed" and done.files.signed, done
    print(f"envelope {done.id}: {done.status}")

    link = get_envelope_file.sync(done.id, GetEnvelopeFileKind.SIGNED, client=client)
    assert isinstance(link, FileLink), link
    token = link.url.rsplit("/files/", 1)[1]
    signed = download_file.sync_detailed(token, client=client)
    assert signed.status_code == 200, signed.status_code
    data = signed.content
    assert data.startswith(b"%PDF"), data[:16]
    assert data.startswith(original), "the signed PDF keeps the original bytes as its prefix"
    assert len(data) > len(original)
    print(f"signed PDF: {len(data)} bytes, the original's {len(original)} bytes are its prefix")


if __name__ == "__main__":
    main()
