from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="ReminderTarget")


@_attrs_define
class ReminderTarget:
    """
    Attributes:
        signer (str):
        role (str):
        email (str):
    """

    signer: str
    role: str
    email: str

    def to_dict(self) -> dict[str, Any]:
        signer = self.signer

        role = self.role

        email = self.email

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "signer": signer,
                "role": role,
                "email": email,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        signer = d.pop("signer")

        role = d.pop("role")

        email = d.pop("email")

        reminder_target = cls(
            signer=signer,
            role=role,
            email=email,
        )

        return reminder_target
