"""The ``carry`` of a job declaration: values create returns that later calls need.

Some APIs key a job by more than its id: DeepL's document translation returns a
``document_id`` and a ``document_key``, and every status and result request must send
the key back in its body. A job declares such values under ``carry``::

    carry:
      document_key:
        from: /document_key        # JSON pointer into create's response, or header:Name
        to: body:/document_key     # body:/property | query:name | header:Name | path:name

Each carried value is read from create's response, kept in the job handle and the
resume token, and sent with every status, result and cancel call.

A value may instead come from the terminal record (``from: record:/output_file_id``,
OpenAI's batches): it exists only once the job ended, so it goes to the result
operation alone, which then need not take the job id. ``failure_from`` (such values
only) names where a failed record holds the value for the failure download: the
result operation called once more, with that value, when the job fails (OpenAI's
``error_file_id``). This module reads the declaration and answers which inputs of an
operation nothing supplies.
"""

from __future__ import annotations

import keyword
import re
from typing import Any, cast

from ...problems import Location, Problem, did_you_mean
from .. import ir
from .common import deref_type, split_pointer, type_at, unknown_keys

__all__ = ["read_carry", "read_constants", "unsupplied"]

_CARRY_KEYS = frozenset({"from", "to", "failure_from"})
_RECORD = "record:"
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


def _scalar(t: ir.TypeRef, schemas: dict[str, ir.NamedSchema]) -> ir.CarryKind | None:
    node = deref_type(t, schemas)
    if isinstance(node, ir.Primitive) and node.kind in _SCALARS:
        return cast(ir.CarryKind, node.kind)
    if isinstance(node, ir.Primitive) and node.kind == "uuid":
        return "str"
    return None


def _body_model(op: ir.Operation, schemas: dict[str, ir.NamedSchema]) -> ir.Model | None:
    if op.body is None or op.body.kind != "json":
        return None
    node = deref_type(op.body.type, schemas)
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
    record: ir.TypeRef | None = None,
    final_from: str = "result",
) -> tuple[ir.Carry, ...]:
    """The ``carry`` mapping of a job, checked against create and every later call.

    ``calls`` are the job's ``(key, operation)`` pairs that receive the values (status,
    result, cancel); each must take every carried value at its ``to``. A value read
    from the terminal record (typed by ``record``) goes to the result operation alone.
    """

    if raw is None:
        return ()
    if not isinstance(raw, dict) or not raw:
        problems.append(Problem(at, "must map value names to {from, to}"))
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
        unknown_keys(node, _CARRY_KEYS, item_at, problems)
        source, to = node.get("from"), node.get("to")
        missing = [key for key, value in (("from", source), ("to", to)) if value is None]
        if missing:
            problems.append(Problem(item_at, f"'{missing[0]}' is required"))
            continue
        from_record = isinstance(source, str) and source.startswith(_RECORD)
        if from_record:
            found = _record_source(
                name, node, item_at, calls, record, final_from, schemas, problems
            )
            if found is None:
                continue
            path, failure = found
            targets = [(key, op) for key, op in calls if key == "result"]
            carried = _target(
                name, to, item_at.child("to"), targets, id_parameter, schemas, problems
            )
            if carried is not None:
                target, wire, kind = carried
                out.append(ir.Carry(name, path, None, target, wire, kind, True, failure))
            continue
        if "failure_from" in node:
            problems.append(
                Problem(
                    item_at.child("failure_from"),
                    "'failure_from' goes with a value of the terminal record"
                    f" (from: record:/{name}): the failure download reads the failed record",
                )
            )
        if create is None:
            problems.append(
                Problem(
                    item_at.child("from"),
                    f"'{name}' is read from create's response, and the job declares no 'create'"
                    f" (a value of the terminal record is written from: record:/{name})",
                )
            )
            continue
        read = _create_source(name, source, item_at, create, schemas, problems)
        if read is None:
            continue
        carried = _target(name, to, item_at.child("to"), calls, id_parameter, schemas, problems)
        if carried is not None:
            target, wire, kind = carried
            out.append(ir.Carry(name, read[0], read[1], target, wire, kind))
    return tuple(out)


