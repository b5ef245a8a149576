"""The README view: what the SDK's README tells of it, as plain data.

Names, states, polling schedules and which features the SDK has; every string from the
spec is escaped for where it lands (``md_text`` in prose, ``md_code`` in a code span,
``ident`` for a name in example code). The prose and the example code are the
template's (templates/README.md.jinja).
"""

from __future__ import annotations

from typing import Any

from ...model import ir
from ..code import TypeCode
from ..escape import Code, ident, md_code, md_text, py_str
from .client import default_base_url, env_prefix
from .jobs import job_phrase
from .operations import required_keywords

__all__ = ["readme_view"]


def _number(value: float) -> Code:
    return Code(format(value, "g"))


def _credential_params(sdk: ir.Sdk) -> list[str]:
    """The client's credential parameters, in the order it takes them."""
    return [
        param
        for auth in sdk.auths
        for param in (
            [auth.username_param, auth.password_param]
            if isinstance(auth, ir.BasicAuth)
            else [auth.param]
        )
    ]


def _call(
    code: TypeCode, resource: ir.Resource, op: ir.Operation, method: str | None = None
) -> dict[str, Any]:
    """An example call of ``op``: where it is, and what it needs (each given as ``...``):
    its path parameters in order, then its required body and keyword parameters."""
    keywords = ["body"] if op.body is not None and op.body.required else []
    return {
        "attr": ident(resource.attr),
        "name": ident(method or op.name),
        "path_params": [ident(p.name) for p in op.path_parameters],
        "keywords": [
            ident(name) for name in keywords + [p.name for p in required_keywords(code, op)]
        ],
    }


def _job(resource: ir.Resource, job: ir.Job, names: dict[str, Any]) -> dict[str, Any]:
    """One job: its methods (``names``, the resource view's), states and schedule."""
    given = [c for c in job.carry if not c.record]  # what callers pass
    cancel = names["cancel"]
    return {
        "attr": ident(resource.attr),
        "phrase": md_text(job_phrase(job.name)[0]),
        "record": md_code(str(names["record_annotation"])),
        "failed_class": names["error_classes"][0],
        "canceled_class": names["error_classes"][1],
        **{
            method: names[method]
            for method in (
                "wait_for_job",
                "wait_for_result",
                "create_and_wait",
                "wait_for_jobs",
                "handle",
                "start",
            )
        },
        "cancel": (cancel["method"] or ident(job.cancel.name)) if cancel and job.cancel else None,
        "success": [md_code(s) for s in job.success],
        "failure": [md_code(s) for s in job.failure],
        "canceled": [md_code(s) for s in job.canceled],
        "receiver": names["webhooks"]["receiver"] if names["webhooks"] else None,
        "secret_env": md_code(job.webhooks.secret_env) if job.webhooks else None,
        "has_result": job.result is not None,
        "record_result": job.final_from == "record",
        "has_create": job.create is not None,
        "idempotent": job.idempotency_header is not None,
        "header_hints": [md_code(h.name) for h in job.header_hints],
        "body_hint": md_code("/".join(job.hint_path)) if job.hint_path else None,
        "first": _number(job.first),
        "cap": _number(job.cap),
        "floor": _number(job.floor),
        "carried": [{"name": ident(c.name), "example": py_str(c.name.upper())} for c in given],
        "once": job.result_once,
        "to_file": bool(names["result"] and names["result"]["to_file"]),
    }


def _idempotency_key(resource: ir.Resource, op: ir.Operation) -> tuple[str, str] | None:
    """The idempotency header an operation sends and the parameter that sets it (the SDK
    chooses a key when none is given)."""
    header = next(
        (
            job.idempotency_header
            for job in resource.jobs
            if job.create is not None and job.create.operation_id == op.operation_id
        ),
        None,
    )
    wire = (header or "Idempotency-Key").lower()
    param = next(
        (p for p in op.parameters if p.location == "header" and p.wire.lower() == wire), None
    )
    if param is not None:
        return param.wire, param.name
    return (header, "idempotency_key") if header is not None else None


def _options(code: TypeCode, sdk: ir.Sdk) -> dict[str, Any] | None:
    """Per-call options: shown on the first resource's first read (or first operation)."""
    if not sdk.resources or not sdk.resources[0].operations:
        return None
    resource = sdk.resources[0]
    op = next((o for o in resource.operations if o.method == "GET"), resource.operations[0])
    return {
        "call": _call(code, resource, op),
        "idempotent": [
            {
                "attr": ident(r.attr),
                "name": ident(o.name),
                "header": md_code(key[0]),
                "param": ident(key[1]),
            }
            for r in sdk.resources
            for o in r.operations
            if (key := _idempotency_key(r, o)) is not None
        ],
    }


