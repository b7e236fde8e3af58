from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.attachment_content_type import AttachmentContentType

T = TypeVar("T", bound="Attachment")


@_attrs_define
class Attachment:
    """A signer's file for an `attachment` field (extensions E14): what it is, never its bytes (`GET
    /v1/envelopes/{id}/files/attachment?field=KEY` links them).

        Attributes:
            field (str): The attachment field's key.
            signer (str): The signer who gave it, `sgn_...`.
            name (str): The file's name, ending in the extension of what it is.
            content_type (AttachmentContentType):
            size (int): Bytes of the stored file (an image: the service's re-encoding).
            sha256 (str): SHA-256 of the stored file, as the audit trail lists it.
    """

    field: str
    signer: str
    name: str
    content_type: AttachmentContentType
    size: int
    sha256: str

    def to_dict(self) -> dict[str, Any]:
        field = self.field

        signer = self.signer

        name = self.name

        content_type = self.content_type.value

        size = self.size

        sha256 = self.sha256

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "field": field,
                "signer": signer,
                "name": name,
                "content_type": content_type,
                "size": size,
                "sha256": sha256,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        field = d.pop("field")

        signer = d.pop("signer")

        name = d.pop("name")

        content_type = AttachmentContentType(d.pop("content_type"))

        size = d.pop("size")

        sha256 = d.pop("sha256")

        attachment = cls(
            field=field,
            signer=signer,
            name=name,
            content_type=content_type,
            size=size,
            sha256=sha256,
        )

        return attachment
