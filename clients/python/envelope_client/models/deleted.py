from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.deleted_object import DeletedObject

T = TypeVar("T", bound="Deleted")


@_attrs_define
class Deleted:
    """
    Attributes:
        id (str):
        object_ (DeletedObject):
        deleted (bool):
    """

    id: str
    object_: DeletedObject
    deleted: bool

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        object_ = self.object_.value

        deleted = self.deleted

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "object": object_,
                "deleted": deleted,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        object_ = DeletedObject(d.pop("object"))

        deleted = d.pop("deleted")

        deleted = cls(
            id=id,
            object_=object_,
            deleted=deleted,
        )

        return deleted
