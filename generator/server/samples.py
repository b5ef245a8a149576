"""Example JSON that conforms to an intermediate-model type, and edits along wire paths.

Objects carry every required field, and their optional fields near the top (so records
look complete without recursing forever); enums take their first member, unions their
first variant, nullable values are null, arrays hold one item while shallow.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ..model import ir

__all__ = ["Located", "Sampler", "drop", "locate", "model_of", "put"]

JSON = Any

OPTIONAL_DEPTH = 2
LIST_DEPTH = 4
MAX_DEPTH = 12


@attrs.frozen
class Located:
    """The type found at a wire path, and whether its object field is required."""

    type: ir.TypeRef
    required: bool


class Sampler:
    """Builds example values for the types of one SDK."""

    def __init__(self, schemas: Mapping[str, ir.NamedSchema], *, timestamp: str) -> None:
        self.schemas = schemas
        self.timestamp = timestamp

    def sample(self, t: ir.TypeRef, *, force: bool = False) -> JSON:
        """An example of ``t``; ``force`` fills a nullable value instead of leaving it null."""
        return self._sample(t, 0, (), force)

    def _sample(
        self, t: ir.TypeRef, depth: int, seen: tuple[str, ...], force: bool = False
    ) -> JSON:
        if depth > MAX_DEPTH:
            return None
        if isinstance(t, ir.Primitive):
            return self._primitive(t)
        if isinstance(t, ir.ConstType):
            return t.value
        if isinstance(t, ir.AnyType | ir.MapType):
            return {}
        if isinstance(t, ir.Nullable):
            return self._sample(t.inner, depth, seen) if force else None
        if isinstance(t, ir.ListType):
            if depth >= LIST_DEPTH or _recursive(t.item, seen):
                return []
            return [self._sample(t.item, depth + 1, seen)]
        if isinstance(t, ir.InlineUnion):
            if force:  # a value, not the null a variant may stand for
                for variant in t.variants:
                    value = self._sample(variant, depth, seen, force)
                    if value is not None:
                        return value
            return self._sample(t.variants[0], depth, seen, force)
        return self._named(t, depth, seen, force)

    def _named(self, ref: ir.Ref, depth: int, seen: tuple[str, ...], force: bool) -> JSON:
        schema = self.schemas.get(ref.key)
        if schema is None:
            return {}
        seen = (*seen, ref.key)
        if isinstance(schema, ir.EnumSchema):
            return schema.members[0].value if schema.members else ""
        if isinstance(schema, ir.UnionSchema):
            return self._sample(schema.variants[0], depth, seen, force)
        if isinstance(schema, ir.AliasSchema):
            return self._sample(schema.target, depth, seen, force)
        out: dict[str, JSON] = {}
        for field in schema.fields:
            shallow = depth < OPTIONAL_DEPTH and not _recursive(field.type, seen)
            if field.required or shallow:
                out[field.wire] = self._sample(field.type, depth + 1, seen)
        return out

    def _primitive(self, t: ir.Primitive) -> JSON:
        if t.kind == "str":
            return "example"
        if t.kind in ("int", "float"):
            return 0 if t.kind == "int" else 0.0
        if t.kind == "bool":
            return False
        if t.kind == "datetime":
            return self.timestamp
        if t.kind == "date":
            return self.timestamp[:10]
        if t.kind == "uuid":
            return str(uuid.UUID(int=0))
        return "ZXhhbXBsZQ=="  # bytes, base64 of "example"


def _recursive(t: ir.TypeRef, seen: tuple[str, ...]) -> bool:
    while isinstance(t, ir.Nullable | ir.ListType):
        t = t.inner if isinstance(t, ir.Nullable) else t.item
    return isinstance(t, ir.Ref) and t.key in seen


def model_of(t: ir.TypeRef, schemas: Mapping[str, ir.NamedSchema]) -> ir.Model | None:
    """The object model behind ``t`` (through nullables, aliases and first union variants)."""
    for _ in range(MAX_DEPTH):
        if isinstance(t, ir.Nullable):
            t = t.inner
        elif isinstance(t, ir.InlineUnion):
            t = t.variants[0]
        elif isinstance(t, ir.Ref):
            schema = schemas.get(t.key)
            if isinstance(schema, ir.Model):
                return schema
            if isinstance(schema, ir.AliasSchema):
                t = schema.target
            elif isinstance(schema, ir.UnionSchema):
                t = schema.variants[0]
            else:
                return None
        else:
            return None
    return None


def locate(
    t: ir.TypeRef, path: Sequence[str], schemas: Mapping[str, ir.NamedSchema]
) -> Located | None:
    """The type at wire ``path`` inside ``t``, or None when the schema has no such field."""
    found = Located(t, True)
    for key in path:
        model = model_of(found.type, schemas)
        field = next((f for f in model.fields if f.wire == key), None) if model else None
        if field is None:
            return None
        found = Located(field.type, field.required)
    return found


def put(body: JSON, path: Sequence[str], value: JSON) -> None:
    """Set ``value`` at ``path`` inside ``body`` (a dict), creating objects on the way."""
    node = body
    for key in path[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            child = node[key] = {}
        node = child
    node[path[-1]] = value


def drop(body: JSON, path: Sequence[str]) -> None:
    """Remove the value at ``path`` if it is there."""
    node = body
    for key in path[:-1]:
        node = node.get(key) if isinstance(node, dict) else None
    if isinstance(node, dict):
        node.pop(path[-1], None)
