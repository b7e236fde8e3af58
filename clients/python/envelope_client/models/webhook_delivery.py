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

from ..models.webhook_delivery_status import WebhookDeliveryStatus

if TYPE_CHECKING:
    from ..models.delivery_attempt import DeliveryAttempt


T = TypeVar("T", bound="WebhookDelivery")


@_attrs_define
class WebhookDelivery:
    """One event to one endpoint, with its attempts.

    Attributes:
        id (str): `whd_...`
        object_ (Literal['webhook_delivery']):
        event (str):
        endpoint (str):
        status (WebhookDeliveryStatus):
        attempts (list[DeliveryAttempt]):
        next_attempt_at (datetime.datetime | None):
        created_at (datetime.datetime): ISO 8601 UTC with milliseconds.
    """

    id: str
    object_: Literal["webhook_delivery"]
    event: str
    endpoint: str
    status: WebhookDeliveryStatus
    attempts: list[DeliveryAttempt]
    next_attempt_at: datetime.datetime | None
    created_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        object_ = self.object_

        event = self.event

        endpoint = self.endpoint

        status = self.status.value

        attempts = []
        for attempts_item_data in self.attempts:
            attempts_item = attempts_item_data.to_dict()
            attempts.append(attempts_item)

        next_attempt_at: None | str
        if isinstance(self.next_attempt_at, datetime.datetime):
            next_attempt_at = self.next_attempt_at.isoformat()
        else:
            next_attempt_at = self.next_attempt_at

        created_at = self.created_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "object": object_,
                "event": event,
                "endpoint": endpoint,
                "status": status,
                "attempts": attempts,
                "next_attempt_at": next_attempt_at,
                "created_at": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.delivery_attempt import DeliveryAttempt

        d = dict(src_dict)
        id = d.pop("id")

        object_ = cast(Literal["webhook_delivery"], d.pop("object"))
        if object_ != "webhook_delivery":
            raise ValueError(
                f"object must match const 'webhook_delivery', got '{object_}'"
            )

        event = d.pop("event")

        endpoint = d.pop("endpoint")

        status = WebhookDeliveryStatus(d.pop("status"))

        attempts = []
        _attempts = d.pop("attempts")
        for attempts_item_data in _attempts:
            attempts_item = DeliveryAttempt.from_dict(attempts_item_data)

            attempts.append(attempts_item)

        def _parse_next_attempt_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_attempt_at_type_0 = datetime.datetime.fromisoformat(data)

                return next_attempt_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("next_attempt_at"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        webhook_delivery = cls(
            id=id,
            object_=object_,
            event=event,
            endpoint=endpoint,
            status=status,
            attempts=attempts,
            next_attempt_at=next_attempt_at,
            created_at=created_at,
        )

        return webhook_delivery
