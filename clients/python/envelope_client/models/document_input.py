from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="DocumentInput")


@_attrs_define
class DocumentInput:
    """
    Attributes:
        file_name (str): A file name without directories.
        file_base64 (str): The PDF, base64.
    """

    file_name: str
    file_base64: str

    def to_dict(self) -> dict[str, Any]:
        file_name = self.file_name

        file_base64 = self.file_base64

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "file_name": file_name,
                "file_base64": file_base64,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        file_name = d.pop("file_name")

        file_base64 = d.pop("file_base64")

        document_input = cls(
            file_name=file_name,
            file_base64=file_base64,
        )

        return document_input
