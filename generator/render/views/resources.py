"""Resource views: a resource module, its operations and jobs, and what it imports."""

from __future__ import annotations

from typing import Any

import attrs

from ...model import ir
from ..code import Imports, TypeCode, all_key, names_in
from ..escape import Code, doc_text, ident, join, py_str
from .jobs import ErrorClasses, job_view
from .models import module_imports, ref_items
from .operations import operation_view

__all__ = ["resource_view"]


_LAZY_RUNTIME = (
    ("http.events", "_events"),
    ("waiting.handle", "_handle"),
    ("webhooks.deliveries", "_wh"),
)
_RESOURCE_STATIC = "_http httpx _resp functools"
_OPERATION_STATIC = "_http httpx"
_JOB_STATIC = "_abc _ws _waiter _handle _statusread _jobhttp"


def _resource_code(ops: list[dict[str, Any]], jobs: list[dict[str, Any]]) -> str:
    """The code (no docstrings) a resource module holds besides its template's fixed text."""
    parts = [_RESOURCE_STATIC]
    for op in ops:
        parts += [_OPERATION_STATIC, op["signature"], op["call_args"], op["path"], op["returns"]]
        if op["paging"] is not None:
            parts += ["_pages", op["paging"]["item"], op["paging"]["decoder"]]
        if op["events"] is not None:
            parts += ["_events", op["events"]["item"], op["events"]["decoder"] or ""]
        parts += [op["decode"], op["header_dict"], op["params"] or "", *op["body_args"]]
    for job in jobs:
        parts += [_JOB_STATIC, *job["spec_args"].values(), job["record_annotation"]]
        parts += [job["record_decoder"], job["result_returns"], job["create_returns"]]
        parts.append(job["status_options"])
        if job["carry"]["names"]:
            parts.append("_carry")
        if job["webhooks"]:
            hooks = job["webhooks"]
            parts += ["_wh _hybrid _t", *hooks["args"].values(), hooks["event_annotation"]]
            parts.append(hooks["event_decoder"] or "")
        if job["result"]:
            # every result fetch takes to_file (a _dl.PathLike)
            parts += [job["result"]["options"], job["result"]["response"], "_dl"]
            if job["result"]["to_file"]:
                parts.append("_t")  # the overloads of wait_for_result (read_back)
        if job["cancel"]:
            parts += [job["cancel"]["options"], job["cancel"]["response"], job["cancel"]["returns"]]
        if job["create"]:
            parts += [job["create"]["signature"], job["create"]["call_args"]]
            if not job["record_result"] or not job["outcome_is_result"]:
                parts.append("_t.cast")
            parts.append(job["create"]["start_signature"])
            parts.append(job["create"]["request"])
    return " ".join(parts)


