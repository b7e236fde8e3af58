from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.reminder_skip_reason import ReminderSkipReason

T = TypeVar("T", bound="ReminderSkip")


@_attrs_define
class ReminderSkip:
    """
    Attributes:
        signer (str):
        role (str):
        reason (ReminderSkipReason):
    """

    signer: str
    role: str
    reason: ReminderSkipReason

    def to_dict(self) -> dict[str, Any]:
        signer = self.signer

        role = self.role

        reason = self.reason.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "signer": signer,
                "role": role,
                "reason": reason,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        signer = d.pop("signer")

        role = d.pop("role")

        reason = ReminderSkipReason(d.pop("reason"))

        reminder_skip = cls(
            signer=signer,
            role=role,
            reason=reason,
        )

        return reminder_skip
