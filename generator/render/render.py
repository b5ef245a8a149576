"""Render an SDK: the intermediate model and the runtime -> {relative path: text}."""

from __future__ import annotations

import importlib.resources
import json
import re
from pathlib import Path
from typing import Any

import jinja2

from .. import __version__
from ..model import ir
from ..runtime import errors as runtime_errors
from .code import TypeCode, docstring, literal
from .manifest import MANIFEST
from .output import GENERATED_MARK
from .views import alias_view, client_view, enum_view, model_view, resource_view, union_view

__all__ = ["RUNTIME_DIR", "TEMPLATES_DIR", "render_sdk"]

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
 +-- MissingJobId, InvalidResumeToken, NoResultOperation
 +-- WaitError (job_id, last_state, last_record)
      +-- JobTimeout (elapsed, deadline, resume_token)
      +-- UnknownJobState (state)
      +-- JobFailed (error)
      +-- JobCanceled
      +-- StatusUnavailable (last_error)"""

# The SDK's public errors: the runtime's exception classes (its helpers stay private).
_ERRORS = tuple(name for name in runtime_errors.__all__ if name[:1].isupper())


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def _toml(value: str) -> str:
    return json.dumps(value, ensure_ascii=True)


def _md(value: str) -> str:
    return re.sub(r"[\s`|<>]+", " ", value).strip()


def _api_name(title: str) -> str:
    """``Sume API`` stays as it is; ``Stripe`` becomes ``Stripe API``."""
    title = " ".join(title.split())
    return title if title.lower().endswith("api") else f"{title} API"


def _states(states: tuple[str, ...]) -> str:
    return ", ".join(f"`{_md(s)}`" for s in states) or "none"


def _header(sdk: ir.Sdk, spec_name: str) -> str:
    """The first line of every file: a constant marker, so that regenerating from other
    inputs changes only the files whose content changes (inputs and versions are in the
    manifest), and no spec text or path ever lands in a comment."""
    return f"{GENERATED_MARK}. Do not edit: regenerate (inputs in {MANIFEST})."


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
            hints = [f"`{_md(h.name)}` header" for h in job.header_hints]
            if job.hint_path:
                hints.append(f"body hint `{_md('/'.join(job.hint_path))}`")
            schedule = (
                (f"server hints ({', '.join(hints)}) when present, " if hints else "")
                + f"otherwise equal-jitter backoff from {job.first:g} s to {job.cap:g} s; never under {job.floor:g} s"
            )
            jobs.append(
                {
                    "attr": resource.attr,
                    "name": _md(job.name),
                    "wait_for_job": job_view["wait_for_job"],
                    "wait_for_result": job_view["wait_for_result"],
                    "create_and_wait": job_view["create_and_wait"],
                    "wait_for_jobs": job_view["wait_for_jobs"],
                    "success": _states(job.success),
                    "failure": _states(job.failure),
                    "canceled": _states(job.canceled),
                    "has_result": job.result is not None,
                    "has_create": job.create is not None,
                    "idempotent": job.idempotency_header is not None,
                    "schedule": schedule,
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
        {"attr": r.attr, "name": op.name, "http": _md(f"{op.method} {op.path}")}
        for r in sdk.resources
        for op in r.operations
    ]
    return {
        "auth_example": ", ".join(auth_args),
        "call_example": call or ["..."],
        "async_example": async_call or ["..."],
        "jobs": jobs,
        "operations": operations,
    }


def render_sdk(sdk: ir.Sdk, spec_name: str) -> dict[str, str]:
    """Every file of the SDK, keyed by its path relative to the output directory."""
    env = _environment()
    pkg = sdk.package
    dist = pkg.replace("_", "-")
    header = _header(sdk, spec_name)
    ctx = {
        "generator_version": __version__,
        "spec_name": spec_name,
        "spec_hash": sdk.spec_hash,
        "header_text": header,
        "title": docstring(_api_name(sdk.title)),
        "title_md": _md(_api_name(sdk.title)),
        "api_version_md": _md(sdk.version),
        "package": pkg,
        "package_toml": _toml(pkg),
        "package_glob_toml": _toml(pkg + ".*"),
        "dist_name": dist,
        "dist_name_toml": _toml(dist),
        "sdk_version_toml": _toml(sdk.sdk_version),
        "sdk_version_lit": literal(sdk.sdk_version),
        "api_version_lit": literal(sdk.version),
        "user_agent_lit": literal(f"{dist}/{sdk.sdk_version}"),
        "description_toml": _toml(f"Typed client for the {_md(sdk.title)} API"),
        "package_doc": docstring(f"Typed client for the {sdk.title} API.", sdk.description[:2000]),
    }
    files: dict[str, str] = {}

    def put(path: str, template: str, **values: Any) -> None:
        files[path] = env.get_template(template).render(ctx=ctx, **values)

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
        exports.append({"name": schema.name, "module": schema.module})
    exports.sort(key=lambda e: e["name"])
    put(f"{pkg}/models/__init__.py", "package/models/__init__.py.jinja", exports=exports)

    owner = {op.operation_id: r.module for r in sdk.resources for op in r.operations}
    views = []
    for resource in sdk.resources:
        view = resource_view(code, resource, owner)
        views.append(view)
        put(f"{pkg}/resources/{resource.module}.py", "package/resources/resource.py.jinja", r=view)
    put(f"{pkg}/resources/__init__.py", "package/resources/__init__.py.jinja")

    client = client_view(sdk)
    client["credential_imports"] = sorted(
        {
            {ir.ApiKeyAuth: "ApiKey", ir.BearerAuth: "Bearer", ir.BasicAuth: "Basic"}[type(a)]
            for a in sdk.auths
        }
    )
    params = [p for auth in client["auths"] for p in auth["params"]]
    client["auth_signature"] = ", ".join(f"{p}: str | None" for p in params)
    client["auth_call"] = ", ".join(params)
    client["base_url_doc"] = _md(sdk.base_url)
    put(f"{pkg}/_client.py", "package/_client.py.jinja", c=client)
    put(f"{pkg}/_version.py", "package/_version.py.jinja")
    put(f"{pkg}/errors.py", "package/errors.py.jinja", errors=_ERRORS, tree=_ERROR_TREE)
    top = [
        "API_VERSION",
        "AsyncClient",
        "Client",
        "JobOutcome",
        "PollEvent",
        "UNSET",
        "Unset",
        "WaitConfig",
        "__version__",
    ]
    put(
        f"{pkg}/__init__.py",
        "package/__init__.py.jinja",
        errors=_ERRORS,
        exports=sorted(top + list(_ERRORS)),
    )
    files[f"{pkg}/py.typed"] = ""
    put("pyproject.toml", "pyproject.toml.jinja")
    put("README.md", "README.md.jinja", readme=_readme(sdk, views))

    marker = f"# {header}\n"
    for source in sorted(RUNTIME_DIR.glob("*.py")):
        files[f"{pkg}/_runtime/{source.name}"] = marker + source.read_text(encoding="utf-8")
    return files
