"""Changes to operations: methods, parameters, request bodies and responses."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import ir
from .changes import Change
from .context import Context
from .details import Facets, ResponseFacts, parameter_facets, response_facts
from .schemas import constraint_diff
from .typeref import operations, show

__all__ = ["operation_changes"]


# operations


def operation_changes(ctx: Context) -> Iterator[Change]:
    old_ops, new_ops = operations(ctx.old), operations(ctx.new)
    removed = [i for i in old_ops if i not in new_ops]
    added = [i for i in new_ops if i not in old_ops]
    pairs = [(i, i) for i in old_ops if i in new_ops]
    for old_id in list(removed):
        _, op = old_ops[old_id]
        twins = [
            i for i in added if (new_ops[i][1].method, new_ops[i][1].path) == (op.method, op.path)
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
        yield from _operation(ctx, old_ops[old_id], new_ops[new_id], old_id, new_id)


def _operation(
    ctx: Context,
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
    yield from _parameters(ctx, a, b, where)
    yield from _body(ctx, a.body, b.body, where)
    old_ret, new_ret = _returns(a.response), _returns(b.response)
    if not _same_return(ctx, old_ret, new_ret):
        yield Change(
            "response.type_changed",
            f"{where} response",
            f"{new_method}() returns {_show_return(ctx.new, new_ret)} "
            f"instead of {_show_return(ctx.old, old_ret)}",
            True,
        )
    x, y = response_facts(ctx.old, a), response_facts(ctx.new, b)
    if x is not None and y is not None:
        yield from _response(x, y, f"{where} response", _job_headers(ctx.old, old_id))


def _response(x: ResponseFacts, y: ResponseFacts, where: str, read: set[str]) -> Iterator[Change]:
    """Success statuses, media types and headers: the SDK accepts any 2xx and decodes
    the body by kind, so only a header that a job reads is one callers depend on."""
    if x.statuses != y.statuses:
        yield Change(
            "response.status_changed",
            where,
            f"success statuses {_listed(x.statuses)} -> {_listed(y.statuses)}",
            False,
        )
    if x.media_types != y.media_types:
        yield Change(
            "response.media_types_changed",
            where,
            f"media types {_listed(x.media_types)} -> {_listed(y.media_types)}",
            False,
        )
    for header in sorted(set(x.headers) - set(y.headers)):
        used = header in read
        yield Change(
            "response.header_removed",
            where,
            f"header {header} is no longer documented"
            + ("; the job's waiters read it" if used else ""),
            used,
        )
    for header in sorted(set(y.headers) - set(x.headers)):
        yield Change("response.header_added", where, f"new header {header}", False)


def _job_headers(sdk: ir.Sdk, operation_id: str) -> set[str]:
    """Headers of an operation's response that a job reads: the new job's id, poll hints."""
    read: set[str] = set()
    for job in sdk.jobs:
        if job.create is not None and job.create.operation_id == operation_id and job.id_header:
            read.add(job.id_header.lower())
        if job.status.operation_id == operation_id:
            read.update(h.name.lower() for h in job.header_hints)
    return read


def _listed(items: tuple[str, ...]) -> str:
    return ", ".join(items) or "(none)"


def _returns(response: ir.Response) -> tuple[str, ir.TypeRef | None]:
    if response.kind == "json" and response.type is not None:
        return "json", response.type
    if response.kind in ("text", "binary"):
        return response.kind, None
    return "empty", None


def _same_return(
    ctx: Context, a: tuple[str, ir.TypeRef | None], b: tuple[str, ir.TypeRef | None]
) -> bool:
    return a[0] == b[0] and ctx.same(a[1], b[1])


def _show_return(sdk: ir.Sdk, ret: tuple[str, ir.TypeRef | None]) -> str:
    kind, t = ret
    if kind == "json":
        return show(sdk, t)
    return {"text": "str", "binary": "bytes"}.get(kind, "None")


def _parameters(ctx: Context, a: ir.Operation, b: ir.Operation, where: str) -> Iterator[Change]:
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
        if twins and ctx.same(p.type, twins[0].type):
            gone.remove(p)
            came.remove(twins[0])
            pairs.append((p, twins[0]))
    # One query/header/cookie parameter swapped for one of the same type: a rename.
    for location in ("query", "header", "cookie"):
        g = [p for p in gone if p.location == location]
        c = [q for q in came if q.location == location]
        if len(g) == 1 and len(c) == 1 and ctx.same(g[0].type, c[0].type):
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
            f"(argument {q.name}: {show(ctx.new, q.type)})",
            needed,
        )
    old_facets, new_facets = parameter_facets(ctx.old, a), parameter_facets(ctx.new, b)
    for p, q in pairs:
        at = f"{where} parameter {p.wire}"
        yield from _parameter(ctx, p, q, at)
        yield from constraint_diff(
            old_facets.get((p.location, p.wire), Facets()),
            new_facets.get((q.location, q.wire), Facets()),
            at,
            sent=True,
        )
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


def _parameter(ctx: Context, p: ir.Parameter, q: ir.Parameter, where: str) -> Iterator[Change]:
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
    if not ctx.same(p.type, q.type):
        widened = ctx.widens(p.type, q.type)
        yield Change(
            "parameter.type_changed",
            where,
            f"argument {q.name} type {show(ctx.old, p.type)} -> {show(ctx.new, q.type)}"
            + (" (widened)" if widened else ""),
            not widened,
        )
    if (p.has_default, p.default) != (q.has_default, q.default):
        yield Change(
            "default.changed",
            where,
            f"argument {q.name} default {_default(p)} -> {_default(q)}",
            p.has_default,
        )
    was = p.required and not p.has_default
    now = q.required and not q.has_default
    if now and not was:
        yield Change("parameter.became_required", where, f"argument {q.name} is now required", True)
    elif was and not now:
        yield Change(
            "parameter.became_optional", where, f"argument {q.name} is now optional", False
        )


def _body(ctx: Context, a: ir.Body | None, b: ir.Body | None, where: str) -> Iterator[Change]:
    where = f"{where} body"
    if a is None and b is None:
        return
    if a is None:
        assert b is not None
        yield Change(
            "body.added",
            where,
            f"new {'required' if b.required else 'optional'} request body "
            f"({show(ctx.new, b.type)})",
            b.required,
        )
        return
    if b is None:
        yield Change("body.removed", where, "the request body was removed", True)
        return
    if not ctx.same(a.type, b.type):
        widened = ctx.widens(a.type, b.type)
        yield Change(
            "body.type_changed",
            where,
            f"body type {show(ctx.old, a.type)} -> {show(ctx.new, b.type)}"
            + (" (widened)" if widened else ""),
            not widened,
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


def _default(p: ir.Parameter) -> str:
    return repr(p.default) if p.has_default else "(none)"
