from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.bulk_row_input_data import BulkRowInputData
    from ..models.cc_input import CcInput
    from ..models.metadata import Metadata
    from ..models.signer_input import SignerInput
    from ..models.signers_type_1 import SignersType1


T = TypeVar("T", bound="BulkRowInput")


@_attrs_define
class BulkRowInput:
    """One envelope: its signers, data, metadata and copies, as `POST /v1/envelopes` takes them.

    Attributes:
        signers (list[SignerInput] | SignersType1): A list of signers, or an object keyed by role. At most 10.
        data (BulkRowInputData | Unset): Values of the template's sender data fields, keyed by field key. Unknown keys
            are refused.
        metadata (Metadata | Unset): The caller's own string keys, at most 20.
        cc (list[CcInput] | Unset):
    """

    signers: list[SignerInput] | SignersType1
    data: BulkRowInputData | Unset = UNSET
    metadata: Metadata | Unset = UNSET
    cc: list[CcInput] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        signers: dict[str, Any] | list[dict[str, Any]]
        if isinstance(self.signers, list):
            signers = []
            for componentsschemas_signers_type_0_item_data in self.signers:
                componentsschemas_signers_type_0_item = (
                    componentsschemas_signers_type_0_item_data.to_dict()
                )
                signers.append(componentsschemas_signers_type_0_item)

        else:
            signers = self.signers.to_dict()

        data: dict[str, Any] | Unset = UNSET
        if not isinstance(self.data, Unset):
            data = self.data.to_dict()

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        cc: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.cc, Unset):
            cc = []
            for cc_item_data in self.cc:
                cc_item = cc_item_data.to_dict()
                cc.append(cc_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "signers": signers,
            }
        )
        if data is not UNSET:
            field_dict["data"] = data
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if cc is not UNSET:
            field_dict["cc"] = cc

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.bulk_row_input_data import BulkRowInputData
        from ..models.cc_input import CcInput
        from ..models.metadata import Metadata
        from ..models.signer_input import SignerInput
        from ..models.signers_type_1 import SignersType1

        d = dict(src_dict)

        def _parse_signers(data: object) -> list[SignerInput] | SignersType1:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                componentsschemas_signers_type_0 = []
                _componentsschemas_signers_type_0 = data
                for (
                    componentsschemas_signers_type_0_item_data
                ) in _componentsschemas_signers_type_0:
                    componentsschemas_signers_type_0_item = SignerInput.from_dict(
                        componentsschemas_signers_type_0_item_data
                    )

                    componentsschemas_signers_type_0.append(
                        componentsschemas_signers_type_0_item
                    )

                return componentsschemas_signers_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_signers_type_1 = SignersType1.from_dict(data)

            return componentsschemas_signers_type_1

        signers = _parse_signers(d.pop("signers"))

        _data = d.pop("data", UNSET)
        data: BulkRowInputData | Unset
        if isinstance(_data, Unset):
            data = UNSET
        else:
            data = BulkRowInputData.from_dict(_data)

        _metadata = d.pop("metadata", UNSET)
        metadata: Metadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = Metadata.from_dict(_metadata)

        _cc = d.pop("cc", UNSET)
        cc: list[CcInput] | Unset = UNSET
        if _cc is not UNSET:
            cc = []
            for cc_item_data in _cc:
                cc_item = CcInput.from_dict(cc_item_data)

                cc.append(cc_item)

        bulk_row_input = cls(
            signers=signers,
            data=data,
            metadata=metadata,
            cc=cc,
        )

        return bulk_row_input
