from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ResendRequest")


@_attrs_define
class ResendRequest:
    """
    Attributes:
        endpoint (str | Unset): One endpoint ID; default: every subscribed enabled endpoint.
    """

    endpoint: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        endpoint = self.endpoint

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if endpoint is not UNSET:
            field_dict["endpoint"] = endpoint

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        endpoint = d.pop("endpoint", UNSET)

        resend_request = cls(
            endpoint=endpoint,
        )

        return resend_request
