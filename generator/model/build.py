"""From a loaded spec to the intermediate model: the one entry point of this package."""

from __future__ import annotations

import hashlib
import keyword
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from ..problems import Location, Problem, SpecError
from ..spec.loader import Document, SpecSet, load_document, load_spec
from ..spec.specschema import merge_problems
from . import ir
from .declare import build_jobs
from .declare.dialects import import_dialects
from .declare.imported import Imported
from .declare.webhooks import WebhookOperations
from .names import file_stem, snake
from .operations import (
    OperationBuilder,
    build_auths,
    declared_key,
    group_resources,
    server_url,
)
from .pagination import paginate
from .placement import host_in_models
from .satisfiable import schema_warnings
from .schemas import SchemaBuilder

_PREFIX = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+\Z")

__all__ = [
    "build_sdk",
    "input_digests",
    "load_and_build",
    "package_problem",
    "sdk_version",
    "version_problem",
    "with_prefixes",
]

_VERSION = re.compile(r"^3\.[01]\.\d+")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# What every generated SDK imports (its dependencies and theirs): a package of the same
# name would shadow it.
SDK_DEPENDENCIES = frozenset(
    {
        "anyio",
        "attr",
        "attrs",
        "certifi",
        "exceptiongroup",
        "h11",
        "h2",
        "httpcore",
        "httpx",
        "idna",
        "sniffio",
        "tenacity",
        "typing_extensions",
    }
)


def package_problem(name: str) -> str | None:
    """Why ``name`` cannot be the import name of a generated package, or None if it can.

    It becomes a directory inside the output and an ``import`` statement, so it must be a
    plain identifier (no dots, no path), not a keyword, and must not shadow the standard
    library or a dependency of the SDK.
    """
    if not _IDENTIFIER.fullmatch(name):
        return (
            f"{name!r} is not a valid package name: use a Python identifier of ASCII letters, "
            "digits and underscores (no dots, no path)"
        )
    if keyword.iskeyword(name):
        return f"{name!r} is a Python keyword, not a usable package name"
    stdlib = {m.lower(): m for m in sys.stdlib_module_names}.get(name.lower())
    if stdlib is not None:
        return f"{name!r} would shadow the standard library module {stdlib!r}"
    if name.lower() in SDK_DEPENDENCIES:
        return (
            f"{name!r} would shadow the package {name.lower()!r}, which the generated SDK imports"
        )
    return None


def sdk_version(version: str | None, api_version: str) -> str:
    """The SDK's own version: as configured, or derived from the spec's ``info.version``
    (its first three numbers; ``0.1.0`` if it has none)."""
    if version is not None:
        return version
    parts = re.findall(r"\d+", api_version)[:3]
    return ".".join(p.lstrip("0") or "0" for p in parts) if parts else "0.1.0"


MAX_VERSION_LENGTH = 64
_VERSION_TEXT = re.compile(r"[0-9A-Za-z.+!_-]+\Z")


def version_problem(version: str) -> str | None:
    """Why ``version`` is not a usable package version (PEP 440), or None.

    The text must be the version itself: PEP 440 parsers accept surrounding whitespace
    (``"1.0\n"``), which would end up in every request's User-Agent header. A version is at
    most MAX_VERSION_LENGTH characters (no tool needs more; its numbers are parsed as ints).
    """
    from packaging.version import InvalidVersion, Version  # only a given version is checked

    shown = repr(version) if len(version) <= 40 else repr(version[:40]) + "..."
    if len(version) > MAX_VERSION_LENGTH:
        return f"{shown} is longer than {MAX_VERSION_LENGTH} characters"
    if not _VERSION_TEXT.match(version):
        return f"{shown} is not a valid version (PEP 440, e.g. '1.2.0'; no spaces or line breaks)"
    try:
        Version(version)
    except (InvalidVersion, ValueError):
        return f"{shown} is not a valid version (PEP 440, e.g. '1.2.0')"
    return None


