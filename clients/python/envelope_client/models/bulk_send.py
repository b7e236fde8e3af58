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

from ..models.bulk_send_status import BulkSendStatus

if TYPE_CHECKING:
    from ..models.bulk_failure import BulkFailure


T = TypeVar("T", bound="BulkSend")


@_attrs_define
class BulkSend:
    """A bulk send (extensions E12): one template, up to 1,000 rows, each made into an envelope and sent in the background.

    Attributes:
        id (str): `bulk_...`
        object_ (Literal['bulk_send']):
        livemode (bool):
        status (BulkSendStatus):
        template (str): The template every envelope is made from, `tmpl_...`.
        total (int): Rows given: one envelope each.
        created (int): Envelopes made so far.
        failed (int): Rows that failed when their turn came (see `failures`).
        failures (list[BulkFailure]): At most one entry per row, in row order.
        created_at (datetime.datetime): ISO 8601 UTC with milliseconds.
        completed_at (datetime.datetime | None): When the last row was done; null while processing.
    """

    id: str
    object_: Literal["bulk_send"]
    livemode: bool
    status: BulkSendStatus
    template: str
    total: int
    created: int
    failed: int
    failures: list[BulkFailure]
    created_at: datetime.datetime
    completed_at: datetime.datetime | None

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        object_ = self.object_

        livemode = self.livemode

        status = self.status.value

        template = self.template

        total = self.total

        created = self.created

        failed = self.failed

        failures = []
        for failures_item_data in self.failures:
            failures_item = failures_item_data.to_dict()
            failures.append(failures_item)

        created_at = self.created_at.isoformat()

        completed_at: None | str
        if isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "object": object_,
                "livemode": livemode,
                "status": status,
                "template": template,
                "total": total,
                "created": created,
                "failed": failed,
                "failures": failures,
                "created_at": created_at,
                "completed_at": completed_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.bulk_failure import BulkFailure

        d = dict(src_dict)
        id = d.pop("id")

        object_ = cast(Literal["bulk_send"], d.pop("object"))
        if object_ != "bulk_send":
            raise ValueError(f"object must match const 'bulk_send', got '{object_}'")

        livemode = d.pop("livemode")

        status = BulkSendStatus(d.pop("status"))

        template = d.pop("template")

        total = d.pop("total")

        created = d.pop("created")

        failed = d.pop("failed")

        failures = []
        _failures = d.pop("failures")
        for failures_item_data in _failures:
            failures_item = BulkFailure.from_dict(failures_item_data)

            failures.append(failures_item)

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_completed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                completed_at_type_0 = datetime.datetime.fromisoformat(data)

                return completed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        completed_at = _parse_completed_at(d.pop("completed_at"))

        bulk_send = cls(
            id=id,
            object_=object_,
            livemode=livemode,
            status=status,
            template=template,
            total=total,
            created=created,
            failed=failed,
            failures=failures,
            created_at=created_at,
            completed_at=completed_at,
        )

        return bulk_send
