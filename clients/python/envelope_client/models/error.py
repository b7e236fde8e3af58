from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

from ..models.error_code import ErrorCode
from ..models.error_type import ErrorType
from ..types import UNSET, Unset

T = TypeVar("T", bound="Error")


@_attrs_define
class Error:
    """Every failure: one flat body (docs/HTTP.md, Errors).

    Attributes:
        object_ (Literal['error']):
        status (int):
        type_ (ErrorType):
        code (ErrorCode):
        message (str):
        param (None | str): The parameter at fault, as a dotted path (`signers.2.email`); null when none.
        request_id (str): Also in the `Service-Request-Id` header.
        missing_keys (list[str] | Unset): For `missing_data`: the data fields still to fill in.
    """

    object_: Literal["error"]
    status: int
    type_: ErrorType
    code: ErrorCode
    message: str
    param: None | str
    request_id: str
    missing_keys: list[str] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        object_ = self.object_

        status = self.status

        type_ = self.type_.value

        code = self.code.value

        message = self.message

        param: None | str
        param = self.param

        request_id = self.request_id

        missing_keys: list[str] | Unset = UNSET
        if not isinstance(self.missing_keys, Unset):
            missing_keys = self.missing_keys

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "object": object_,
                "status": status,
                "type": type_,
                "code": code,
                "message": message,
                "param": param,
                "request_id": request_id,
            }
        )
        if missing_keys is not UNSET:
            field_dict["missing_keys"] = missing_keys

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        object_ = cast(Literal["error"], d.pop("object"))
        if object_ != "error":
            raise ValueError(f"object must match const 'error', got '{object_}'")

        status = d.pop("status")

        type_ = ErrorType(d.pop("type"))

        code = ErrorCode(d.pop("code"))

        message = d.pop("message")

        def _parse_param(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        param = _parse_param(d.pop("param"))

        request_id = d.pop("request_id")

        missing_keys = cast(list[str], d.pop("missing_keys", UNSET))

        error = cls(
            object_=object_,
            status=status,
            type_=type_,
            code=code,
            message=message,
            param=param,
            request_id=request_id,
            missing_keys=missing_keys,
        )

        return error
