from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.page_layout_documents_item_pages_item import (
        PageLayoutDocumentsItemPagesItem,
    )


T = TypeVar("T", bound="PageLayoutDocumentsItem")


@_attrs_define
class PageLayoutDocumentsItem:
    """
    Attributes:
        index (int): From 1, as fields' `document`.
        name (str):
        pages (list[PageLayoutDocumentsItemPagesItem]): Each page's displayed size in points: the space of fields' `x`,
            `y`, `width`, `height` (from the top-left corner).
    """

    index: int
    name: str
    pages: list[PageLayoutDocumentsItemPagesItem]

    def to_dict(self) -> dict[str, Any]:
        index = self.index

        name = self.name

        pages = []
        for pages_item_data in self.pages:
            pages_item = pages_item_data.to_dict()
            pages.append(pages_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "index": index,
                "name": name,
                "pages": pages,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.page_layout_documents_item_pages_item import (
            PageLayoutDocumentsItemPagesItem,
        )

        d = dict(src_dict)
        index = d.pop("index")

        name = d.pop("name")

        pages = []
        _pages = d.pop("pages")
        for pages_item_data in _pages:
            pages_item = PageLayoutDocumentsItemPagesItem.from_dict(pages_item_data)

            pages.append(pages_item)

        page_layout_documents_item = cls(
            index=index,
            name=name,
            pages=pages,
        )

        return page_layout_documents_item
