from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="EnvelopeFiles")


@_attrs_define
class EnvelopeFiles:
    """Whether each file is ready to download.

    Attributes:
        signed (bool):
        audit_trail (bool):
    """

    signed: bool
    audit_trail: bool

    def to_dict(self) -> dict[str, Any]:
        signed = self.signed

        audit_trail = self.audit_trail

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "signed": signed,
                "audit_trail": audit_trail,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        signed = d.pop("signed")

        audit_trail = d.pop("audit_trail")

        envelope_files = cls(
            signed=signed,
            audit_trail=audit_trail,
        )

        return envelope_files
