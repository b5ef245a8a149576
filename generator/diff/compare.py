"""Compare two SDK models and list what changed for the callers of the generated SDK.

A change is *breaking* when code written against the old SDK can fail, or behave
differently, with the SDK generated from the new spec. Operations are matched by
operationId (or, failing that, by method and path), schemas by key, then by class
name, then by identical structure; types are compared through the schemas they
name, so a schema whose key changed but whose structure did not is the same type.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePath
from typing import Literal

import attrs

from ..model import ir
from ..model.names import snake

__all__ = ["ADDITIONS", "KINDS", "Bump", "Change", "Report", "diff_sdks"]

Bump = Literal["major", "minor", "patch", "none"]
Side = Literal["request", "response"]
RESPONSE: frozenset[Side] = frozenset({"response"})

#: Every kind of change, with when it is breaking; docs/diff.md lists the same table.
KINDS: dict[str, str] = {
    "operation.removed": "always breaking",
    "operation.added": "never breaking",
    "operation.renamed": "breaking when the SDK method changes",
    "operation.sdk_method_changed": "always breaking",
    "operation.path_changed": "never breaking",
    "operation.http_method_changed": "never breaking",
    "operation.deprecated": "never breaking",
    "parameter.removed": "always breaking",
    "parameter.added": "breaking when required (without a default)",
    "parameter.renamed": "breaking when the Python argument name changes",
    "parameter.moved": "breaking when it moves into or out of the path",
    "parameter.reordered": "always breaking (path parameters are positional)",
    "parameter.type_changed": "always breaking",
    "parameter.became_required": "always breaking",
    "parameter.became_optional": "never breaking",
    "body.added": "breaking when required",
    "body.removed": "always breaking",
    "body.type_changed": "always breaking",
    "body.became_required": "always breaking",
    "body.became_optional": "never breaking",
    "body.media_type_changed": "never breaking",
    "response.type_changed": "always breaking",
    "schema.removed": "always breaking",
    "schema.added": "never breaking",
    "schema.renamed": "always breaking (the class name changes)",
    "schema.kind_changed": "always breaking",
    "schema.type_changed": "always breaking",
    "field.removed": "always breaking",
    "field.added": "breaking when required in a request model",
    "field.renamed": "always breaking (the attribute name changes)",
    "field.type_changed": "always breaking",
    "field.became_required": "breaking in a request model",
    "field.became_optional": "breaking in a response model",
    "field.became_nullable": "breaking in a response model",
    "field.became_non_nullable": "breaking in a request model",
    "enum.value_removed": "always breaking",
    "enum.value_added": "never breaking (unknown values are kept)",
    "enum.member_renamed": "always breaking",
    "union.variant_removed": "always breaking",
    "union.variant_added": "never breaking",
    "auth.removed": "always breaking",
    "auth.added": "never breaking",
    "auth.changed": "breaking when the client's credential arguments change",
    "client.base_url_changed": "never breaking",
    "job.removed": "always breaking",
    "job.added": "never breaking",
    "job.waiters_renamed": "always breaking",
    "job.terminal_state_added": "always breaking (waiters stop on it)",
    "job.pending_state_added": "never breaking (waiters keep polling)",
    "job.state_removed": "never breaking",
    "job.state_reclassified": "always breaking",
    "job.record_changed": "always breaking",
    "job.status_operation_changed": "never breaking",
    "job.create_added": "never breaking",
    "job.create_removed": "always breaking",
    "job.create_changed": "never breaking",
    "job.result_added": "never breaking",
    "job.result_removed": "always breaking",
    "job.result_changed": "never breaking",
    "job.pointer_changed": "never breaking",
    "job.ready_field_changed": "never breaking",
    "job.idempotency_changed": "never breaking",
    "job.poll_changed": "never breaking",
}

#: Kinds that add something: a release holding one (and nothing breaking) is minor.
ADDITIONS = frozenset(
    {
        "operation.added",
        "parameter.added",
        "body.added",
        "schema.added",
        "field.added",
        "enum.value_added",
        "union.variant_added",
        "auth.added",
        "job.added",
        "job.pending_state_added",
        "job.create_added",
        "job.result_added",
    }
)


@attrs.frozen
class Change:
    """One difference an SDK caller may notice."""

    kind: str
    location: str
    message: str
    breaking: bool

    @property
    def addition(self) -> bool:
        return not self.breaking and self.kind in ADDITIONS


@attrs.frozen
class Report:
    """Every change between two SDK models, breaking first."""

    old: str
    new: str
    changes: tuple[Change, ...]

    @property
    def breaking(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.breaking)

    @property
    def additions(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.addition)

    @property
    def others(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if not c.breaking and not c.addition)

    @property
    def bump(self) -> Bump:
        if not self.changes:
            return "none"
        if self.breaking:
            return "major"
        if self.additions:
            return "minor"
        return "patch"


def _order(change: Change) -> tuple[bool, bool, str, str, str]:
    return (not change.breaking, not change.addition, change.location, change.kind, change.message)


def diff_sdks(old: ir.Sdk, new: ir.Sdk) -> Report:
    """What changed, for the callers of the SDK, from ``old`` to ``new``."""
    changes = sorted(set(_Differ(old, new).changes()), key=_order)
    return Report(
        old=f"{old.title} {old.version}", new=f"{new.title} {new.version}", changes=tuple(changes)
    )


# --- types -----------------------------------------------------------------------------

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


def _strip_null(t: ir.TypeRef) -> tuple[ir.TypeRef, bool]:
    if isinstance(t, ir.Nullable):
        return t.inner, True
    return t, False


def _refs(t: ir.TypeRef | None) -> Iterator[str]:
    if t is None:
        return
    if isinstance(t, ir.Ref):
        yield t.key
    elif isinstance(t, ir.ListType):
        yield from _refs(t.item)
    elif isinstance(t, ir.MapType):
        yield from _refs(t.value)
    elif isinstance(t, ir.Nullable):
        yield from _refs(t.inner)
    elif isinstance(t, ir.InlineUnion):
        for v in t.variants:
            yield from _refs(v)


def _schema_refs(schema: ir.NamedSchema) -> Iterator[str]:
    if isinstance(schema, ir.Model):
        for f in schema.fields:
            yield from _refs(f.type)
        yield from _refs(schema.additional)
    elif isinstance(schema, ir.UnionSchema):
        for v in schema.variants:
            yield from _refs(v)
    elif isinstance(schema, ir.AliasSchema):
        yield from _refs(schema.target)


def _operations(sdk: ir.Sdk) -> dict[str, tuple[str, ir.Operation]]:
    return {op.operation_id: (r.attr, op) for r in sdk.resources for op in r.operations}


def _usage(sdk: ir.Sdk) -> dict[str, set[Side]]:
    """For every schema reachable from an operation, whether requests or responses carry it."""
    usage: dict[str, set[Side]] = {}
    roots: list[tuple[Side, ir.TypeRef | None]] = []
    for _, op in _operations(sdk).values():
        roots.extend(("request", p.type) for p in op.parameters)
        roots.append(("request", op.body.type if op.body is not None else None))
        roots.append(("response", op.response.type))
    for side, t in roots:
        stack = list(_refs(t))
        while stack:
            key = stack.pop()
            if side in usage.setdefault(key, set()):
                continue
            usage[key].add(side)
            schema = sdk.schemas.get(key)
            if schema is not None:
                stack.extend(_schema_refs(schema))
    return usage


def _root_file(sdk: ir.Sdk) -> str | None:
    """The name of the spec's root document, as its schema keys spell it."""
    counts: dict[str, int] = {}
    for _, op in _operations(sdk).values():
        if op.location is not None:
            counts[op.location.file] = counts.get(op.location.file, 0) + 1
    if not counts:
        for key in sdk.schemas:
            file = key.partition("#")[0]
            counts[file] = counts.get(file, 0) + 1
    return max(sorted(counts), key=lambda f: counts[f]) if counts else None


