from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.create_bulk_send_request_delivery import CreateBulkSendRequestDelivery
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.bulk_row_input import BulkRowInput


T = TypeVar("T", bound="CreateBulkSendRequest")


@_attrs_define
class CreateBulkSendRequest:
    """
    Attributes:
        template (str): Template ID, `tmpl_...`.
        rows (list[BulkRowInput]):
        delivery (CreateBulkSendRequestDelivery | Unset):
        subject (str | Unset):
        message (str | Unset):
        expires_in_days (int | Unset):
    """

    template: str
    rows: list[BulkRowInput]
    delivery: CreateBulkSendRequestDelivery | Unset = UNSET
    subject: str | Unset = UNSET
    message: str | Unset = UNSET
    expires_in_days: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        template = self.template

        rows = []
        for rows_item_data in self.rows:
            rows_item = rows_item_data.to_dict()
            rows.append(rows_item)

        delivery: str | Unset = UNSET
        if not isinstance(self.delivery, Unset):
            delivery = self.delivery.value

        subject = self.subject

        message = self.message

        expires_in_days = self.expires_in_days

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "template": template,
                "rows": rows,
            }
        )
        if delivery is not UNSET:
            field_dict["delivery"] = delivery
        if subject is not UNSET:
            field_dict["subject"] = subject
        if message is not UNSET:
            field_dict["message"] = message
        if expires_in_days is not UNSET:
            field_dict["expires_in_days"] = expires_in_days

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.bulk_row_input import BulkRowInput

        d = dict(src_dict)
        template = d.pop("template")

        rows = []
        _rows = d.pop("rows")
        for rows_item_data in _rows:
            rows_item = BulkRowInput.from_dict(rows_item_data)

            rows.append(rows_item)

        _delivery = d.pop("delivery", UNSET)
        delivery: CreateBulkSendRequestDelivery | Unset
        if isinstance(_delivery, Unset):
            delivery = UNSET
        else:
            delivery = CreateBulkSendRequestDelivery(_delivery)

        subject = d.pop("subject", UNSET)

        message = d.pop("message", UNSET)

        expires_in_days = d.pop("expires_in_days", UNSET)

        create_bulk_send_request = cls(
            template=template,
            rows=rows,
            delivery=delivery,
            subject=subject,
            message=message,
            expires_in_days=expires_in_days,
        )

        return create_bulk_send_request