def _check_root(root: Any, name: str, problems: list[Problem]) -> bool:
    at = Location(name)
    if not isinstance(root, dict):
        problems.append(Problem(at, "an OpenAPI document must be a mapping at the top level"))
        return False
    if "swagger" in root:
        problems.append(
            Problem(
                at.child("swagger"),
                f"Swagger {root['swagger']} is not supported: convert the document to OpenAPI 3 first",
            )
        )
        return False
    version = root.get("openapi")
    if version is None and "jobs" in root:
        problems.append(
            Problem(
                at,
                "this looks like a job side file (it has 'jobs' and no 'openapi'): "
                "pass it with --jobs beside the OpenAPI spec",
            )
        )
        return False
    if not isinstance(version, str) or not _VERSION.match(version):
        problems.append(
            Problem(at.child("openapi"), f"expected OpenAPI 3.0.x or 3.1.x, found {version!r}")
        )
        return False
    info = root.get("info")
    if not isinstance(info, dict):
        problems.append(Problem(at.child("info"), "'info' is required and must be a mapping"))
    elif not isinstance(info.get("title"), str):
        problems.append(
            Problem(at.child("info", "title"), "'info.title' is required and must be a string")
        )
    return True


def _base_url(root: dict[str, Any]) -> str:
    return server_url(root.get("servers"))


def input_digests(spec: SpecSet, side: Document | None) -> tuple[tuple[str, str], ...]:
    """Every input file by content and relative layout, whatever the cwd or path spelling.

    The root document is named by its file name, every ``$ref``-ed file by its path
    relative to the root's folder, the side file by its file name.
    """
    entries = []
    for path, document in spec.documents.items():
        rel = (
            path.name
            if document is spec.root
            else Path(os.path.relpath(path, spec.folder)).as_posix()
        )
        entries.append((f"spec:{rel}", document.sha256))
    if side is not None:
        entries.append((f"jobs:{Path(side.name).name}", side.sha256))
    return tuple(sorted(entries))


def _digest(inputs: tuple[tuple[str, str], ...]) -> str:
    digest = hashlib.sha256()
    for name, sha in inputs:
        digest.update(name.encode() + b"\0" + sha.encode() + b"\n")
    return digest.hexdigest()[:16]


def build_sdk(
    spec: SpecSet,
    *,
    package: str | None = None,
    jobs_file: Path | None = None,
    jobs_name: str | None = None,
    version: str | None = None,
    auth_prefix: Mapping[str, str] | None = None,
    auth_prefix_at: Location | None = None,
) -> ir.Sdk:
    """Build the SDK model; raises SpecError listing every problem found.

    ``auth_prefix``: the scheme word of API keys by security scheme (the config's).
    Problems and warnings name the documents as written: a Swagger 2.0 document's own
    pointers, not those of its OpenAPI 3 reading.
    """
    try:
        return _build_sdk(
            spec,
            package=package,
            jobs_file=jobs_file,
            jobs_name=jobs_name,
            version=version,
            auth_prefix=auth_prefix,
            auth_prefix_at=auth_prefix_at,
        )
    except SpecError as exc:
        raise SpecError(spec.source(p) for p in exc.problems) from None


