from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="SigningUrlRequest")


@_attrs_define
class SigningUrlRequest:
    """
    Attributes:
        signer (str | Unset): A role name or a signer ID; may be omitted when one signer is left.
    """

    signer: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        signer = self.signer

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if signer is not UNSET:
            field_dict["signer"] = signer

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        signer = d.pop("signer", UNSET)

        signing_url_request = cls(
            signer=signer,
        )

        return signing_url_request
