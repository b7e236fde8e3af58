from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="Document")


@_attrs_define
class Document:
    """One document of an envelope (extensions E5).

    Attributes:
        index (int): From 1, in the order given on create.
        name (str): The file name given with the document.
        page_count (int | None): Pages of the original; null only for the first document of an envelope created before
            documents were recorded.
        sha256 (str): SHA-256 of the original, lowercase hex.
    """

    index: int
    name: str
    page_count: int | None
    sha256: str

    def to_dict(self) -> dict[str, Any]:
        index = self.index

        name = self.name

        page_count: int | None
        page_count = self.page_count

        sha256 = self.sha256

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "index": index,
                "name": name,
                "page_count": page_count,
                "sha256": sha256,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        index = d.pop("index")

        name = d.pop("name")

        def _parse_page_count(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        page_count = _parse_page_count(d.pop("page_count"))

        sha256 = d.pop("sha256")

        document = cls(
            index=index,
            name=name,
            page_count=page_count,
            sha256=sha256,
        )

        return document
