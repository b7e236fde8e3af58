from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="CcInput")


@_attrs_define
class CcInput:
    """
    Attributes:
        name (str):
        email (str):
    """

    name: str
    email: str

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        email = self.email

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "email": email,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        email = d.pop("email")

        cc_input = cls(
            name=name,
            email=email,
        )

        return cc_input