def _create_source(
    name: str,
    source: Any,
    item_at: Location,
    create: ir.Operation,
    schemas: dict[str, ir.NamedSchema],
    problems: list[Problem],
) -> tuple[tuple[str, ...] | None, str | None] | None:
    """Where a value comes from in create's answer: ``(pointer, None)`` into its
    body or ``(None, header)``; None (reported) when ``source`` says neither."""

    if isinstance(source, str) and source.startswith("header:") and source[7:].strip():
        return None, source[7:].strip()
    if not (isinstance(source, str) and source.startswith("/")):
        problems.append(
            Problem(
                item_at.child("from"),
                f"must be a JSON pointer such as '/{name}', 'header:Name' or"
                f" 'record:/{name}', not {source!r}",
            )
        )
        return None
    path = split_pointer(source)
    if create.response.kind != "json" or create.response.type is None:
        problems.append(
            Problem(
                item_at.child("from"),
                f"'{create.operation_id}' has no JSON success response to read '{name}' from",
            )
        )
        return path, None
    found, why = type_at(create.response.type, path, schemas, "the create answer", arrays=True)
    if found is None:
        problems.append(Problem(item_at.child("from"), why))
    elif _scalar(found, schemas) is None and not isinstance(deref_type(found, schemas), ir.AnyType):
        problems.append(
            Problem(
                item_at.child("from"),
                f"'{name}' must be a string, number or boolean in create's response",
            )
        )
    return path, None


def _record_source(
    name: str,
    node: dict[str, Any],
    item_at: Location,
    calls: list[tuple[str, ir.Operation]],
    record: ir.TypeRef | None,
    final_from: str,
    schemas: dict[str, ir.NamedSchema],
    problems: list[Problem],
) -> tuple[tuple[str, ...], tuple[str, ...] | None] | None:
    """``from: record:/pointer`` (and ``failure_from``) of a value the terminal record
    holds: the pointers into the record, or None (reported)."""
    if not any(key == "result" for key, _ in calls):
        problems.append(
            Problem(
                item_at.child("from"),
                f"a value of the terminal record is sent to the result operation:"
                f" the job declares no 'result' to send '{name}' to",
            )
        )
        return None
    if final_from != "result":
        problems.append(
            Problem(
                item_at.child("from"),
                f"a value of the terminal record is sent to the result operation, which"
                f" final_from: {final_from} never calls by itself",
            )
        )
        return None
    path = _record_pointer(name, node["from"], item_at.child("from"), record, schemas, problems)
    failure = node.get("failure_from")
    failure_path = None
    if failure is not None:
        if not (isinstance(failure, str) and failure.startswith(_RECORD)):
            problems.append(
                Problem(
                    item_at.child("failure_from"),
                    f"must name a value of the failed record, such as 'record:/error_{name}',"
                    f" not {failure!r}",
                )
            )
            return None
        failure_path = _record_pointer(
            name, failure, item_at.child("failure_from"), record, schemas, problems
        )
        if failure_path is None:
            return None
    return None if path is None else (path, failure_path)


def _record_pointer(
    name: str,
    source: str,
    at: Location,
    record: ir.TypeRef | None,
    schemas: dict[str, ir.NamedSchema],
    problems: list[Problem],
) -> tuple[str, ...] | None:
    """The pointer of ``record:/pointer``, checked against the record's schema."""

    pointer = source[len(_RECORD) :]
    if not pointer.startswith("/"):
        problems.append(
            Problem(
                at, f"must be record: and a JSON pointer into the record, such as 'record:/{name}'"
            )
        )
        return None
    path = split_pointer(pointer)
    if record is None:
        return path
    found, why = type_at(record, path, schemas, arrays=True)
    if found is None:
        problems.append(Problem(at, why))
        return None
    if _scalar(found, schemas) is None and not isinstance(deref_type(found, schemas), ir.AnyType):
        problems.append(Problem(at, f"'{name}' must be a string, number or boolean in the record"))
        return None
    return path


