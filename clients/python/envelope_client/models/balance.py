from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

T = TypeVar("T", bound="Balance")


@_attrs_define
class Balance:
    """
    Attributes:
        object_ (Literal['balance']):
        livemode (bool):
        remaining (int):
        allowance (int):
        used (int):
        period_start (datetime.datetime): ISO 8601 UTC with milliseconds.
        period_end (datetime.datetime): ISO 8601 UTC with milliseconds.
        purchase_url (str):
    """

    object_: Literal["balance"]
    livemode: bool
    remaining: int
    allowance: int
    used: int
    period_start: datetime.datetime
    period_end: datetime.datetime
    purchase_url: str

    def to_dict(self) -> dict[str, Any]:
        object_ = self.object_

        livemode = self.livemode

        remaining = self.remaining

        allowance = self.allowance

        used = self.used

        period_start = self.period_start.isoformat()

        period_end = self.period_end.isoformat()

        purchase_url = self.purchase_url

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "object": object_,
                "livemode": livemode,
                "remaining": remaining,
                "allowance": allowance,
                "used": used,
                "period_start": period_start,
                "period_end": period_end,
                "purchase_url": purchase_url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        object_ = cast(Literal["balance"], d.pop("object"))
        if object_ != "balance":
            raise ValueError(f"object must match const 'balance', got '{object_}'")

        livemode = d.pop("livemode")

        remaining = d.pop("remaining")

        allowance = d.pop("allowance")

        used = d.pop("used")

        period_start = datetime.datetime.fromisoformat(d.pop("period_start"))

        period_end = datetime.datetime.fromisoformat(d.pop("period_end"))

        purchase_url = d.pop("purchase_url")

        balance = cls(
            object_=object_,
            livemode=livemode,
            remaining=remaining,
            allowance=allowance,
            used=used,
            period_start=period_start,
            period_end=period_end,
            purchase_url=purchase_url,
        )

        return balance
