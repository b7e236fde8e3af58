from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="BuilderUrlRequest")


@_attrs_define
class BuilderUrlRequest:
    """
    Attributes:
        locale (str | Unset): The page's language, a BCP 47 tag (`de`, `pt-BR`); the best of the eight languages of the
            signing pages. Absent: the browser's `Accept-Language`.
        return_url (str | Unset): An `http` or `https` URL without credentials: where the page's Done link goes, and
            where it goes after sending when it is not framed.
    """

    locale: str | Unset = UNSET
    return_url: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        locale = self.locale

        return_url = self.return_url

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if locale is not UNSET:
            field_dict["locale"] = locale
        if return_url is not UNSET:
            field_dict["return_url"] = return_url

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        locale = d.pop("locale", UNSET)

        return_url = d.pop("return_url", UNSET)

        builder_url_request = cls(
            locale=locale,
            return_url=return_url,
        )

        return builder_url_request
