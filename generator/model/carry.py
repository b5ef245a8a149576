"""The ``carry`` of a job declaration: values create returns that later calls need.

Some APIs key a job by more than its id: DeepL's document translation returns a
``document_id`` and a ``document_key``, and every status and result request must send
the key back in its body. A job declares such values under ``carry``::

    carry:
      document_key:
        from: /document_key        # JSON pointer into create's response, or header:Name
        to: body:/document_key     # body:/property | query:name | header:Name | path:name

Each carried value is read from create's response, kept in the job handle and the
resume token, and sent with every status, result and cancel call. This module reads
the declaration and answers which inputs of an operation nothing supplies.
"""

from __future__ import annotations

import keyword
import re
from typing import Any, cast

from ..problems import Location, Problem
from . import ir

__all__ = ["read_carry", "unsupplied"]

_CARRY_KEYS = frozenset({"from", "to"})
_TARGETS = ("body", "query", "header", "path")
_SCALARS = ("str", "int", "float", "bool")
#: Names a carried value may not take: the waiters' own keyword arguments.
_RESERVED = frozenset(
    {
        "job_id",
        "job_ids",
        "jobs",
        "deadline",
        "on_poll",
        "resume",
        "stall_after",
        "timeout",
        "concurrency",
        "to_file",
        "poll_timeout",
        "carried",
        "self",
    }
)
_NAME = re.compile(r"[a-z_][a-z0-9_]*\Z")  # \Z: "$" would let a final newline through


# The helpers shared with jobs.py live there; jobs.py imports this module, so they are
# imported when called.


def _closest(value: str, choices: frozenset[str]) -> str:
    from .jobs import _closest as closest

    return closest(value, choices)


def _deref(t: ir.TypeRef, schemas: dict[str, ir.NamedSchema]) -> ir.TypeRef | ir.NamedSchema:
    from .jobs import _deref_type

    return _deref_type(t, schemas)


def _scalar(t: ir.TypeRef, schemas: dict[str, ir.NamedSchema]) -> ir.CarryKind | None:
    node = _deref(t, schemas)
    if isinstance(node, ir.Primitive) and node.kind in _SCALARS:
        return cast(ir.CarryKind, node.kind)
    if isinstance(node, ir.Primitive) and node.kind == "uuid":
        return "str"
    return None


def _body_model(op: ir.Operation, schemas: dict[str, ir.NamedSchema]) -> ir.Model | None:
    if op.body is None or op.body.kind != "json":
        return None
    node = _deref(op.body.type, schemas)
    return node if isinstance(node, ir.Model) else None


def _input(
    op: ir.Operation, target: str, wire: str, schemas: dict[str, ir.NamedSchema]
) -> tuple[ir.TypeRef | None, str]:
    """The type of ``op``'s input ``target:wire``, or why it has none."""
    if target == "body":
        model = _body_model(op, schemas)
        if model is None:
            return None, f"'{op.operation_id}' has no JSON object request body"
        field = next((f for f in model.fields if f.wire == wire), None)
        if field is None:
            known = ", ".join(f.wire for f in model.fields) or "none"
            return None, (
                f"the request body of '{op.operation_id}' ({model.name}) has no property"
                f" '{wire}' (it has: {known})"
            )
        return field.type, ""
    params = [p for p in op.parameters if p.location == target]
    same = (lambda p: p.wire.lower() == wire.lower()) if target == "header" else None
    found = next((p for p in params if (same(p) if same else p.wire == wire)), None)
    if found is None:
        known = ", ".join(p.wire for p in params) or "none"
        return None, f"'{op.operation_id}' has no {target} parameter '{wire}' (it has: {known})"
    return found.type, ""


