from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Condition")


@_attrs_define
class Condition:
    """When a field applies (extensions E14): it is shown, required and stamped only while the condition holds. Exactly one
    of `equals` and `filled`. The field it reads must be another field of the envelope, and conditions must not wait on
    each other in a circle (400, `param: fields.N.condition.field`). The server judges conditions at signing and
    stamping; the signing page follows them as the signer fills the form in.

        Attributes:
            field (str): The key of the field read.
            equals (bool | str | Unset): Holds when the value is this text (text, radio, select, number: as entered,
                trimmed), or this boolean (a check box ticked or not).
            filled (bool | Unset): true: holds when the field has a value (a ticked check box); false: when it has none.
    """

    field: str
    equals: bool | str | Unset = UNSET
    filled: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        field = self.field

        equals: bool | str | Unset
        if isinstance(self.equals, Unset):
            equals = UNSET
        else:
            equals = self.equals

        filled = self.filled

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "field": field,
            }
        )
        if equals is not UNSET:
            field_dict["equals"] = equals
        if filled is not UNSET:
            field_dict["filled"] = filled

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        field = d.pop("field")

        def _parse_equals(data: object) -> bool | str | Unset:
            if isinstance(data, Unset):
                return data
            return cast(bool | str | Unset, data)

        equals = _parse_equals(d.pop("equals", UNSET))

        filled = d.pop("filled", UNSET)

        condition = cls(
            field=field,
            equals=equals,
            filled=filled,
        )

        return condition
