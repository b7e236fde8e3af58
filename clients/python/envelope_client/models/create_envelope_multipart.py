from __future__ import annotations

from collections.abc import Mapping
from io import BytesIO
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from .. import types
from ..models.create_envelope_multipart_delivery import CreateEnvelopeMultipartDelivery
from ..models.create_envelope_multipart_send import CreateEnvelopeMultipartSend
from ..models.create_envelope_multipart_signature_page import (
    CreateEnvelopeMultipartSignaturePage,
)
from ..models.create_envelope_multipart_signing_order import (
    CreateEnvelopeMultipartSigningOrder,
)
from ..types import UNSET, File, FileTypes, Unset

T = TypeVar("T", bound="CreateEnvelopeMultipart")


@_attrs_define
class CreateEnvelopeMultipart:
    """Strings are raw text parts; objects, arrays, booleans and numbers are JSON text. Or one `payload` part holds every
    parameter. The PDF is the part named `file`; several `file` parts are several documents, in order.

        Attributes:
            signers (str | Unset): As JSON text.
            template (str | Unset): Template ID; give this or a PDF.
            file_name (str | Unset): A file name without directories.
            data (str | Unset): Values of the sender data fields, keyed by field key. Unknown keys are refused. As JSON
                text.
            fields (str | Unset): As JSON text.
            signature_page (CreateEnvelopeMultipartSignaturePage | Unset): Add a signature page when the PDF has no
                signature fields.
            signing_order (CreateEnvelopeMultipartSigningOrder | Unset): A boolean as JSON text.
            delivery (CreateEnvelopeMultipartDelivery | Unset):
            name (str | Unset):
            subject (str | Unset):
            message (str | Unset):
            send (CreateEnvelopeMultipartSend | Unset): false creates a draft. Default true.
            expires_in_days (str | Unset): An integer as JSON text.
            metadata (str | Unset): As JSON text.
            cc (str | Unset): As JSON text.
            file (File | Unset): The PDF. Repeat the part for several documents (at most 10), in order.
            payload (str | Unset): Every other parameter as one JSON object (then no other text part).
            files (str | Unset): More documents as JSON text, after the `file` parts.
    """

    signers: str | Unset = UNSET
    template: str | Unset = UNSET
    file_name: str | Unset = UNSET
    data: str | Unset = UNSET
    fields: str | Unset = UNSET
    signature_page: CreateEnvelopeMultipartSignaturePage | Unset = UNSET
    signing_order: CreateEnvelopeMultipartSigningOrder | Unset = UNSET
    delivery: CreateEnvelopeMultipartDelivery | Unset = UNSET
    name: str | Unset = UNSET
    subject: str | Unset = UNSET
    message: str | Unset = UNSET
    send: CreateEnvelopeMultipartSend | Unset = UNSET
    expires_in_days: str | Unset = UNSET
    metadata: str | Unset = UNSET
    cc: str | Unset = UNSET
    file: File | Unset = UNSET
    payload: str | Unset = UNSET
    files: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        signers = self.signers

        template = self.template

        file_name = self.file_name

        data = self.data

        fields = self.fields

        signature_page: str | Unset = UNSET
        if not isinstance(self.signature_page, Unset):
            signature_page = self.signature_page.value

        signing_order: str | Unset = UNSET
        if not isinstance(self.signing_order, Unset):
            signing_order = self.signing_order.value

        delivery: str | Unset = UNSET
        if not isinstance(self.delivery, Unset):
            delivery = self.delivery.value

        name = self.name

        subject = self.subject

        message = self.message

        send: str | Unset = UNSET
        if not isinstance(self.send, Unset):
            send = self.send.value

        expires_in_days = self.expires_in_days

        metadata = self.metadata

        cc = self.cc

        file: FileTypes | Unset = UNSET
        if not isinstance(self.file, Unset):
            file = self.file.to_tuple()

        payload = self.payload

        files = self.files

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if signers is not UNSET:
            field_dict["signers"] = signers
        if template is not UNSET:
            field_dict["template"] = template
        if file_name is not UNSET:
            field_dict["file_name"] = file_name
        if data is not UNSET:
            field_dict["data"] = data
        if fields is not UNSET:
            field_dict["fields"] = fields
        if signature_page is not UNSET:
            field_dict["signature_page"] = signature_page
        if signing_order is not UNSET:
            field_dict["signing_order"] = signing_order
        if delivery is not UNSET:
            field_dict["delivery"] = delivery
        if name is not UNSET:
            field_dict["name"] = name
        if subject is not UNSET:
            field_dict["subject"] = subject
        if message is not UNSET:
            field_dict["message"] = message
        if send is not UNSET:
            field_dict["send"] = send
        if expires_in_days is not UNSET:
            field_dict["expires_in_days"] = expires_in_days
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if cc is not UNSET:
            field_dict["cc"] = cc
        if file is not UNSET:
            field_dict["file"] = file
        if payload is not UNSET:
            field_dict["payload"] = payload
        if files is not UNSET:
            field_dict["files"] = files

        return field_dict

    def to_multipart(self) -> types.RequestFiles:
        files: types.RequestFiles = []

        if not isinstance(self.signers, Unset):
            files.append(("signers", (None, str(self.signers).encode(), "text/plain")))

        if not isinstance(self.template, Unset):
            files.append(
                ("template", (None, str(self.template).encode(), "text/plain"))
            )

        if not isinstance(self.file_name, Unset):
            files.append(
                ("file_name", (None, str(self.file_name).encode(), "text/plain"))
            )

        if not isinstance(self.data, Unset):
            files.append(("data", (None, str(self.data).encode(), "text/plain")))

        if not isinstance(self.fields, Unset):
            files.append(("fields", (None, str(self.fields).encode(), "text/plain")))

        if not isinstance(self.signature_page, Unset):
            files.append(
                (
                    "signature_page",
                    (None, str(self.signature_page.value).encode(), "text/plain"),
                )
            )

        if not isinstance(self.signing_order, Unset):
            files.append(
                (
                    "signing_order",
                    (None, str(self.signing_order.value).encode(), "text/plain"),
                )
            )

        if not isinstance(self.delivery, Unset):
            files.append(
                ("delivery", (None, str(self.delivery.value).encode(), "text/plain"))
            )

        if not isinstance(self.name, Unset):
            files.append(("name", (None, str(self.name).encode(), "text/plain")))

        if not isinstance(self.subject, Unset):
            files.append(("subject", (None, str(self.subject).encode(), "text/plain")))

        if not isinstance(self.message, Unset):
            files.append(("message", (None, str(self.message).encode(), "text/plain")))

        if not isinstance(self.send, Unset):
            files.append(("send", (None, str(self.send.value).encode(), "text/plain")))

        if not isinstance(self.expires_in_days, Unset):
            files.append(
                (
                    "expires_in_days",
                    (None, str(self.expires_in_days).encode(), "text/plain"),
                )
            )

        if not isinstance(self.metadata, Unset):
            files.append(
                ("metadata", (None, str(self.metadata).encode(), "text/plain"))
            )

        if not isinstance(self.cc, Unset):
            files.append(("cc", (None, str(self.cc).encode(), "text/plain")))

        if not isinstance(self.file, Unset):
            files.append(("file", self.file.to_tuple()))

        if not isinstance(self.payload, Unset):
            files.append(("payload", (None, str(self.payload).encode(), "text/plain")))

        if not isinstance(self.files, Unset):
            files.append(("files", (None, str(self.files).encode(), "text/plain")))

        return files

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        signers = d.pop("signers", UNSET)

        template = d.pop("template", UNSET)

        file_name = d.pop("file_name", UNSET)

        data = d.pop("data", UNSET)

        fields = d.pop("fields", UNSET)

        _signature_page = d.pop("signature_page", UNSET)
        signature_page: CreateEnvelopeMultipartSignaturePage | Unset
        if isinstance(_signature_page, Unset):
            signature_page = UNSET
        else:
            signature_page = CreateEnvelopeMultipartSignaturePage(_signature_page)

        _signing_order = d.pop("signing_order", UNSET)
        signing_order: CreateEnvelopeMultipartSigningOrder | Unset
        if isinstance(_signing_order, Unset):
            signing_order = UNSET
        else:
            signing_order = CreateEnvelopeMultipartSigningOrder(_signing_order)

        _delivery = d.pop("delivery", UNSET)
        delivery: CreateEnvelopeMultipartDelivery | Unset
        if isinstance(_delivery, Unset):
            delivery = UNSET
        else:
            delivery = CreateEnvelopeMultipartDelivery(_delivery)

        name = d.pop("name", UNSET)

        subject = d.pop("subject", UNSET)

        message = d.pop("message", UNSET)

        _send = d.pop("send", UNSET)
        send: CreateEnvelopeMultipartSend | Unset
        if isinstance(_send, Unset):
            send = UNSET
        else:
            send = CreateEnvelopeMultipartSend(_send)

        expires_in_days = d.pop("expires_in_days", UNSET)

        metadata = d.pop("metadata", UNSET)

        cc = d.pop("cc", UNSET)

        _file = d.pop("file", UNSET)
        file: File | Unset
        if isinstance(_file, Unset):
            file = UNSET
        else:
            file = File(payload=BytesIO(_file))

        payload = d.pop("payload", UNSET)

        files = d.pop("files", UNSET)

        create_envelope_multipart = cls(
            signers=signers,
            template=template,
            file_name=file_name,
            data=data,
            fields=fields,
            signature_page=signature_page,
            signing_order=signing_order,
            delivery=delivery,
            name=name,
            subject=subject,
            message=message,
            send=send,
            expires_in_days=expires_in_days,
            metadata=metadata,
            cc=cc,
            file=file,
            payload=payload,
            files=files,
        )

        return create_envelope_multipart
