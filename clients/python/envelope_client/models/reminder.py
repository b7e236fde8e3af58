from __future__ import annotations

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

if TYPE_CHECKING:
    from ..models.reminder_skip import ReminderSkip
    from ..models.reminder_target import ReminderTarget


T = TypeVar("T", bound="Reminder")


@_attrs_define
class Reminder:
    """
    Attributes:
        object_ (Literal['reminder']):
        envelope (str):
        reminded (list[ReminderTarget]):
        skipped (list[ReminderSkip]):
    """

    object_: Literal["reminder"]
    envelope: str
    reminded: list[ReminderTarget]
    skipped: list[ReminderSkip]

    def to_dict(self) -> dict[str, Any]:
        object_ = self.object_

        envelope = self.envelope

        reminded = []
        for reminded_item_data in self.reminded:
            reminded_item = reminded_item_data.to_dict()
            reminded.append(reminded_item)

        skipped = []
        for skipped_item_data in self.skipped:
            skipped_item = skipped_item_data.to_dict()
            skipped.append(skipped_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "object": object_,
                "envelope": envelope,
                "reminded": reminded,
                "skipped": skipped,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.reminder_skip import ReminderSkip
        from ..models.reminder_target import ReminderTarget

        d = dict(src_dict)
        object_ = cast(Literal["reminder"], d.pop("object"))
        if object_ != "reminder":
            raise ValueError(f"object must match const 'reminder', got '{object_}'")

        envelope = d.pop("envelope")

        reminded = []
        _reminded = d.pop("reminded")
        for reminded_item_data in _reminded:
            reminded_item = ReminderTarget.from_dict(reminded_item_data)

            reminded.append(reminded_item)

        skipped = []
        _skipped = d.pop("skipped")
        for skipped_item_data in _skipped:
            skipped_item = ReminderSkip.from_dict(skipped_item_data)

            skipped.append(skipped_item)

        reminder = cls(
            object_=object_,
            envelope=envelope,
            reminded=reminded,
            skipped=skipped,
        )

        return reminder
