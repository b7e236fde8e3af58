from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="BulkFailure")


@_attrs_define
class BulkFailure:
    """A row that passed the checks but could not be made into an envelope when its turn came.

    Attributes:
        row (int): The row's index, from 0.
        code (str): The error code `POST /v1/envelopes` would have answered (`resource_missing` for a template deleted
            or archived since the check, `storage_quota_exceeded`).
        message (str):
    """

    row: int
    code: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        row = self.row

        code = self.code

        message = self.message

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "row": row,
                "code": code,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        row = d.pop("row")

        code = d.pop("code")

        message = d.pop("message")

        bulk_failure = cls(
            row=row,
            code=code,
            message=message,
        )

        return bulk_failure