def resource_view(
    code: TypeCode,
    resource: ir.Resource,
    owner: dict[str, str],
    classes: dict[str, ErrorClasses] | None = None,
    job_operations: frozenset[str] = frozenset(),
    shared: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """The view of one resource module. ``shared``: the names of its request builders
    that sibling modules import (listed in its ``__all__``, which type checkers read as
    what the module exports; the view's ``imports_from`` says what it takes itself)."""
    if any(op.name == "list" for op in resource.operations):
        code = attrs.evolve(code, shadowed=frozenset({"list"}))
    keys = {
        j.create.operation_id: j.idempotency_header for j in resource.jobs if j.create is not None
    }
    # A job's own calls follow a redirect beside their success, as the waiter needs.
    ops = [
        operation_view(
            code, op, keys.get(op.operation_id), follow=op.operation_id in job_operations
        )
        for op in resource.operations
    ]
    taken = frozenset(op.name for op in resource.operations)
    jobs = [
        job_view(
            code,
            job,
            len(resource.jobs) == 1,
            owner,
            taken,
            (classes or {}).get(job.name),
            resource.module,
        )
        for job in resource.jobs
    ]
    types = [t for op in ops for t in op["types"]] + [t for job in jobs for t in job["types"]]
    refs = ref_items(code, types)
    cross: dict[str, set[str]] = {}
    for job in jobs:
        status_import = job["status_import"]
        by_id = job["status_request"] in job["status_options"]
        if status_import and status_import != resource.module and by_id:
            cross.setdefault(status_import, set()).add(job["status_request"])
        if job["result"] and job["result"]["module"] != resource.module:
            cross.setdefault(job["result"]["module"], set()).add(job["result"]["response"])
            if job["result"]["request"] in job["result"]["options"]:
                cross[job["result"]["module"]].add(job["result"]["request"])
        if job["cancel"] and job["cancel"]["module"] != resource.module:
            cross.setdefault(job["cancel"]["module"], set()).add(job["cancel"]["response"])
            if job["cancel"]["request"]:
                cross[job["cancel"]["module"]].add(job["cancel"]["request"])
        if job["create"] and job["create"]["module"] != resource.module:
            cross.setdefault(job["create"]["module"], set()).add(job["create"]["request"])
    # A function of a sibling module is imported under its job view's alias (this module
    # may define one of the same name: both have a ``_get_response``).
    aliases = {alias: own for job in jobs for alias, (_, own) in job["helpers"].items()}
    imports = module_imports(code, types)
    if code.shadowed:
        imports.add("builtins")
    imports.add("collections.abc")
    imports.add("functools")
    imports.add("typing")
    imports.add("httpx")
    for module, alias in [
        ("wire.serde", "_s"),
        ("http.layer", "_http"),
        ("http.response", "_resp"),
        ("http.pagination", "_pages"),
        ("wire.encoding", "_wire"),
        ("waiting.waiter", "_waiter"),
        ("waiting.spec", "_ws"),
        ("waiting.carry", "_carry"),
        ("http.download", "_dl"),
        ("wire.styles", "_styles"),
        ("webhooks.hybrid", "_hybrid"),
        ("waiting.opurl", "_opurl"),
        ("waiting.statusread", "_statusread"),
        ("waiting.jobhttp", "_jobhttp"),
    ]:
        package, name = module.rsplit(".", 1)
        imports.add(f".._runtime.{package}", name, alias)
    # Handles, event streams and webhook receivers load when a method asks for one
    # (each imports its module in its body); a plain call or wait needs none of them.
    lazy = Imports()
    for module, alias in _LAZY_RUNTIME:
        package, name = module.rsplit(".", 1)
        lazy.add(f".._runtime.{package}", name, alias)
    imports.add(".._runtime.http.layer", "path_param", "_path")
    imports.add(".._runtime.http.layer", "multipart", "_multipart")
    imports.add(".._runtime.http.layer", "with_header", "_with_key")
    for job in jobs:
        for name in job["error_classes"]:
            imports.add("..errors", name)
    for ref in refs:
        for name in ref["runtime"].split(", "):
            imports.add("..models." + ref["module"], name)
    for module, names in cross.items():
        for name in names:
            imports.add("." + module, aliases.get(name, name), name if name in aliases else "")
    used = names_in(_resource_code(ops, jobs))
    type_imports = [Code("    " + line) for line in lazy.used(used).lines(4)]
    if type_imports:
        imports.add("typing")
        used.add("_t")
    return {
        "name": ident(resource.name),
        "doc_name": doc_text(resource.name),
        "module": ident(resource.module),
        "attr": ident(resource.attr),
        "operations": ops,
        "jobs": jobs,
        "refs": refs,
        # A resource with jobs takes the HTTP layer that carries the client's waits.
        "http_types": (
            (Code("_jobhttp.SyncJobHTTP"), Code("_jobhttp.AsyncJobHTTP"))
            if jobs
            else (Code("_http.SyncHTTP"), Code("_http.AsyncHTTP"))
        ),
        "imports": imports.used(used).lines(),
        "type_imports": type_imports,
        "all_names": join(
            ", ",
            [
                py_str(n)
                for n in sorted(
                    [
                        *(
                            prefix + resource.name + suffix
                            for prefix in ["", "Async"]
                            for suffix in ["", "WithRawResponse", "WithStreamingResponse"]
                        ),
                        *shared,
                    ],
                    key=all_key,
                )
            ],
        ),
        "imports_from": {
            module: frozenset(aliases.get(n, n) for n in names) for module, names in cross.items()
        },
        "has_multipart": any("_multipart" in arg for op in ops for arg in op["body_args"]),
        "has_with_key": any(
            job["create"] and "_with_key(" in job["create"]["call_args"] for job in jobs
        ),
    }
