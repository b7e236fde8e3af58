from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.signer_ref_kind import SignerRefKind
from ..models.signer_ref_status import SignerRefStatus

T = TypeVar("T", bound="SignerRef")


@_attrs_define
class SignerRef:
    """`data.signer` of signer events.

    Attributes:
        id (str):
        role (str):
        name (str):
        email (str):
        order (int): With `signing_order`, signers who share an order form one step and act together (extensions E13).
        status (SignerRefStatus):
        kind (SignerRefKind):
    """

    id: str
    role: str
    name: str
    email: str
    order: int
    status: SignerRefStatus
    kind: SignerRefKind

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        role = self.role

        name = self.name

        email = self.email

        order = self.order

        status = self.status.value

        kind = self.kind.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "role": role,
                "name": name,
                "email": email,
                "order": order,
                "status": status,
                "kind": kind,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        role = d.pop("role")

        name = d.pop("name")

        email = d.pop("email")

        order = d.pop("order")

        status = SignerRefStatus(d.pop("status"))

        kind = SignerRefKind(d.pop("kind"))

        signer_ref = cls(
            id=id,
            role=role,
            name=name,
            email=email,
            order=order,
            status=status,
            kind=kind,
        )

        return signer_ref