def _normalised(sdk: ir.Sdk) -> dict[str, str]:
    """Schema keys without the spec's own file name, so two files' keys can be matched."""
    root = _root_file(sdk)
    folder = PurePath(root).parent if root is not None else None
    out: dict[str, str] = {}
    for key in sdk.schemas:
        file, _, pointer = key.partition("#")
        if file == root:
            file = ""
        elif folder is not None:
            try:
                file = PurePath(file).relative_to(folder).as_posix()
            except ValueError:
                pass
        out[key] = f"{file}#{pointer}"
    return out


def _waiters(sdk: ir.Sdk, jobs: tuple[ir.Job, ...]) -> dict[str, str]:
    """Each job's ``wait_for_job`` method, as ``client.<resource>.<method>``."""
    out: dict[str, str] = {}
    for resource in sdk.resources:
        single = len(resource.jobs) == 1
        for job in resource.jobs:
            method = "wait_for_job" if single else f"wait_for_{snake(job.name, 'job')}"
            out[job.name] = f"client.{resource.attr}.{method}"
    for job in jobs:
        out.setdefault(job.name, f"client.{job.name}")
    return out


# --- the comparison ----------------------------------------------------------------------


class _Differ:
    def __init__(self, old: ir.Sdk, new: ir.Sdk) -> None:
        self.old = old
        self.new = new
        self.pairs: dict[str, str] = {}
        self.back: dict[str, str] = {}
        self.old_usage = _usage(old)
        self.new_usage = _usage(new)
        self._pair_schemas()

    # schema pairing

    def _pair(self, old_key: str, new_key: str) -> None:
        self.pairs[old_key] = new_key
        self.back[new_key] = old_key

    def _pair_schemas(self) -> None:
        old_norm, new_norm = _normalised(self.old), _normalised(self.new)
        by_norm = {norm: key for key, norm in new_norm.items()}
        for key, norm in old_norm.items():
            if norm in by_norm:
                self._pair(key, by_norm[norm])
        old_names = self._unpaired_by_name(self.old, self.pairs)
        new_names = self._unpaired_by_name(self.new, self.back)
        for name, key in sorted(old_names.items()):
            if name in new_names:
                self._pair(key, new_names[name])
        # Renamed keys: an unpaired old schema whose structure only one unpaired new one has.
        old_left = [k for k in self.old.schemas if k not in self.pairs]
        new_left = [k for k in self.new.schemas if k not in self.back]
        matches: dict[str, list[str]] = {}
        for old_key in old_left:
            matches[old_key] = [
                new_key for new_key in new_left if self._same_schema(old_key, new_key, set())
            ]
        claimed: dict[str, int] = {}
        for found in matches.values():
            for new_key in found:
                claimed[new_key] = claimed.get(new_key, 0) + 1
        for old_key, found in matches.items():
            if len(found) == 1 and claimed[found[0]] == 1:
                self._pair(old_key, found[0])

    @staticmethod
    def _unpaired_by_name(sdk: ir.Sdk, paired: dict[str, str]) -> dict[str, str]:
        names: dict[str, list[str]] = {}
        for key, schema in sdk.schemas.items():
            if key not in paired:
                names.setdefault(schema.name, []).append(key)
        return {name: keys[0] for name, keys in names.items() if len(keys) == 1}

    # structural equality, through named schemas, with a guard against cycles

    def same(self, a: ir.TypeRef | None, b: ir.TypeRef | None) -> bool:
        if a is None or b is None:
            return a is None and b is None
        return self._same(a, b, set())

    def _unalias(self, sdk: ir.Sdk, t: ir.TypeRef) -> ir.TypeRef:
        seen: set[str] = set()
        while isinstance(t, ir.Ref) and t.key not in seen:
            schema = sdk.schemas.get(t.key)
            if not isinstance(schema, ir.AliasSchema):
                break
            seen.add(t.key)
            t = schema.target
        return t

    def _same(self, a: ir.TypeRef, b: ir.TypeRef, assumed: set[tuple[str, str]]) -> bool:
        if isinstance(a, ir.Ref) and isinstance(b, ir.Ref) and self.pairs.get(a.key) == b.key:
            return True
        a2, b2 = self._unalias(self.old, a), self._unalias(self.new, b)
        if a2 != a or b2 != b:
            return self._same(a2, b2, assumed)
        if isinstance(a, ir.Ref) and isinstance(b, ir.Ref):
            if a.key in self.pairs or b.key in self.back:
                return False
            return self._same_schema(a.key, b.key, assumed)
        if isinstance(a, ir.ListType) and isinstance(b, ir.ListType):
            return self._same(a.item, b.item, assumed)
        if isinstance(a, ir.MapType) and isinstance(b, ir.MapType):
            return self._same(a.value, b.value, assumed)
        if isinstance(a, ir.Nullable) and isinstance(b, ir.Nullable):
            return self._same(a.inner, b.inner, assumed)
        if isinstance(a, ir.InlineUnion) and isinstance(b, ir.InlineUnion):
            return len(a.variants) == len(b.variants) and all(
                self._same(x, y, assumed) for x, y in zip(a.variants, b.variants, strict=True)
            )
        if isinstance(a, ir.ConstType) and isinstance(b, ir.ConstType):
            return type(a.value) is type(b.value) and a.value == b.value
        return a == b

    def _same_schema(self, old_key: str, new_key: str, assumed: set[tuple[str, str]]) -> bool:
        if (old_key, new_key) in assumed:
            return True
        assumed.add((old_key, new_key))
        a, b = self.old.schemas.get(old_key), self.new.schemas.get(new_key)
        if isinstance(a, ir.Model) and isinstance(b, ir.Model):
            fa = {f.wire: f for f in a.fields}
            fb = {f.wire: f for f in b.fields}
            if fa.keys() != fb.keys():
                return False
            for wire, x in fa.items():
                y = fb[wire]
                if x.name != y.name or x.required != y.required:
                    return False
                if not self._same(x.type, y.type, assumed):
                    return False
            if a.additional is None or b.additional is None:
                return a.additional is None and b.additional is None
            return self._same(a.additional, b.additional, assumed)
        if isinstance(a, ir.EnumSchema) and isinstance(b, ir.EnumSchema):
            return a.base == b.base and set(a.members) == set(b.members)
        if isinstance(a, ir.UnionSchema) and isinstance(b, ir.UnionSchema):
            return (
                len(a.variants) == len(b.variants)
                and a.discriminator == b.discriminator
                and {tag for tag, _ in a.mapping} == {tag for tag, _ in b.mapping}
                and all(
                    self._same(x, y, assumed) for x, y in zip(a.variants, b.variants, strict=True)
                )
            )
        if isinstance(a, ir.AliasSchema) and isinstance(b, ir.AliasSchema):
            return self._same(a.target, b.target, assumed)
        return False

    def _sides(self, old_key: str, new_key: str) -> frozenset[Side]:
        """Where a model travels; one no operation carries (an error body, a webhook
        payload) is only ever received, so it counts as a response model."""
        sides = self.old_usage.get(old_key, set()) | self.new_usage.get(new_key, set())
        return frozenset(sides) if sides else RESPONSE

    # everything

    def changes(self) -> Iterator[Change]:
        yield from self._operations()
        yield from self._schemas()
        yield from self._auths()
        yield from self._jobs()
        if self.old.base_url != self.new.base_url:
            yield Change(
                "client.base_url_changed",
                "client",
                f"default base URL changed from {self.old.base_url!r} to {self.new.base_url!r}",
                False,
            )

    # operations

    def _operations(self) -> Iterator[Change]:
        old_ops, new_ops = _operations(self.old), _operations(self.new)
        removed = [i for i in old_ops if i not in new_ops]
        added = [i for i in new_ops if i not in old_ops]
        pairs = [(i, i) for i in old_ops if i in new_ops]
        for old_id in list(removed):
            _, op = old_ops[old_id]
            twins = [
                i
                for i in added
                if (new_ops[i][1].method, new_ops[i][1].path) == (op.method, op.path)
            ]
            if len(twins) == 1:
                removed.remove(old_id)
                added.remove(twins[0])
                pairs.append((old_id, twins[0]))
        for op_id in removed:
            attr, op = old_ops[op_id]
            yield Change(
                "operation.removed",
                f"operation {op_id}",
                f"client.{attr}.{op.name}() ({op.method} {op.path}) was removed",
                True,
            )
        for op_id in added:
            attr, op = new_ops[op_id]
            yield Change(
                "operation.added",
                f"operation {op_id}",
                f"new method client.{attr}.{op.name}() ({op.method} {op.path})",
                False,
            )
        for old_id, new_id in pairs:
            yield from self._operation(old_ops[old_id], new_ops[new_id], old_id, new_id)

    def _operation(
        self,
        old: tuple[str, ir.Operation],
        new: tuple[str, ir.Operation],
        old_id: str,
        new_id: str,
    ) -> Iterator[Change]:
        (old_attr, a), (new_attr, b) = old, new
        where = f"operation {new_id}"
        old_method, new_method = f"client.{old_attr}.{a.name}", f"client.{new_attr}.{b.name}"
        moved = old_method != new_method
        if old_id != new_id:
            where = f"operation {old_id}"
            detail = f"; the SDK method {old_method}() is now {new_method}()" if moved else ""
            yield Change(
                "operation.renamed",
                where,
                f"operationId renamed to {new_id}{detail}",
                moved,
            )
        elif moved:
            yield Change(
                "operation.sdk_method_changed",
                where,
                f"the SDK method {old_method}() is now {new_method}()",
                True,
            )
        if a.path != b.path:
            yield Change("operation.path_changed", where, f"path {a.path} -> {b.path}", False)
        if a.method != b.method:
            yield Change(
                "operation.http_method_changed",
                where,
                f"HTTP method {a.method} -> {b.method}",
                False,
            )
        if b.deprecated and not a.deprecated:
            yield Change("operation.deprecated", where, f"{new_method}() is deprecated", False)
        yield from self._parameters(a, b, where)
        yield from self._body(a.body, b.body, where)
        old_ret, new_ret = self._returns(a.response), self._returns(b.response)
        if not self._same_return(old_ret, new_ret):
            yield Change(
                "response.type_changed",
                f"{where} response",
                f"{new_method}() returns {self._show_return(self.new, new_ret)} "
                f"instead of {self._show_return(self.old, old_ret)}",
                True,
            )

    @staticmethod
    def _returns(response: ir.Response) -> tuple[str, ir.TypeRef | None]:
        if response.kind == "json" and response.type is not None:
            return "json", response.type
        if response.kind in ("text", "binary"):
            return response.kind, None
        return "empty", None

    def _same_return(
        self, a: tuple[str, ir.TypeRef | None], b: tuple[str, ir.TypeRef | None]
    ) -> bool:
        return a[0] == b[0] and self.same(a[1], b[1])

    @staticmethod
    def _show_return(sdk: ir.Sdk, ret: tuple[str, ir.TypeRef | None]) -> str:
        kind, t = ret
        if kind == "json":
            return show(sdk, t)
        return {"text": "str", "binary": "bytes"}.get(kind, "None")

    def _parameters(self, a: ir.Operation, b: ir.Operation, where: str) -> Iterator[Change]:
        olds = {(p.location, p.wire): p for p in a.parameters}
        news = {(p.location, p.wire): p for p in b.parameters}
        pairs = [(olds[k], news[k]) for k in olds if k in news]
        gone = [p for k, p in olds.items() if k not in news]
        came = [p for k, p in news.items() if k not in olds]
        # Same Python argument, new wire name or place.
        for p in list(gone):
            twins = [q for q in came if q.name == p.name]
            if len(twins) == 1:
                gone.remove(p)
                came.remove(twins[0])
                pairs.append((p, twins[0]))
        # A renamed path parameter keeps its place in the path.
        old_path = [p.wire for p in a.path_parameters]
        new_path = [p.wire for p in b.path_parameters]
        for p in [p for p in gone if p.location == "path"]:
            index = old_path.index(p.wire)
            twins = [
                q
                for q in came
                if q.location == "path" and index < len(new_path) and new_path[index] == q.wire
            ]
            if twins and self.same(p.type, twins[0].type):
                gone.remove(p)
                came.remove(twins[0])
                pairs.append((p, twins[0]))
        # One query/header/cookie parameter swapped for one of the same type: a rename.
        for location in ("query", "header", "cookie"):
            g = [p for p in gone if p.location == location]
            c = [q for q in came if q.location == location]
            if len(g) == 1 and len(c) == 1 and self.same(g[0].type, c[0].type):
                gone.remove(g[0])
                came.remove(c[0])
                pairs.append((g[0], c[0]))
        for p in gone:
            yield Change(
                "parameter.removed",
                f"{where} parameter {p.wire}",
                f"{p.location} parameter {p.wire} (argument {p.name}) was removed",
                True,
            )
        for q in came:
            needed = q.required and not q.has_default
            yield Change(
                "parameter.added",
                f"{where} parameter {q.wire}",
                f"new {'required' if needed else 'optional'} {q.location} parameter {q.wire} "
                f"(argument {q.name}: {show(self.new, q.type)})",
                needed,
            )
        for p, q in pairs:
            yield from self._parameter(p, q, f"{where} parameter {p.wire}")
        path_pairs = {p: q for p, q in pairs if p.location == q.location == "path"}
        kept = set(path_pairs.values())
        old_order = [path_pairs[p].name for p in a.path_parameters if p in path_pairs]
        new_order = [q.name for q in b.path_parameters if q in kept]
        if old_order != new_order:
            yield Change(
                "parameter.reordered",
                where,
                f"positional path arguments reordered: ({', '.join(old_order)}) -> "
                f"({', '.join(new_order)})",
                True,
            )

    def _parameter(self, p: ir.Parameter, q: ir.Parameter, where: str) -> Iterator[Change]:
        if p.wire != q.wire or p.name != q.name:
            detail = f"; the argument {p.name} is now {q.name}" if p.name != q.name else ""
            yield Change(
                "parameter.renamed",
                where,
                f"{p.location} parameter {p.wire} renamed to {q.wire}{detail}",
                p.name != q.name,
            )
        if p.location != q.location:
            yield Change(
                "parameter.moved",
                where,
                f"parameter {q.wire} moved from the {p.location} to the {q.location}",
                "path" in (p.location, q.location),
            )
        if not self.same(p.type, q.type):
            yield Change(
                "parameter.type_changed",
                where,
                f"argument {q.name} type {show(self.old, p.type)} -> {show(self.new, q.type)}",
                True,
            )
        was = p.required and not p.has_default
        now = q.required and not q.has_default
        if now and not was:
            yield Change(
                "parameter.became_required", where, f"argument {q.name} is now required", True
            )
        elif was and not now:
            yield Change(
                "parameter.became_optional", where, f"argument {q.name} is now optional", False
            )

    def _body(self, a: ir.Body | None, b: ir.Body | None, where: str) -> Iterator[Change]:
        where = f"{where} body"
        if a is None and b is None:
            return
        if a is None:
            assert b is not None
            yield Change(
                "body.added",
                where,
                f"new {'required' if b.required else 'optional'} request body "
                f"({show(self.new, b.type)})",
                b.required,
            )
            return
        if b is None:
            yield Change("body.removed", where, "the request body was removed", True)
            return
        if not self.same(a.type, b.type):
            yield Change(
                "body.type_changed",
                where,
                f"body type {show(self.old, a.type)} -> {show(self.new, b.type)}",
                True,
            )
        if b.required and not a.required:
            yield Change("body.became_required", where, "the request body is now required", True)
        elif a.required and not b.required:
            yield Change("body.became_optional", where, "the request body is now optional", False)
        if a.media_type != b.media_type:
            yield Change(
                "body.media_type_changed",
                where,
                f"body sent as {b.media_type} instead of {a.media_type}",
                False,
            )

    # schemas

    def _schemas(self) -> Iterator[Change]:
        for key, schema in self.old.schemas.items():
            if key not in self.pairs:
                yield Change(
                    "schema.removed", f"schema {schema.name}", f"{schema.name} was removed", True
                )
        for key, schema in self.new.schemas.items():
            if key not in self.back:
                yield Change(
                    "schema.added",
                    f"schema {schema.name}",
                    f"new {_kind(schema)} {schema.name}",
                    False,
                )
        for old_key, new_key in self.pairs.items():
            yield from self._schema(old_key, new_key)

    def _schema(self, old_key: str, new_key: str) -> Iterator[Change]:
        a, b = self.old.schemas[old_key], self.new.schemas[new_key]
        where = f"schema {b.name}"
        if a.name != b.name:
            yield Change(
                "schema.renamed", f"schema {a.name}", f"class {a.name} renamed to {b.name}", True
            )
        if type(a) is not type(b):
            yield Change(
                "schema.kind_changed",
                where,
                f"{b.name} is now {_article(_kind(b))} instead of {_article(_kind(a))}",
                True,
            )
        elif isinstance(a, ir.Model) and isinstance(b, ir.Model):
            yield from self._fields(a, b, self._sides(old_key, new_key))
        elif isinstance(a, ir.EnumSchema) and isinstance(b, ir.EnumSchema):
            yield from self._enum(a, b, where)
        elif isinstance(a, ir.UnionSchema) and isinstance(b, ir.UnionSchema):
            yield from self._union(a, b, where)
        elif (
            isinstance(a, ir.AliasSchema)
            and isinstance(b, ir.AliasSchema)
            and not self.same(a.target, b.target)
        ):
            yield Change(
                "schema.type_changed",
                where,
                f"{b.name} is now {show(self.new, b.target)} instead of {show(self.old, a.target)}",
                True,
            )

    def _fields(self, a: ir.Model, b: ir.Model, sides: frozenset[Side]) -> Iterator[Change]:
        olds = {f.wire: f for f in a.fields}
        news = {f.wire: f for f in b.fields}
        request, response = "request" in sides, "response" in sides
        role = " and ".join(sorted(sides))
        for wire, f in olds.items():
            if wire not in news:
                yield Change(
                    "field.removed",
                    f"schema {b.name}.{wire}",
                    f"field {f.name} was removed from {b.name}",
                    True,
                )
        for wire, g in news.items():
            if wire not in olds:
                yield Change(
                    "field.added",
                    f"schema {b.name}.{wire}",
                    f"new {'required' if g.required else 'optional'} field {g.name}: "
                    f"{show(self.new, g.type)} in {b.name} ({role} model)",
                    g.required and request,
                )
        for wire, f in olds.items():
            if wire not in news:
                continue
            g = news[wire]
            where = f"schema {b.name}.{wire}"
            if f.name != g.name:
                yield Change(
                    "field.renamed", where, f"attribute {f.name} renamed to {g.name}", True
                )
            (ft, fnull), (gt, gnull) = _strip_null(f.type), _strip_null(g.type)
            if not self.same(ft, gt):
                yield Change(
                    "field.type_changed",
                    where,
                    f"type {show(self.old, f.type)} -> {show(self.new, g.type)}",
                    True,
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

    def _enum(self, a: ir.EnumSchema, b: ir.EnumSchema, where: str) -> Iterator[Change]:
        if a.base != b.base:
            yield Change(
                "schema.type_changed",
                where,
                f"{b.name} values are now {b.base}, not {a.base}",
                True,
            )
        olds = {m.value: m for m in a.members}
        news = {m.value: m for m in b.members}
        for value, m in olds.items():
            if value not in news:
                yield Change(
                    "enum.value_removed",
                    where,
                    f"value {value!r} ({b.name}.{m.name}) was removed",
                    True,
                )
            elif news[value].name != m.name:
                yield Change(
                    "enum.member_renamed",
                    where,
                    f"member {b.name}.{m.name} renamed to {news[value].name}",
                    True,
                )
        for value, m in news.items():
            if value not in olds:
                yield Change(
                    "enum.value_added", where, f"new value {value!r} ({b.name}.{m.name})", False
                )

    def _union(self, a: ir.UnionSchema, b: ir.UnionSchema, where: str) -> Iterator[Change]:
        came = list(b.variants)
        for v in a.variants:
            twin = next((w for w in came if self.same(v, w)), None)
            if twin is None:
                yield Change(
                    "union.variant_removed",
                    where,
                    f"{show(self.old, v)} is no longer a variant of {b.name}",
                    True,
                )
            else:
                came.remove(twin)
        for w in came:
            yield Change(
                "union.variant_added", where, f"new variant {show(self.new, w)} of {b.name}", False
            )

    # auth

    def _auths(self) -> Iterator[Change]:
        olds = {a.scheme: a for a in self.old.auths}
        news = {a.scheme: a for a in self.new.auths}
        for scheme, a in olds.items():
            if scheme not in news:
                yield Change(
                    "auth.removed",
                    f"auth {scheme}",
                    f"{_auth_text(a)} was removed; the client no longer takes {_auth_args(a)}",
                    True,
                )
        for scheme, b in news.items():
            if scheme not in olds:
                yield Change(
                    "auth.added",
                    f"auth {scheme}",
                    f"new {_auth_text(b)}; the client takes {_auth_args(b)}",
                    False,
                )
        for scheme, a in olds.items():
            if scheme in news and a != news[scheme]:
                now = news[scheme]
                yield Change(
                    "auth.changed",
                    f"auth {scheme}",
                    f"{_auth_text(a)} is now {_auth_text(now)}",
                    type(a) is not type(now) or _auth_args(a) != _auth_args(now),
                )

    # jobs

    def _jobs(self) -> Iterator[Change]:
        olds = {j.name: j for j in self.old.jobs}
        news = {j.name: j for j in self.new.jobs}
        old_waiters, new_waiters = (
            _waiters(self.old, self.old.jobs),
            _waiters(self.new, self.new.jobs),
        )
        for name, job in olds.items():
            if name not in news:
                yield Change(
                    "job.removed",
                    f"job {name}",
                    f"job {name} and its waiters ({old_waiters[name]}(), ...) were removed",
                    True,
                )
        for name, job in news.items():
            if name not in olds:
                yield Change(
                    "job.added",
                    f"job {name}",
                    f"new job {name} (status {job.status.operation_id}), "
                    f"waited for with {new_waiters[name]}()",
                    False,
                )
        for name, a in olds.items():
            b = news.get(name)
            if b is not None:
                yield from self._job(a, b, old_waiters[name], new_waiters[name])

    def _job(self, a: ir.Job, b: ir.Job, old_waiter: str, new_waiter: str) -> Iterator[Change]:
        where = f"job {b.name}"
        if old_waiter != new_waiter:
            yield Change(
                "job.waiters_renamed",
                where,
                f"the waiters moved: {old_waiter}() is now {new_waiter}()",
                True,
            )
        yield from self._states(a, b, where)
        if not self.same(a.record_type, b.record_type):
            yield Change(
                "job.record_changed",
                where,
                f"the waited-for record is {show(self.new, b.record_type)} "
                f"instead of {show(self.old, a.record_type)}",
                True,
            )
        if a.status.operation_id != b.status.operation_id:
            yield Change(
                "job.status_operation_changed",
                where,
                f"status read with {b.status.operation_id} instead of {a.status.operation_id}",
                False,
            )
        for role, x, y in (("create", a.create, b.create), ("result", a.result, b.result)):
            old_id = x.operation_id if x is not None else None
            new_id = y.operation_id if y is not None else None
            if old_id == new_id:
                continue
            if old_id is None:
                yield Change(
                    f"job.{role}_added", where, f"{role} operation {new_id} declared", False
                )
            elif new_id is None:
                yield Change(
                    f"job.{role}_removed",
                    where,
                    f"{role} operation {old_id} no longer declared"
                    + (
                        "; create_and_wait() is gone"
                        if role == "create"
                        else "; waiting for the result returns no result"
                    ),
                    True,
                )
            else:
                yield Change(
                    f"job.{role}_changed", where, f"{role} operation {old_id} -> {new_id}", False
                )
        for label, x2, y2 in (
            ("record", _pointer(a.record_path), _pointer(b.record_path)),
            ("state field", _pointer(a.state_path), _pointer(b.state_path)),
            ("terminal field", _pointer(a.terminal_path), _pointer(b.terminal_path)),
            ("error field", _pointer(a.error_path), _pointer(b.error_path)),
            ("id parameter", a.id_parameter, b.id_parameter),
            ("id from", _id_from(a), _id_from(b)),
        ):
            if x2 != y2:
                yield Change("job.pointer_changed", where, f"{label} {x2} -> {y2}", False)
        if a.ready_path != b.ready_path:
            yield Change(
                "job.ready_field_changed",
                where,
                f"result readiness field {_pointer(a.ready_path)} -> {_pointer(b.ready_path)}",
                False,
            )
        if a.idempotency_header != b.idempotency_header:
            yield Change(
                "job.idempotency_changed",
                where,
                f"idempotency header {a.idempotency_header or '(none)'} -> "
                f"{b.idempotency_header or '(none)'}",
                False,
            )
        for label, x3, y3 in (
            ("floor", a.floor, b.floor),
            ("first", a.first, b.first),
            ("cap", a.cap, b.cap),
            ("body hint", _pointer(a.hint_path), _pointer(b.hint_path)),
            ("body hint unit", a.hint_unit, b.hint_unit),
            ("header hints", _hints(a), _hints(b)),
        ):
            if x3 != y3:
                yield Change("job.poll_changed", where, f"poll {label} {x3} -> {y3}", False)

    def _states(self, a: ir.Job, b: ir.Job, where: str) -> Iterator[Change]:
        olds, news = _states(a), _states(b)
        for state, kind in news.items():
            was = olds.get(state)
            if was is None and kind == "pending":
                yield Change(
                    "job.pending_state_added",
                    where,
                    f"new pending state {state!r}: waiters keep polling through it",
                    False,
                )
            elif was is None:
                yield Change(
                    "job.terminal_state_added",
                    where,
                    f"new terminal state {state!r} ({kind}): waiters now stop on it",
                    True,
                )
            elif was != kind:
                yield Change(
                    "job.state_reclassified",
                    where,
                    f"state {state!r} is now {kind} (was {was})",
                    True,
                )
        for state, kind in olds.items():
            if state not in news:
                yield Change(
                    "job.state_removed",
                    where,
                    f"state {state!r} ({kind}) is no longer documented",
                    False,
                )


def _states(job: ir.Job) -> dict[str, str]:
    out: dict[str, str] = {}
    for kind, states in (
        ("success", job.success),
        ("failure", job.failure),
        ("canceled", job.canceled),
        ("pending", job.pending),
    ):
        for state in states:
            out[state] = kind
    return out


def _pointer(path: tuple[str, ...] | None) -> str:
    if path is None:
        return "(none)"
    return "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in path) or '""'


def _id_from(job: ir.Job) -> str:
    if job.id_header is not None:
        return f"header:{job.id_header}"
    return _pointer(job.id_path)


def _hints(job: ir.Job) -> str:
    return ", ".join(f"{h.name} ({h.format})" for h in job.header_hints) or "(none)"


def _kind(schema: ir.NamedSchema) -> str:
    if isinstance(schema, ir.Model):
        return "model"
    if isinstance(schema, ir.EnumSchema):
        return "enum"
    if isinstance(schema, ir.UnionSchema):
        return "union"
    return "alias"


def _article(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


def _auth_text(auth: ir.Auth) -> str:
    if isinstance(auth, ir.ApiKeyAuth):
        return f"API key in {auth.where} {auth.wire!r}"
    if isinstance(auth, ir.BearerAuth):
        return "bearer token"
    return "HTTP basic auth"


def _auth_args(auth: ir.Auth) -> str:
    if isinstance(auth, ir.BasicAuth):
        return f"{auth.username_param}=, {auth.password_param}="
    return f"{auth.param}="
