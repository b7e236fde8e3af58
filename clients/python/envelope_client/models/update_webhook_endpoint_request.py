from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.update_webhook_endpoint_request_events_item import (
    UpdateWebhookEndpointRequestEventsItem,
)
from ..models.update_webhook_endpoint_request_status import (
    UpdateWebhookEndpointRequestStatus,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="UpdateWebhookEndpointRequest")


@_attrs_define
class UpdateWebhookEndpointRequest:
    """
    Attributes:
        url (str | Unset): A public https:// URL (a development server started with --allow-insecure-webhooks also takes
            http:// and loopback addresses).
        events (list[UpdateWebhookEndpointRequestEventsItem] | Unset): Event types, or `["*"]` for all (the default).
        description (str | Unset):
        status (UpdateWebhookEndpointRequestStatus | Unset):
    """

    url: str | Unset = UNSET
    events: list[UpdateWebhookEndpointRequestEventsItem] | Unset = UNSET
    description: str | Unset = UNSET
    status: UpdateWebhookEndpointRequestStatus | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        url = self.url

        events: list[str] | Unset = UNSET
        if not isinstance(self.events, Unset):
            events = []
            for events_item_data in self.events:
                events_item = events_item_data.value
                events.append(events_item)

        description = self.description

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if url is not UNSET:
            field_dict["url"] = url
        if events is not UNSET:
            field_dict["events"] = events
        if description is not UNSET:
            field_dict["description"] = description
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        url = d.pop("url", UNSET)

        _events = d.pop("events", UNSET)
        events: list[UpdateWebhookEndpointRequestEventsItem] | Unset = UNSET
        if _events is not UNSET:
            events = []
            for events_item_data in _events:
                events_item = UpdateWebhookEndpointRequestEventsItem(events_item_data)

                events.append(events_item)

        description = d.pop("description", UNSET)

        _status = d.pop("status", UNSET)
        status: UpdateWebhookEndpointRequestStatus | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = UpdateWebhookEndpointRequestStatus(_status)

        update_webhook_endpoint_request = cls(
            url=url,
            events=events,
            description=description,
            status=status,
        )

        return update_webhook_endpoint_request
