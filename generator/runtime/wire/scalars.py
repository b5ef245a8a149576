"""JSON's single values: the decoders of scalars, the UNSET marker, file inputs.

A decoder is a callable ``(value, path) -> T`` that returns the value typed or raises
`DecodeError` naming ``path``. The composite decoders (lists, maps, unions), the
lenient mode and the models built from these are in `serde`, which re-exports them.
"""

from __future__ import annotations

import datetime as _dt
import re
import uuid
from collections.abc import Mapping
from os import PathLike
from typing import IO, Any, Literal, Union, cast, final

from ..shared.errors import DecodeError

__all__ = [
    "UNSET",
    "FileContent",
    "FileInput",
    "Unset",
    "any_value",
    "as_binary",
    "as_bool",
    "as_date",
    "as_datetime",
    "as_float",
    "as_int",
    "as_object",
    "as_str",
    "as_uuid",
    "kind_of",
    "mismatch",
]

#: What a file upload takes: bytes, a path, or a binary file object.
FileContent = Union[bytes, PathLike[str], IO[bytes]]
#: A multipart file: its content, or (filename, content) / (filename, content, type).
FileInput = Union[FileContent, tuple[str, FileContent], tuple[str, FileContent, str]]


@final
class Unset:
    """The type of :data:`UNSET`: a field the payload did not carry (distinct from ``None``)."""

    __slots__ = ()
    _instance: Unset | None = None

    def __new__(cls) -> Unset:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> Literal[False]:
        """Falsy, like None: ``record.eta or 0.0`` reads an optional field."""
        return False

    def __reduce__(self) -> str:
        return "UNSET"


UNSET = Unset()


def kind_of(value: object) -> str:
    """What a JSON value is, as error messages name it ("a string", "null"...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def mismatch(expected: str, value: object, path: str) -> DecodeError:
    """The error of a value that is not what ``expected`` names."""
    return DecodeError(f"expected {expected}, got {kind_of(value)}", path=path)


def any_value(value: object, path: str) -> Any:
    return value


def as_str(value: object, path: str) -> str:
    if isinstance(value, str):
        return value
    raise mismatch("a string", value, path)


def as_binary(value: object, path: str) -> FileInput | str:
    """A binary field read from JSON: its text (a request may give it a file)."""
    return as_str(value, path)


def as_int(value: object, path: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise mismatch("an integer", value, path)


def as_float(value: object, path: str) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise mismatch("a number", value, path)


def as_bool(value: object, path: str) -> bool:
    if isinstance(value, bool):
        return value
    raise mismatch("a boolean", value, path)


_FRACTION = re.compile(r"\.(\d+)")


def _iso(text: str) -> str:
    # Python < 3.11 accepts neither "Z" nor fractions that are not 3 or 6 digits.
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    return _FRACTION.sub(lambda m: "." + (m.group(1) + "000000")[:6], text, count=1)


def as_datetime(value: object, path: str) -> _dt.datetime:
    if isinstance(value, str):
        try:
            return _dt.datetime.fromisoformat(_iso(value.strip()))
        except ValueError:
            raise DecodeError(
                f"expected an ISO 8601 date-time, got {value[:40]!r}", path=path
            ) from None
    raise mismatch("a date-time string", value, path)


def as_date(value: object, path: str) -> _dt.date:
    if isinstance(value, str):
        try:
            return _dt.date.fromisoformat(value.strip())
        except ValueError:
            raise DecodeError(
                f"expected an ISO 8601 date, got {value[:40]!r}", path=path
            ) from None
    raise mismatch("a date string", value, path)


def as_uuid(value: object, path: str) -> uuid.UUID:
    if isinstance(value, str):
        try:
            return uuid.UUID(value)
        except ValueError:
            raise DecodeError(
                f"expected a UUID, got {value[:40]!r}", path=path
            ) from None
    raise mismatch("a UUID string", value, path)


def as_object(value: object, path: str) -> Mapping[str, Any]:
    if isinstance(value, Mapping):
        return cast("Mapping[str, Any]", value)
    raise mismatch("an object", value, path)
