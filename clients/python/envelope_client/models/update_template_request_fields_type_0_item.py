from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="UpdateTemplateRequestFieldsType0Item")


@_attrs_define
class UpdateTemplateRequestFieldsType0Item:
    """
    Attributes:
        key (str | Unset):
        role (str | Unset):
        filled_by (str | Unset):
        required (bool | Unset):
        label (str | Unset): What the signing page calls the field (extensions E11); absent: a name made from its type
            or key.
    """

    key: str | Unset = UNSET
    role: str | Unset = UNSET
    filled_by: str | Unset = UNSET
    required: bool | Unset = UNSET
    label: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        key = self.key

        role = self.role

        filled_by = self.filled_by

        required = self.required

        label = self.label

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if key is not UNSET:
            field_dict["key"] = key
        if role is not UNSET:
            field_dict["role"] = role
        if filled_by is not UNSET:
            field_dict["filled_by"] = filled_by
        if required is not UNSET:
            field_dict["required"] = required
        if label is not UNSET:
            field_dict["label"] = label

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        key = d.pop("key", UNSET)

        role = d.pop("role", UNSET)

        filled_by = d.pop("filled_by", UNSET)

        required = d.pop("required", UNSET)

        label = d.pop("label", UNSET)

        update_template_request_fields_type_0_item = cls(
            key=key,
            role=role,
            filled_by=filled_by,
            required=required,
            label=label,
        )

        return update_template_request_fields_type_0_item
