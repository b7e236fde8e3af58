from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.field_input import FieldInput


T = TypeVar("T", bound="CreateTemplateRequest")


@_attrs_define
class CreateTemplateRequest:
    """
    Attributes:
        name (str):
        file_base64 (str):
        file_name (str): A file name without directories.
        description (str | Unset):
        fields (list[FieldInput] | Unset):
        roles (list[str] | Unset): Signer roles in signing order; default: as they appear in the document.
    """

    name: str
    file_base64: str
    file_name: str
    description: str | Unset = UNSET
    fields: list[FieldInput] | Unset = UNSET
    roles: list[str] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        file_base64 = self.file_base64

        file_name = self.file_name

        description = self.description

        fields: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.fields, Unset):
            fields = []
            for fields_item_data in self.fields:
                fields_item = fields_item_data.to_dict()
                fields.append(fields_item)

        roles: list[str] | Unset = UNSET
        if not isinstance(self.roles, Unset):
            roles = self.roles

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "file_base64": file_base64,
                "file_name": file_name,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if fields is not UNSET:
            field_dict["fields"] = fields
        if roles is not UNSET:
            field_dict["roles"] = roles

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.field_input import FieldInput

        d = dict(src_dict)
        name = d.pop("name")

        file_base64 = d.pop("file_base64")

        file_name = d.pop("file_name")

        description = d.pop("description", UNSET)

        _fields = d.pop("fields", UNSET)
        fields: list[FieldInput] | Unset = UNSET
        if _fields is not UNSET:
            fields = []
            for fields_item_data in _fields:
                fields_item = FieldInput.from_dict(fields_item_data)

                fields.append(fields_item)

        roles = cast(list[str], d.pop("roles", UNSET))

        create_template_request = cls(
            name=name,
            file_base64=file_base64,
            file_name=file_name,
            description=description,
            fields=fields,
            roles=roles,
        )

        return create_template_request
