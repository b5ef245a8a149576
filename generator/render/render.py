"""Render an SDK: the intermediate model and the runtime -> {relative path: text}."""

from __future__ import annotations

import functools
import importlib.util
import re
from collections.abc import Callable
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
    md_comment,
    md_text,
    py_str,
    toml_str,
)
from .layout import layout
from .manifest import MANIFEST
from .output import GENERATED_MARK
from .shipping import (
    Features,
    closure,
    error_bases,
    imported,
    names_from,
    path_of,
    runtime_init,
    source_of,
)
from .views import (
    ErrorClasses,
    alias_view,
    client_view,
    enum_view,
    error_classes,
    error_model_imports,
    job_errors_view,
    model_view,
    readme_view,
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


def _errors() -> tuple[str, ...]:
    """The runtime's exception classes (its ``__all__``, helpers aside), read from its
    source: importing it would import httpx, which generation never needs."""
    return tuple(error_bases(RUNTIME_DIR))


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


def _bases(names: set[str]) -> set[str]:
    """The public error classes among ``names``, with every class they derive from."""
    bases = error_bases(RUNTIME_DIR)
    found: set[str] = set()
    todo = [name for name in names if name in bases]
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo.extend(base for base in bases[name] if base in bases)
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


def _layout(text: str) -> str:
    """``{% filter layout %}`` lays a block of example code out as a module is. It returns
    plain text: printed with ``{{ ... }}`` it is refused, as any text not escaped is."""
    return layout(text)


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
    env.filters = {"join": _join, "layout": _layout}
    return env


def _api_name(title: str) -> str:
    """``Sume API`` and ``Salesforce Bulk API 2.0 (ingest jobs)`` stay as they are;
    ``Stripe`` becomes ``Stripe API``, ``Text Analysis (Azure)`` ``Text Analysis API (Azure)``."""
    title = " ".join(title.split())
    head, paren, tail = title.partition(" (")
    if re.search(r"\bapi\b", head, re.IGNORECASE) or not head:
        return title
    return f"{head} API{paren}{tail}"


def _header(sdk: ir.Sdk, spec_name: str) -> str:
    """The first line of every file: a constant marker, so that regenerating from other
    inputs changes only the files whose content changes (inputs and versions are in the
    manifest), and no spec text or path lands in it. Each file escapes it for its syntax."""
    return f"{GENERATED_MARK}. Do not edit: regenerate (inputs in {MANIFEST})."


# How a part of the SDK is written: put(path, template, **values).
_Put = Callable[..., None]


def _context(sdk: ir.Sdk, spec_name: str) -> dict[str, Code]:
    """What every template may print of the SDK as a whole (as ``ctx``)."""
    pkg = sdk.package
    dist = pkg.replace("_", "-")
    header = _header(sdk, spec_name)
    sdk_version = sdk.sdk_version
    return {
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


def _render_models(put: _Put, code: TypeCode, sdk: ir.Sdk) -> None:
    """The models package: a module per schema (or per model, with what only it uses)."""
    pkg = sdk.package
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


def _render_resources(
    put: _Put, code: TypeCode, sdk: ir.Sdk, classes: dict[str, ErrorClasses]
) -> list[dict[str, Any]]:
    """The resources package: a module per resource; returns the resources' views."""
    pkg = sdk.package
    owner = {op.operation_id: r.module for r in sdk.resources for op in r.operations}
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
    return views


def _render_errors(
    put: _Put, code: TypeCode, sdk: ir.Sdk, classes: dict[str, ErrorClasses], public: set[str]
) -> list[str]:
    """The errors module: the ``public`` runtime errors and each job's own classes (their
    names are returned)."""
    pkg = sdk.package
    job_errors = job_errors_view(code, sdk, classes)
    kinds = ("failed", "canceled", "timeout", "stalled")
    own = [str(job[kind]) for job in job_errors for kind in kinds]
    put(
        f"{pkg}/errors.py",
        "package/errors.py.jinja",
        errors=[ident(name) for name in sorted(public, key=member_key)],
        exports=[ident(name) for name in sorted([*public, *own], key=all_key)],
        tree=_error_tree(public),
        jobs=job_errors,
        imports=error_model_imports(code, sdk),
    )
    return own


def _render_init(
    put: _Put, pkg: str, lazy: list[tuple[str, str]], public: set[str], own: list[str]
) -> None:
    """The package's ``__init__``: its names, the ``lazy`` ones loaded on first use."""
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


def render_sdk(sdk: ir.Sdk, spec_name: str) -> dict[str, str]:
    """Every file of the SDK, keyed by its path relative to the output directory."""
    env = environment()
    ctx = _context(sdk, spec_name)
    pkg = sdk.package
    files: dict[str, str] = {}

    def put(path: str, template: str, **values: Any) -> None:
        text = env.get_template(template).render(ctx=ctx, **values)
        files[path] = layout(text) if path.endswith(".py") else text

    features = Features(sdk)
    code = TypeCode(sdk.schemas)
    _render_models(put, code, sdk)
    classes = error_classes(sdk, _errors())
    views = _render_resources(put, code, sdk, classes)

    client = client_view(sdk)
    imports = Imports()
    for module in ["collections.abc", "types", "typing", "httpx"]:
        imports.add(module)
    imports.add("._version", "USER_AGENT")
    if client["token_url"]:
        imports.add("._runtime.http", "oauth2", "_oauth2")
    if client["envs"]:
        imports.add("os", "environ", "_environ")
    # The HTTP layer loads with the first client, not on `import <sdk>`.
    checking = Imports()
    checking.add("._runtime.http", "layer", "_http")
    if client["bearer"]:
        checking.add("._runtime.http", "tokens", "_tokens")
    client["jobs"] = features.jobs
    if features.jobs:
        checking.add("._runtime.waiting", "spec", "_ws")
    else:
        checking.add("._runtime.shared", "timing", "_timing")
    if sdk.resources:
        imports.add("functools")
        for res in client["resources"]:
            checking.add(".resources." + res["module"], res["name"])
            checking.add(".resources." + res["module"], "Async" + res["name"])
    lines = imports.lines()
    lines += [Code(""), Code("if _t.TYPE_CHECKING:")]
    lines += [Code("    " + line if line else "") for line in checking.lines(4)]
    client["imports"] = lines
    put(f"{pkg}/_client.py", "package/_client.py.jinja", c=client)
    put(f"{pkg}/_version.py", "package/_version.py.jinja")
    # Names loaded on first use, each from its module: only those of features the SDK has.
    if features.jobs:
        lazy = [(name, "._runtime.waiting.handle") for name in _HANDLE_NAMES]
        lazy += [
            (name, "._runtime.waiting.spec") for name in ("JobOutcome", "PollEvent", "WaitConfig")
        ]
        lazy.append(("ProgressDisplay", "._runtime.waiting.display"))
        lazy.append(("RetryPolicy", "._runtime.http.retry"))  # WaitConfig(status_retry=...)
    else:
        lazy = [("Timing", "._runtime.shared.timing")]  # a client's retries, for tests
    if features.events:
        lazy += [(name, "._runtime.http.events") for name in _EVENT_NAMES]
    if any(op["redirected"] for view in views for op in view["operations"]):
        lazy.append(("Redirect", "._runtime.http.response"))
    if any(job.webhooks is not None for job in sdk.jobs):
        # For `events=` annotations, and what a web app catches or reads from a receiver.
        lazy += [(name, "._runtime.webhooks.deliveries") for name in _WEBHOOK_NAMES]
    if features.oauth2:
        lazy += [(name, "._client") for name in ("AsyncClientCredentials", "ClientCredentials")]
    if features.jobs:
        put(f"{pkg}/fleet.py", "package/fleet.py.jinja")
    files[f"{pkg}/py.typed"] = ""
    put("pyproject.toml", "pyproject.toml.jinja", jobs=features.jobs)
    put("README.md", "README.md.jinja", readme=readme_view(code, sdk, views, features.oauth2))

    # What ships: the runtime modules the generated code imports, and theirs. The package
    # __init__ and errors.py, written last, import errors, serde and the lazy names' modules.
    roots = imported(files, RUNTIME_DIR) | {"shared.errors", "wire.serde"}
    roots |= {module[len("._runtime.") :] for _, module in lazy if module.startswith("._runtime.")}
    shipped = closure(roots, RUNTIME_DIR)
    # The errors the SDK names: those its runtime modules use, and their bases.
    public = _bases(names_from("shared.errors", shipped, RUNTIME_DIR))
    own = _render_errors(put, code, sdk, classes, public)
    _render_init(put, pkg, lazy, public, own)
    shipped = closure(imported(files, RUNTIME_DIR), RUNTIME_DIR)
    marker = ctx["header"] + "\n"
    for name in sorted(shipped):
        source = source_of(name, RUNTIME_DIR)
        if name == "__init__":
            source = runtime_init(source, shipped)
        files[f"{pkg}/_runtime/{path_of(name)}"] = marker + source
    return files
