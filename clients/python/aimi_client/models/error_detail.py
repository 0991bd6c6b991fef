from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ErrorDetail")


@_attrs_define
class ErrorDetail:
    """What went wrong, for people and for programs.

    Attributes:
        code (str): Machine-readable: `invalid_parameters`, `unauthorized`, `not_found`, `method_not_allowed`,
            `rate_limited`, `internal_error` or `unavailable`.
        message (str): Human-readable, naming the fix where there is one.
        status (int): The HTTP status, repeated.
        field (None | str | Unset): The offending parameter, when one is to blame; else null.
        request_id (None | str | Unset): Correlation id, also in the `X-Request-Id` header.
        retry_after (int | None | Unset): Seconds to wait, on 429 and 503 (mirrors `Retry-After`); else null.
        reset (int | None | Unset): Unix seconds at which the exceeded rate-limit window resets, on 429; else null.
    """

    code: str
    message: str
    status: int
    field: None | str | Unset = UNSET
    request_id: None | str | Unset = UNSET
    retry_after: int | None | Unset = UNSET
    reset: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code = self.code

        message = self.message

        status = self.status

        field: None | str | Unset
        if isinstance(self.field, Unset):
            field = UNSET
        else:
            field = self.field

        request_id: None | str | Unset
        if isinstance(self.request_id, Unset):
            request_id = UNSET
        else:
            request_id = self.request_id

        retry_after: int | None | Unset
        if isinstance(self.retry_after, Unset):
            retry_after = UNSET
        else:
            retry_after = self.retry_after

        reset: int | None | Unset
        if isinstance(self.reset, Unset):
            reset = UNSET
        else:
            reset = self.reset

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "code": code,
                "message": message,
                "status": status,
            }
        )
        if field is not UNSET:
            field_dict["field"] = field
        if request_id is not UNSET:
            field_dict["request_id"] = request_id
        if retry_after is not UNSET:
            field_dict["retry_after"] = retry_after
        if reset is not UNSET:
            field_dict["reset"] = reset

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        code = d.pop("code")

        message = d.pop("message")

        status = d.pop("status")

        def _parse_field(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        field = _parse_field(d.pop("field", UNSET))

        def _parse_request_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        request_id = _parse_request_id(d.pop("request_id", UNSET))

        def _parse_retry_after(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        retry_after = _parse_retry_after(d.pop("retry_after", UNSET))

        def _parse_reset(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        reset = _parse_reset(d.pop("reset", UNSET))

        error_detail = cls(
            code=code,
            message=message,
            status=status,
            field=field,
            request_id=request_id,
            retry_after=retry_after,
            reset=reset,
        )

        error_detail.additional_properties = d
        return error_detail

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
