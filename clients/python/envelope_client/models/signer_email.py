from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.signer_email_failure_reason import SignerEmailFailureReason
from ..models.signer_email_kind import SignerEmailKind
from ..models.signer_email_status import SignerEmailStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="SignerEmail")


@_attrs_define
class SignerEmail:
    """The newest email to a signer and where it stands.

    Attributes:
        id (str): `eml_...`
        kind (SignerEmailKind):
        status (SignerEmailStatus):
        attempts (int):
        created_at (datetime.datetime): ISO 8601 UTC with milliseconds.
        next_attempt_at (datetime.datetime | None): While pending: when the next attempt may start.
        finished_at (datetime.datetime | None):
        last_error (None | str):
        failure_reason (SignerEmailFailureReason | Unset): Only once `status` is `failed`: why, for machines.
            `email_limit`: not sent, the account's daily email budget for the mode was used up; `refused`: the mail server
            refused it for good (or the address is not valid); `retries_exhausted`: every attempt of the retry schedule
            failed. Absent for emails that failed before the reason was kept.
    """

    id: str
    kind: SignerEmailKind
    status: SignerEmailStatus
    attempts: int
    created_at: datetime.datetime
    next_attempt_at: datetime.datetime | None
    finished_at: datetime.datetime | None
    last_error: None | str
    failure_reason: SignerEmailFailureReason | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        kind = self.kind.value

        status = self.status.value

        attempts = self.attempts

        created_at = self.created_at.isoformat()

        next_attempt_at: None | str
        if isinstance(self.next_attempt_at, datetime.datetime):
            next_attempt_at = self.next_attempt_at.isoformat()
        else:
            next_attempt_at = self.next_attempt_at

        finished_at: None | str
        if isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        last_error: None | str
        last_error = self.last_error

        failure_reason: str | Unset = UNSET
        if not isinstance(self.failure_reason, Unset):
            failure_reason = self.failure_reason.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "kind": kind,
                "status": status,
                "attempts": attempts,
                "created_at": created_at,
                "next_attempt_at": next_attempt_at,
                "finished_at": finished_at,
                "last_error": last_error,
            }
        )
        if failure_reason is not UNSET:
            field_dict["failure_reason"] = failure_reason

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        kind = SignerEmailKind(d.pop("kind"))

        status = SignerEmailStatus(d.pop("status"))

        attempts = d.pop("attempts")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_next_attempt_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_attempt_at_type_0 = datetime.datetime.fromisoformat(data)

                return next_attempt_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("next_attempt_at"))

        def _parse_finished_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = datetime.datetime.fromisoformat(data)

                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        finished_at = _parse_finished_at(d.pop("finished_at"))

        def _parse_last_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_error = _parse_last_error(d.pop("last_error"))

        _failure_reason = d.pop("failure_reason", UNSET)
        failure_reason: SignerEmailFailureReason | Unset
        if isinstance(_failure_reason, Unset):
            failure_reason = UNSET
        else:
            failure_reason = SignerEmailFailureReason(_failure_reason)

        signer_email = cls(
            id=id,
            kind=kind,
            status=status,
            attempts=attempts,
            created_at=created_at,
            next_attempt_at=next_attempt_at,
            finished_at=finished_at,
            last_error=last_error,
            failure_reason=failure_reason,
        )

        return signer_email
