from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.api_key_mode import ApiKeyMode

T = TypeVar("T", bound="ApiKey")


@_attrs_define
class ApiKey:
    """
    Attributes:
        id (str): `key_...`
        mode (ApiKeyMode):
        prefix (str): The key's first 12 characters.
        created_at (datetime.datetime): ISO 8601 UTC with milliseconds.
    """

    id: str
    mode: ApiKeyMode
    prefix: str
    created_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        mode = self.mode.value

        prefix = self.prefix

        created_at = self.created_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "mode": mode,
                "prefix": prefix,
                "created_at": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        mode = ApiKeyMode(d.pop("mode"))

        prefix = d.pop("prefix")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        api_key = cls(
            id=id,
            mode=mode,
            prefix=prefix,
            created_at=created_at,
        )

        return api_key
