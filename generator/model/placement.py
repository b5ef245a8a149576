"""Which module each named schema lives in.

Every schema gets a module of its own, except an enumeration or a union that exactly one
model mentions: it is defined in that model's module. A large API has more than a
thousand of them (OpenAI: 1,150 of 1,501 enums, 235 of 323 unions), and a module costs
its import more than the class it holds (``bench/import_all_ab.md``). ``sdk.models.Name``
reaches every schema wherever it lives.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from . import ir

__all__ = ["host_in_models"]


def _mentions(schemas: dict[str, ir.NamedSchema], types: Iterable[ir.TypeRef]) -> set[str]:
    """Keys of the named schemas that code for ``types`` names (aliases see through)."""
    found: set[str] = set()
    stack = list(types)
    seen: set[str] = set()
    while stack:
        t = stack.pop()
        if isinstance(t, ir.Ref):
            if t.key in seen:
                continue
            seen.add(t.key)
            named = schemas[t.key]
            found.add(t.key)
            if isinstance(named, ir.AliasSchema):
                stack.append(named.target)
        else:
            stack.extend(ir.contained(t))
    return found


def _types(schema: ir.NamedSchema) -> list[ir.TypeRef]:
    if isinstance(schema, ir.Model):
        return [f.type for f in schema.fields] + ([schema.additional] if schema.additional else [])
    if isinstance(schema, ir.UnionSchema):
        return [*schema.variants, *(ir.Ref(key) for _, key in schema.mapping)]
    if isinstance(schema, ir.AliasSchema):
        return [schema.target]
    return []


def host_in_models(schemas: dict[str, ir.NamedSchema]) -> dict[str, ir.NamedSchema]:
    """``schemas`` with each enum and union that one model alone mentions moved into its
    module (operations may use it too: they import it from there). A union keeps its own
    module's name as its ``stem``: its decoder stays ``decode_<stem>``."""
    users: dict[str, set[str]] = {}
    for key, schema in schemas.items():
        for used in _mentions(schemas, _types(schema)):
            users.setdefault(used, set()).add(key)
    placed = dict(schemas)
    for key, schema in schemas.items():
        found = users.get(key, set())
        if len(found) != 1:
            continue
        host = schemas[next(iter(found))]
        if not isinstance(host, ir.Model):
            continue
        if isinstance(schema, ir.EnumSchema):
            placed[key] = attrs.evolve(schema, module=host.module)
        elif isinstance(schema, ir.UnionSchema):
            placed[key] = attrs.evolve(schema, module=host.module, stem=schema.module)
    return placed
