from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="InPerson")


@_attrs_define
class InPerson:
    """Signing in person (extensions E13): the signing request and reminders go to the host, whose page asks to hand the
    device to the signer before the document shows. The audit trail records the host.

        Attributes:
            host_name (str):
            host_email (str):
    """

    host_name: str
    host_email: str

    def to_dict(self) -> dict[str, Any]:
        host_name = self.host_name

        host_email = self.host_email

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "host_name": host_name,
                "host_email": host_email,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        host_name = d.pop("host_name")

        host_email = d.pop("host_email")

        in_person = cls(
            host_name=host_name,
            host_email=host_email,
        )

        return in_person
