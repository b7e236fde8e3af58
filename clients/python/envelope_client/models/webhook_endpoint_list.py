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
    from ..models.webhook_endpoint import WebhookEndpoint


T = TypeVar("T", bound="WebhookEndpointList")


@_attrs_define
class WebhookEndpointList:
    """The list object of every list endpoint: one page, oldest or newest first as the endpoint says.

    Attributes:
        object_ (Literal['list']):
        url (str): Path of the list, with the /v1 prefix.
        has_more (bool): true when another page follows.
        data (list[WebhookEndpoint]):
    """

    object_: Literal["list"]
    url: str
    has_more: bool
    data: list[WebhookEndpoint]

    def to_dict(self) -> dict[str, Any]:
        object_ = self.object_

        url = self.url

        has_more = self.has_more

        data = []
        for data_item_data in self.data:
            data_item = data_item_data.to_dict()
            data.append(data_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "object": object_,
                "url": url,
                "has_more": has_more,
                "data": data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.webhook_endpoint import WebhookEndpoint

        d = dict(src_dict)
        object_ = cast(Literal["list"], d.pop("object"))
        if object_ != "list":
            raise ValueError(f"object must match const 'list', got '{object_}'")

        url = d.pop("url")

        has_more = d.pop("has_more")

        data = []
        _data = d.pop("data")
        for data_item_data in _data:
            data_item = WebhookEndpoint.from_dict(data_item_data)

            data.append(data_item)

        webhook_endpoint_list = cls(
            object_=object_,
            url=url,
            has_more=has_more,
            data=data,
        )

        return webhook_endpoint_list