def read_carry(
    raw: Any,
    at: Location,
    *,
    create: ir.Operation | None,
    calls: list[tuple[str, ir.Operation]],
    id_parameter: str,
    schemas: dict[str, ir.NamedSchema],
    problems: list[Problem],
) -> tuple[ir.Carry, ...]:
    """The ``carry`` mapping of a job, checked against create and every later call.

    ``calls`` are the job's ``(key, operation)`` pairs that receive the values (status,
    result, cancel); each must take every carried value at its ``to``.
    """
    from .jobs import _split_pointer, _unknown_keys, type_at

    if raw is None:
        return ()
    if not isinstance(raw, dict) or not raw:
        problems.append(Problem(at, "must map value names to {from, to}"))
        return ()
    if create is None:
        problems.append(Problem(at, "'carry' needs a 'create' operation to read the values from"))
        return ()
    out: list[ir.Carry] = []
    for name, node in raw.items():
        name = str(name)
        item_at = at.child(name)
        if not _NAME.match(name) or keyword.iskeyword(name) or name in _RESERVED:
            problems.append(
                Problem(
                    item_at,
                    f"'{name}' cannot name a carried value: use a lower-case identifier"
                    " that is not a keyword nor one of the waiters' arguments",
                )
            )
            continue
        if not isinstance(node, dict):
            problems.append(Problem(item_at, "must be a mapping with 'from' and 'to'"))
            continue
        _unknown_keys(node, _CARRY_KEYS, item_at, problems)
        source, to = node.get("from"), node.get("to")
        missing = [key for key, value in (("from", source), ("to", to)) if value is None]
        if missing:
            problems.append(Problem(item_at, f"'{missing[0]}' is required"))
            continue
        # Where the value comes from: create's response body, or one of its headers.
        path: tuple[str, ...] | None = None
        header: str | None = None
        if isinstance(source, str) and source.startswith("header:") and source[7:].strip():
            header = source[7:].strip()
        elif isinstance(source, str) and source.startswith("/"):
            path = _split_pointer(source)
            if create.response.kind != "json" or create.response.type is None:
                problems.append(
                    Problem(
                        item_at.child("from"),
                        f"'{create.operation_id}' has no JSON success response to read"
                        f" '{name}' from",
                    )
                )
            else:
                found, why = type_at(create.response.type, path, schemas)
                if found is None:
                    # type_at names its root "the record"; here it is create's response.
                    why = why.replace("the record", "create's response", 1)
                    problems.append(Problem(item_at.child("from"), f"carry.{name}.from: {why}"))
                elif _scalar(found, schemas) is None and not isinstance(
                    _deref(found, schemas), ir.AnyType
                ):
                    problems.append(
                        Problem(
                            item_at.child("from"),
                            f"'{name}' must be a string, number or boolean in create's response",
                        )
                    )
        else:
            problems.append(
                Problem(
                    item_at.child("from"),
                    f"must be a JSON pointer such as '/{name}' or 'header:Name', not {source!r}",
                )
            )
            continue
        # Where it goes: the same input of every later call.
        target, _, wire = str(to).partition(":") if isinstance(to, str) else ("", "", "")
        if target not in _TARGETS or not wire.strip():
            problems.append(
                Problem(
                    item_at.child("to"),
                    "must be body:/property, query:name, header:Name or path:name,"
                    f" not {to!r}{_closest(target, frozenset(_TARGETS)) if target else ''}",
                )
            )
            continue
        wire = wire.strip()
        if target == "body":
            tokens = _split_pointer(wire) if wire.startswith("/") else ()
            if len(tokens) != 1:
                problems.append(
                    Problem(
                        item_at.child("to"),
                        f"body:{wire}: name one top-level property of the request body,"
                        f" such as body:/{name}",
                    )
                )
                continue
            wire = tokens[0]
        if target == "path" and wire == id_parameter:
            problems.append(
                Problem(item_at.child("to"), f"'{wire}' is the job id parameter, not a carry")
            )
            continue
        kind: ir.CarryKind | None = None
        for key, op in calls:
            found_type, why = _input(op, target, wire, schemas)
            if found_type is None:
                problems.append(Problem(item_at.child("to"), f"{why} (the job's {key} operation)"))
                continue
            scalar = _scalar(found_type, schemas)
            if scalar is None:
                problems.append(
                    Problem(
                        item_at.child("to"),
                        f"{target} '{wire}' of '{op.operation_id}' must be a string, number"
                        " or boolean to carry a value",
                    )
                )
                continue
            kind = kind or scalar
        if kind is not None:
            out.append(ir.Carry(name, path, header, cast(ir.CarryTarget, target), wire, kind))
    return tuple(out)


def unsupplied(
    op: ir.Operation,
    id_parameter: str,
    carry: tuple[ir.Carry, ...],
    schemas: dict[str, ir.NamedSchema],
) -> list[str]:
    """The required inputs of ``op`` that neither the job id nor a carried value supplies."""
    given = {(c.target, c.wire.lower() if c.target == "header" else c.wire) for c in carry}
    needs = []
    for p in op.parameters:
        if not p.required or p.has_default or p.wire == id_parameter:
            continue
        wire = p.wire.lower() if p.location == "header" else p.wire
        if (p.location, wire) not in given:
            needs.append(f"{p.location} parameter '{p.wire}'")
    into_body = {wire for target, wire in given if target == "body"}
    if into_body:
        # The body is built from the carried values alone: they must fill it.
        model = _body_model(op, schemas)
        for field in model.fields if model is not None else ():
            if field.required and field.wire not in into_body:
                needs.append(f"body property '{field.wire}'")
    elif op.body is not None and op.body.required:
        needs.append("a request body")
    return needs
