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

T = TypeVar("T", bound="SigningUrl")


@_attrs_define
class SigningUrl:
    """
    Attributes:
        object_ (Literal['signing_url']):
        signer (str):
        role (str):
        url (str): `{signing_host}/sign/{token}`
        expires_at (datetime.datetime): ISO 8601 UTC with milliseconds.
    """

    object_: Literal["signing_url"]
    signer: str
    role: str
    url: str
    expires_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        object_ = self.object_

        signer = self.signer

        role = self.role

        url = self.url

        expires_at = self.expires_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "object": object_,
                "signer": signer,
                "role": role,
                "url": url,
                "expires_at": expires_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        object_ = cast(Literal["signing_url"], d.pop("object"))
        if object_ != "signing_url":
            raise ValueError(f"object must match const 'signing_url', got '{object_}'")

        signer = d.pop("signer")

        role = d.pop("role")

        url = d.pop("url")

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        signing_url = cls(
            object_=object_,
            signer=signer,
            role=role,
            url=url,
            expires_at=expires_at,
        )

        return signing_url
