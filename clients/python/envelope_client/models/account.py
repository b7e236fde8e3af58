from __future__ import annotations

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

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.account_signing_certificate import AccountSigningCertificate
    from ..models.api_key import ApiKey


T = TypeVar("T", bound="Account")


@_attrs_define
class Account:
    """
    Attributes:
        object_ (Literal['account']):
        id (str): `acct_...`
        name (str):
        livemode (bool):
        key (ApiKey):
        signing_certificate (AccountSigningCertificate | Unset): The certificate that seals the signed documents of the
            calling key's mode (test mode has its own, never the live one); absent when nothing is sealed.
    """

    object_: Literal["account"]
    id: str
    name: str
    livemode: bool
    key: ApiKey
    signing_certificate: AccountSigningCertificate | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        object_ = self.object_

        id = self.id

        name = self.name

        livemode = self.livemode

        key = self.key.to_dict()

        signing_certificate: dict[str, Any] | Unset = UNSET
        if not isinstance(self.signing_certificate, Unset):
            signing_certificate = self.signing_certificate.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "object": object_,
                "id": id,
                "name": name,
                "livemode": livemode,
                "key": key,
            }
        )
        if signing_certificate is not UNSET:
            field_dict["signing_certificate"] = signing_certificate

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.account_signing_certificate import AccountSigningCertificate
        from ..models.api_key import ApiKey

        d = dict(src_dict)
        object_ = cast(Literal["account"], d.pop("object"))
        if object_ != "account":
            raise ValueError(f"object must match const 'account', got '{object_}'")

        id = d.pop("id")

        name = d.pop("name")

        livemode = d.pop("livemode")

        key = ApiKey.from_dict(d.pop("key"))

        _signing_certificate = d.pop("signing_certificate", UNSET)
        signing_certificate: AccountSigningCertificate | Unset
        if isinstance(_signing_certificate, Unset):
            signing_certificate = UNSET
        else:
            signing_certificate = AccountSigningCertificate.from_dict(
                _signing_certificate
            )

        account = cls(
            object_=object_,
            id=id,
            name=name,
            livemode=livemode,
            key=key,
            signing_certificate=signing_certificate,
        )

        return account
