from __future__ import annotations

from collections.abc import Mapping
from io import BytesIO
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from .. import types
from ..types import UNSET, File, Unset

T = TypeVar("T", bound="CreateTemplateMultipart")


@_attrs_define
class CreateTemplateMultipart:
    """
    Attributes:
        file (File): The PDF.
        name (str | Unset):
        description (str | Unset):
        file_name (str | Unset): A file name without directories.
        fields (str | Unset): As JSON text.
        roles (str | Unset): Signer roles in signing order; default: as they appear in the document. As JSON text.
        payload (str | Unset): Every other parameter as one JSON object (then no other text part).
    """

    file: File
    name: str | Unset = UNSET
    description: str | Unset = UNSET
    file_name: str | Unset = UNSET
    fields: str | Unset = UNSET
    roles: str | Unset = UNSET
    payload: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        file = self.file.to_tuple()

        name = self.name

        description = self.description

        file_name = self.file_name

        fields = self.fields

        roles = self.roles

        payload = self.payload

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "file": file,
            }
        )
        if name is not UNSET:
            field_dict["name"] = name
        if description is not UNSET:
            field_dict["description"] = description
        if file_name is not UNSET:
            field_dict["file_name"] = file_name
        if fields is not UNSET:
            field_dict["fields"] = fields
        if roles is not UNSET:
            field_dict["roles"] = roles
        if payload is not UNSET:
            field_dict["payload"] = payload

        return field_dict

    def to_multipart(self) -> types.RequestFiles:
        files: types.RequestFiles = []

        files.append(("file", self.file.to_tuple()))

        if not isinstance(self.name, Unset):
            files.append(("name", (None, str(self.name).encode(), "text/plain")))

        if not isinstance(self.description, Unset):
            files.append(
                ("description", (None, str(self.description).encode(), "text/plain"))
            )

        if not isinstance(self.file_name, Unset):
            files.append(
                ("file_name", (None, str(self.file_name).encode(), "text/plain"))
            )

        if not isinstance(self.fields, Unset):
            files.append(("fields", (None, str(self.fields).encode(), "text/plain")))

        if not isinstance(self.roles, Unset):
            files.append(("roles", (None, str(self.roles).encode(), "text/plain")))

        if not isinstance(self.payload, Unset):
            files.append(("payload", (None, str(self.payload).encode(), "text/plain")))

        return files

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        file = File(payload=BytesIO(d.pop("file")))

        name = d.pop("name", UNSET)

        description = d.pop("description", UNSET)

        file_name = d.pop("file_name", UNSET)

        fields = d.pop("fields", UNSET)

        roles = d.pop("roles", UNSET)

        payload = d.pop("payload", UNSET)

        create_template_multipart = cls(
            file=file,
            name=name,
            description=description,
            file_name=file_name,
            fields=fields,
            roles=roles,
            payload=payload,
        )

        return create_template_multipart
