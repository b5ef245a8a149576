"""Render an SDK: the intermediate model and the runtime -> {relative path: text}."""

from __future__ import annotations

import ast
import functools
import importlib.util
import re
from pathlib import Path
from typing import Any

import jinja2

from ..model import ir
from .code import Imports, TypeCode, all_key, member_key
from .escape import (
    Code,
    comment,
    doc_text,
    docstring,
    ident,
    join,
    md_code,
    md_comment,
    md_text,
    py_str,
    toml_str,
)
from .layout import layout
from .manifest import MANIFEST
from .output import GENERATED_MARK
from .shipping import Features, closure, imported, names_from, runtime_init
from .views import (
    ErrorClasses,
    alias_view,
    client_view,
    enum_view,
    env_prefix,
    error_classes,
    error_type,
    job_phrase,
    model_view,
    resource_view,
    union_view,
)

__all__ = ["RUNTIME_DIR", "TEMPLATES_DIR", "UnescapedText", "environment", "render_sdk"]

# Both ship inside the wheel: templates/ as the data package jobgen.templates. Named from
# this package's own top level, which an installed jobgen calls ``jobgen``.
_TOP = __name__.partition(".")[0]


def _folder(package: str) -> Path:
    """The folder of ``package``, found without importing it (nor importlib.resources)."""
    found = importlib.util.find_spec(package)
    if found is None or not found.submodule_search_locations:  # pragma: no cover - broken install
        raise ImportError(f"{package} is missing from this installation of jobgen")
    return Path(next(iter(found.submodule_search_locations)))


TEMPLATES_DIR = _folder(f"{_TOP}.templates")
RUNTIME_DIR = _folder(f"{_TOP}.runtime")

_ERROR_TREE = """SDKError
 +-- APIConnectionError
 |    +-- APITimeoutError
 +-- APIStatusError (status_code, body, request_id, response)
 |    +-- BadRequestError (400)          +-- NotFoundError (404)
 |    +-- AuthenticationError (401)      +-- ConflictError (409)
 |    +-- PermissionDeniedError (403)    +-- UnprocessableEntityError (422)
 |    +-- RateLimitError (429)           +-- InternalServerError (5xx)
 +-- DecodeError (path)
 +-- ResponseTooLarge (limit), ResultFileError (spent)
 +-- UploadError, InvalidHeader
 +-- MissingCredentials, TokenError
 +-- MissingJobId, InvalidResumeToken, NoResultOperation, NoCancelOperation
 +-- WaitError (job_id, last_state, last_record)
      +-- JobTimeout (elapsed, deadline, resume_token, canceled)
      +-- JobStalled (unchanged_for, stall_after, progress, resume_token)
      +-- UnknownJobState (state)
      +-- JobFailed (error)
      +-- JobCanceled
      +-- StatusUnavailable (last_error)"""

# The SDK's public errors: the runtime's exception classes (its helpers stay private).


def _job_operations(sdk: ir.Sdk) -> frozenset[str]:
    """The operationIds of the jobs' own calls (create, status, result, cancel)."""
    return frozenset(
        op.operation_id
        for job in sdk.jobs
        for op in (job.create, job.status, job.result, job.cancel)
        if op is not None
    )


@functools.cache
def _errors_module() -> ast.Module:
    """The runtime's errors module, read from its source: importing it would import
    httpx, which generation never needs."""
    return ast.parse((RUNTIME_DIR / "errors.py").read_text(encoding="utf-8"))


@functools.cache
def _errors() -> tuple[str, ...]:
    """The runtime's exception classes (its ``__all__``, helpers aside)."""
    for node in _errors_module().body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            names = ast.literal_eval(node.value)
            return tuple(name for name in names if name[:1].isupper())
    raise LookupError("generator/runtime/errors.py has no __all__")


_HANDLE_NAMES = ("AsyncJobHandle", "JobHandle", "PollDecision")
_WEBHOOK_NAMES = (
    "DuplicateWebhook",
    "InvalidSignature",
    "MalformedWebhook",
    "StaleWebhook",
    "WebhookDelivery",
    "WebhookError",
    "WebhookReceiver",
)
_EVENT_NAMES = ("AsyncEventStream", "EventStream", "ServerSentEvent")


@functools.cache
def _error_bases() -> dict[str, tuple[str, ...]]:
    """Each exception class of the runtime's errors module, and the classes it derives from."""
    return {
        node.name: tuple(base.id for base in node.bases if isinstance(base, ast.Name))
        for node in _errors_module().body
        if isinstance(node, ast.ClassDef)
    }


