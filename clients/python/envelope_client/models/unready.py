from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

from ..models.unready_reason import UnreadyReason

T = TypeVar("T", bound="Unready")


@_attrs_define
class Unready:
    """
    Attributes:
        status (Literal['unready']):
        reason (UnreadyReason):
        message (str):
    """

    status: Literal["unready"]
    reason: UnreadyReason
    message: str

    def to_dict(self) -> dict[str, Any]:
        status = self.status

        reason = self.reason.value

        message = self.message

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "status": status,
                "reason": reason,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        status = cast(Literal["unready"], d.pop("status"))
        if status != "unready":
            raise ValueError(f"status must match const 'unready', got '{status}'")

        reason = UnreadyReason(d.pop("reason"))

        message = d.pop("message")

        unready = cls(
            status=status,
            reason=reason,
            message=message,
        )

        return unready
