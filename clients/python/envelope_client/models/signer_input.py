from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.signer_input_kind import SignerInputKind
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.in_person import InPerson
    from ..models.signer_auth_input_type_0 import SignerAuthInputType0
    from ..models.signer_auth_input_type_1 import SignerAuthInputType1


T = TypeVar("T", bound="SignerInput")


@_attrs_define
class SignerInput:
    """
    Attributes:
        name (str):
        email (str):
        role (str | Unset): Default: the document's roles in order, then `Signer N`.
        order (int | Unset): Default: the list position. With `signing_order`, signers who share an order form one step
            and act together (extensions E13).
        auth (SignerAuthInputType0 | SignerAuthInputType1 | Unset): Verify the signer's identity before the document
            opens (extensions E2).
        locale (str | Unset): BCP 47 language tag (extensions E4).
        kind (SignerInputKind | Unset): What the recipient does (extensions E13): `signer` fills fields and signs;
            `approver` reviews, then approves or declines, and fills no fields; `viewer` finishes by opening the document.
            Each completes with `status: completed` and `signed_at` (the approval, or the opening, for the other kinds); an
            approver's decline voids the envelope like a signer's. Fields cannot be assigned to approvers or viewers (400).
            Default: SignerInputKind.SIGNER.
        in_person (InPerson | None | Unset): Not for viewers (400).
    """

    name: str
    email: str
    role: str | Unset = UNSET
    order: int | Unset = UNSET
    auth: SignerAuthInputType0 | SignerAuthInputType1 | Unset = UNSET
    locale: str | Unset = UNSET
    kind: SignerInputKind | Unset = SignerInputKind.SIGNER
    in_person: InPerson | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.in_person import InPerson
        from ..models.signer_auth_input_type_0 import SignerAuthInputType0

        name = self.name

        email = self.email

        role = self.role

        order = self.order

        auth: dict[str, Any] | Unset
        if isinstance(self.auth, Unset):
            auth = UNSET
        elif isinstance(self.auth, SignerAuthInputType0):
            auth = self.auth.to_dict()
        else:
            auth = self.auth.to_dict()

        locale = self.locale

        kind: str | Unset = UNSET
        if not isinstance(self.kind, Unset):
            kind = self.kind.value

        in_person: dict[str, Any] | None | Unset
        if isinstance(self.in_person, Unset):
            in_person = UNSET
        elif isinstance(self.in_person, InPerson):
            in_person = self.in_person.to_dict()
        else:
            in_person = self.in_person

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "email": email,
            }
        )
        if role is not UNSET:
            field_dict["role"] = role
        if order is not UNSET:
            field_dict["order"] = order
        if auth is not UNSET:
            field_dict["auth"] = auth
        if locale is not UNSET:
            field_dict["locale"] = locale
        if kind is not UNSET:
            field_dict["kind"] = kind
        if in_person is not UNSET:
            field_dict["in_person"] = in_person

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.in_person import InPerson
        from ..models.signer_auth_input_type_0 import SignerAuthInputType0
        from ..models.signer_auth_input_type_1 import SignerAuthInputType1

        d = dict(src_dict)
        name = d.pop("name")

        email = d.pop("email")

        role = d.pop("role", UNSET)

        order = d.pop("order", UNSET)

        def _parse_auth(
            data: object,
        ) -> SignerAuthInputType0 | SignerAuthInputType1 | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_signer_auth_input_type_0 = (
                    SignerAuthInputType0.from_dict(data)
                )

                return componentsschemas_signer_auth_input_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_signer_auth_input_type_1 = SignerAuthInputType1.from_dict(
                data
            )

            return componentsschemas_signer_auth_input_type_1

        auth = _parse_auth(d.pop("auth", UNSET))

        locale = d.pop("locale", UNSET)

        _kind = d.pop("kind", UNSET)
        kind: SignerInputKind | Unset
        if isinstance(_kind, Unset):
            kind = UNSET
        else:
            kind = SignerInputKind(_kind)

        def _parse_in_person(data: object) -> InPerson | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                in_person_type_0 = InPerson.from_dict(data)

                return in_person_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(InPerson | None | Unset, data)

        in_person = _parse_in_person(d.pop("in_person", UNSET))

        signer_input = cls(
            name=name,
            email=email,
            role=role,
            order=order,
            auth=auth,
            locale=locale,
            kind=kind,
            in_person=in_person,
        )

        return signer_input
