from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.signer_auth_input_type_0 import SignerAuthInputType0
    from ..models.signer_auth_input_type_1 import SignerAuthInputType1


T = TypeVar("T", bound="ReassignRequest")


@_attrs_define
class ReassignRequest:
    """
    Attributes:
        name (str):
        email (str):
        auth (SignerAuthInputType0 | SignerAuthInputType1 | Unset): Verify the signer's identity before the document
            opens (extensions E2).
        locale (str | Unset): BCP 47 language tag (extensions E4).
    """

    name: str
    email: str
    auth: SignerAuthInputType0 | SignerAuthInputType1 | Unset = UNSET
    locale: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.signer_auth_input_type_0 import SignerAuthInputType0

        name = self.name

        email = self.email

        auth: dict[str, Any] | Unset
        if isinstance(self.auth, Unset):
            auth = UNSET
        elif isinstance(self.auth, SignerAuthInputType0):
            auth = self.auth.to_dict()
        else:
            auth = self.auth.to_dict()

        locale = self.locale

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "email": email,
            }
        )
        if auth is not UNSET:
            field_dict["auth"] = auth
        if locale is not UNSET:
            field_dict["locale"] = locale

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.signer_auth_input_type_0 import SignerAuthInputType0
        from ..models.signer_auth_input_type_1 import SignerAuthInputType1

        d = dict(src_dict)
        name = d.pop("name")

        email = d.pop("email")

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

        reassign_request = cls(
            name=name,
            email=email,
            auth=auth,
            locale=locale,
        )

        return reassign_request
