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

T = TypeVar("T", bound="SignerAuthInputType0")


@_attrs_define
class SignerAuthInputType0:
    """The signer types a code that the sender gave them.

    Attributes:
        method (Literal['access_code']):
        access_code (str): Given to the signer out of band; only a hash is stored.
    """

    method: Literal["access_code"]
    access_code: str

    def to_dict(self) -> dict[str, Any]:
        method = self.method

        access_code = self.access_code

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "method": method,
                "access_code": access_code,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        method = cast(Literal["access_code"], d.pop("method"))
        if method != "access_code":
            raise ValueError(f"method must match const 'access_code', got '{method}'")

        access_code = d.pop("access_code")

        signer_auth_input_type_0 = cls(
            method=method,
            access_code=access_code,
        )

        return signer_auth_input_type_0