def _target(
    name: str,
    to: Any,
    to_at: Location,
    calls: list[tuple[str, ir.Operation]],
    id_parameter: str,
    schemas: dict[str, ir.NamedSchema],
    problems: list[Problem],
) -> tuple[ir.CarryTarget, str, ir.CarryKind] | None:
    """Where a value goes, the same input of every call in ``calls``, and its type;
    None (reported) when ``to`` names no input every call has."""

    target, _, wire = str(to).partition(":") if isinstance(to, str) else ("", "", "")
    if target not in _TARGETS or not wire.strip():
        problems.append(
            Problem(
                to_at,
                "must be body:/property, query:name, header:Name or path:name,"
                f" not {to!r}{did_you_mean(target, _TARGETS) if target else ''}",
            )
        )
        return None
    wire = wire.strip()
    if target == "body":
        tokens = split_pointer(wire) if wire.startswith("/") else ()
        if len(tokens) != 1:
            problems.append(
                Problem(
                    to_at,
                    f"body:{wire}: name one top-level property of the request body,"
                    f" such as body:/{name}",
                )
            )
            return None
        wire = tokens[0]
    if target == "path" and wire == id_parameter:
        problems.append(Problem(to_at, f"'{wire}' is the job id parameter, not a carry"))
        return None
    kind: ir.CarryKind | None = None
    for key, op in calls:
        found_type, why = _input(op, target, wire, schemas)
        if found_type is None:
            problems.append(Problem(to_at, f"{why} (the job's {key} operation)"))
            continue
        scalar = _scalar(found_type, schemas)
        if scalar is None:
            problems.append(
                Problem(
                    to_at,
                    f"{target} '{wire}' of '{op.operation_id}' must be a string, number"
                    " or boolean to carry a value",
                )
            )
            continue
        kind = kind or scalar
    return None if kind is None else (cast(ir.CarryTarget, target), wire, kind)


_CALLS = ("status", "result", "cancel")
_PY_KINDS: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "int": (int,),
    "float": (int, float),
    "bool": (bool,),
}


def read_constants(
    raw: Any,
    at: Location,
    *,
    calls: list[tuple[str, ir.Operation]],
    id_parameter: str,
    schemas: dict[str, ir.NamedSchema],
    problems: list[Problem],
) -> tuple[ir.Constant, ...]:
    """``constants``: values the declaration gives the status, result or cancel call,
    each ``{input: value}`` with the input written as a carry's ``to``::

        constants:
          cancel:
            query:force: true        # DELETE /jobs/{id}?force=true

    Each input must exist on that call's operation, of a string, number or boolean
    type that the value has."""
    if raw is None:
        return ()
    if not isinstance(raw, dict) or not raw:
        problems.append(Problem(at, "must map a call (status, result or cancel) to {input: value}"))
        return ()
    ops = dict(calls)
    out: list[ir.Constant] = []
    for call, given in raw.items():
        call_at = at.child(str(call))
        if call not in _CALLS:
            problems.append(
                Problem(
                    call_at,
                    f"unknown call '{call}'{did_you_mean(str(call), _CALLS)}: constants go"
                    " to status, result or cancel",
                )
            )
            continue
        op = ops.get(call)
        if op is None:
            problems.append(Problem(call_at, f"the job declares no '{call}' operation"))
            continue
        if not isinstance(given, dict) or not given:
            problems.append(
                Problem(call_at, "must map inputs (such as query:force) to their values")
            )
            continue
        for to, value in given.items():
            to_at = call_at.child(str(to))
            if not isinstance(value, (bool, str, int, float)):
                problems.append(
                    Problem(to_at, f"must be a string, number or boolean, not {value!r}")
                )
                continue
            found = _target(str(to), to, to_at, [(call, op)], id_parameter, schemas, problems)
            if found is None:
                continue
            target, wire, kind = found
            if isinstance(value, bool) != (kind == "bool") or not isinstance(
                value, _PY_KINDS[kind]
            ):
                problems.append(
                    Problem(
                        to_at,
                        f"{target} '{wire}' of '{op.operation_id}' is a"
                        f" {_KIND_WORDS[kind]}, not {value!r}",
                    )
                )
                continue
            out.append(ir.Constant(cast(Any, call), target, wire, value))
    return tuple(out)


_KIND_WORDS = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}


def unsupplied(
    op: ir.Operation,
    id_parameter: str,
    carry: tuple[ir.Carry, ...],
    schemas: dict[str, ir.NamedSchema],
    constants: tuple[ir.Constant, ...] = (),
) -> list[str]:
    """The required inputs of ``op`` that neither the job id, a carried value nor a
    constant of the declaration supplies."""
    inputs: list[tuple[str, str]] = [(c.target, c.wire) for c in carry]
    inputs += [(c.target, c.wire) for c in constants]
    given = {(target, wire.lower() if target == "header" else wire) for target, wire in inputs}
    needs = []
    for p in op.parameters:
        # A required parameter of a single value (Anthropic's `anthropic-version`, an
        # enum of one) is sent with that value, as its default.
        single = isinstance(deref_type(p.type, schemas), ir.ConstType)
        if not p.required or p.has_default or single or p.wire == id_parameter:
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
