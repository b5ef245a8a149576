"""Changes to schemas: models and their fields, enums, unions and aliases."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import ir
from .changes import Change, Side, keyed
from .context import Context
from .details import Facets, constraint_changes, field_facets, schema_facets
from .typeref import article, kind_of, show, strip_null

__all__ = ["constraint_diff", "schema_changes", "show_default"]


# schemas


def schema_changes(ctx: Context) -> Iterator[Change]:
    for key, schema in ctx.old.schemas.items():
        if key not in ctx.pairs:
            yield Change(
                "schema.removed", f"schema {schema.name}", f"{schema.name} was removed", True
            )
    for key, schema in ctx.new.schemas.items():
        if key not in ctx.back:
            yield Change(
                "schema.added",
                f"schema {schema.name}",
                f"new {kind_of(schema)} {schema.name}",
                False,
            )
    for old_key, new_key in ctx.pairs.items():
        yield from _schema(ctx, old_key, new_key)


def _schema(ctx: Context, old_key: str, new_key: str) -> Iterator[Change]:
    a, b = ctx.old.schemas[old_key], ctx.new.schemas[new_key]
    where = f"schema {b.name}"
    if a.name != b.name:
        yield Change(
            "schema.renamed", f"schema {a.name}", f"class {a.name} renamed to {b.name}", True
        )
    if type(a) is not type(b):
        yield Change(
            "schema.kind_changed",
            where,
            f"{b.name} is now {article(kind_of(b))} instead of {article(kind_of(a))}",
            True,
        )
    elif isinstance(a, ir.Model) and isinstance(b, ir.Model):
        yield from _fields(ctx, a, b, ctx.sides(old_key, new_key))
    elif isinstance(a, ir.EnumSchema) and isinstance(b, ir.EnumSchema):
        yield from _enum(ctx, a, b, where)
    elif isinstance(a, ir.UnionSchema) and isinstance(b, ir.UnionSchema):
        yield from _union(ctx, a, b, where)
    elif isinstance(a, ir.AliasSchema) and isinstance(b, ir.AliasSchema):
        sides = ctx.sides(old_key, new_key)
        if not ctx.same(a.target, b.target):
            widened = ctx.widens(a.target, b.target)
            yield Change(
                "schema.type_changed",
                where,
                f"{b.name} is now {show(ctx.new, b.target)} instead of "
                f"{show(ctx.old, a.target)}" + (" (widened)" if widened else ""),
                "response" in sides or not widened,
            )
        yield from constraint_diff(
            schema_facets(ctx.old, a), schema_facets(ctx.new, b), where, "request" in sides
        )


def _fields(ctx: Context, a: ir.Model, b: ir.Model, sides: frozenset[Side]) -> Iterator[Change]:
    fields = keyed({f.wire: f for f in a.fields}, {f.wire: f for f in b.fields})
    request, response = "request" in sides, "response" in sides
    role = " and ".join(sorted(sides))
    old_facets, new_facets = field_facets(ctx.old, a), field_facets(ctx.new, b)
    for wire, f in fields.removed:
        yield Change(
            "field.removed",
            f"schema {b.name}.{wire}",
            f"field {f.name} was removed from {b.name}",
            True,
        )
    for wire, g in fields.added:
        yield Change(
            "field.added",
            f"schema {b.name}.{wire}",
            f"new {'required' if g.required else 'optional'} field {g.name}: "
            f"{show(ctx.new, g.type)} in {b.name} ({role} model)",
            g.required and request,
        )
    for wire, f, g in fields.kept:
        where = f"schema {b.name}.{wire}"
        if f.name != g.name:
            yield Change("field.renamed", where, f"attribute {f.name} renamed to {g.name}", True)
        (ft, fnull), (gt, gnull) = strip_null(f.type), strip_null(g.type)
        if not ctx.same(ft, gt):
            widened = ctx.widens(ft, gt)
            yield Change(
                "field.type_changed",
                where,
                f"type {show(ctx.old, f.type)} -> {show(ctx.new, g.type)}"
                + (f" (widened, {role} model)" if widened else ""),
                response or not widened,
            )
        if gnull and not fnull:
            yield Change(
                "field.became_nullable",
                where,
                f"{g.name} may now be None ({role} model)",
                response,
            )
        elif fnull and not gnull:
            yield Change(
                "field.became_non_nullable",
                where,
                f"{g.name} may no longer be None ({role} model)",
                request,
            )
        if g.required and not f.required:
            yield Change(
                "field.became_required",
                where,
                f"{g.name} is now required ({role} model)",
                request,
            )
        elif f.required and not g.required:
            yield Change(
                "field.became_optional",
                where,
                f"{g.name} is now optional and may be unset ({role} model)",
                response,
            )
        yield from _facet_changes(
            old_facets.get(wire, Facets()), new_facets.get(wire, Facets()), where, sides
        )


def _facet_changes(x: Facets, y: Facets, where: str, sides: frozenset[Side]) -> Iterator[Change]:
    """Constraints, default and access of a field (or of a named schema itself)."""
    request, response = "request" in sides, "response" in sides
    role = " and ".join(sorted(sides))
    yield from constraint_diff(x, y, where, request)
    if x.default != y.default:
        yield Change(
            "default.changed",
            where,
            f"default {show_default(x)} -> {show_default(y)} ({role} model)",
            request and x.has_default,
        )
    if y.read_only and not x.read_only:
        yield Change(
            "field.became_read_only",
            where,
            f"now read-only: the server ignores it in requests ({role} model)",
            request,
        )
    if y.write_only and not x.write_only:
        yield Change(
            "field.became_write_only",
            where,
            f"now write-only: the server no longer sends it ({role} model)",
            response,
        )
    for word, was, now in (
        ("read-only", x.read_only, y.read_only),
        ("write-only", x.write_only, y.write_only),
    ):
        if was and not now:
            yield Change("field.access_relaxed", where, f"no longer {word}", False)


def constraint_diff(x: Facets, y: Facets, where: str, sent: bool) -> Iterator[Change]:
    """Tighter constraints break callers who send the value; looser ones break nobody."""
    for text, tighter in constraint_changes(x.constraints, y.constraints):
        if tighter:
            yield Change("constraint.tightened", where, text, sent)
        else:
            yield Change("constraint.loosened", where, text, False)


def show_default(facets: Facets) -> str:
    return repr(facets.default) if facets.has_default else "(none)"


def _enum(ctx: Context, a: ir.EnumSchema, b: ir.EnumSchema, where: str) -> Iterator[Change]:
    if a.base != b.base:
        yield Change(
            "schema.type_changed",
            where,
            f"{b.name} values are now {b.base}, not {a.base}",
            True,
        )
    members = keyed({m.value: m for m in a.members}, {m.value: m for m in b.members})
    for value, m in members.removed:
        yield Change(
            "enum.value_removed", where, f"value {value!r} ({b.name}.{m.name}) was removed", True
        )
    for value, m, now in members.kept:
        if now.name != m.name:
            yield Change(
                "enum.member_renamed",
                where,
                f"member {b.name}.{m.name} renamed to {now.name}",
                True,
            )
    for value, m in members.added:
        yield Change("enum.value_added", where, f"new value {value!r} ({b.name}.{m.name})", False)


def _union(ctx: Context, a: ir.UnionSchema, b: ir.UnionSchema, where: str) -> Iterator[Change]:
    came = list(b.variants)
    for v in a.variants:
        twin = next((w for w in came if ctx.same(v, w)), None)
        if twin is None:
            yield Change(
                "union.variant_removed",
                where,
                f"{show(ctx.old, v)} is no longer a variant of {b.name}",
                True,
            )
        else:
            came.remove(twin)
    for w in came:
        yield Change(
            "union.variant_added", where, f"new variant {show(ctx.new, w)} of {b.name}", False
        )
