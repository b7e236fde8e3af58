from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

T = TypeVar("T", bound="SignerAuthInputType1")


@_attrs_define
class SignerAuthInputType1:
    """A 6-digit code is emailed when the page opens.

    Attributes:
        method (Literal['email_code']):
    """

    method: Literal["email_code"]

    def to_dict(self) -> dict[str, Any]:
        method = self.method

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "method": method,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        method = cast(Literal["email_code"], d.pop("method"))
        if method != "email_code":
            raise ValueError(f"method must match const 'email_code', got '{method}'")

        signer_auth_input_type_1 = cls(
            method=method,
        )

        return signer_auth_input_type_1
