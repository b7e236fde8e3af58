from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.seal_level import SealLevel

T = TypeVar("T", bound="EnvelopeSeal")


@_attrs_define
class EnvelopeSeal:
    """The PAdES level of the sealed files (extensions E10). `level`: the lowest level reached over the envelope's signed
    copies and audit trail. `target_level`: the level the server is set up to reach (`--pades-level`; by default `b-lta`
    with a timestamp authority, else `b-b`). A `level` below `target_level` means a part could not be had when the
    envelope completed (the timestamp authority or a revocation service was down): the files are sealed and valid
    without it, and a sweep adds it later (`--seal-retry-schedule`), then emits `envelope.seal_upgraded`.

        Attributes:
            level (SealLevel): A PAdES baseline level, lowest first: `b-b` (the signature), `b-t` (with an RFC 3161
                timestamp of it), `b-lt` (with the certificates and OCSP responses or CRLs a validator needs, in the file's
                Document Security Store) and `b-lta` (with a document timestamp over all of it, renewed before it expires).
            target_level (SealLevel): A PAdES baseline level, lowest first: `b-b` (the signature), `b-t` (with an RFC 3161
                timestamp of it), `b-lt` (with the certificates and OCSP responses or CRLs a validator needs, in the file's
                Document Security Store) and `b-lta` (with a document timestamp over all of it, renewed before it expires).
    """

    level: SealLevel
    target_level: SealLevel

    def to_dict(self) -> dict[str, Any]:
        level = self.level.value

        target_level = self.target_level.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "level": level,
                "target_level": target_level,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        level = SealLevel(d.pop("level"))

        target_level = SealLevel(d.pop("target_level"))

        envelope_seal = cls(
            level=level,
            target_level=target_level,
        )

        return envelope_seal
