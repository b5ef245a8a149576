"""Decode JSON into typed values and back, with errors that name the field path.

Generated models derive from :class:`Model`, whose ``from_dict``/``to_dict`` read each
class's field table. A decoder is a callable ``(value, path) -> T``; composite decoders
are built from smaller ones, so ``list_of(Pet.from_dict)`` decodes a list of pets and
reports ``$.pets[3].name``.

Decoding has three modes (:func:`decoding`). "strict", the default of ``from_dict``,
raises on the first value off the spec (contract tests). "tolerant", the default of a
client reading its answers (`WaitConfig.decoding`), reads what real servers send beside
the spec the nearest type-sound way: an optional field whose value
does not match its schema (a ``null`` where the spec says string, a string where it says
object) reads as absent (``UNSET``), and a list item or map value that does not match is
left out, so every field holds a value of the type it declares; a required field that
does not match fails its object, which its parent then reads as absent where it may,
and only a problem at the top-level object raises. Each such problem is a
:class:`Drift` (path and reason), gathered by :func:`collect_drift`. "lenient" keeps a value that matches nowhere as
received, a missing required field as ``None`` (the record of a failed job, a poll
event's record: never lost, not type-checked).

The decoders of single values (``as_str``, ``as_datetime``...) and ``UNSET`` are in
`scalars`; generated code reaches them here, with the rest.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as _dt
import enum
import operator
import re
import uuid
from collections.abc import Callable, Generator, Mapping
from typing import Any, NamedTuple, TypeVar, Union, cast, overload

from ..shared.errors import DecodeError
from .fieldwise import Fieldwise
from .scalars import (
    UNSET,
    FileContent,
    FileInput,
    Unset,
    any_value,
    as_binary,
    as_bool,
    as_date,
    as_datetime,
    as_float,
    as_int,
    as_object,
    as_str,
    as_uuid,
    kind_of,
    mismatch,
)

__all__ = [
    "UNSET",
    "Decoder",
    "Drift",
    "Fields",
    "FileContent",
    "FileInput",
    "Model",
    "OpenIntEnum",
    "OpenStrEnum",
    "Tagged",
    "Unset",
    "Variants",
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
    "collect_drift",
    "const",
    "decoding",
    "decoding_mode",
    "encode",
    "lenient",
    "list_of",
    "map_of",
    "nullable",
    "one_of",
    "properties",
    "report",
    "union",
]

T = TypeVar("T")
Decoder = Callable[[object, str], T]

#: How values are decoded: "strict" (the default), "tolerant" or "lenient".
_MODE: contextvars.ContextVar[str] = contextvars.ContextVar(
    "jobgen_decoding", default="strict"
)
_DRIFT: contextvars.ContextVar[list[Drift] | None] = contextvars.ContextVar(
    "jobgen_drift", default=None
)
MODES = ("tolerant", "strict", "lenient")


class Drift(NamedTuple):
    """A value the server sent beside the spec, and how it was read."""

    path: str  # where, as ``$.error.code``
    problem: str  # what the spec wanted and what came
    read_as: str  # "absent", "left out" or "kept as received"

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}; read as {self.read_as}"


@contextlib.contextmanager
def decoding(mode: str) -> Generator[None]:
    """Decode in ``mode`` ("tolerant", "strict" or "lenient") inside the block."""
    if mode not in MODES:
        raise ValueError(f"decoding must be one of {', '.join(MODES)}, got {mode!r}")
    token = _MODE.set(mode)
    try:
        yield
    finally:
        _MODE.reset(token)


def decoding_mode() -> str:
    """The mode decoding is in here ("strict" outside any `decoding` block)."""
    return _MODE.get()


def report(path: str, problem: str, read_as: str) -> None:
    """Report a drift found outside a decoder (a body of another media type)."""
    _drift(DecodeError(problem, path=path), read_as)


def lenient() -> contextlib.AbstractContextManager[None]:
    """Keep values that match nowhere as received (see the module's docstring)."""
    return decoding("lenient")


@contextlib.contextmanager
def collect_drift() -> Generator[list[Drift]]:
    """The drift of the decoding done inside the block, in the order met."""
    found: list[Drift] = []
    token = _DRIFT.set(found)
    try:
        yield found
    finally:
        _DRIFT.reset(token)


def _drift(error: DecodeError, read_as: str) -> None:
    found = _DRIFT.get()
    if found is not None:
        found.append(Drift(error.path or "$", error.reason, read_as))


_DROP: Any = object()  # an item left out of its list or map


def _kept(decoder: Decoder[T], value: object, path: str) -> T:
    """``decoder(value, path)``; off the spec, ``_DROP`` (tolerant) or ``value`` itself
    (lenient)."""
    try:
        return decoder(value, path)
    except DecodeError as error:
        mode = _MODE.get()
        if mode == "strict":
            raise
        if mode == "lenient":
            _drift(error, "kept as received")
            return value  # type: ignore[return-value]
        _drift(error, "left out")
        return cast(T, _DROP)


def list_of(item: Decoder[T]) -> Decoder[list[T]]:
    def decode(value: object, path: str) -> list[T]:
        if not isinstance(value, list):
            raise mismatch("an array", value, path)
        values = cast("list[object]", value)
        items = [_kept(item, v, f"{path}[{i}]") for i, v in enumerate(values)]
        return [v for v in items if v is not _DROP]

    return decode


def map_of(item: Decoder[T]) -> Decoder[dict[str, T]]:
    def decode(value: object, path: str) -> dict[str, T]:
        data = as_object(value, path)
        items = {str(k): _kept(item, v, _child(path, str(k))) for k, v in data.items()}
        return {k: v for k, v in items.items() if v is not _DROP}

    return decode


def nullable(inner: Decoder[T]) -> Decoder[T | None]:
    def decode(value: object, path: str) -> T | None:
        return None if value is None else inner(value, path)

    return decode


def one_of(*variants: Decoder[Any]) -> Decoder[Any]:
    """The first variant that decodes the value wins: first read strictly, then (when
    none matches exactly) as the mode reads it, so tolerance never picks a variant
    that another matches exactly."""

    def decode(value: object, path: str) -> Any:
        errors: list[str] = []
        mode = _MODE.get()
        token = _MODE.set("strict")
        try:
            for variant in variants:
                try:
                    return variant(value, path)
                except DecodeError as exc:
                    errors.append(exc.reason)
        finally:
            _MODE.reset(token)
        if mode != "strict":
            for variant in variants:
                try:
                    return variant(value, path)
                except DecodeError:
                    pass
        raise DecodeError(
            f"matches none of the {len(variants)} variants ({'; '.join(errors)})",
            path=path,
        )

    return decode


#: A union's variants; with a discriminator, first the variant each of its values selects.
Variants = tuple[Decoder[Any], ...]
Tagged = tuple[dict[str, Decoder[Any]], Variants]
_UNIONS: dict[Callable[[], Any], tuple[dict[str, Decoder[Any]], Decoder[Any]]] = {}


def union(variants: Callable[[], Any], value: object, path: str, tag: str = "") -> Any:
    """``value`` as the variant its discriminator property ``tag`` selects, else as the
    first variant that decodes it. ``variants()`` (:data:`Variants`, or :data:`Tagged`
    with a ``tag``) is called on first use, as it imports the variants' modules."""
    table = _UNIONS.get(variants)
    if table is None:
        cases: dict[str, Decoder[Any]] = {}
        tried: Variants = ()
        if tag:
            cases, tried = variants()
        else:
            tried = variants()
        table = _UNIONS[variants] = (cases, one_of(*tried))
    cases, decode = table
    key = _property(value, tag) if tag else None
    if isinstance(key, str) and key in cases:
        return cases[key](value, path)
    return decode(value, path)


def _property(value: object, name: str) -> object:
    """The property ``name`` of a JSON object, else None."""
    return (
        cast("dict[str, object]", value).get(name) if isinstance(value, dict) else None
    )


def const(expected: object) -> Decoder[Any]:
    def decode(value: object, path: str) -> Any:
        if value == expected and type(value) is type(expected):
            return value
        raise DecodeError(f"expected {expected!r}, got {kind_of(value)}", path=path)

    return decode


_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if _IDENT.match(key) else f"{path}[{key!r}]"


Fields = tuple[Union[tuple[str, Decoder[Any]], tuple[str, Decoder[Any], str]], ...]
"""A model's field table: ``(attribute, decoder)`` per property, plus its JSON name when
that differs from the attribute's."""
M = TypeVar("M", bound="Model")
# Per class: (attribute, key, path suffix, decoder, required) per field, the decoder of
# unnamed properties (None when the class keeps none), the names the schema gives, a
# getter of every field's value at once and (key, required) per field, in that order.
_Table = tuple[
    tuple[tuple[str, str, str, Decoder[Any], bool], ...],
    Union[Decoder[Any], None],
    frozenset[str],
    Callable[[Any], tuple[Any, ...]],
    tuple[tuple[str, bool], ...],
]
_TABLES: dict[type, _Table] = {}
# JSON values that encode to themselves.
_PLAIN = frozenset({str, int, float, bool, type(None)})


class Model(Fieldwise):
    """The base of generated models: ``from_dict``/``to_dict`` read the field table
    ``_fields()`` on first use (it imports the models it names). A field is optional when
    its default is ``UNSET`` (a required field of a single value has that value as its
    default); an ``additional_properties`` entry decodes the properties the schema does
    not name (else kept as received)."""

    __slots__ = ()

    @staticmethod
    def _fields() -> Fields:
        return ()

    @classmethod
    def from_dict(cls: type[M], data: Any, path: str = "$") -> M:  # noqa: PYI019 (3.9)
        """Decode a JSON object; errors name the path of the offending value."""
        d = as_object(data, path)
        fields, extra, known, _, _ = _TABLES.get(cls) or _table(cls, cls._fields())
        args: dict[str, Any] = {}
        for attr, key, suffix, decode, required in fields:
            if key in d:
                value = d[key]
                try:
                    args[attr] = decode(value, path + suffix)
                except DecodeError as error:
                    mode = _MODE.get()
                    if mode == "strict":
                        raise
                    if not required:  # an optional field: absent, its type holds
                        _drift(error, "absent")
                    elif mode == "lenient":
                        _drift(error, "kept as received")
                        args[attr] = value
                    else:  # fails this object; its parent reads it as absent
                        raise
            elif required:
                if _MODE.get() != "lenient":
                    raise DecodeError("required field is missing", path=path + suffix)
                args[attr] = None
        if extra is not None:
            kept = {
                k: _kept(extra, v, _child(path, k))
                for k, v in d.items()
                if k not in known
            }
            args["additional_properties"] = {
                k: v for k, v in kept.items() if v is not _DROP
            }
        return cls(**args)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form of this object; fields left UNSET are omitted."""
        kind = type(self)
        _, extra, _, values, keys = _TABLES.get(kind) or _table(kind, kind._fields())
        out: dict[str, Any] = {}
        if extra is not None:
            out = encode(getattr(self, "additional_properties"))  # noqa: B009 (typed)
        for (key, required), value in zip(keys, values(self)):
            if type(value) in _PLAIN:
                out[key] = value
            elif required or value is not UNSET:
                out[key] = encode(value)
        return out


def properties() -> dict[str, Any]:
    """A new, empty table of the properties a schema does not name (the default of a
    model's ``additional_properties``)."""
    return {}


def _table(cls: type[Model], entries: Fields) -> _Table:
    import attrs  # a dependency of every SDK; only models need it here

    attributes = attrs.fields(cast(Any, cls))
    required = {a.name: a.default is not UNSET for a in attributes}
    extra: Decoder[Any] | None = None
    if "additional_properties" in required:
        extra = any_value
    fields: list[tuple[str, str, str, Decoder[Any], bool]] = []
    for entry in entries:
        attr, decode, key = entry if len(entry) == 3 else (entry[0], entry[1], entry[0])
        if attr == "additional_properties":
            extra = decode
            continue
        suffix = f".{key}" if _IDENT.match(key) else f"[{key!r}]"
        fields.append((attr, key, suffix, decode, required[attr]))
    # Two names more: a tuple however many fields (zip in to_dict stops at the last).
    values = operator.attrgetter(*(f[0] for f in fields), "__class__", "__class__")
    keys = tuple((f[1], f[4]) for f in fields)
    table = (tuple(fields), extra, frozenset(f[1] for f in fields), values, keys)
    _TABLES[cls] = table
    return table


class OpenStrEnum(str, enum.Enum):
    """A string enum that keeps values the spec did not list (forward compatibility).

    ``Status("new-value")`` returns a member whose ``is_known`` is false instead of
    raising, so a server that adds a value does not break older clients.
    """

    @classmethod
    def _missing_(cls, value: object) -> Any:
        if not isinstance(value, str):
            return None
        member = str.__new__(cls, value)
        member._name_ = value
        member._value_ = value
        return member

    @property
    def is_known(self) -> bool:
        return type(self).__members__.get(self._name_) is self

    def __str__(self) -> str:
        return str(self.value)

    @classmethod
    def decode(cls, value: object, path: str) -> Any:
        return cls(as_str(value, path))


E = TypeVar("E", bound=OpenStrEnum)


@overload
def enum_member(cls: type[E], value: E | str) -> E: ...
@overload
def enum_member(cls: type[E], value: None) -> None: ...
@overload
def enum_member(cls: type[E], value: Unset) -> Unset: ...
def enum_member(cls: type[E], value: Any) -> Any:
    """A model's string enum field at construction: a member, ``None`` or ``UNSET`` is
    kept; a documented value given as a plain string becomes its member; any other
    string raises ``ValueError``. To send a value the spec does not list, pass it as a
    member on purpose: ``Preset("new-value")``. (A value typed as a union gets the union
    of the overloads' results: ``E | None | Unset`` for a nullable optional field.)"""
    if not isinstance(value, str) or isinstance(value, cls):
        return value
    for known in cls.__members__.values():
        if known.value == value:
            return known
    documented = ", ".join(repr(m.value) for m in cls.__members__.values())
    raise ValueError(
        f"{value!r} is not a documented {cls.__name__} ({documented}); "
        f"pass {cls.__name__}({value!r}) to send it anyway"
    )


class OpenIntEnum(int, enum.Enum):
    """An integer enum that keeps values the spec did not list."""

    @classmethod
    def _missing_(cls, value: object) -> Any:
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        member = int.__new__(cls, value)
        member._name_ = f"VALUE_{value}"
        member._value_ = value
        return member

    @property
    def is_known(self) -> bool:
        return type(self).__members__.get(self._name_) is self

    def __str__(self) -> str:
        return str(self.value)

    @classmethod
    def decode(cls, value: object, path: str) -> Any:
        return cls(as_int(value, path))


def encode(value: object) -> Any:
    """The JSON form of a decoded value: models, enums, dates, UUIDs, lists and maps."""
    if type(value) in _PLAIN:
        return value
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (_dt.datetime, _dt.date)):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, list):
        return [encode(v) for v in cast("list[object]", value)]
    if isinstance(value, Mapping):
        mapping = cast("Mapping[object, object]", value)
        return {str(k): encode(v) for k, v in mapping.items()}
    return value
