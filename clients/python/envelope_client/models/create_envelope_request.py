from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.create_envelope_request_delivery import CreateEnvelopeRequestDelivery
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.cc_input import CcInput
    from ..models.create_envelope_request_data import CreateEnvelopeRequestData
    from ..models.document_input import DocumentInput
    from ..models.field_input import FieldInput
    from ..models.metadata import Metadata
    from ..models.signer_input import SignerInput
    from ..models.signers_type_1 import SignersType1


T = TypeVar("T", bound="CreateEnvelopeRequest")


@_attrs_define
class CreateEnvelopeRequest:
    """Give `template`, or a PDF as `file_base64` with `file_name`, or documents in `files` (after a template's or a PDF's,
    or alone).

        Attributes:
            signers (list[SignerInput] | SignersType1): A list of signers, or an object keyed by role. At most 10.
            template (str | Unset): Template ID; give this or a PDF.
            file_base64 (str | Unset): The PDF, base64; with `file_name`.
            file_name (str | Unset): A file name without directories.
            data (CreateEnvelopeRequestData | Unset): Values of the sender data fields, keyed by field key. Unknown keys are
                refused.
            fields (list[FieldInput] | Unset):
            signature_page (bool | Unset): Add a signature page when the PDF has no signature fields.
            signing_order (bool | Unset):
            delivery (CreateEnvelopeRequestDelivery | Unset):
            name (str | Unset):
            subject (str | Unset):
            message (str | Unset):
            send (bool | Unset): false creates a draft. Default true.
            expires_in_days (int | Unset):
            metadata (Metadata | Unset): The caller's own string keys, at most 20.
            cc (list[CcInput] | Unset):
            files (list[DocumentInput] | Unset): More documents, in order, after the template's or `file_base64`'s (or all
                of them). At most 10 documents in all; the 25 MB and 200-page limits apply to their total (413 `file_too_large`
                and 400 `too_many_pages` with `param: files`).
    """

    signers: list[SignerInput] | SignersType1
    template: str | Unset = UNSET
    file_base64: str | Unset = UNSET
    file_name: str | Unset = UNSET
    data: CreateEnvelopeRequestData | Unset = UNSET
    fields: list[FieldInput] | Unset = UNSET
    signature_page: bool | Unset = UNSET
    signing_order: bool | Unset = UNSET
    delivery: CreateEnvelopeRequestDelivery | Unset = UNSET
    name: str | Unset = UNSET
    subject: str | Unset = UNSET
    message: str | Unset = UNSET
    send: bool | Unset = UNSET
    expires_in_days: int | Unset = UNSET
    metadata: Metadata | Unset = UNSET
    cc: list[CcInput] | Unset = UNSET
    files: list[DocumentInput] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        signers: dict[str, Any] | list[dict[str, Any]]
        if isinstance(self.signers, list):
            signers = []
            for componentsschemas_signers_type_0_item_data in self.signers:
                componentsschemas_signers_type_0_item = (
                    componentsschemas_signers_type_0_item_data.to_dict()
                )
                signers.append(componentsschemas_signers_type_0_item)

        else:
            signers = self.signers.to_dict()

        template = self.template

        file_base64 = self.file_base64

        file_name = self.file_name

        data: dict[str, Any] | Unset = UNSET
        if not isinstance(self.data, Unset):
            data = self.data.to_dict()

        fields: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.fields, Unset):
            fields = []
            for fields_item_data in self.fields:
                fields_item = fields_item_data.to_dict()
                fields.append(fields_item)

        signature_page = self.signature_page

        signing_order = self.signing_order

        delivery: str | Unset = UNSET
        if not isinstance(self.delivery, Unset):
            delivery = self.delivery.value

        name = self.name

        subject = self.subject

        message = self.message

        send = self.send

        expires_in_days = self.expires_in_days

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        cc: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.cc, Unset):
            cc = []
            for cc_item_data in self.cc:
                cc_item = cc_item_data.to_dict()
                cc.append(cc_item)

        files: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.files, Unset):
            files = []
            for files_item_data in self.files:
                files_item = files_item_data.to_dict()
                files.append(files_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "signers": signers,
            }
        )
        if template is not UNSET:
            field_dict["template"] = template
        if file_base64 is not UNSET:
            field_dict["file_base64"] = file_base64
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
        if files is not UNSET:
            field_dict["files"] = files

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.cc_input import CcInput
        from ..models.create_envelope_request_data import CreateEnvelopeRequestData
        from ..models.document_input import DocumentInput
        from ..models.field_input import FieldInput
        from ..models.metadata import Metadata
        from ..models.signer_input import SignerInput
        from ..models.signers_type_1 import SignersType1

        d = dict(src_dict)

        def _parse_signers(data: object) -> list[SignerInput] | SignersType1:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                componentsschemas_signers_type_0 = []
                _componentsschemas_signers_type_0 = data
                for (
                    componentsschemas_signers_type_0_item_data
                ) in _componentsschemas_signers_type_0:
                    componentsschemas_signers_type_0_item = SignerInput.from_dict(
                        componentsschemas_signers_type_0_item_data
                    )

                    componentsschemas_signers_type_0.append(
                        componentsschemas_signers_type_0_item
                    )

                return componentsschemas_signers_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_signers_type_1 = SignersType1.from_dict(data)

            return componentsschemas_signers_type_1

        signers = _parse_signers(d.pop("signers"))

        template = d.pop("template", UNSET)

        file_base64 = d.pop("file_base64", UNSET)

        file_name = d.pop("file_name", UNSET)

        _data = d.pop("data", UNSET)
        data: CreateEnvelopeRequestData | Unset
        if isinstance(_data, Unset):
            data = UNSET
        else:
            data = CreateEnvelopeRequestData.from_dict(_data)

        _fields = d.pop("fields", UNSET)
        fields: list[FieldInput] | Unset = UNSET
        if _fields is not UNSET:
            fields = []
            for fields_item_data in _fields:
                fields_item = FieldInput.from_dict(fields_item_data)

                fields.append(fields_item)

        signature_page = d.pop("signature_page", UNSET)

        signing_order = d.pop("signing_order", UNSET)

        _delivery = d.pop("delivery", UNSET)
        delivery: CreateEnvelopeRequestDelivery | Unset
        if isinstance(_delivery, Unset):
            delivery = UNSET
        else:
            delivery = CreateEnvelopeRequestDelivery(_delivery)

        name = d.pop("name", UNSET)

        subject = d.pop("subject", UNSET)

        message = d.pop("message", UNSET)

        send = d.pop("send", UNSET)

        expires_in_days = d.pop("expires_in_days", UNSET)

        _metadata = d.pop("metadata", UNSET)
        metadata: Metadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = Metadata.from_dict(_metadata)

        _cc = d.pop("cc", UNSET)
        cc: list[CcInput] | Unset = UNSET
        if _cc is not UNSET:
            cc = []
            for cc_item_data in _cc:
                cc_item = CcInput.from_dict(cc_item_data)

                cc.append(cc_item)

        _files = d.pop("files", UNSET)
        files: list[DocumentInput] | Unset = UNSET
        if _files is not UNSET:
            files = []
            for files_item_data in _files:
                files_item = DocumentInput.from_dict(files_item_data)

                files.append(files_item)

        create_envelope_request = cls(
            signers=signers,
            template=template,
            file_base64=file_base64,
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
            files=files,
        )

        return create_envelope_request
