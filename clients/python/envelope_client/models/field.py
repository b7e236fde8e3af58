from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.field_type import FieldType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.condition import Condition


T = TypeVar("T", bound="Field")


@_attrs_define
class Field:
    """A place in the document; PDF points, origin at the top-left corner of the page.

    Attributes:
        key (str):
        type_ (FieldType):
        role (None | str): null for sender data fields.
        filled_by (str): A role name, or `sender`.
        required (bool):
        page (int):
        x (float):
        y (float):
        width (float):
        height (float):
        document (int): The envelope's document the field is in, from 1 (templates: always 1).
        options (list[str] | Unset): The choices of a `radio` or `select` field, in order. Present only on those types.
        label (str | Unset): What the signing page calls the field, when the sender named it (extensions E11).
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

    key: str
    type_: FieldType
    role: None | str
    filled_by: str
    required: bool
    page: int
    x: float
    y: float
    width: float
    height: float
    document: int
    options: list[str] | Unset = UNSET
    label: str | Unset = UNSET
    condition: Condition | Unset = UNSET
    formula: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        key = self.key

        type_ = self.type_.value

        role: None | str
        role = self.role

        filled_by = self.filled_by

        required = self.required

        page = self.page

        x = self.x

        y = self.y

        width = self.width

        height = self.height

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
                "key": key,
                "type": type_,
                "role": role,
                "filled_by": filled_by,
                "required": required,
                "page": page,
                "x": x,
                "y": y,
                "width": width,
                "height": height,
                "document": document,
            }
        )
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
        key = d.pop("key")

        type_ = FieldType(d.pop("type"))

        def _parse_role(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        role = _parse_role(d.pop("role"))

        filled_by = d.pop("filled_by")

        required = d.pop("required")

        page = d.pop("page")

        x = d.pop("x")

        y = d.pop("y")

        width = d.pop("width")

        height = d.pop("height")

        document = d.pop("document")

        options = cast(list[str], d.pop("options", UNSET))

        label = d.pop("label", UNSET)

        _condition = d.pop("condition", UNSET)
        condition: Condition | Unset
        if isinstance(_condition, Unset):
            condition = UNSET
        else:
            condition = Condition.from_dict(_condition)

        formula = d.pop("formula", UNSET)

        field = cls(
            key=key,
            type_=type_,
            role=role,
            filled_by=filled_by,
            required=required,
            page=page,
            x=x,
            y=y,
            width=width,
            height=height,
            document=document,
            options=options,
            label=label,
            condition=condition,
            formula=formula,
        )

        return field
