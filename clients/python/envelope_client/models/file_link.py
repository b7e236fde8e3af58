from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

from ..models.file_link_kind import FileLinkKind

T = TypeVar("T", bound="FileLink")


@_attrs_define
class FileLink:
    """
    Attributes:
        object_ (Literal['file_link']):
        kind (FileLinkKind):
        url (str): `{public_url}/files/{token}`: the PDF (the ZIP for `archive`; for `attachment` the signer's file with
            its own content type), no API key, for 5 minutes.
        expires_at (datetime.datetime): ISO 8601 UTC with milliseconds.
    """

    object_: Literal["file_link"]
    kind: FileLinkKind
    url: str
    expires_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        object_ = self.object_

        kind = self.kind.value

        url = self.url

        expires_at = self.expires_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "object": object_,
                "kind": kind,
                "url": url,
                "expires_at": expires_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        object_ = cast(Literal["file_link"], d.pop("object"))
        if object_ != "file_link":
            raise ValueError(f"object must match const 'file_link', got '{object_}'")

        kind = FileLinkKind(d.pop("kind"))

        url = d.pop("url")

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        file_link = cls(
            object_=object_,
            kind=kind,
            url=url,
            expires_at=expires_at,
        )

        return file_link
