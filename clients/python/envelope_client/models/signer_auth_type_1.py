from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.signer_auth_type_1_method import SignerAuthType1Method

T = TypeVar("T", bound="SignerAuthType1")


@_attrs_define
class SignerAuthType1:
    """
    Attributes:
        method (SignerAuthType1Method):
    """

    method: SignerAuthType1Method

    def to_dict(self) -> dict[str, Any]:
        method = self.method.value

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
        method = SignerAuthType1Method(d.pop("method"))

        signer_auth_type_1 = cls(
            method=method,
        )

        return signer_auth_type_1
