from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.signer_kind import SignerKind
from ..models.signer_status import SignerStatus

if TYPE_CHECKING:
    from ..models.in_person import InPerson
    from ..models.signer_auth_type_1 import SignerAuthType1
    from ..models.signer_email import SignerEmail


T = TypeVar("T", bound="Signer")


@_attrs_define
class Signer:
    """
    Attributes:
        id (str): `sgn_...`
        role (str):
        name (str):
        email (str):
        order (int): Position in the signing sequence. With `signing_order`, signers who share an order form one step
            and act together (extensions E13).
        status (SignerStatus):
        viewed_at (datetime.datetime | None):
        signed_at (datetime.datetime | None):
        declined_at (datetime.datetime | None):
        decline_reason (None | str):
        last_email (None | SignerEmail): null before the first email (and always with embedded delivery).
        auth (None | SignerAuthType1): How the signer proves who they are before the document opens (extensions E2);
            null when not asked. The access code itself is never returned.
        locale (None | str): BCP 47 language tag of the signer's emails and pages (extensions E4); null: the page
            follows Accept-Language, emails are in English.
        kind (SignerKind): What the recipient does (extensions E13): `signer` fills fields and signs; `approver`
            reviews, then approves or declines, and fills no fields; `viewer` finishes by opening the document. Each
            completes with `status: completed` and `signed_at` (the approval, or the opening, for the other kinds); an
            approver's decline voids the envelope like a signer's.
        in_person (InPerson | None): The host of an in-person signing; null when the signer signs on their own.
    """

    id: str
    role: str
    name: str
    email: str
    order: int
    status: SignerStatus
    viewed_at: datetime.datetime | None
    signed_at: datetime.datetime | None
    declined_at: datetime.datetime | None
    decline_reason: None | str
    last_email: None | SignerEmail
    auth: None | SignerAuthType1
    locale: None | str
    kind: SignerKind
    in_person: InPerson | None

    def to_dict(self) -> dict[str, Any]:
        from ..models.in_person import InPerson
        from ..models.signer_auth_type_1 import SignerAuthType1
        from ..models.signer_email import SignerEmail

        id = self.id

        role = self.role

        name = self.name

        email = self.email

        order = self.order

        status = self.status.value

        viewed_at: None | str
        if isinstance(self.viewed_at, datetime.datetime):
            viewed_at = self.viewed_at.isoformat()
        else:
            viewed_at = self.viewed_at

        signed_at: None | str
        if isinstance(self.signed_at, datetime.datetime):
            signed_at = self.signed_at.isoformat()
        else:
            signed_at = self.signed_at

        declined_at: None | str
        if isinstance(self.declined_at, datetime.datetime):
            declined_at = self.declined_at.isoformat()
        else:
            declined_at = self.declined_at

        decline_reason: None | str
        decline_reason = self.decline_reason

        last_email: dict[str, Any] | None
        if isinstance(self.last_email, SignerEmail):
            last_email = self.last_email.to_dict()
        else:
            last_email = self.last_email

        auth: dict[str, Any] | None
        if isinstance(self.auth, SignerAuthType1):
            auth = self.auth.to_dict()
        else:
            auth = self.auth

        locale: None | str
        locale = self.locale

        kind = self.kind.value

        in_person: dict[str, Any] | None
        if isinstance(self.in_person, InPerson):
            in_person = self.in_person.to_dict()
        else:
            in_person = self.in_person

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "role": role,
                "name": name,
                "email": email,
                "order": order,
                "status": status,
                "viewed_at": viewed_at,
                "signed_at": signed_at,
                "declined_at": declined_at,
                "decline_reason": decline_reason,
                "last_email": last_email,
                "auth": auth,
                "locale": locale,
                "kind": kind,
                "in_person": in_person,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.in_person import InPerson
        from ..models.signer_auth_type_1 import SignerAuthType1
        from ..models.signer_email import SignerEmail

        d = dict(src_dict)
        id = d.pop("id")

        role = d.pop("role")

        name = d.pop("name")

        email = d.pop("email")

        order = d.pop("order")

        status = SignerStatus(d.pop("status"))

        def _parse_viewed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                viewed_at_type_0 = datetime.datetime.fromisoformat(data)

                return viewed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        viewed_at = _parse_viewed_at(d.pop("viewed_at"))

        def _parse_signed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                signed_at_type_0 = datetime.datetime.fromisoformat(data)

                return signed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        signed_at = _parse_signed_at(d.pop("signed_at"))

        def _parse_declined_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                declined_at_type_0 = datetime.datetime.fromisoformat(data)

                return declined_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        declined_at = _parse_declined_at(d.pop("declined_at"))

        def _parse_decline_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        decline_reason = _parse_decline_reason(d.pop("decline_reason"))

        def _parse_last_email(data: object) -> None | SignerEmail:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                last_email_type_0 = SignerEmail.from_dict(data)

                return last_email_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SignerEmail, data)

        last_email = _parse_last_email(d.pop("last_email"))

        def _parse_auth(data: object) -> None | SignerAuthType1:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auth_type_1 = SignerAuthType1.from_dict(data)

                return auth_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SignerAuthType1, data)

        auth = _parse_auth(d.pop("auth"))

        def _parse_locale(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        locale = _parse_locale(d.pop("locale"))

        kind = SignerKind(d.pop("kind"))

        def _parse_in_person(data: object) -> InPerson | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                in_person_type_0 = InPerson.from_dict(data)

                return in_person_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(InPerson | None, data)

        in_person = _parse_in_person(d.pop("in_person"))

        signer = cls(
            id=id,
            role=role,
            name=name,
            email=email,
            order=order,
            status=status,
            viewed_at=viewed_at,
            signed_at=signed_at,
            declined_at=declined_at,
            decline_reason=decline_reason,
            last_email=last_email,
            auth=auth,
            locale=locale,
            kind=kind,
            in_person=in_person,
        )

        return signer
