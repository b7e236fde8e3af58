from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.field import Field


T = TypeVar("T", bound="Template")


@_attrs_define
class Template:
    """
    Attributes:
        id (str): `tmpl_...`
        object_ (Literal['template']):
        name (str):
        description (None | str):
        livemode (bool):
        roles (list[str]): Signer roles in signing order.
        fields (list[Field]):
        page_count (int):
        created_at (datetime.datetime): ISO 8601 UTC with milliseconds.
        updated_at (datetime.datetime): ISO 8601 UTC with milliseconds.
        archived (bool):
    """

    id: str
    object_: Literal["template"]
    name: str
    description: None | str
    livemode: bool
    roles: list[str]
    fields: list[Field]
    page_count: int
    created_at: datetime.datetime
    updated_at: datetime.datetime
    archived: bool

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        object_ = self.object_

        name = self.name

        description: None | str
        description = self.description

        livemode = self.livemode

        roles = self.roles

        fields = []
        for fields_item_data in self.fields:
            fields_item = fields_item_data.to_dict()
            fields.append(fields_item)

        page_count = self.page_count

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        archived = self.archived

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "object": object_,
                "name": name,
                "description": description,
                "livemode": livemode,
                "roles": roles,
                "fields": fields,
                "page_count": page_count,
                "created_at": created_at,
                "updated_at": updated_at,
                "archived": archived,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.field import Field

        d = dict(src_dict)
        id = d.pop("id")

        object_ = cast(Literal["template"], d.pop("object"))
        if object_ != "template":
            raise ValueError(f"object must match const 'template', got '{object_}'")

        name = d.pop("name")

        def _parse_description(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        description = _parse_description(d.pop("description"))

        livemode = d.pop("livemode")

        roles = cast(list[str], d.pop("roles"))

        fields = []
        _fields = d.pop("fields")
        for fields_item_data in _fields:
            fields_item = Field.from_dict(fields_item_data)

            fields.append(fields_item)

        page_count = d.pop("page_count")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        archived = d.pop("archived")

        template = cls(
            id=id,
            object_=object_,
            name=name,
            description=description,
            livemode=livemode,
            roles=roles,
            fields=fields,
            page_count=page_count,
            created_at=created_at,
            updated_at=updated_at,
            archived=archived,
        )

        return template