def _bases(names: set[str]) -> set[str]:
    """The public error classes among ``names``, with every class they derive from."""
    bases = _error_bases()
    found: set[str] = set()
    todo = [name for name in names if name in _errors()]
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo.extend(base for base in bases.get(name, ()) if base in _errors())
    return found


_CLASS_NAME = re.compile(r"\b[A-Z][A-Za-z]+\b")


def _error_tree(public: set[str]) -> Code:
    """The error tree of the errors module's docstring, with only the ``public`` classes."""
    lines = []
    for line in _ERROR_TREE.splitlines():
        names = _CLASS_NAME.findall(line)
        shown = [name for name in names if name in public]
        if not shown:
            continue
        if shown != names:  # a list of siblings: the absent ones go
            line = line[: line.index(names[0])] + ", ".join(shown)
        lines.append(line)
    return Code("\n".join(lines))


class UnescapedText(TypeError):
    """A template tried to print a value that did not pass through an escaper."""


def _finalize(value: object) -> Code:
    """Every ``{{ ... }}`` goes through here: only :class:`Code` fragments are printed."""
    if isinstance(value, Code):
        return value
    raise UnescapedText(
        f"template printed a {type(value).__name__} that is not a Code fragment "
        f"(escape it with jobgen.render.escape): {value!r:.80}"
    )


def _join(items: Any, separator: str = "") -> Code:
    return join(separator, items)


@functools.cache
def environment() -> jinja2.Environment:
    """The templates' environment: it prints :class:`Code` fragments and nothing else.

    One per process; compiled templates are also kept in jinja2's per-user bytecode cache
    (keyed by each template's source), so a run does not parse and compile them again."""
    env = jinja2.Environment(
        bytecode_cache=jinja2.FileSystemBytecodeCache(),
        loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        finalize=_finalize,
        auto_reload=False,  # one run renders each template thousands of times: no stat per use
    )
    # Filters that make text keep to fragments; the others are not available.
    env.filters = {"join": _join}
    return env


def _api_name(title: str) -> str:
    """``Sume API`` and ``Salesforce Bulk API 2.0 (ingest jobs)`` stay as they are;
    ``Stripe`` becomes ``Stripe API``, ``Text Analysis (Azure)`` ``Text Analysis API (Azure)``."""
    title = " ".join(title.split())
    head, paren, tail = title.partition(" (")
    if re.search(r"\bapi\b", head, re.IGNORECASE) or not head:
        return title
    return f"{head} API{paren}{tail}"


def _states(states: tuple[str, ...]) -> Code:
    return Code(", ".join(f"`{md_code(s)}`" for s in states) or "none")


def _header(sdk: ir.Sdk, spec_name: str) -> str:
    """The first line of every file: a constant marker, so that regenerating from other
    inputs changes only the files whose content changes (inputs and versions are in the
    manifest), and no spec text or path lands in it. Each file escapes it for its syntax."""
    return f"{GENERATED_MARK}. Do not edit: regenerate (inputs in {MANIFEST})."


def _example(opening: str, auth_args: list[str], body: list[str]) -> Code:
    """A README code block's statements, laid out as in a module."""
    lines = [f"{opening}({', '.join(auth_args)}) as client:"]
    lines += ["    " + line for line in body or ["..."]]
    return Code(layout("\n".join(lines)))


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


