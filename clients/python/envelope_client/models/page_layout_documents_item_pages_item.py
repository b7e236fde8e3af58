from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PageLayoutDocumentsItemPagesItem")


@_attrs_define
class PageLayoutDocumentsItemPagesItem:
    """
    Attributes:
        width (float): Points.
        height (float): Points.
    """

    width: float
    height: float

    def to_dict(self) -> dict[str, Any]:
        width = self.width

        height = self.height

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "width": width,
                "height": height,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        width = d.pop("width")

        height = d.pop("height")

        page_layout_documents_item_pages_item = cls(
            width=width,
            height=height,
        )

        return page_layout_documents_item_pages_item
