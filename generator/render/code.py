"""Python source fragments for the templates: annotations and decoders of types.

Templates hold layout; every decision about what code a type needs is made here.
Names come from the intermediate model (identifiers made by ``model.names``); spec
values enter only through ``escape.py_literal``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import attrs

from ..fieldwise import Node
from ..model import ir
from .escape import Code, py_literal

__all__ = [
    "ANY",
    "LINE_LENGTH",
    "MODULE_ALIASES",
    "Imports",
    "TypeCode",
    "all_key",
    "from_line",
    "member_key",
    "names_in",
]

LINE_LENGTH = 88
ANY = "_t.Any"
"""``typing.Any`` as generated modules name it (``import typing as _t``)."""
MODULE_ALIASES = {"typing": "_t", "collections.abc": "_abc", "types": "_types"}
"""Modules imported under a private name, so that no name from a spec can shadow them."""

_PRIMITIVE_ANNOTATION = {
    "str": "str",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "datetime": "datetime.datetime",
    "date": "datetime.date",
    "uuid": "uuid.UUID",
    # A binary field of a multipart body takes a file; decoded from JSON, it is a string.
    "bytes": "_s.FileInput | str",
}
_PRIMITIVE_DECODER = {
    "str": "_s.as_str",
    "int": "_s.as_int",
    "float": "_s.as_float",
    "bool": "_s.as_bool",
    "datetime": "_s.as_datetime",
    "date": "_s.as_date",
    "uuid": "_s.as_uuid",
    "bytes": "_s.as_binary",
}


@attrs.frozen(eq=False, repr=False)
class TypeCode(Node):
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

    def annotation(self, t: ir.TypeRef) -> Code:
        """The annotation of ``t`` in a module of this SDK."""
        return Code(self._annotation(t, frozenset()))

    def decoder(self, t: ir.TypeRef) -> Code:
        """An expression that decodes a JSON value of type ``t``: ``f(value, path)``."""
        return Code(self._decoder(t, frozenset()))

    def _annotation(self, t: ir.TypeRef, seen: frozenset[str]) -> str:
        t = self._step(t, seen)
        if isinstance(t, ir.Primitive):
            return _PRIMITIVE_ANNOTATION[t.kind]
        if isinstance(t, ir.AnyType):
            return ANY
        if isinstance(t, ir.ConstType):
            if t.value is None or isinstance(t.value, float):  # Literal takes no float
                return "None" if t.value is None else "float"
            return f"_t.Literal[{py_literal(t.value)}]"
        if isinstance(t, ir.ListType):
            return f"{self._builtin('list')}[{self._annotation(t.item, seen)}]"
        if isinstance(t, ir.MapType):
            return f"dict[str, {self._annotation(t.value, seen)}]"
        if isinstance(t, ir.Nullable):
            inner = self._annotation(t.inner, seen)
            return (
                inner if inner in (ANY, "None") or inner.endswith("| None") else f"{inner} | None"
            )
        if isinstance(t, ir.InlineUnion):
            return " | ".join(_unique(self._annotation(v, seen) for v in t.variants))
        assert isinstance(t, ir.Ref)
        return self.schemas[t.key].name

    def _decoder(self, t: ir.TypeRef, seen: frozenset[str]) -> str:
        t = self._step(t, seen)
        if isinstance(t, ir.Primitive):
            return _PRIMITIVE_DECODER[t.kind]
        if isinstance(t, ir.AnyType):
            return "_s.any_value"
        if isinstance(t, ir.ConstType):
            return f"_s.const({py_literal(t.value)})"
        if isinstance(t, ir.ListType):
            return f"_s.list_of({self._decoder(t.item, seen)})"
        if isinstance(t, ir.MapType):
            return f"_s.map_of({self._decoder(t.value, seen)})"
        if isinstance(t, ir.Nullable):
            return f"_s.nullable({self._decoder(t.inner, seen)})"
        if isinstance(t, ir.InlineUnion):
            return f"_s.one_of({', '.join(self._decoder(v, seen) for v in t.variants)})"
        assert isinstance(t, ir.Ref)
        named = self.schemas[t.key]
        if isinstance(named, ir.AliasSchema):
            return f"decode_{named.module}"
        if isinstance(named, ir.Model):
            return f"{named.name}.from_dict"
        if isinstance(named, ir.EnumSchema):
            return f"{named.name}.decode"
        return named.decoder

    def _step(self, t: ir.TypeRef, seen: frozenset[str]) -> ir.TypeRef:
        return self.resolve(t, seen)

    def references(self, types: Iterable[ir.TypeRef]) -> list[ir.NamedSchema]:
        """Named schemas (not aliases) that code for ``types`` mentions, sorted by module
        (a module may hold more than one: a model and the enums only it uses)."""
        found: dict[tuple[str, str], ir.NamedSchema] = {}
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
                    found[named.module, named.name] = named
            else:
                stack.extend(ir.contained(t))
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
            elif isinstance(t, ir.AnyType) or (
                isinstance(t, ir.ConstType) and isinstance(t.value, (str, int))
            ):
                out.add("typing")
            elif isinstance(t, ir.Ref):
                named = self.schemas[t.key]
                if isinstance(named, ir.AliasSchema) and t.key not in seen | self.opaque:
                    seen.add(t.key)
                    stack.append(named.target)
            else:
                stack.extend(ir.contained(t))
        return out


def _unique(items: Iterable[str]) -> list[str]:
    out: list[str] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


_STDLIB = frozenset(
    {"builtins", "collections", "datetime", "functools", "importlib", "os", "types", "typing"}
    | {"uuid"}
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_STRING = re.compile(r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'")


def names_in(*code: str) -> set[str]:
    """Identifiers that code (one-line string literals stripped) mentions."""
    return set(_IDENTIFIER.findall(_STRING.sub("", " ".join(code))))


_DIGITS = re.compile(r"\d+")


def _digit_run(match: re.Match[str]) -> str:
    run = match.group()
    return "0" + chr(0 if run[0] == "0" else len(run)) + run + "\0"


def _natural(text: str) -> str:
    """A sort key in natural order as ruff's isort has it: character by character, a run
    of digits by its value, unless it has a leading zero (then digit by digit)."""
    return _DIGITS.sub(_digit_run, text) if _DIGITS.search(text) else text


def _kind(name: str) -> int:
    if name.isupper() and len(name) > 1:
        return 0
    return 1 if name[:1].isupper() else 2


def member_key(name: str) -> tuple[int, str, str]:
    """isort's order of imported names: CONSTANTS, Classes, the rest; case-insensitive."""
    return _kind(name), _natural(name.lower()), name