def _paging(code: TypeCode, sdk: ir.Sdk) -> dict[str, Any] | None:
    """List operations: the first one as the example, and each one's paging style."""
    paged = [(r, o) for r in sdk.resources for o in r.operations if o.pagination is not None]
    if not paged:
        return None
    return {
        "call": _call(code, *paged[0]),
        "operations": [
            {"attr": ident(r.attr), "name": ident(o.name), "style": md_text(o.pagination.style)}
            for r, o in paged
            if o.pagination is not None
        ],
    }


def _events(code: TypeCode, sdk: ir.Sdk) -> dict[str, Any] | None:
    """Server-sent event streams: the first one as the example, and each one's method."""
    streamed = [
        (r, o, o.name if o.response.kind == "events" else o.stream_name or "")
        for r in sdk.resources
        for o in r.operations
        if o.response.kind == "events" or o.stream_name
    ]
    if not streamed:
        return None
    resource, op, method = streamed[0]
    return {
        "call": _call(code, resource, op, method),
        "operations": [{"attr": ident(r.attr), "name": ident(m)} for r, _, m in streamed],
    }


def _credentials(sdk: ir.Sdk) -> dict[str, Any] | None:
    """The credential parameters, their environment variables, and whether every
    operation needs one."""
    if not sdk.auths:
        return None
    prefix = env_prefix(sdk)
    ops = [op for r in sdk.resources for op in r.operations]
    provided = next((a.param for a in sdk.auths if not isinstance(a, ir.BasicAuth)), None)
    return {
        "required": bool(ops) and all(op.security for op in ops),
        "params": [
            {"name": ident(n), "env": md_code(f"{prefix}_{n.upper()}")}
            for n in _credential_params(sdk)
        ],
        "provided": ident(provided) if provided else None,
    }


def _files(every: list[ir.Operation]) -> dict[str, bool] | None:
    """Which kinds of file the SDK sends or receives."""
    files = {
        "uploads": any(
            op.body is not None
            and bool(
                ({op.body.kind} | {kind for _, kind in op.body.media}) & {"binary", "multipart"}
            )
            for op in every
        ),
        "media": any(op.body is not None and bool(op.body.media) for op in every),
        "downloads": any(op.response.kind == "binary" for op in every),
    }
    return files if any(files.values()) else None


def _wire(sdk: ir.Sdk, every: list[ir.Operation]) -> dict[str, Any]:
    """How requests are encoded and sent: parameter styles, forms, servers, redirects."""
    return {
        "styled": any(
            p.style is not None or (p.location == "query" and not p.explode)
            for o in every
            for p in o.parameters
        ),
        "forms": any(o.body is not None and o.body.kind == "form" for o in every),
        "servers": [
            {"attr": ident(r.attr), "name": ident(o.name), "url": md_code(o.server)}
            for r in sdk.resources
            for o in r.operations
            if o.server is not None
        ],
        "redirects": [
            {"attr": ident(r.attr), "name": ident(o.name)}
            for r in sdk.resources
            for o in r.operations
            if o.response.kind == "redirect"
        ],
    }


def readme_view(
    code: TypeCode, sdk: ir.Sdk, resources: list[dict[str, Any]], oauth2: bool
) -> dict[str, Any]:
    """The README's data. ``resources`` are the resource views, in ``sdk.resources``'
    order: a job's methods are named as its resource module names them."""
    jobs = [
        _job(resource, job, names)
        for view, resource in zip(resources, sdk.resources)
        for names, job in zip(view["jobs"], resource.jobs)
    ]
    every = [op for r in sdk.resources for op in r.operations]
    first = sdk.resources[0] if sdk.resources and sdk.resources[0].operations else None
    token_url = next(
        (a.token_url for a in sdk.auths if isinstance(a, ir.BearerAuth) and a.token_url), None
    )
    return {
        "client_params": [ident(n) for n in _credential_params(sdk)],
        # A spec without an absolute server URL: every client is given one.
        "needs_base_url": default_base_url(sdk) is None,
        "credentials": _credentials(sdk),
        # The first example waits for the first job, or else calls the first operation.
        "first_call": _call(code, first, first.operations[0]) if first and not jobs else None,
        "jobs": jobs,
        "has_cancel": any(job["cancel"] for job in jobs),
        "has_progress": any(
            job.progress_path is not None or job.progress_done_path is not None for job in sdk.jobs
        ),
        "webhooks": next((job for job in jobs if job["receiver"]), None),
        "oauth2": oauth2,
        "token_url": md_code(token_url) if token_url else None,
        "options": _options(code, sdk),
        "paging": _paging(code, sdk),
        "events": _events(code, sdk),
        "files": _files(every),
        "wire": _wire(sdk, every),
        "log_env": md_code(f"{env_prefix(sdk)}_LOG"),
        "log_name": md_code(sdk.package),
        "operations": [
            {
                "attr": ident(r.attr),
                "name": ident(op.name),
                "http": md_code(f"{op.method} {op.path}"),
            }
            for r in sdk.resources
            for op in r.operations
        ],
    }
