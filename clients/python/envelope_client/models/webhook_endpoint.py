from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

from ..models.webhook_endpoint_events_item import WebhookEndpointEventsItem
from ..models.webhook_endpoint_status import WebhookEndpointStatus

T = TypeVar("T", bound="WebhookEndpoint")


@_attrs_define
class WebhookEndpoint:
    """
    Attributes:
        id (str): `we_...`
        object_ (Literal['webhook_endpoint']):
        url (str):
        events (list[WebhookEndpointEventsItem]):
        description (None | str):
        livemode (bool):
        status (WebhookEndpointStatus):
        created_at (datetime.datetime): ISO 8601 UTC with milliseconds.
    """

    id: str
    object_: Literal["webhook_endpoint"]
    url: str
    events: list[WebhookEndpointEventsItem]
    description: None | str
    livemode: bool
    status: WebhookEndpointStatus
    created_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        object_ = self.object_

        url = self.url

        events = []
        for events_item_data in self.events:
            events_item = events_item_data.value
            events.append(events_item)

        description: None | str
        description = self.description

        livemode = self.livemode

        status = self.status.value

        created_at = self.created_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "object": object_,
                "url": url,
                "events": events,
                "description": description,
                "livemode": livemode,
                "status": status,
                "created_at": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        object_ = cast(Literal["webhook_endpoint"], d.pop("object"))
        if object_ != "webhook_endpoint":
            raise ValueError(
                f"object must match const 'webhook_endpoint', got '{object_}'"
            )

        url = d.pop("url")

        events = []
        _events = d.pop("events")
        for events_item_data in _events:
            events_item = WebhookEndpointEventsItem(events_item_data)

            events.append(events_item)

        def _parse_description(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        description = _parse_description(d.pop("description"))

        livemode = d.pop("livemode")

        status = WebhookEndpointStatus(d.pop("status"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        webhook_endpoint = cls(
            id=id,
            object_=object_,
            url=url,
            events=events,
            description=description,
            livemode=livemode,
            status=status,
            created_at=created_at,
        )

        return webhook_endpoint
