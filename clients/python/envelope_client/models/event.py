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

from ..models.event_type import EventType

if TYPE_CHECKING:
    from ..models.event_data import EventData


T = TypeVar("T", bound="Event")


@_attrs_define
class Event:
    """
    Attributes:
        id (str): `evt_...`
        object_ (Literal['event']):
        type_ (EventType):
        livemode (bool):
        created_at (datetime.datetime): ISO 8601 UTC with milliseconds.
        data (EventData): `object` is the whole envelope right after the event (the bulk send, for
            `bulk_send.completed`). Signer events add `signer`; `envelope.email_failed` adds `email` (and `cc` for a copied
            recipient); `signer.reassigned` adds `previous`; `signer.locked` adds `until`; `envelope.corrected` adds
            `changes`.
    """

    id: str
    object_: Literal["event"]
    type_: EventType
    livemode: bool
    created_at: datetime.datetime
    data: EventData

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        object_ = self.object_

        type_ = self.type_.value

        livemode = self.livemode

        created_at = self.created_at.isoformat()

        data = self.data.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "object": object_,
                "type": type_,
                "livemode": livemode,
                "created_at": created_at,
                "data": data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.event_data import EventData

        d = dict(src_dict)
        id = d.pop("id")

        object_ = cast(Literal["event"], d.pop("object"))
        if object_ != "event":
            raise ValueError(f"object must match const 'event', got '{object_}'")

        type_ = EventType(d.pop("type"))

        livemode = d.pop("livemode")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        data = EventData.from_dict(d.pop("data"))

        event = cls(
            id=id,
            object_=object_,
            type_=type_,
            livemode=livemode,
            created_at=created_at,
            data=data,
        )

        return event
