from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="DeliveryAttempt")


@_attrs_define
class DeliveryAttempt:
    """
    Attributes:
        number (int):
        at (datetime.datetime): ISO 8601 UTC with milliseconds.
        status (int | None): The receiver's status; null when it did not answer.
        error (None | str):
        duration_ms (int):
    """

    number: int
    at: datetime.datetime
    status: int | None
    error: None | str
    duration_ms: int

    def to_dict(self) -> dict[str, Any]:
        number = self.number

        at = self.at.isoformat()

        status: int | None
        status = self.status

        error: None | str
        error = self.error

        duration_ms = self.duration_ms

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "number": number,
                "at": at,
                "status": status,
                "error": error,
                "duration_ms": duration_ms,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        number = d.pop("number")

        at = datetime.datetime.fromisoformat(d.pop("at"))

        def _parse_status(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        status = _parse_status(d.pop("status"))

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        duration_ms = d.pop("duration_ms")

        delivery_attempt = cls(
            number=number,
            at=at,
            status=status,
            error=error,
            duration_ms=duration_ms,
        )

        return delivery_attempt
