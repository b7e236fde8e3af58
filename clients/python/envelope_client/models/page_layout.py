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

if TYPE_CHECKING:
    from ..models.field import Field
    from ..models.page_layout_documents_item import PageLayoutDocumentsItem


T = TypeVar("T", bound="PageLayout")


@_attrs_define
class PageLayout:
    """
    Attributes:
        object_ (Literal['page_layout']):
        documents (list[PageLayoutDocumentsItem]):
        fields (list[Field]): Every field of the template or envelope, in order (an envelope's own view does not list
            them).
        document_fields (list[str]): Keys of the fields found in the documents themselves (text tags, PDF form fields).
            A draft's PATCH `fields` leaves them in place; a template's PATCH `fields` replaces them with the rest (given
            back unchanged, they stay what they were).
    """

    object_: Literal["page_layout"]
    documents: list[PageLayoutDocumentsItem]
    fields: list[Field]
    document_fields: list[str]

    def to_dict(self) -> dict[str, Any]:
        object_ = self.object_

        documents = []
        for documents_item_data in self.documents:
            documents_item = documents_item_data.to_dict()
            documents.append(documents_item)

        fields = []
        for fields_item_data in self.fields:
            fields_item = fields_item_data.to_dict()
            fields.append(fields_item)

        document_fields = self.document_fields

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "object": object_,
                "documents": documents,
                "fields": fields,
                "document_fields": document_fields,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.field import Field
        from ..models.page_layout_documents_item import PageLayoutDocumentsItem

        d = dict(src_dict)
        object_ = cast(Literal["page_layout"], d.pop("object"))
        if object_ != "page_layout":
            raise ValueError(f"object must match const 'page_layout', got '{object_}'")

        documents = []
        _documents = d.pop("documents")
        for documents_item_data in _documents:
            documents_item = PageLayoutDocumentsItem.from_dict(documents_item_data)

            documents.append(documents_item)

        fields = []
        _fields = d.pop("fields")
        for fields_item_data in _fields:
            fields_item = Field.from_dict(fields_item_data)

            fields.append(fields_item)

        document_fields = cast(list[str], d.pop("document_fields"))

        page_layout = cls(
            object_=object_,
            documents=documents,
            fields=fields,
            document_fields=document_fields,
        )

        return page_layout
