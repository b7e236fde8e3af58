from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="AccountSigningCertificate")


@_attrs_define
class AccountSigningCertificate:
    """The certificate that seals the signed documents of the calling key's mode (test mode has its own, never the live
    one); absent when nothing is sealed.

        Attributes:
            development (bool): A self-signed certificate the server generated (for this mode).
            sha256_fingerprint (str):
    """

    development: bool
    sha256_fingerprint: str

    def to_dict(self) -> dict[str, Any]:
        development = self.development

        sha256_fingerprint = self.sha256_fingerprint

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "development": development,
                "sha256_fingerprint": sha256_fingerprint,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        development = d.pop("development")

        sha256_fingerprint = d.pop("sha256_fingerprint")

        account_signing_certificate = cls(
            development=development,
            sha256_fingerprint=sha256_fingerprint,
        )

        return account_signing_certificate
