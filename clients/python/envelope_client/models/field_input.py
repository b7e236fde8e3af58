from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.field_input_type import FieldInputType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.condition import Condition


T = TypeVar("T", bound="FieldInput")


@_attrs_define
class FieldInput:
    """An exact field position.

    Attributes:
        type_ (FieldInputType): `radio` and `select` take one of `options`; `number` a plain decimal such as 12 or -3.50
            (at most 40 characters); `attachment` a file the signer uploads (a PDF, PNG or JPEG of at most 10 MB; it needs a
            role, at most 5 per envelope; extensions E14).
        page (int):
        x (float):
        y (float):
        width (float):
        height (float):
        role (str | Unset): Needed for signature and initials.
        filled_by (str | Unset): The role, or `sender` for a field without role.
        required (bool | Unset):
        key (str | Unset):
        document (int | Unset): The document the field is in, from 1; default 1. It must be one of the envelope's (a
            template has one).
        options (list[str] | Unset): Required for `radio` and `select` fields, refused for other types: 1 to 500
            distinct options of 1 to 200 characters the stamping fonts can draw.
        label (str | Unset): What the signing page calls the field (extensions E11); absent: a name made from its type
            or key.
        condition (Condition | Unset): When a field applies (extensions E14): it is shown, required and stamped only
            while the condition holds. Exactly one of `equals` and `filled`. The field it reads must be another field of the
            envelope, and conditions must not wait on each other in a circle (400, `param: fields.N.condition.field`). The
            server judges conditions at signing and stamping; the signing page follows them as the signer fills the form in.
        formula (str | Unset): How a `number` field is computed (extensions E14), over other number fields' keys in
            braces: numbers (at most 10 places), `{key}`, `+ - * /`, unary minus, parentheses and `round(x, n)` (n from 0 to
            10). Exact decimal arithmetic (`0.1 + 0.2` is `0.3`); quotients and long products are rounded to 10 places, half
            away from zero; an empty field counts as 0. A sender field's formula reads sender fields and is worked out on
            create; a signer's reads the sender's and its own role's number fields and is worked out when that signer signs.
            Read-only for signers: a value given for it is refused. Unknown keys, the field itself, other kinds of fields
            and circles answer 400 (`param: fields.N.formula`). Example: round({qty} * {price}, 2).
    """

    type_: FieldInputType
    page: int
    x: float
    y: float
    width: float
    height: float
    role: str | Unset = UNSET
    filled_by: str | Unset = UNSET
    required: bool | Unset = UNSET
    key: str | Unset = UNSET
    document: int | Unset = UNSET
    options: list[str] | Unset = UNSET
    label: str | Unset = UNSET
    condition: Condition | Unset = UNSET
    formula: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        page = self.page

        x = self.x

        y = self.y

        width = self.width

        height = self.height

        role = self.role

        filled_by = self.filled_by

        required = self.required

        key = self.key

        document = self.document

        options: list[str] | Unset = UNSET
        if not isinstance(self.options, Unset):
            options = self.options

        label = self.label

        condition: dict[str, Any] | Unset = UNSET
        if not isinstance(self.condition, Unset):
            condition = self.condition.to_dict()

        formula = self.formula

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "page": page,
                "x": x,
                "y": y,
                "width": width,
                "height": height,
            }
        )
        if role is not UNSET:
            field_dict["role"] = role
        if filled_by is not UNSET:
            field_dict["filled_by"] = filled_by
        if required is not UNSET:
            field_dict["required"] = required
        if key is not UNSET:
            field_dict["key"] = key
        if document is not UNSET:
            field_dict["document"] = document
        if options is not UNSET:
            field_dict["options"] = options
        if label is not UNSET:
            field_dict["label"] = label
        if condition is not UNSET:
            field_dict["condition"] = condition
        if formula is not UNSET:
            field_dict["formula"] = formula

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.condition import Condition

        d = dict(src_dict)
        type_ = FieldInputType(d.pop("type"))

        page = d.pop("page")

        x = d.pop("x")

        y = d.pop("y")

        width = d.pop("width")

        height = d.pop("height")

        role = d.pop("role", UNSET)

        filled_by = d.pop("filled_by", UNSET)

        required = d.pop("required", UNSET)

        key = d.pop("key", UNSET)

        document = d.pop("document", UNSET)

        options = cast(list[str], d.pop("options", UNSET))

        label = d.pop("label", UNSET)

        _condition = d.pop("condition", UNSET)
        condition: Condition | Unset
        if isinstance(_condition, Unset):
            condition = UNSET
        else:
            condition = Condition.from_dict(_condition)

        formula = d.pop("formula", UNSET)

        field_input = cls(
            type_=type_,
            page=page,
            x=x,
            y=y,
            width=width,
            height=height,
            role=role,
            filled_by=filled_by,
            required=required,
            key=key,
            document=document,
            options=options,
            label=label,
            condition=condition,
            formula=formula,
        )

        return field_input
