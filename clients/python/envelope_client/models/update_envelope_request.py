from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.field_input import FieldInput
    from ..models.metadata import Metadata
    from ..models.signer_input import SignerInput
    from ..models.signers_type_1 import SignersType1


T = TypeVar("T", bound="UpdateEnvelopeRequest")


@_attrs_define
class UpdateEnvelopeRequest:
    """Every member is optional and replaces the old value whole.

    Attributes:
        signers (list[SignerInput] | SignersType1 | Unset): A list of signers, or an object keyed by role. At most 10.
        fields (list[FieldInput] | Unset): The envelope's new explicit fields, replacing the old ones; fields found in
            its documents stay.
        subject (str | Unset):
        message (str | Unset):
        metadata (Metadata | Unset): The caller's own string keys, at most 20.
        expires_in_days (int | Unset):
    """

    signers: list[SignerInput] | SignersType1 | Unset = UNSET
    fields: list[FieldInput] | Unset = UNSET
    subject: str | Unset = UNSET
    message: str | Unset = UNSET
    metadata: Metadata | Unset = UNSET
    expires_in_days: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        signers: dict[str, Any] | list[dict[str, Any]] | Unset
        if isinstance(self.signers, Unset):
            signers = UNSET
        elif isinstance(self.signers, list):
            signers = []
            for componentsschemas_signers_type_0_item_data in self.signers:
                componentsschemas_signers_type_0_item = (
                    componentsschemas_signers_type_0_item_data.to_dict()
                )
                signers.append(componentsschemas_signers_type_0_item)

        else:
            signers = self.signers.to_dict()

        fields: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.fields, Unset):
            fields = []
            for fields_item_data in self.fields:
                fields_item = fields_item_data.to_dict()
                fields.append(fields_item)

        subject = self.subject

        message = self.message

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        expires_in_days = self.expires_in_days

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if signers is not UNSET:
            field_dict["signers"] = signers
        if fields is not UNSET:
            field_dict["fields"] = fields
        if subject is not UNSET:
            field_dict["subject"] = subject
        if message is not UNSET:
            field_dict["message"] = message
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if expires_in_days is not UNSET:
            field_dict["expires_in_days"] = expires_in_days

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.field_input import FieldInput
        from ..models.metadata import Metadata
        from ..models.signer_input import SignerInput
        from ..models.signers_type_1 import SignersType1

        d = dict(src_dict)

        def _parse_signers(data: object) -> list[SignerInput] | SignersType1 | Unset:
            if isinstance(data, Unset):
                return data
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

        signers = _parse_signers(d.pop("signers", UNSET))

        _fields = d.pop("fields", UNSET)
        fields: list[FieldInput] | Unset = UNSET
        if _fields is not UNSET:
            fields = []
            for fields_item_data in _fields:
                fields_item = FieldInput.from_dict(fields_item_data)

                fields.append(fields_item)

        subject = d.pop("subject", UNSET)

        message = d.pop("message", UNSET)

        _metadata = d.pop("metadata", UNSET)
        metadata: Metadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = Metadata.from_dict(_metadata)

        expires_in_days = d.pop("expires_in_days", UNSET)

        update_envelope_request = cls(
            signers=signers,
            fields=fields,
            subject=subject,
            message=message,
            metadata=metadata,
            expires_in_days=expires_in_days,
        )

        return update_envelope_request
