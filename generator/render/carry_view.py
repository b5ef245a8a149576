"""What a job's ``carry`` and ``result_once`` add to its view (see ``model/declare/carry.py``).

A job that carries values takes them as typed keyword arguments (``document_key: str``)
in its waits, handles and cancel, and its status, result and cancel calls put them
where the API wants them: a parameter, or a property of the request body, which is
then built from the carried values alone.
"""

from __future__ import annotations

from typing import Any

from ..model import ir
from .code import TypeCode
from .escape import Code, ident, join, py_literal, py_str

__all__ = ["carry_call", "carry_spec_args", "carry_view"]

_KINDS = {"str": "str", "int": "int", "float": "float", "bool": "bool"}


def carry_spec_args(job: ir.Job) -> dict[str, Code]:
    """The ``JobSpec`` arguments of ``carry`` and ``result_once`` (none when unused)."""
    args: dict[str, Code] = {}
    if job.carry:
        values = []
        for c in job.carry:
            where = (
                f"header={py_str(c.header)}"
                if c.header is not None
                else f"path={_tuple([py_str(t) for t in c.source or ()])}"
            )
            if c.record:
                where += ", record=True"
            if c.failure_source is not None:
                where += f", failure_path={_tuple([py_str(t) for t in c.failure_source])}"
            values.append(f"_carry.CarriedValue({py_str(c.name)}, {where}, kind={_KINDS[c.kind]})")
        args["carry"] = Code(f"_carry.Carry({_tuple(values)})")
    if job.result_once:
        args["result_once"] = Code("True")
    return args


def _tuple(items: list[str]) -> str:
    return f"({items[0]},)" if len(items) == 1 else "(" + ", ".join(items) + ")"


def _take(c: ir.Carry) -> str:
    return f"_carry.take(carried, {py_str(c.name)}, {_KINDS[c.kind]})"


def _call_key(job: ir.Job, op: ir.Operation) -> str:
    if op is job.status:
        return "status"
    return "result" if op is job.result else "cancel"


def carry_call(code: TypeCode, job: ir.Job, op: ir.Operation) -> Code:
    """The arguments of ``op``'s request function: the job id (where ``op`` takes it),
    the carried values (the terminal record's go to the result operation alone) and
    the constants the declaration gives this call."""
    id_param = next((p for p in op.path_parameters if p.wire == job.id_parameter), None)
    key = _call_key(job, op)
    constants = [c for c in job.constants if c.call == key]
    if not job.carry and not constants:
        return Code("job_id")
    sent = [c for c in job.carry if not c.record or op is job.result]
    args = [] if id_param is None else [f"{id_param.name}=job_id"]
    fields: list[tuple[str, str]] = []
    given: list[tuple[ir.CarryTarget, str, str]] = [(c.target, c.wire, _take(c)) for c in sent] + [
        (c.target, c.wire, py_literal(c.value)) for c in constants
    ]
    for target, wire, value in given:
        if target == "body":
            fields.append((wire, value))
            continue
        same = wire.lower() if target == "header" else wire
        param = next(
            p
            for p in op.parameters
            if p.location == target and (p.wire.lower() if target == "header" else p.wire) == same
        )
        args.append(f"{param.name}={value}")
    if fields and op.body is not None:
        model = code.resolve(op.body.type)
        named = code.schemas[model.key] if isinstance(model, ir.Ref) else None
        assert isinstance(named, ir.Model)
        by_wire = {f.wire: f.name for f in named.fields}
        values = ", ".join(f"{by_wire[wire]}={value}" for wire, value in fields)
        args.append(f"body={code.annotation(op.body.type)}({values})")
    return Code(", ".join(args))


def carry_view(job: ir.Job) -> dict[str, Any]:
    """Signature and call fragments of the job's carried values (empty without any):
    those of create's answer, which callers pass (the SDK reads the terminal record's)."""
    given = [c for c in job.carry if not c.record]
    names = [ident(c.name) for c in given]
    kinds = [_KINDS[c.kind] for c in given]
    return {
        "optional": Code("".join(f", {n}: {k} | None = None" for n, k in zip(names, kinds))),
        "required": Code("".join(f", {n}: {k}" for n, k in zip(names, kinds))),
        "carried": (
            Code(
                ", carried={"
                + join(", ", [Code(f"{py_str(c.name)}: {n}") for c, n in zip(given, names)])
                + "}"
            )
            if given
            else Code("")
        ),
        "kwargs": Code("".join(f", {n}={n}" for n in names)),
        "names": names,
        "failure_download": any(c.failure_source is not None for c in job.carry),
    }