def _job_errors(
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


def _model_imports(code: TypeCode, sdk: ir.Sdk) -> tuple[list[Code], list[Code]]:
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


def _readme(sdk: ir.Sdk, views: list[dict[str, Any]], features: Features) -> dict[str, Any]:
    auth_args = []
    for auth in sdk.auths:
        if isinstance(auth, ir.BasicAuth):
            auth_args += [f'{auth.username_param}="...", {auth.password_param}="..."']
        else:
            auth_args.append(f'{auth.param}="..."')
    jobs = []
    call: list[str] = []
    async_call: list[str] = []
    for view, resource in zip(views, sdk.resources):
        for job_view, job in zip(view["jobs"], resource.jobs):
            given = [c for c in job.carry if not c.record]  # what callers pass
            hints = [f"`{md_code(h.name)}` header" for h in job.header_hints]
            if job.hint_path:
                hints.append(f"body hint `{md_code('/'.join(job.hint_path))}`")
            schedule = (
                (f"server hints ({', '.join(hints)}) when present, " if hints else "")
                + f"otherwise equal-jitter backoff from {job.first:g} s to {job.cap:g} s; never under {job.floor:g} s"
            )
            jobs.append(
                {
                    "attr": ident(resource.attr),
                    "name": md_text(job.name),
                    "phrase": md_text(job_phrase(job.name)[0]),
                    "record": md_code(str(job_view["record_annotation"])),
                    "failed_class": job_view["error_classes"][0],
                    "canceled_class": job_view["error_classes"][1],
                    "wait_for_job": job_view["wait_for_job"],
                    "wait_for_result": job_view["wait_for_result"],
                    "create_and_wait": job_view["create_and_wait"],
                    "wait_for_jobs": job_view["wait_for_jobs"],
                    "handle": job_view["handle"],
                    "start": job_view["start"],
                    "cancel": (
                        (job_view["cancel"]["method"] or ident(job.cancel.name))
                        if job_view["cancel"] and job.cancel
                        else None
                    ),
                    "success": _states(job.success),
                    "failure": _states(job.failure),
                    "canceled": _states(job.canceled),
                    "has_canceled": bool(job.canceled),
                    "receiver": (
                        job_view["webhooks"]["receiver"] if job_view["webhooks"] else None
                    ),
                    "secret_env": md_code(job.webhooks.secret_env) if job.webhooks else None,
                    "has_result": job.result is not None,
                    "record_result": job.final_from == "record",
                    "has_create": job.create is not None,
                    "idempotent": job.idempotency_header is not None,
                    "schedule": Code(schedule),
                    "key_args": Code("".join(f", {c.name}=..." for c in given)),
                    "carried": Code(", ".join(f"`{md_code(c.name)}`" for c in given)),
                    "carry_first": md_code(given[0].name) if given else None,
                    "once": job.result_once,
                    "to_file": bool(job_view["result"] and job_view["result"]["to_file"]),
                }
            )
            if not call:
                # A keyed job's wait takes what create returned besides the id.
                keys = "".join(f', {c.name}="{c.name.upper()}"' for c in given)
                wait = f'client.{resource.attr}.{job_view["wait_for_job"]}("JOB_ID"{keys}, deadline=600)'
                call = [f"record = {wait}", "print(record)"]
                async_call = [f"record = await {wait}"]
    if not call and sdk.resources and sdk.resources[0].operations:
        resource = sdk.resources[0]
        op = resource.operations[0]
        args = ", ".join('"..."' for _ in op.path_parameters)
        call = [f"result = client.{resource.attr}.{op.name}({args})", "print(result)"]
        async_call = [f"result = await client.{resource.attr}.{op.name}({args})"]
    options = None
    if sdk.resources and sdk.resources[0].operations:
        resource = sdk.resources[0]
        op = next((o for o in resource.operations if o.method == "GET"), resource.operations[0])
        args = "".join('"...", ' for _ in op.path_parameters)
        call_of = f"client.{resource.attr}.{op.name}"
        with_raw = f"client.{resource.attr}.with_raw_response.{op.name}"
        streaming = f"client.{resource.attr}.with_streaming_response.{op.name}"
        options = {
            "example": _example(
                "with Client",
                auth_args,
                [
                    (
                        f"{call_of}({args}timeout=httpx.Timeout(10.0, connect=2.0), "
                        'max_retries=5, extra_headers={"X-Trace": "1"}, extra_query={"debug": True})'
                    ),
                    "patient = client.with_options(timeout=120.0, max_retries=8)",
                    f"raw = {with_raw}({args.rstrip(', ')})",
                    "print(raw.status_code, raw.headers, raw.request_id)",
                    "parsed = raw.parse()",
                    f"with {streaming}({args.rstrip(', ')}) as response:",
                    "    for chunk in response.iter_bytes():",
                    "        print(len(chunk))",
                ],
            ),
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
    paged = next(
        ((r, o) for r in sdk.resources for o in r.operations if o.pagination is not None), None
    )
    paging = None
    if paged is not None:
        resource, op = paged
        args = ", ".join('"..."' for _ in op.path_parameters)
        call_of = f"client.{resource.attr}.{op.name}({args})"
        paging = {
            "example": _example(
                "with Client",
                auth_args,
                [
                    f"for item in {call_of}:",
                    "    print(item)",
                    f"page = {call_of}.page()",
                    "print(page.items, page.has_next())",
                ],
            ),
            "async_example": _example(
                "async with AsyncClient",
                auth_args,
                [
                    f"async for item in {call_of}:",
                    "    print(item)",
                    f"page = await {call_of}.page()",
                ],
            ),
            "operations": [
                {"attr": ident(r.attr), "name": ident(o.name), "style": md_text(o.pagination.style)}
                for r in sdk.resources
                for o in r.operations
                if o.pagination is not None
            ],
        }
    operations = [
        {"attr": ident(r.attr), "name": ident(op.name), "http": md_code(f"{op.method} {op.path}")}
        for r in sdk.resources
        for op in r.operations
    ]
    prefix = env_prefix(sdk)
    credentials = None
    if sdk.auths:
        names = [
            p
            for auth in sdk.auths
            for p in (
                [auth.username_param, auth.password_param]
                if isinstance(auth, ir.BasicAuth)
                else [auth.param]
            )
        ]
        provided = next((a.param for a in sdk.auths if not isinstance(a, ir.BasicAuth)), None)
        ops = [op for r in sdk.resources for op in r.operations]
        credentials = {
            "required": bool(ops) and all(op.security for op in ops),
            "pairs": Code(
                ", ".join(
                    f"`{md_code(n)}=` (or `{md_code(f'{prefix}_{n.upper()}')}`)" for n in names
                )
            ),
            "example": Code(
                layout(
                    "def current_key() -> str:\n"
                    '    return "..."  # read it from your secret store\n\n\n'
                    f"with Client({provided}=current_key) as client:\n    ..."
                )
            )
            if provided
            else None,
        }
    every = [op for r in sdk.resources for op in r.operations]
    files = {
        "uploads": any(
            op.body is not None
            and ({op.body.kind} | {kind for _, kind in op.body.media}) & {"binary", "multipart"}
            for op in every
        ),
        "media": any(op.body is not None and op.body.media for op in every),
        "downloads": any(op.response.kind == "binary" for op in every),
    }
    token_url = next(
        (a.token_url for a in sdk.auths if isinstance(a, ir.BearerAuth) and a.token_url), None
    )
    events = None
    streamed = next(
        (
            (r, o)
            for r in sdk.resources
            for o in r.operations
            if o.response.kind == "events" or o.stream_name
        ),
        None,
    )
    if streamed is not None:
        resource, op = streamed
        args = ", ".join('"..."' for _ in op.path_parameters)
        if op.body is not None and op.body.required:
            args = ", ".join(filter(None, [args, "body=..."]))
        method = op.name if op.response.kind == "events" else op.stream_name
        call_of = f"client.{resource.attr}.{method}({args})"
        events = {
            "example": _example(
                "with Client",
                auth_args,
                [f"for event in {call_of}:", "    print(event.event, event.id, event.data)"],
            ),
            "async_example": _example(
                "async with AsyncClient",
                auth_args,
                [f"async for event in {call_of}:", "    print(event.data)"],
            ),
            "operations": [
                {
                    "attr": ident(r.attr),
                    "name": ident(o.name if o.response.kind == "events" else o.stream_name or ""),
                }
                for r in sdk.resources
                for o in r.operations
                if o.response.kind == "events" or o.stream_name
            ],
        }
    wire = {
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
    return {
        "events": events,
        "wire": wire,
        "token_url": md_code(token_url) if token_url else None,
        "log_env": md_code(f"{env_prefix(sdk)}_LOG"),
        "log_name": md_code(sdk.package),
        "files": files if any(files.values()) else None,
        "credentials": credentials,
        "sync_example": _example("with Client", auth_args, call),
        "async_example": _example("async with AsyncClient", auth_args, async_call),
        "jobs": jobs,
        "options": options,
        "paging": paging,
        "has_cancel": any(job["cancel"] for job in jobs),
        "webhooks": next((job for job in jobs if job["receiver"]), None),
        "oauth2": features.oauth2,
        "has_progress": any(
            job.progress_path is not None or job.progress_done_path is not None for job in sdk.jobs
        ),
        "operations": operations,
    }


def render_sdk(sdk: ir.Sdk, spec_name: str) -> dict[str, str]:
    """Every file of the SDK, keyed by its path relative to the output directory."""
    env = environment()
    pkg = sdk.package
    dist = pkg.replace("_", "-")
    header = _header(sdk, spec_name)
    sdk_version = sdk.sdk_version
    ctx = {
        "header": Code("# " + comment(header)),
        "header_md": Code("<!-- " + md_comment(header) + " -->"),
        "title": doc_text(_api_name(sdk.title)),
        "title_md": md_text(_api_name(sdk.title)),
        "api_version_md": md_text(sdk.version),
        "package": ident(pkg),
        "package_toml": toml_str(pkg),
        "package_glob_toml": toml_str(pkg + ".*"),
        "dist_name_md": md_text(dist),
        "dist_name_toml": toml_str(dist),
        "sdk_version_toml": toml_str(sdk_version),
        "sdk_version_lit": py_str(sdk_version),
        "api_version_lit": py_str(sdk.version),
        "user_agent_lit": py_str(f"{dist}/{sdk_version}"),
        "description_toml": toml_str(f"Typed client for the {_api_name(sdk.title)}"),
        "package_doc": docstring(
            f"Typed client for the {_api_name(sdk.title)}.", sdk.description[:2000]
        ),
    }
    files: dict[str, str] = {}

    def put(path: str, template: str, **values: Any) -> None:
        text = env.get_template(template).render(ctx=ctx, **values)
        files[path] = layout(text) if path.endswith(".py") else text

    features = Features(sdk)
    code = TypeCode(sdk.schemas)
    exports = []
    # An enum or union in a model's module (one only that model uses) is written with it.
    hosted: dict[str, list[ir.NamedSchema]] = {
        s.module: [] for s in sdk.schemas.values() if isinstance(s, ir.Model)
    }
    for schema in sdk.schemas.values():
        if not isinstance(schema, ir.Model) and schema.module in hosted:
            hosted[schema.module].append(schema)
    for schema in sdk.schemas.values():
        path = f"{pkg}/models/{schema.module}.py"
        if isinstance(schema, ir.Model):
            view = model_view(code, schema, hosted[schema.module])
            put(path, "package/models/model.py.jinja", m=view)
        elif schema.module in hosted:
            pass  # written with its model
        elif isinstance(schema, ir.EnumSchema):
            put(path, "package/models/enum.py.jinja", e=enum_view(schema))
        elif isinstance(schema, ir.UnionSchema):
            put(path, "package/models/union.py.jinja", u=union_view(code, schema))
        else:
            put(path, "package/models/alias.py.jinja", a=alias_view(code, schema))
        exports.append({"name": ident(schema.name), "module": ident(schema.module)})
    exports.sort(key=lambda e: (member_key(e["module"]), member_key(e["name"])))
    names = sorted((e["name"] for e in exports), key=all_key)
    checking = Imports()
    for e in exports:
        checking.add("." + e["module"], e["name"], e["name"])
    by_name = {e["name"]: e["module"] for e in exports}
    put(
        f"{pkg}/models/__init__.py",
        "package/models/__init__.py.jinja",
        type_imports=checking.lines(4),
        all_names=join(", ", [py_str(n) for n in names]),
        modules=Code(
            "{" + join(", ", [Code(f"{py_str(n)}: {py_str(by_name[n])}") for n in names]) + "}"
        ),
    )

    owner = {op.operation_id: r.module for r in sdk.resources for op in r.operations}
    classes = error_classes(sdk, _errors())
    views = []
    job_operations = _job_operations(sdk)
    for resource in sdk.resources:
        views.append(resource_view(code, resource, owner, classes, job_operations))
    # A request builder a sibling module imports is exported by its own module's __all__.
    shared: dict[str, set[str]] = {}
    for view in views:
        for module, names in view["imports_from"].items():
            shared.setdefault(module, set()).update(names)
    for index, resource in enumerate(sdk.resources):
        if resource.module in shared:
            views[index] = resource_view(
                code,
                resource,
                owner,
                classes,
                job_operations,
                frozenset(shared[resource.module]),
            )
        put(
            f"{pkg}/resources/{resource.module}.py",
            "package/resources/resource.py.jinja",
            r=views[index],
        )
    put(f"{pkg}/resources/__init__.py", "package/resources/__init__.py.jinja")

    client = client_view(sdk)
    imports = Imports()
    for module in ["collections.abc", "types", "typing", "httpx"]:
        imports.add(module)
    imports.add("._version", "USER_AGENT")
    if client["token_url"]:
        imports.add("._runtime", "oauth2", "_oauth2")
    if client["envs"]:
        imports.add("os", "environ", "_environ")
    # The HTTP layer loads with the first client, not on `import <sdk>`.
    checking = Imports()
    checking.add("._runtime", "http", "_http")
    if client["bearer"]:
        checking.add("._runtime", "tokens", "_tokens")
    client["jobs"] = features.jobs
    if features.jobs:
        checking.add("._runtime", "waitspec", "_ws")
    else:
        checking.add("._runtime", "timing", "_timing")
    if sdk.resources:
        imports.add("functools")
        for res in client["resources"]:
            checking.add(".resources." + res["module"], res["name"])
            checking.add(".resources." + res["module"], "Async" + res["name"])
    lines = imports.lines()
    lines += [Code(""), Code("if _t.TYPE_CHECKING:")]
    lines += [Code("    " + line if line else "") for line in checking.lines(4)]
    client["imports"] = lines
    params = [p for auth in client["auths"] for p in auth["params"]]
    client["auth_signature"] = join(
        ", ",
        [Code(f"{p}: {auth['types'][1]}") for auth in client["auths"] for p in auth["params"]],
    )
    client["auth_call"] = join(", ", params)
    client["base_url_doc"] = doc_text(sdk.base_url)
    put(f"{pkg}/_client.py", "package/_client.py.jinja", c=client)
    put(f"{pkg}/_version.py", "package/_version.py.jinja")
    # Names loaded on first use, each from its module: only those of features the SDK has.
    if features.jobs:
        lazy = [(name, "._runtime.handle") for name in _HANDLE_NAMES]
        lazy += [(name, "._runtime.waitspec") for name in ("JobOutcome", "PollEvent", "WaitConfig")]
        lazy.append(("ProgressDisplay", "._runtime.display"))
        lazy.append(("RetryPolicy", "._runtime.retry"))  # WaitConfig(status_retry=...)
    else:
        lazy = [("Timing", "._runtime.timing")]  # a client's retries, for tests
    if features.events:
        lazy += [(name, "._runtime.events") for name in _EVENT_NAMES]
    if any(op["redirected"] for view in views for op in view["operations"]):
        lazy.append(("Redirect", "._runtime.response"))
    if any(job.webhooks is not None for job in sdk.jobs):
        # For `events=` annotations, and what a web app catches or reads from a receiver.
        lazy += [(name, "._runtime.webhooks") for name in _WEBHOOK_NAMES]
    if features.oauth2:
        lazy += [(name, "._client") for name in ("AsyncClientCredentials", "ClientCredentials")]
    if features.jobs:
        put(f"{pkg}/fleet.py", "package/fleet.py.jinja")
    files[f"{pkg}/py.typed"] = ""
    put("pyproject.toml", "pyproject.toml.jinja", jobs=features.jobs)
    put("README.md", "README.md.jinja", readme=_readme(sdk, views, features))

    # What ships: the runtime modules the generated code imports, and theirs. The package
    # __init__ and errors.py, written last, import errors, serde and the lazy names' modules.
    roots = imported(files, RUNTIME_DIR) | {"errors", "serde"}
    roots |= {module[len("._runtime.") :] for _, module in lazy if module.startswith("._runtime.")}
    shipped = closure(roots, RUNTIME_DIR)
    # The errors the SDK names: those its runtime modules use, and their bases.
    public = _bases(names_from("errors", shipped, RUNTIME_DIR))
    job_errors = _job_errors(code, sdk, classes)
    kinds = ("failed", "canceled", "timeout", "stalled")
    own = [str(job[kind]) for job in job_errors for kind in kinds]
    put(
        f"{pkg}/errors.py",
        "package/errors.py.jinja",
        errors=[ident(name) for name in sorted(public, key=member_key)],
        exports=[ident(name) for name in sorted([*public, *own], key=all_key)],
        tree=_error_tree(public),
        jobs=job_errors,
        imports=_model_imports(code, sdk),
    )
    top = ["API_VERSION", "AsyncClient", "Client", "UNSET", "Unset", "__version__"]
    top += [name for name, _ in lazy]
    put(
        f"{pkg}/__init__.py",
        "package/__init__.py.jinja",
        errors=[ident(name) for name in sorted([*public, *own], key=member_key)],
        exports=[ident(name) for name in sorted(top + [*public, *own], key=all_key)],
        lazy_imports=[
            {"name": Code(name), "module": Code(module)}
            for name, module in sorted(lazy, key=lambda item: (item[1], member_key(item[0])))
        ],
        lazy=[
            {"name": Code(name), "module": Code(module)}
            for name, module in sorted(lazy, key=lambda item: item[0])
        ],
    )
    shipped = closure(imported(files, RUNTIME_DIR), RUNTIME_DIR)
    marker = ctx["header"] + "\n"
    for name in sorted(shipped):
        source = (RUNTIME_DIR / f"{name}.py").read_text(encoding="utf-8")
        if name == "__init__":
            source = runtime_init(source, shipped)
        files[f"{pkg}/_runtime/{name}.py"] = marker + source
    return files
