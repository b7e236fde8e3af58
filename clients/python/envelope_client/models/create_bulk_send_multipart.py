from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from .. import types
from ..models.create_bulk_send_multipart_delivery import CreateBulkSendMultipartDelivery
from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateBulkSendMultipart")


@_attrs_define
class CreateBulkSendMultipart:
    """
    Attributes:
        template (str): Template ID, `tmpl_...`.
        rows (str): CSV with a header row: columns `Role.name`, `Role.email` (for each role), `data.KEY`,
            `metadata.KEY`; at most 1,000 data rows. An empty `data.`/`metadata.` cell gives no value.
        delivery (CreateBulkSendMultipartDelivery | Unset):
        subject (str | Unset):
        message (str | Unset):
        expires_in_days (str | Unset): An integer as JSON text.
    """

    template: str
    rows: str
    delivery: CreateBulkSendMultipartDelivery | Unset = UNSET
    subject: str | Unset = UNSET
    message: str | Unset = UNSET
    expires_in_days: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        template = self.template

        rows = self.rows

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

    def to_multipart(self) -> types.RequestFiles:
        files: types.RequestFiles = []

        files.append(("template", (None, str(self.template).encode(), "text/plain")))

        files.append(("rows", (None, str(self.rows).encode(), "text/plain")))

        if not isinstance(self.delivery, Unset):
            files.append(
                ("delivery", (None, str(self.delivery.value).encode(), "text/plain"))
            )

        if not isinstance(self.subject, Unset):
            files.append(("subject", (None, str(self.subject).encode(), "text/plain")))

        if not isinstance(self.message, Unset):
            files.append(("message", (None, str(self.message).encode(), "text/plain")))

        if not isinstance(self.expires_in_days, Unset):
            files.append(
                (
                    "expires_in_days",
                    (None, str(self.expires_in_days).encode(), "text/plain"),
                )
            )

        return files

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        template = d.pop("template")

        rows = d.pop("rows")

        _delivery = d.pop("delivery", UNSET)
        delivery: CreateBulkSendMultipartDelivery | Unset
        if isinstance(_delivery, Unset):
            delivery = UNSET
        else:
            delivery = CreateBulkSendMultipartDelivery(_delivery)

        subject = d.pop("subject", UNSET)

        message = d.pop("message", UNSET)

        expires_in_days = d.pop("expires_in_days", UNSET)

        create_bulk_send_multipart = cls(
            template=template,
            rows=rows,
            delivery=delivery,
            subject=subject,
            message=message,
            expires_in_days=expires_in_days,
        )

        return create_bulk_send_multipart