def _build_sdk(
    spec: SpecSet,
    *,
    package: str | None,
    jobs_file: Path | None,
    jobs_name: str | None,
    version: str | None,
    auth_prefix: Mapping[str, str] | None,
    auth_prefix_at: Location | None,
) -> ir.Sdk:
    problems: list[Problem] = []
    root = spec.root.data
    name = spec.root.name
    if not _check_root(root, name, problems):
        raise SpecError(merge_problems(spec.root.schema_errors, problems))
    warnings: list[Problem] = []  # the documents' own come with spec.reading_warnings()
    schemas = SchemaBuilder(spec, problems, warnings)
    components = root.get("components")
    if isinstance(components, dict) and isinstance(components.get("schemas"), dict):
        at = Location(name, "/components/schemas")
        for key in components["schemas"]:
            schemas.reserve(at.child(str(key)), str(key))
        for key, node in components["schemas"].items():
            schemas.named(node, at.child(str(key)), str(key))
    elif isinstance(components, dict) and "schemas" in components:
        problems.append(Problem(Location(name, "/components/schemas"), "must be a mapping"))
    operations = OperationBuilder(spec, schemas, problems)
    operations.build(root)
    schemas.check_alias_cycles()
    warnings += schema_warnings(spec)
    auths = build_auths(root, name, problems, warnings)

    side = None
    if jobs_file is not None:
        side = load_document(jobs_file.resolve(), jobs_name or str(jobs_file))
        extension, ext_at = side.data, Location(side.name)
        if extension is None:
            problems.append(
                Problem(ext_at, "the side file is empty: declare the jobs under a 'jobs' key")
            )
    else:
        extension, ext_at = root.get("x-jobgen"), Location(name, "/x-jobgen")
    prefixes: list[tuple[Mapping[str, Any], Location]] = []
    if isinstance(extension, dict) and "auth_prefix" in extension:
        prefixes.append((extension["auth_prefix"], ext_at.child("auth_prefix")))
    if auth_prefix:
        prefixes.append((auth_prefix, auth_prefix_at or Location(name)))
    for given, given_at in prefixes:
        auths = with_prefixes(auths, given, given_at, problems)
    if isinstance(extension, dict) and "bearer" in extension:
        declared = declared_bearer(extension["bearer"], ext_at.child("bearer"), auths, problems)
        if declared is not None:
            auths = (declared,)
            operations.secure_all(declared.scheme)
    elif not auths:
        key = declared_key([op for op, _ in operations.operations])
        if key is not None:  # a credential header of every operation: the client's too
            auths = (key,)
            operations.secure_all(key.scheme)
    hooks = WebhookOperations(spec, operations, problems)
    imported = _imported(spec, root, operations.by_id, schemas, problems, warnings)
    jobs = build_jobs(
        extension,
        ext_at,
        operations.by_id,
        schemas.schemas,
        problems,
        hooks,
        imported=imported,
        warnings=warnings,
    )
    # A job's declaration may correct its result operation (`result_media_type`): the
    # operation's own method answers as the job reads it.
    corrected = {
        job.result.operation_id: job.result
        for job in jobs
        if job.result is not None
        and operations.by_id.get(job.result.operation_id) not in (None, job.result)
    }
    listed = paginate(
        [corrected.get(op.operation_id, op) for op, _ in operations.operations],
        schemas.schemas,
        root,
        problems,
    )
    paged = [(op, tag) for op, (_, tag) in zip(listed, operations.operations)]
    if problems or spec.root.schema_errors:
        raise SpecError(merge_problems(spec.root.schema_errors, problems))

    info = root["info"]
    inputs = input_digests(spec, side)
    if package is None:
        package = file_stem(snake(info["title"], "sdk"))
    api_version = str(info.get("version", "0.0.0"))
    own_version = sdk_version(version, api_version)
    # Derived, it is numbers and dots (valid PEP 440 without loading packaging): only its
    # length can be wrong.
    if version is None and len(own_version) > MAX_VERSION_LENGTH:
        raise SpecError.at(
            Location(name, "/info/version"),
            f"the SDK's version from it, {own_version[:40]!r}..., is longer than"
            f" {MAX_VERSION_LENGTH} characters: choose one with --sdk-version",
        )
    return ir.Sdk(
        title=info["title"],
        version=api_version,
        description=info.get("description") if isinstance(info.get("description"), str) else "",
        package=package,
        base_url=_base_url(root),
        schemas=host_in_models(schemas.schemas),
        resources=group_resources(paged, jobs, frozenset(s.name for s in schemas.schemas.values())),
        auths=auths,
        jobs=jobs,
        spec_hash=_digest(inputs),
        # Several converted nodes may come from one 2.0 node: each warning is said once.
        warnings=tuple(
            dict.fromkeys(str(spec.source(w)) for w in [*spec.reading_warnings(), *warnings])
        ),
        located=schemas.located,
        inputs=inputs,
        sdk_version=own_version,
        spec=spec,
    )


def _imported(
    spec: SpecSet,
    root: dict[str, Any],
    by_id: dict[str, ir.Operation],
    schemas: SchemaBuilder,
    problems: list[Problem],
    warnings: list[Problem],
) -> Imported | None:
    """The jobs the spec declares in vendors' own dialects (Azure's
    ``x-ms-long-running-operation``, Speakeasy's ``x-speakeasy-polling``, Google's
    AIP-151 operations), or None when it declares none."""
    name = spec.root.name
    made: list[ir.TypeRef] = []
    if _marks_lros(root):
        # Azure's reader is loaded only for a spec that marks a long-running operation.
        from .declare.azure import STATUS_MODEL, read_azure

        def status_model() -> ir.TypeRef:
            if not made:
                at = Location(name, "/x-jobgen-imported/OperationStatus")
                made.append(schemas.named(STATUS_MODEL, at))
            return made[0]

        imported = read_azure(root, name, by_id, schemas.schemas, warnings, status_model)
    else:
        imported = Imported({}, {}, {})
    found = import_dialects(spec, by_id, schemas.schemas, problems, warnings)
    imported = imported.with_jobs(found, set())
    if not imported.jobs:
        return None
    shown = {
        job: str(spec.source(Problem(at, "")).location) for job, at in imported.origins.items()
    }
    return attrs.evolve(imported, shown=shown)


