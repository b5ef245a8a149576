"""OpenAPI parameter serialization: ``style`` and ``explode`` for path, query, header
and cookie parameters, and the ``encoding`` of form bodies.

Generated code passes only what the spec declares (a parameter's ``style`` and
``explode``, a form property's ``encoding``); every rule lives here. Values are
scalars, lists, or mappings (models are encoded to mappings first). The defaults
are the specification's: ``simple`` for path and header parameters, ``form`` with
``explode`` for query and cookie parameters and for form properties.

An object property of a form body without a declared encoding is sent as
``form``/``explode`` says (its fields as top-level keys); one declared ``deepObject``
as ``name[field]=value``. Deeper nesting, which the styles do not define, uses the
bracket notation form APIs read (``name[field][0]=value``).
"""

from __future__ import annotations

import datetime as _dt
import enum
import json as _json
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import quote

from .scalars import Unset
from .serde import encode as _encode

if TYPE_CHECKING:
    from typing_extensions import TypeGuard

__all__ = [
    "Style",
    "cookie_header",
    "form_items",
    "header",
    "path_param",
    "query_items",
    "scalar",
]

#: A declared ``(style, explode)``.
Style = tuple[str, bool]
_FORM: Style = ("form", True)


def scalar(value: Any) -> str:
    """One primitive value as text (``true``/``false``, ISO dates, enum values)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, enum.Enum):
        return scalar(value.value)
    if isinstance(value, (_dt.datetime, _dt.date)):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (dict, list)):
        return _json.dumps(value, separators=(",", ":"))
    return str(value)


def _is_list(value: object) -> TypeGuard[list[Any]]:
    return isinstance(value, list)


def _is_mapping(value: object) -> TypeGuard[Mapping[str, Any]]:
    return isinstance(value, Mapping)


def _unset(value: Any) -> bool:
    return value is None or isinstance(value, Unset)


def _plain(value: Any) -> Any:
    """A model as its mapping, a tuple as a list; other values as they are."""
    if hasattr(value, "to_dict") or isinstance(value, tuple):
        value = _encode(
            list(cast("tuple[object, ...]", value))
            if isinstance(value, tuple)
            else value
        )
    return value


def _pairs(value: Mapping[str, Any]) -> list[tuple[str, str]]:
    return [(str(k), scalar(v)) for k, v in value.items() if not _unset(v)]


def _joined(value: Any, sep: str, explode_object: bool) -> str:
    """A list or an object joined by ``sep`` (objects as ``k,v`` or ``k=v`` pairs)."""
    if _is_list(value):
        return sep.join(scalar(v) for v in value)
    if _is_mapping(value):
        pairs = _pairs(value)
        if explode_object:
            return sep.join(f"{k}={v}" for k, v in pairs)
        return sep.join(part for pair in pairs for part in pair)
    return scalar(value)


def _nested(name: str, value: Any) -> list[tuple[str, str]]:
    """``name[key]=v`` and ``name[0]=v``, recursively (beyond what styles define)."""
    value = _plain(value)
    if _is_mapping(value):
        items = [(f"{name}[{k}]", v) for k, v in value.items()]
    elif _is_list(value):
        items = [(f"{name}[{i}]", v) for i, v in enumerate(value)]
    else:
        return [(name, scalar(value))]
    out: list[tuple[str, str]] = []
    for key, item in items:
        if not _unset(item):
            out.extend(_nested(key, item))
    return out


def query_items(
    params: Mapping[str, Any], styles: Mapping[str, Style] | None = None
) -> list[tuple[str, Any]]:
    """Query parameters as ``(key, value)`` pairs (unencoded), each in its declared style."""
    items: list[tuple[str, Any]] = []
    for name, value in params.items():
        items.extend(_styled(str(name), value, (styles or {}).get(str(name))))
    return items


def _styled(name: str, value: Any, style: Style | None) -> list[tuple[str, str]]:
    """One query (or form) parameter as ``(key, value)`` pairs."""
    if _unset(value):
        return []
    kind, explode = style or _FORM
    value = _plain(value)
    if kind == "deepObject" and (_is_mapping(value) or _is_list(value)):
        return _nested(name, value)
    if _is_list(value):
        if explode:
            return [(name, scalar(v)) for v in value if not _unset(v)]
        sep = {"spaceDelimited": " ", "pipeDelimited": "|"}.get(kind, ",")
        return [(name, _joined(value, sep, False))]
    if _is_mapping(value):
        if explode:
            return _pairs(value) if kind == "form" else _nested(name, value)
        sep = {"spaceDelimited": " ", "pipeDelimited": "|"}.get(kind, ",")
        return [(name, _joined(value, sep, False))]
    return [(name, scalar(value))]


def form_items(
    data: Mapping[str, Any], encoding: Mapping[str, Style] | None = None
) -> list[tuple[str, Any]]:
    """A form body's fields: arrays as repeated keys, objects per their ``encoding``
    (by default ``form``/``explode``: their fields as keys of their own)."""
    items: list[tuple[str, Any]] = []
    for key, value in data.items():
        style = (encoding or {}).get(str(key))
        value = _plain(value)
        nested = _is_list(value) and any(
            isinstance(_plain(v), (Mapping, list)) for v in value
        )
        if style is None and nested:
            # Lists of objects have no form style: they keep their index.
            items.extend(_nested(str(key), value))
            continue
        items.extend(_styled(str(key), value, style))
    return items


def path_param(
    value: Any, style: str = "simple", explode: bool = False, name: str = ""
) -> str:
    """A path parameter, percent-encoded: ``simple`` (``a,b``), ``label`` (``.a.b``)
    or ``matrix`` (``;name=a,b``); it never adds a path segment."""
    if style == "simple" and type(value) is str:  # a job id: the common case
        return quote(value, safe="")
    value = _plain(value)

    def enc(text: str) -> str:
        return quote(text, safe="")

    if _is_list(value):
        parts = [enc(scalar(v)) for v in value]
    elif _is_mapping(value):
        pairs = [(enc(k), enc(v)) for k, v in _pairs(value)]
        parts = (
            [f"{k}={v}" for k, v in pairs]
            if explode
            else [part for pair in pairs for part in pair]
        )
    else:
        parts = [enc(scalar(value))]
    if style == "label":
        return "." + ("." if explode else ",").join(parts)
    if style == "matrix":
        key = enc(name)
        if _is_mapping(value) and explode:
            return "".join(";" + p for p in parts)
        if _is_list(value) and explode:
            return "".join(f";{key}={p}" for p in parts)
        return f";{key}=" + ",".join(parts) if parts != [""] else f";{key}"
    return ",".join(parts)


def header(value: Any, explode: bool = False) -> Any:
    """A header parameter (``simple``): lists and objects comma-separated, never JSON.

    Unset values stay unset (the header is then not sent).
    """
    if _unset(value):
        return value
    value = _plain(value)
    if _is_list(value) or _is_mapping(value):
        return _joined(value, ",", explode)
    return scalar(value)


def cookie_header(cookies: tuple[tuple[str, Any, bool], ...]) -> str | None:
    """The Cookie header of the set cookie parameters ``(name, value, explode)``
    (``form``: a list is ``name=a,b``, or one cookie per item when exploded)."""
    out: list[str] = []
    for name, value, explode in cookies:
        if _unset(value):
            continue
        value = _plain(value)
        if _is_list(value) and explode:
            out.extend(f"{name}={quote(scalar(v), safe='')}" for v in value)
        elif _is_mapping(value) and explode:
            out.extend(f"{k}={quote(v, safe='')}" for k, v in _pairs(value))
        else:
            text = _joined(value, ",", False)
            out.append(f"{name}={quote(text, safe=',')}")
    return "; ".join(out) or None
