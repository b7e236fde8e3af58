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

from ..models.webhook_endpoint_with_secret_events_item import (
    WebhookEndpointWithSecretEventsItem,
)
from ..models.webhook_endpoint_with_secret_status import WebhookEndpointWithSecretStatus

T = TypeVar("T", bound="WebhookEndpointWithSecret")


@_attrs_define
class WebhookEndpointWithSecret:
    """The create response: the endpoint and, this once, its signing secret.

    Attributes:
        id (str): `we_...`
        object_ (Literal['webhook_endpoint']):
        url (str):
        events (list[WebhookEndpointWithSecretEventsItem]):
        description (None | str):
        livemode (bool):
        status (WebhookEndpointWithSecretStatus):
        created_at (datetime.datetime): ISO 8601 UTC with milliseconds.
        secret (str): `whsec_...`: the signing secret of `Service-Signature`.
    """

    id: str
    object_: Literal["webhook_endpoint"]
    url: str
    events: list[WebhookEndpointWithSecretEventsItem]
    description: None | str
    livemode: bool
    status: WebhookEndpointWithSecretStatus
    created_at: datetime.datetime
    secret: str

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

        secret = self.secret

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
                "secret": secret,
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
            events_item = WebhookEndpointWithSecretEventsItem(events_item_data)

            events.append(events_item)

        def _parse_description(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        description = _parse_description(d.pop("description"))

        livemode = d.pop("livemode")

        status = WebhookEndpointWithSecretStatus(d.pop("status"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        secret = d.pop("secret")

        webhook_endpoint_with_secret = cls(
            id=id,
            object_=object_,
            url=url,
            events=events,
            description=description,
            livemode=livemode,
            status=status,
            created_at=created_at,
            secret=secret,
        )

        return webhook_endpoint_with_secret