def _marks_lros(root: dict[str, Any]) -> bool:
    """Whether an operation of the root document says ``x-ms-long-running-operation``."""
    paths = root.get("paths")
    return any(
        isinstance(item, dict)
        and any(
            isinstance(op, dict) and op.get("x-ms-long-running-operation") is True
            for op in item.values()
        )
        for item in (paths.values() if isinstance(paths, dict) else ())
    )


_BEARER = "bearer"


def declared_bearer(
    given: Any, at: Location, auths: tuple[ir.Auth, ...], problems: list[Problem]
) -> ir.BearerAuth | None:
    """The bearer token a side file declares for a spec that declares no security
    (``bearer: {scopes: [...]}``, Key Vault's 7.4 spec): every request sends it."""
    if auths:
        problems.append(
            Problem(
                at,
                "the spec declares its security schemes"
                f" ({', '.join(a.scheme for a in auths)}): 'bearer' is for a spec that"
                " declares none",
            )
        )
        return None
    if given is None:
        given = {}
    if not isinstance(given, Mapping):
        problems.append(Problem(at, "must be a mapping, such as {scopes: [...]} or {}"))
        return None
    for key in given:
        if key != "scopes":
            problems.append(Problem(at.child(str(key)), f"unknown key '{key}' (known: scopes)"))
    scopes = given.get("scopes", [])
    if not isinstance(scopes, list) or not all(isinstance(s, str) and s for s in scopes):
        problems.append(Problem(at.child("scopes"), "must be a list of scopes (strings)"))
        return None
    return ir.BearerAuth(_BEARER, "token", None, tuple(scopes))


def with_prefixes(
    auths: tuple[ir.Auth, ...], given: Any, at: Location, problems: list[Problem]
) -> tuple[ir.Auth, ...]:
    """``auths`` with the API-key prefixes ``given`` (security scheme -> word; "" for none)."""
    if not isinstance(given, Mapping):
        problems.append(Problem(at, "must map apiKey security schemes to the word sent first"))
        return auths
    keys = {a.scheme: a for a in auths if isinstance(a, ir.ApiKeyAuth)}
    out = list(auths)
    for scheme, word in given.items():
        if str(scheme) not in keys:
            known = ", ".join(sorted(keys)) or "none"
            problems.append(
                Problem(
                    at.child(str(scheme)),
                    f"no apiKey security scheme {scheme!r} (the spec's: {known})",
                )
            )
        elif not isinstance(word, str) or (word and not _PREFIX.match(word)):
            problems.append(
                Problem(
                    at.child(str(scheme)),
                    'must be one word of letters, digits and !#$%&\'*+-.^_`|~, or ""',
                )
            )
        else:
            auth = keys[str(scheme)]
            out[out.index(auth)] = attrs.evolve(auth, prefix=word)
    return tuple(out)


def load_and_build(
    path: Path,
    *,
    package: str | None = None,
    jobs_file: Path | None = None,
    version: str | None = None,
    auth_prefix: Mapping[str, str] | None = None,
    auth_prefix_at: Location | None = None,
    ref_root: Path | None = None,
) -> ir.Sdk:
    """Load the spec at ``path`` and build its SDK model (``ref_root``: see ``load_spec``)."""
    spec = load_spec(path, ref_root=ref_root)
    try:
        return build_sdk(
            spec,
            package=package,
            jobs_file=jobs_file,
            version=version,
            auth_prefix=auth_prefix,
            auth_prefix_at=auth_prefix_at,
        )
    except RecursionError:
        raise SpecError.at(
            Location(spec.root.name), "schemas nest too deeply to generate"
        ) from None
