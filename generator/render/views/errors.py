"""The errors view: each job's own error classes, typed in its record and error models."""

from __future__ import annotations

from ...model import ir
from ..code import Imports, TypeCode
from ..escape import Code, docstring, ident, join
from .jobs import ErrorClasses, error_type, job_phrase

__all__ = ["error_model_imports", "job_errors_view"]


def job_errors_view(
    code: TypeCode, sdk: ir.Sdk, classes: dict[str, ErrorClasses]
) -> list[dict[str, Code | None]]:
    """Each job's own error classes, typed in its record and error models (and in its
    result, where a failure download goes with the failure)."""
    jobs = []
    for job in sdk.jobs:
        error = error_type(job)
        params = [code.annotation(job.record_type)]
        params.append(Code("None") if error is None else code.annotation(error))
        failed, canceled, timeout, stalled = classes[job.name]
        phrase = job_phrase(job.name)[1]
        phrase = phrase[0].upper() + phrase[1:]
        typed = f"``record`` is the terminal ``{code.annotation(job.record_type)}``"
        if error is not None:
            typed += f"; ``error`` the server's ``{code.annotation(error)}``, or None"
        jobs.append(
            {
                "failure": _failure_annotation(code, job),
                "failed": ident(failed),
                "canceled": ident(canceled),
                "timeout": ident(timeout),
                "stalled": ident(stalled),
                "record": params[0],
                "params": join(", ", params),
                "failed_doc": docstring(f"{phrase} failed: {typed}.", indent=4),
                "canceled_doc": docstring(f"{phrase} was canceled: {typed}.", indent=4),
                "timeout_doc": docstring(
                    f"A wait for {job_phrase(job.name)[1]} passed its deadline: ``record`` is"
                    f" the last ``{params[0]}`` read, or None.",
                    indent=4,
                ),
                "stalled_doc": docstring(
                    f"{phrase} neither changed state nor progress for ``stall_after``:"
                    f" ``record`` is the last ``{params[0]}`` read, or None.",
                    indent=4,
                ),
            }
        )
    return jobs


def _failure_response(job: ir.Job) -> ir.Response | None:
    """What a job's failure download answers (its result operation's), if it has one."""
    if job.result is None or not any(c.failure_source is not None for c in job.carry):
        return None
    return job.result.response


def _failure_type(job: ir.Job) -> ir.TypeRef | None:
    """The model a job's failure download decodes to, if it has one."""
    response = _failure_response(job)
    return response.type if response is not None and response.kind == "json" else None


def _failure_annotation(code: TypeCode, job: ir.Job) -> Code | None:
    """How a job's failure download is typed: as its result is returned."""
    response = _failure_response(job)
    if response is None:
        return None
    if response.kind == "json" and response.type is not None:
        return code.annotation(response.type)
    return Code({"text": "str", "binary": "bytes"}.get(response.kind, "object"))


def error_model_imports(code: TypeCode, sdk: ir.Sdk) -> tuple[list[Code], list[Code]]:
    """What the job error classes' annotations import: modules, then the models."""
    types = [job.record_type for job in sdk.jobs]
    types += [t for t in (error_type(job) for job in sdk.jobs) if t is not None]
    types += [t for t in (_failure_type(job) for job in sdk.jobs) if t is not None]
    modules, models = Imports(), Imports()
    for module in code.needs(types):
        modules.add(module)
    for named in code.references(types):
        models.add(".models." + named.module, named.name)
    return modules.lines(), models.lines()
