from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

from ..models.envelope_delivery import EnvelopeDelivery
from ..models.envelope_status import EnvelopeStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.attachment import Attachment
    from ..models.cc_recipient import CcRecipient
    from ..models.document import Document
    from ..models.envelope_files import EnvelopeFiles
    from ..models.envelope_metadata import EnvelopeMetadata
    from ..models.envelope_seal import EnvelopeSeal
    from ..models.signer import Signer


T = TypeVar("T", bound="Envelope")


@_attrs_define
class Envelope:
    """
    Attributes:
        id (str): `env_...`
        object_ (Literal['envelope']):
        livemode (bool):
        status (EnvelopeStatus):
        name (str):
        template (None | str): The template it was made from; null for an uploaded PDF.
        delivery (EnvelopeDelivery):
        signing_order (bool):
        signers (list[Signer]):
        cc (list[CcRecipient]):
        documents (list[Document]): Every document, in order; one for an envelope of one PDF.
        files (EnvelopeFiles): Whether each file is ready to download.
        metadata (EnvelopeMetadata):
        void_reason (None | str):
        created_at (datetime.datetime): ISO 8601 UTC with milliseconds.
        sent_at (datetime.datetime | None):
        completed_at (datetime.datetime | None):
        voided_at (datetime.datetime | None):
        expires_at (datetime.datetime | None):
        files_deleted_at (datetime.datetime | None): When live retention deleted the PDFs; downloads then answer 410.
        seal (EnvelopeSeal | None): null until the envelope is completed (and for envelopes completed before levels were
            recorded, or by a service that seals nothing).
        bulk_send (None | str): The bulk send that made the envelope, `bulk_...` (extensions E12); null for an envelope
            made alone.
        attachments (list[Attachment] | Unset): The signers' files for `attachment` fields (extensions E14), in signer
            and key order; absent while there are none.
    """

    id: str
    object_: Literal["envelope"]
    livemode: bool
    status: EnvelopeStatus
    name: str
    template: None | str
    delivery: EnvelopeDelivery
    signing_order: bool
    signers: list[Signer]
    cc: list[CcRecipient]
    documents: list[Document]
    files: EnvelopeFiles
    metadata: EnvelopeMetadata
    void_reason: None | str
    created_at: datetime.datetime
    sent_at: datetime.datetime | None
    completed_at: datetime.datetime | None
    voided_at: datetime.datetime | None
    expires_at: datetime.datetime | None
    files_deleted_at: datetime.datetime | None
    seal: EnvelopeSeal | None
    bulk_send: None | str
    attachments: list[Attachment] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.envelope_seal import EnvelopeSeal

        id = self.id

        object_ = self.object_

        livemode = self.livemode

        status = self.status.value

        name = self.name

        template: None | str
        template = self.template

        delivery = self.delivery.value

        signing_order = self.signing_order

        signers = []
        for signers_item_data in self.signers:
            signers_item = signers_item_data.to_dict()
            signers.append(signers_item)

        cc = []
        for cc_item_data in self.cc:
            cc_item = cc_item_data.to_dict()
            cc.append(cc_item)

        documents = []
        for documents_item_data in self.documents:
            documents_item = documents_item_data.to_dict()
            documents.append(documents_item)

        files = self.files.to_dict()

        metadata = self.metadata.to_dict()

        void_reason: None | str
        void_reason = self.void_reason

        created_at = self.created_at.isoformat()

        sent_at: None | str
        if isinstance(self.sent_at, datetime.datetime):
            sent_at = self.sent_at.isoformat()
        else:
            sent_at = self.sent_at

        completed_at: None | str
        if isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        voided_at: None | str
        if isinstance(self.voided_at, datetime.datetime):
            voided_at = self.voided_at.isoformat()
        else:
            voided_at = self.voided_at

        expires_at: None | str
        if isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        files_deleted_at: None | str
        if isinstance(self.files_deleted_at, datetime.datetime):
            files_deleted_at = self.files_deleted_at.isoformat()
        else:
            files_deleted_at = self.files_deleted_at

        seal: dict[str, Any] | None
        if isinstance(self.seal, EnvelopeSeal):
            seal = self.seal.to_dict()
        else:
            seal = self.seal

        bulk_send: None | str
        bulk_send = self.bulk_send

        attachments: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.attachments, Unset):
            attachments = []
            for attachments_item_data in self.attachments:
                attachments_item = attachments_item_data.to_dict()
                attachments.append(attachments_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "object": object_,
                "livemode": livemode,
                "status": status,
                "name": name,
                "template": template,
                "delivery": delivery,
                "signing_order": signing_order,
                "signers": signers,
                "cc": cc,
                "documents": documents,
                "files": files,
                "metadata": metadata,
                "void_reason": void_reason,
                "created_at": created_at,
                "sent_at": sent_at,
                "completed_at": completed_at,
                "voided_at": voided_at,
                "expires_at": expires_at,
                "files_deleted_at": files_deleted_at,
                "seal": seal,
                "bulk_send": bulk_send,
            }
        )
        if attachments is not UNSET:
            field_dict["attachments"] = attachments

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.attachment import Attachment
        from ..models.cc_recipient import CcRecipient
        from ..models.document import Document
        from ..models.envelope_files import EnvelopeFiles
        from ..models.envelope_metadata import EnvelopeMetadata
        from ..models.envelope_seal import EnvelopeSeal
        from ..models.signer import Signer

        d = dict(src_dict)
        id = d.pop("id")

        object_ = cast(Literal["envelope"], d.pop("object"))
        if object_ != "envelope":
            raise ValueError(f"object must match const 'envelope', got '{object_}'")

        livemode = d.pop("livemode")

        status = EnvelopeStatus(d.pop("status"))

        name = d.pop("name")

        def _parse_template(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        template = _parse_template(d.pop("template"))

        delivery = EnvelopeDelivery(d.pop("delivery"))

        signing_order = d.pop("signing_order")

        signers = []
        _signers = d.pop("signers")
        for signers_item_data in _signers:
            signers_item = Signer.from_dict(signers_item_data)

            signers.append(signers_item)

        cc = []
        _cc = d.pop("cc")
        for cc_item_data in _cc:
            cc_item = CcRecipient.from_dict(cc_item_data)

            cc.append(cc_item)

        documents = []
        _documents = d.pop("documents")
        for documents_item_data in _documents:
            documents_item = Document.from_dict(documents_item_data)

            documents.append(documents_item)

        files = EnvelopeFiles.from_dict(d.pop("files"))

        metadata = EnvelopeMetadata.from_dict(d.pop("metadata"))

        def _parse_void_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        void_reason = _parse_void_reason(d.pop("void_reason"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_sent_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sent_at_type_0 = datetime.datetime.fromisoformat(data)

                return sent_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        sent_at = _parse_sent_at(d.pop("sent_at"))

        def _parse_completed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                completed_at_type_0 = datetime.datetime.fromisoformat(data)

                return completed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        completed_at = _parse_completed_at(d.pop("completed_at"))

        def _parse_voided_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                voided_at_type_0 = datetime.datetime.fromisoformat(data)

                return voided_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        voided_at = _parse_voided_at(d.pop("voided_at"))

        def _parse_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        expires_at = _parse_expires_at(d.pop("expires_at"))

        def _parse_files_deleted_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                files_deleted_at_type_0 = datetime.datetime.fromisoformat(data)

                return files_deleted_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        files_deleted_at = _parse_files_deleted_at(d.pop("files_deleted_at"))

        def _parse_seal(data: object) -> EnvelopeSeal | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                seal_type_0 = EnvelopeSeal.from_dict(data)

                return seal_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EnvelopeSeal | None, data)

        seal = _parse_seal(d.pop("seal"))

        def _parse_bulk_send(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        bulk_send = _parse_bulk_send(d.pop("bulk_send"))

        _attachments = d.pop("attachments", UNSET)
        attachments: list[Attachment] | Unset = UNSET
        if _attachments is not UNSET:
            attachments = []
            for attachments_item_data in _attachments:
                attachments_item = Attachment.from_dict(attachments_item_data)

                attachments.append(attachments_item)

        envelope = cls(
            id=id,
            object_=object_,
            livemode=livemode,
            status=status,
            name=name,
            template=template,
            delivery=delivery,
            signing_order=signing_order,
            signers=signers,
            cc=cc,
            documents=documents,
            files=files,
            metadata=metadata,
            void_reason=void_reason,
            created_at=created_at,
            sent_at=sent_at,
            completed_at=completed_at,
            voided_at=voided_at,
            expires_at=expires_at,
            files_deleted_at=files_deleted_at,
            seal=seal,
            bulk_send=bulk_send,
            attachments=attachments,
        )

        return envelope
