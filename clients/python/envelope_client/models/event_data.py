from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.bulk_send import BulkSend
    from ..models.cc_recipient import CcRecipient
    from ..models.envelope import Envelope
    from ..models.previous_signer import PreviousSigner
    from ..models.signer_email import SignerEmail
    from ..models.signer_ref import SignerRef


T = TypeVar("T", bound="EventData")


@_attrs_define
class EventData:
    """`object` is the whole envelope right after the event (the bulk send, for `bulk_send.completed`). Signer events add
    `signer`; `envelope.email_failed` adds `email` (and `cc` for a copied recipient); `signer.reassigned` adds
    `previous`; `signer.locked` adds `until`; `envelope.corrected` adds `changes`.

        Attributes:
            object_ (BulkSend | Envelope):
            signer (SignerRef | Unset): `data.signer` of signer events.
            cc (CcRecipient | Unset): A carbon-copy recipient (extensions E1): signs nothing, gets the signed PDF.
            previous (PreviousSigner | Unset): Who held a signer's place before `signer.reassigned`.
            email (SignerEmail | Unset): The newest email to a signer and where it stands.
            until (datetime.datetime | None | Unset): `signer.locked` only: when the lock ends, `null` when only the sender
                can lift it (`POST /v1/envelopes/{id}/signers/{signer_id}/unlock`, or a reassign).
            changes (list[str] | Unset): `envelope.corrected` only (extensions E14): what the correction changed, in order:
                `signers.<role>.name`, `signers.<role>.email`, `fields`, `subject`, `message`, `metadata`, `expires_at`.
    """

    object_: BulkSend | Envelope
    signer: SignerRef | Unset = UNSET
    cc: CcRecipient | Unset = UNSET
    previous: PreviousSigner | Unset = UNSET
    email: SignerEmail | Unset = UNSET
    until: datetime.datetime | None | Unset = UNSET
    changes: list[str] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.envelope import Envelope

        object_: dict[str, Any]
        if isinstance(self.object_, Envelope):
            object_ = self.object_.to_dict()
        else:
            object_ = self.object_.to_dict()

        signer: dict[str, Any] | Unset = UNSET
        if not isinstance(self.signer, Unset):
            signer = self.signer.to_dict()

        cc: dict[str, Any] | Unset = UNSET
        if not isinstance(self.cc, Unset):
            cc = self.cc.to_dict()

        previous: dict[str, Any] | Unset = UNSET
        if not isinstance(self.previous, Unset):
            previous = self.previous.to_dict()

        email: dict[str, Any] | Unset = UNSET
        if not isinstance(self.email, Unset):
            email = self.email.to_dict()

        until: None | str | Unset
        if isinstance(self.until, Unset):
            until = UNSET
        elif isinstance(self.until, datetime.datetime):
            until = self.until.isoformat()
        else:
            until = self.until

        changes: list[str] | Unset = UNSET
        if not isinstance(self.changes, Unset):
            changes = self.changes

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "object": object_,
            }
        )
        if signer is not UNSET:
            field_dict["signer"] = signer
        if cc is not UNSET:
            field_dict["cc"] = cc
        if previous is not UNSET:
            field_dict["previous"] = previous
        if email is not UNSET:
            field_dict["email"] = email
        if until is not UNSET:
            field_dict["until"] = until
        if changes is not UNSET:
            field_dict["changes"] = changes

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.bulk_send import BulkSend
        from ..models.cc_recipient import CcRecipient
        from ..models.envelope import Envelope
        from ..models.previous_signer import PreviousSigner
        from ..models.signer_email import SignerEmail
        from ..models.signer_ref import SignerRef

        d = dict(src_dict)

        def _parse_object_(data: object) -> BulkSend | Envelope:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                object_type_0 = Envelope.from_dict(data)

                return object_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            object_type_1 = BulkSend.from_dict(data)

            return object_type_1

        object_ = _parse_object_(d.pop("object"))

        _signer = d.pop("signer", UNSET)
        signer: SignerRef | Unset
        if isinstance(_signer, Unset):
            signer = UNSET
        else:
            signer = SignerRef.from_dict(_signer)

        _cc = d.pop("cc", UNSET)
        cc: CcRecipient | Unset
        if isinstance(_cc, Unset):
            cc = UNSET
        else:
            cc = CcRecipient.from_dict(_cc)

        _previous = d.pop("previous", UNSET)
        previous: PreviousSigner | Unset
        if isinstance(_previous, Unset):
            previous = UNSET
        else:
            previous = PreviousSigner.from_dict(_previous)

        _email = d.pop("email", UNSET)
        email: SignerEmail | Unset
        if isinstance(_email, Unset):
            email = UNSET
        else:
            email = SignerEmail.from_dict(_email)

        def _parse_until(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                until_type_0 = datetime.datetime.fromisoformat(data)

                return until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        until = _parse_until(d.pop("until", UNSET))

        changes = cast(list[str], d.pop("changes", UNSET))

        event_data = cls(
            object_=object_,
            signer=signer,
            cc=cc,
            previous=previous,
            email=email,
            until=until,
            changes=changes,
        )

        return event_data
