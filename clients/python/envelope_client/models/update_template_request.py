from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.field_input import FieldInput
    from ..models.update_template_request_fields_type_0_item import (
        UpdateTemplateRequestFieldsType0Item,
    )


T = TypeVar("T", bound="UpdateTemplateRequest")


@_attrs_define
class UpdateTemplateRequest:
    """
    Attributes:
        name (str | Unset):
        description (str | Unset):
        roles (list[str] | Unset): Signer roles in signing order; default: as they appear in the document.
        fields (list[FieldInput] | list[UpdateTemplateRequestFieldsType0Item] | Unset): Either one entry per field of
            the template, in order, each editing that field in place; or the template's new fields, each placed as on
            create, replacing them whole. Not both forms in one request.
    """

    name: str | Unset = UNSET
    description: str | Unset = UNSET
    roles: list[str] | Unset = UNSET
    fields: list[FieldInput] | list[UpdateTemplateRequestFieldsType0Item] | Unset = (
        UNSET
    )

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        description = self.description

        roles: list[str] | Unset = UNSET
        if not isinstance(self.roles, Unset):
            roles = self.roles

        fields: list[dict[str, Any]] | Unset
        if isinstance(self.fields, Unset):
            fields = UNSET
        elif isinstance(self.fields, list):
            fields = []
            for fields_type_0_item_data in self.fields:
                fields_type_0_item = fields_type_0_item_data.to_dict()
                fields.append(fields_type_0_item)

        else:
            fields = []
            for fields_type_1_item_data in self.fields:
                fields_type_1_item = fields_type_1_item_data.to_dict()
                fields.append(fields_type_1_item)

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if name is not UNSET:
            field_dict["name"] = name
        if description is not UNSET:
            field_dict["description"] = description
        if roles is not UNSET:
            field_dict["roles"] = roles
        if fields is not UNSET:
            field_dict["fields"] = fields

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.field_input import FieldInput
        from ..models.update_template_request_fields_type_0_item import (
            UpdateTemplateRequestFieldsType0Item,
        )

        d = dict(src_dict)
        name = d.pop("name", UNSET)

        description = d.pop("description", UNSET)

        roles = cast(list[str], d.pop("roles", UNSET))

        def _parse_fields(
            data: object,
        ) -> list[FieldInput] | list[UpdateTemplateRequestFieldsType0Item] | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                fields_type_0 = []
                _fields_type_0 = data
                for fields_type_0_item_data in _fields_type_0:
                    fields_type_0_item = UpdateTemplateRequestFieldsType0Item.from_dict(
                        fields_type_0_item_data
                    )

                    fields_type_0.append(fields_type_0_item)

                return fields_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, list):
                raise TypeError()
            fields_type_1 = []
            _fields_type_1 = data
            for fields_type_1_item_data in _fields_type_1:
                fields_type_1_item = FieldInput.from_dict(fields_type_1_item_data)

                fields_type_1.append(fields_type_1_item)

            return fields_type_1

        fields = _parse_fields(d.pop("fields", UNSET))

        update_template_request = cls(
            name=name,
            description=description,
            roles=roles,
            fields=fields,
        )

        return update_template_request
