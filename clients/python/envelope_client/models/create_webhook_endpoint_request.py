from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.create_webhook_endpoint_request_events_item import (
    CreateWebhookEndpointRequestEventsItem,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateWebhookEndpointRequest")


@_attrs_define
class CreateWebhookEndpointRequest:
    """
    Attributes:
        url (str): A public https:// URL (a development server started with --allow-insecure-webhooks also takes http://
            and loopback addresses).
        events (list[CreateWebhookEndpointRequestEventsItem] | Unset): Event types, or `["*"]` for all (the default).
        description (str | Unset):
    """

    url: str
    events: list[CreateWebhookEndpointRequestEventsItem] | Unset = UNSET
    description: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        url = self.url

        events: list[str] | Unset = UNSET
        if not isinstance(self.events, Unset):
            events = []
            for events_item_data in self.events:
                events_item = events_item_data.value
                events.append(events_item)

        description = self.description

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "url": url,
            }
        )
        if events is not UNSET:
            field_dict["events"] = events
        if description is not UNSET:
            field_dict["description"] = description

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        url = d.pop("url")

        _events = d.pop("events", UNSET)
        events: list[CreateWebhookEndpointRequestEventsItem] | Unset = UNSET
        if _events is not UNSET:
            events = []
            for events_item_data in _events:
                events_item = CreateWebhookEndpointRequestEventsItem(events_item_data)

                events.append(events_item)

        description = d.pop("description", UNSET)

        create_webhook_endpoint_request = cls(
            url=url,
            events=events,
            description=description,
        )

        return create_webhook_endpoint_request