def all_key(name: str) -> tuple[int, str]:
    """RUF022's order of ``__all__``: CONSTANTS, Classes, the rest; case-sensitive."""
    return _kind(name), _natural(name)


class Imports:
    """The import block of a module, as ruff's isort writes it (only what the code uses)."""

    def __init__(self) -> None:
        self._plain: set[str] = set()
        """Modules, imported under their ``MODULE_ALIASES`` name if they have one."""
        self._from: dict[str, set[tuple[str, str]]] = {}

    def add(self, module: str, name: str | None = None, alias: str = "") -> None:
        if name is None:
            self._plain.add(module)
        else:
            self._from.setdefault(module, set()).add((name, alias))

    def used(self, code: set[str]) -> Imports:
        """Only the imports whose bound name ``code`` mentions."""
        out = Imports()
        out._plain = {m for m in self._plain if MODULE_ALIASES.get(m, m.split(".")[0]) in code}
        for module, names in self._from.items():
            kept = {(n, a) for n, a in names if (a or n) in code}
            if kept:
                out._from[module] = kept
        return out

    def merge(self, other: Imports) -> None:
        """Add the imports of ``other``."""
        self._plain |= other._plain
        for module, names in other._from.items():
            self._from.setdefault(module, set()).update(names)

    def without(self, other: Imports) -> Imports:
        """These imports but those of ``other`` (names a module imports at run time need
        no import for type checkers)."""
        out = Imports()
        out._plain = self._plain - other._plain
        for module, names in self._from.items():
            kept = names - other._from.get(module, set())
            if kept:
                out._from[module] = kept
        return out

    def __bool__(self) -> bool:
        return bool(self._plain or self._from)

    def lines(self, indent: int = 0) -> list[Code]:
        """Import statements in sections (stdlib, third party, local), blank-line separated."""

        def section(module: str) -> int:
            if module.startswith("."):
                return 2
            return 0 if module.split(".")[0] in _STDLIB else 1

        def module_key(module: str) -> tuple[int, str]:
            stripped = module.lstrip(".")
            return -(len(module) - len(stripped)), _natural(stripped.lower())

        sections: list[list[str]] = [[], [], []]
        for module in sorted(self._plain, key=module_key):
            alias = MODULE_ALIASES.get(module)
            line = f"import {module} as {alias}" if alias else f"import {module}"
            sections[section(module)].append(line)
        for module in sorted(self._from, key=module_key):
            names = self._from[module]
            plain = sorted((n for n, a in names if not a), key=member_key)
            if plain:
                sections[section(module)].append(from_line(module, plain, indent))
            for name, alias in sorted(
                ((n, a) for n, a in names if a), key=lambda x: member_key(x[0])
            ):
                sections[section(module)].append(from_line(module, [f"{name} as {alias}"], indent))
        out: list[Code] = []
        for lines in sections:
            if lines:
                if out:
                    out.append(Code(""))
                out.extend(Code(line) for line in lines)
        return out


def from_line(module: str, names: list[str], indent: int) -> str:
    line = f"from {module} import {', '.join(names)}"
    if indent + len(line) <= LINE_LENGTH:
        return line
    pad = " " * (indent + 4)
    body = "".join(f"\n{pad}{name}," for name in names)
    return f"from {module} import ({body}\n{' ' * indent})"
