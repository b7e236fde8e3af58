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

T = TypeVar("T", bound="BuilderUrl")


@_attrs_define
class BuilderUrl:
    """
    Attributes:
        object_ (Literal['builder_url']):
        url (str): `{signing_host}/build/{token}`: the builder page. The token is also the page's credential for the
            API: it reads, changes (and, for a draft, sends) this one object and reads its pages; anything else is 403
            `outside_link_scope`.
        expires_at (datetime.datetime): ISO 8601 UTC with milliseconds.
    """

    object_: Literal["builder_url"]
    url: str
    expires_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        object_ = self.object_

        url = self.url

        expires_at = self.expires_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "object": object_,
                "url": url,
                "expires_at": expires_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        object_ = cast(Literal["builder_url"], d.pop("object"))
        if object_ != "builder_url":
            raise ValueError(f"object must match const 'builder_url', got '{object_}'")

        url = d.pop("url")

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        builder_url = cls(
            object_=object_,
            url=url,
            expires_at=expires_at,
        )

        return builder_url
