"""Render an SDK: the intermediate model and the runtime -> {relative path: text}."""

from __future__ import annotations

import importlib.resources
from pathlib import Path
from typing import Any

import jinja2

from ..model import ir
from ..runtime import errors as runtime_errors
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
from .views import alias_view, client_view, enum_view, model_view, resource_view, union_view

__all__ = ["RUNTIME_DIR", "TEMPLATES_DIR", "UnescapedText", "environment", "render_sdk"]

# Both ship inside the wheel: templates/ as the data package generator.templates.
TEMPLATES_DIR = Path(str(importlib.resources.files("generator.templates")))
RUNTIME_DIR = Path(str(importlib.resources.files("generator.runtime")))

_ERROR_TREE = """SDKError
 +-- APIConnectionError
 |    +-- APITimeoutError
 +-- APIStatusError (status_code, body, request_id, response)
 |    +-- BadRequestError (400)          +-- NotFoundError (404)
 |    +-- AuthenticationError (401)      +-- ConflictError (409)
 |    +-- PermissionDeniedError (403)    +-- UnprocessableEntityError (422)
 |    +-- RateLimitError (429)           +-- InternalServerError (5xx)
 +-- DecodeError (path)
 +-- MissingJobId, InvalidResumeToken, NoResultOperation, NoCancelOperation
 +-- WaitError (job_id, last_state, last_record)
      +-- JobTimeout (elapsed, deadline, resume_token, canceled)
      +-- JobStalled (unchanged_for, stall_after, progress, resume_token)
      +-- UnknownJobState (state)
      +-- JobFailed (error)
      +-- JobCanceled
      +-- StatusUnavailable (last_error)"""

# The SDK's public errors: the runtime's exception classes (its helpers stay private).
_ERRORS = tuple(name for name in runtime_errors.__all__ if name[:1].isupper())


class UnescapedText(TypeError):
    """A template tried to print a value that did not pass through an escaper."""


def _finalize(value: object) -> Code:
    """Every ``{{ ... }}`` goes through here: only :class:`Code` fragments are printed."""
    if isinstance(value, Code):
        return value
    raise UnescapedText(
        f"template printed a {type(value).__name__} that is not a Code fragment "
        f"(escape it with generator.render.escape): {value!r:.80}"
    )


def _join(items: Any, separator: str = "") -> Code:
    return join(separator, items)


def environment() -> jinja2.Environment:
    """The templates' environment: it prints :class:`Code` fragments and nothing else."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        finalize=_finalize,
    )
    # Filters that make text keep to fragments; the others are not available.
    env.filters = {"join": _join}
    return env


def _api_name(title: str) -> str:
    """``Sume API`` stays as it is; ``Stripe`` becomes ``Stripe API``."""
    title = " ".join(title.split())
    return title if title.lower().endswith("api") else f"{title} API"


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


def _readme(sdk: ir.Sdk, views: list[dict[str, Any]]) -> dict[str, Any]:
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
                    "has_result": job.result is not None,
                    "has_create": job.create is not None,
                    "idempotent": job.idempotency_header is not None,
                    "schedule": Code(schedule),
                }
            )
            if not call:
                call = [
                    f'record = client.{resource.attr}.{job_view["wait_for_job"]}("JOB_ID", deadline=600)',
                    "print(record)",
                ]
                async_call = [
                    f'record = await client.{resource.attr}.{job_view["wait_for_job"]}("JOB_ID", deadline=600)',
                ]
    if not call and sdk.resources and sdk.resources[0].operations:
        resource = sdk.resources[0]
        op = resource.operations[0]
        args = ", ".join('"..."' for _ in op.path_parameters)
        call = [f"result = client.{resource.attr}.{op.name}({args})", "print(result)"]
        async_call = [f"result = await client.{resource.attr}.{op.name}({args})"]
    operations = [
        {"attr": ident(r.attr), "name": ident(op.name), "http": md_code(f"{op.method} {op.path}")}
        for r in sdk.resources
        for op in r.operations
    ]
    return {
        "sync_example": _example("with Client", auth_args, call),
        "async_example": _example("async with AsyncClient", auth_args, async_call),
        "jobs": jobs,
        "has_cancel": any(job["cancel"] for job in jobs),
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

    code = TypeCode(sdk.schemas)
    exports = []
    for schema in sdk.schemas.values():
        path = f"{pkg}/models/{schema.module}.py"
        if isinstance(schema, ir.Model):
            put(path, "package/models/model.py.jinja", m=model_view(code, schema))
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
    views = []
    for resource in sdk.resources:
        view = resource_view(code, resource, owner)
        views.append(view)
        put(f"{pkg}/resources/{resource.module}.py", "package/resources/resource.py.jinja", r=view)
    put(f"{pkg}/resources/__init__.py", "package/resources/__init__.py.jinja")

    client = client_view(sdk)
    imports = Imports()
    for module in ["collections.abc", "types", "typing", "httpx"]:
        imports.add(module)
    imports.add("._runtime", "http", "_http")
    imports.add("._runtime", "waitspec", "_ws")
    imports.add("._version", "USER_AGENT")
    lines = imports.lines()
    if sdk.resources:
        imports.add("functools")
        lines = imports.lines()
        checking = Imports()
        for res in client["resources"]:
            checking.add(".resources." + res["module"], res["name"])
            checking.add(".resources." + res["module"], "Async" + res["name"])
        lines += [Code(""), Code("if _t.TYPE_CHECKING:")]
        lines += [Code("    " + line if line else "") for line in checking.lines(4)]
    client["imports"] = lines
    params = [p for auth in client["auths"] for p in auth["params"]]
    client["auth_signature"] = join(", ", [Code(f"{p}: str | None") for p in params])
    client["auth_call"] = join(", ", params)
    client["base_url_doc"] = doc_text(sdk.base_url)
    put(f"{pkg}/_client.py", "package/_client.py.jinja", c=client)
    put(f"{pkg}/_version.py", "package/_version.py.jinja")
    errors = [ident(name) for name in sorted(_ERRORS, key=member_key)]
    put(
        f"{pkg}/errors.py",
        "package/errors.py.jinja",
        errors=errors,
        exports=[ident(name) for name in sorted(_ERRORS, key=all_key)],
        tree=Code(_ERROR_TREE),
    )
    top = [
        "API_VERSION",
        "AsyncClient",
        "AsyncJobHandle",
        "Client",
        "JobHandle",
        "JobOutcome",
        "PollDecision",
        "PollEvent",
        "ProgressDisplay",
        "UNSET",
        "Unset",
        "WaitConfig",
        "__version__",
    ]
    put(
        f"{pkg}/__init__.py",
        "package/__init__.py.jinja",
        errors=errors,
        exports=[ident(name) for name in sorted(top + list(_ERRORS), key=all_key)],
    )
    files[f"{pkg}/py.typed"] = ""
    put("pyproject.toml", "pyproject.toml.jinja")
    put("README.md", "README.md.jinja", readme=_readme(sdk, views))

    marker = ctx["header"] + "\n"
    for source in sorted(RUNTIME_DIR.glob("*.py")):
        files[f"{pkg}/_runtime/{source.name}"] = marker + source.read_text(encoding="utf-8")
    return files
