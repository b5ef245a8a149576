"""Python source fragments for the templates: annotations, decoders, literals, docstrings.

Templates hold layout; every decision about what code a type needs is made here.
Spec text reaches the output only through :func:`literal` (a Python ``repr``) and
:func:`docstring` (escaped), never as raw code.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable

import attrs

from ..model import ir

__all__ = ["TypeCode", "docstring", "literal"]

_PRIMITIVE_ANNOTATION = {
    "str": "str",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "datetime": "datetime.datetime",
    "date": "datetime.date",
    "uuid": "uuid.UUID",
    "bytes": "str",
}
_PRIMITIVE_DECODER = {
    "str": "_s.as_str",
    "int": "_s.as_int",
    "float": "_s.as_float",
    "bool": "_s.as_bool",
    "datetime": "_s.as_datetime",
    "date": "_s.as_date",
    "uuid": "_s.as_uuid",
    "bytes": "_s.as_str",
}
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_ARG_ITEM = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*: ")


def literal(value: object) -> str:
    """A Python literal for a JSON scalar; strings are ``repr``-escaped, never spliced."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    raise TypeError(f"not a JSON scalar: {type(value).__name__}")


def docstring(*parts: str, width: int = 88) -> str:
    """A safe triple-quoted docstring body from spec text (escaped, wrapped, trimmed)."""
    paragraphs: list[str] = []
    for part in parts:
        text = _CONTROL.sub("", part or "").replace("\r\n", "\n").strip()
        if text:
            paragraphs.append(text)
    body = "\n\n".join(paragraphs) or ""
    body = body.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = []
    for line in body.split("\n"):
        lead = " " * (len(line) - len(line.lstrip()))
        hang = lead + "    " if _ARG_ITEM.match(line.strip()) else lead
        lines.extend(
            textwrap.wrap(
                line.strip(),
                width,
                initial_indent=lead,
                subsequent_indent=hang,
                break_long_words=False,
                break_on_hyphens=False,
            )
            or [""]
        )
    body = "\n".join(line.rstrip() for line in lines)
    if body.endswith('"'):
        body += " "
    return body


@attrs.frozen
class TypeCode:
    """Code for the types of one module: annotations, decoders, and what they import."""

    schemas: dict[str, ir.NamedSchema]
    shadowed: frozenset[str] = frozenset()
    """Builtin names a class body redefines; annotations then say ``builtins.<name>``."""
    opaque: frozenset[str] = frozenset()
    """Alias keys named rather than expanded: an alias module refers to itself by name."""

    def _builtin(self, name: str) -> str:
        return f"builtins.{name}" if name in self.shadowed else name

    def resolve(self, t: ir.TypeRef, seen: frozenset[str] = frozenset()) -> ir.TypeRef:
        """Aliases are transparent: ``Pets`` (``list[Pet]``) is used as ``list[Pet]``."""
        while isinstance(t, ir.Ref) and t.key not in self.opaque:
            named = self.schemas[t.key]
            if not isinstance(named, ir.AliasSchema):
                return t
            if t.key in seen:
                return ir.AnyType()
            seen = seen | {t.key}
            t = named.target
        return t

    def annotation(self, t: ir.TypeRef, seen: frozenset[str] = frozenset()) -> str:
        t = self._step(t, seen)
        if isinstance(t, ir.Primitive):
            return _PRIMITIVE_ANNOTATION[t.kind]
        if isinstance(t, ir.AnyType):
            return "Any"
        if isinstance(t, ir.ConstType):
            return "None" if t.value is None else type(t.value).__name__
        if isinstance(t, ir.ListType):
            return f"{self._builtin('list')}[{self.annotation(t.item, seen)}]"
        if isinstance(t, ir.MapType):
            return f"dict[str, {self.annotation(t.value, seen)}]"
        if isinstance(t, ir.Nullable):
            inner = self.annotation(t.inner, seen)
            return (
                inner if inner in ("Any", "None") or inner.endswith("| None") else f"{inner} | None"
            )
        if isinstance(t, ir.InlineUnion):
            return " | ".join(_unique(self.annotation(v, seen) for v in t.variants))
        assert isinstance(t, ir.Ref)
        return self.schemas[t.key].name

    def decoder(self, t: ir.TypeRef, seen: frozenset[str] = frozenset()) -> str:
        t = self._step(t, seen)
        if isinstance(t, ir.Primitive):
            return _PRIMITIVE_DECODER[t.kind]
        if isinstance(t, ir.AnyType):
            return "_s.any_value"
        if isinstance(t, ir.ConstType):
            return f"_s.const({literal(t.value)})"
        if isinstance(t, ir.ListType):
            return f"_s.list_of({self.decoder(t.item, seen)})"
        if isinstance(t, ir.MapType):
            return f"_s.map_of({self.decoder(t.value, seen)})"
        if isinstance(t, ir.Nullable):
            return f"_s.nullable({self.decoder(t.inner, seen)})"
        if isinstance(t, ir.InlineUnion):
            return f"_s.one_of({', '.join(self.decoder(v, seen) for v in t.variants)})"
        assert isinstance(t, ir.Ref)
        named = self.schemas[t.key]
        if isinstance(named, ir.AliasSchema):
            return f"decode_{named.module}"
        if isinstance(named, ir.Model):
            return f"{named.name}.from_dict"
        if isinstance(named, ir.EnumSchema):
            return f"{named.name}.decode"
        return f"decode_{named.module}"

    def _step(self, t: ir.TypeRef, seen: frozenset[str]) -> ir.TypeRef:
        return self.resolve(t, seen)

    def references(self, types: Iterable[ir.TypeRef]) -> list[ir.NamedSchema]:
        """Named schemas (not aliases) that code for ``types`` mentions, sorted by module."""
        found: dict[str, ir.NamedSchema] = {}
        stack = list(types)
        seen: set[str] = set()
        while stack:
            t = stack.pop()
            if isinstance(t, ir.Ref):
                if t.key in seen or t.key in self.opaque:
                    continue
                seen.add(t.key)
                named = self.schemas[t.key]
                if isinstance(named, ir.AliasSchema):
                    stack.append(named.target)
                else:
                    found[named.module] = named
            elif isinstance(t, ir.ListType):
                stack.append(t.item)
            elif isinstance(t, ir.MapType):
                stack.append(t.value)
            elif isinstance(t, ir.Nullable):
                stack.append(t.inner)
            elif isinstance(t, ir.InlineUnion):
                stack.extend(t.variants)
        return [found[k] for k in sorted(found)]

    def needs(self, types: Iterable[ir.TypeRef]) -> set[str]:
        """Standard-library modules the annotations of ``types`` use."""
        out: set[str] = set()
        stack = list(types)
        seen: set[str] = set()
        while stack:
            t = stack.pop()
            if isinstance(t, ir.Primitive):
                if t.kind in ("datetime", "date"):
                    out.add("datetime")
                elif t.kind == "uuid":
                    out.add("uuid")
            elif isinstance(t, ir.AnyType):
                out.add("Any")
            elif isinstance(t, ir.Ref):
                named = self.schemas[t.key]
                if isinstance(named, ir.AliasSchema) and t.key not in seen | self.opaque:
                    seen.add(t.key)
                    stack.append(named.target)
            elif isinstance(t, ir.ListType):
                stack.append(t.item)
            elif isinstance(t, ir.MapType):
                stack.append(t.value)
            elif isinstance(t, ir.Nullable):
                stack.append(t.inner)
            elif isinstance(t, ir.InlineUnion):
                stack.extend(t.variants)
        return out


def _unique(items: Iterable[str]) -> list[str]:
    out: list[str] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out
