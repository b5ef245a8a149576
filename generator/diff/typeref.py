"""Types as the SDK spells them, and the schemas they reach."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePath

from ..model import ir
from ..problems import split_location

__all__ = [
    "article",
    "kind_of",
    "normalised",
    "operations",
    "refs",
    "schema_refs",
    "show",
    "strip_null",
]

_PRIMITIVES = {"datetime": "datetime", "date": "date", "uuid": "UUID"}


def show(sdk: ir.Sdk, t: ir.TypeRef | None) -> str:
    """A type as the SDK's annotations spell it."""
    if t is None:
        return "None"
    if isinstance(t, ir.Primitive):
        return _PRIMITIVES.get(t.kind, t.kind)
    if isinstance(t, ir.AnyType):
        return "Any"
    if isinstance(t, ir.ConstType):
        return f"Literal[{t.value!r}]"
    if isinstance(t, ir.ListType):
        return f"list[{show(sdk, t.item)}]"
    if isinstance(t, ir.MapType):
        return f"dict[str, {show(sdk, t.value)}]"
    if isinstance(t, ir.Ref):
        schema = sdk.schemas.get(t.key)
        return schema.name if schema is not None else t.key
    if isinstance(t, ir.Nullable):
        return f"{show(sdk, t.inner)} | None"
    return " | ".join(show(sdk, v) for v in t.variants)


def strip_null(t: ir.TypeRef) -> tuple[ir.TypeRef, bool]:
    if isinstance(t, ir.Nullable):
        return t.inner, True
    return t, False


def refs(t: ir.TypeRef | None) -> Iterator[str]:
    if t is None:
        return
    if isinstance(t, ir.Ref):
        yield t.key
    elif isinstance(t, ir.ListType):
        yield from refs(t.item)
    elif isinstance(t, ir.MapType):
        yield from refs(t.value)
    elif isinstance(t, ir.Nullable):
        yield from refs(t.inner)
    elif isinstance(t, ir.InlineUnion):
        for v in t.variants:
            yield from refs(v)


def schema_refs(schema: ir.NamedSchema) -> Iterator[str]:
    if isinstance(schema, ir.Model):
        for f in schema.fields:
            yield from refs(f.type)
        yield from refs(schema.additional)
    elif isinstance(schema, ir.UnionSchema):
        for v in schema.variants:
            yield from refs(v)
    elif isinstance(schema, ir.AliasSchema):
        yield from refs(schema.target)


def operations(sdk: ir.Sdk) -> dict[str, tuple[str, ir.Operation]]:
    return {op.operation_id: (r.attr, op) for r in sdk.resources for op in r.operations}


def root_file(sdk: ir.Sdk) -> str | None:
    """The name of the spec's root document, as its schema keys spell it."""
    counts: dict[str, int] = {}
    for _, op in operations(sdk).values():
        if op.location is not None:
            counts[op.location.file] = counts.get(op.location.file, 0) + 1
    if not counts:
        for key in sdk.schemas:
            file = split_location(key)[0]
            counts[file] = counts.get(file, 0) + 1
    return max(sorted(counts), key=lambda f: counts[f]) if counts else None


def normalised(sdk: ir.Sdk) -> dict[str, str]:
    """Schema keys without the spec's own file name, so two files' keys can be matched."""
    root = root_file(sdk)
    folder = PurePath(root).parent if root is not None else None
    out: dict[str, str] = {}
    for key in sdk.schemas:
        file, pointer = split_location(key)
        if file == root:
            file = ""
        elif folder is not None:
            try:
                file = PurePath(file).relative_to(folder).as_posix()
            except ValueError:
                pass
        out[key] = f"{file}#{pointer}"
    return out


def kind_of(schema: ir.NamedSchema) -> str:
    if isinstance(schema, ir.Model):
        return "model"
    if isinstance(schema, ir.EnumSchema):
        return "enum"
    if isinstance(schema, ir.UnionSchema):
        return "union"
    return "alias"


def article(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word
