"""The real published specs in ``../shared/specs-real``: what they hold, and checks of their SDKs.

Used by the tests in this folder and by ``python -m tests.real.report``, which measures
every spec and prints the table of ``docs/real-specs.md``.
"""

from __future__ import annotations

import datetime as dt
import importlib
import os
import pkgutil
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs

from jobgen.model import ir
from jobgen.problems import Location
from jobgen.render.code import TypeCode
from jobgen.spec.loader import Document, SpecSet, load_document, load_spec
from tests.helpers import REAL_SPECS, ROOT

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
VENDOR = ROOT / "specs" / "vendor"


@attrs.frozen
class RealSpec:
    """One published spec, the package its SDK is generated as, and its job side file."""

    id: str
    path: str
    package: str
    jobs: str | None = None

    @property
    def spec(self) -> Path:
        return REAL_SPECS / self.path

    @property
    def side_file(self) -> Path | None:
        return VENDOR / self.jobs if self.jobs else None


SPECS = (
    RealSpec("petstore", "petstore-3.0.yaml", "petstore_sdk"),
    RealSpec("baseline-3.0", "openapi-python-client-baseline-3.0.json", "baseline30_sdk"),
    RealSpec("baseline-3.1", "openapi-python-client-baseline-3.1.yaml", "baseline31_sdk"),
    RealSpec("assemblyai", "assemblyai-openapi.yml", "assemblyai_sdk", "assemblyai.jobs.yaml"),
    RealSpec("stripe", "stripe-spec3-2022-03-23.yaml", "stripe_sdk", "stripe.jobs.yaml"),
    RealSpec("openai", "openai-openapi.yaml", "openai_sdk", "openai.jobs.yaml"),
    RealSpec(
        "digitalocean",
        "digitalocean/DigitalOcean-public.v2.yaml",
        "digitalocean_sdk",
        "digitalocean.jobs.yaml",
    ),
    # Swagger 2.0, read as OpenAPI 3 (generator/spec/swagger2.py).
    RealSpec(
        "azure-keyvault",
        "azure-keyvault-7.4/backuprestore.json",
        "keyvault_sdk",
        "azure-keyvault.jobs.yaml",
    ),
)
# openapi-python-client's baselines name a header "header param" (and a cookie "cookie
# param"): not HTTP field names, so those two parameters are left out, with a warning.
UNSENDABLE_PARAMETERS = (
    "openapi-python-client-baseline-3.0.json",
    "openapi-python-client-baseline-3.1.yaml",
)


# -- what a spec holds ---------------------------------------------------------


@attrs.frozen
class Inventory:
    """The operations (method, path) and the named schemas (``file#pointer``) of a spec."""

    operations: tuple[tuple[str, str], ...]
    schemas: frozenset[str]


def _walk_schema(spec: SpecSet, node: Any, at: Location, found: set[str]) -> None:
    stack = [(node, at)]
    while stack:
        node, at = stack.pop()
        if isinstance(node, dict) and "$ref" in node:
            node, at = spec.deref(node, at)
            if str(at) in found:
                continue
            found.add(str(at))
        if not isinstance(node, dict):
            continue
        props = node.get("properties")
        props_at = at.child("properties")
        if isinstance(props, dict) and isinstance(props.get("$ref"), str):
            props, props_at = spec.deref(props, props_at)
        if isinstance(props, dict):
            stack.extend((v, props_at.child(k)) for k, v in props.items())
        for key in ("items", "additionalProperties"):
            if isinstance(node.get(key), dict):
                stack.append((node[key], at.child(key)))
        for key in ("allOf", "anyOf", "oneOf"):
            if isinstance(node.get(key), list):
                stack.extend((v, at.child(key, i)) for i, v in enumerate(node[key]))
        mapping = (node.get("discriminator") or {}).get("mapping")
        if isinstance(mapping, dict):
            for value, target in mapping.items():
                where = at.child("discriminator", "mapping", value)
                stack.append(({"$ref": target}, where))


def _content_schemas(spec: SpecSet, node: Any, at: Location) -> Iterator[tuple[Any, Location]]:
    node, at = spec.deref(node, at)
    if isinstance(node, dict):
        if "schema" in node:
            yield node["schema"], at.child("schema")
        for media_type, media in (node.get("content") or {}).items():
            if isinstance(media, dict) and "schema" in media:
                yield media["schema"], at.child("content", media_type, "schema")


def inventory(path: Path) -> Inventory:
    """Every operation, and every schema the spec names or reaches through a ``$ref``."""
    spec = load_spec(path)
    root = spec.root.data
    name = spec.root.name
    operations: list[tuple[str, str]] = []
    found: set[str] = set()
    components = (root.get("components") or {}).get("schemas") or {}
    for key, node in components.items():
        at = Location(name, "/components/schemas").child(key)
        found.add(str(at))
        _walk_schema(spec, node, at, found)
    for path_key, item in (root.get("paths") or {}).items():
        item, item_at = spec.deref(item, Location(name, "/paths").child(path_key))
        shared = item.get("parameters") or []
        for method in METHODS:
            if method not in item:
                continue
            operations.append((method.upper(), str(path_key)))
            op, op_at = spec.deref(item[method], item_at.child(method))
            parts: list[tuple[Any, Location]] = []
            for index, param in enumerate(shared):
                parts.append((param, item_at.child("parameters", index)))
            for index, param in enumerate(op.get("parameters") or []):
                parts.append((param, op_at.child("parameters", index)))
            if "requestBody" in op:
                parts.append((op["requestBody"], op_at.child("requestBody")))
            for code, response in (op.get("responses") or {}).items():
                parts.append((response, op_at.child("responses", str(code))))
            for part, part_at in parts:
                for schema, schema_at in _content_schemas(spec, part, part_at):
                    _walk_schema(spec, schema, schema_at, found)
    return Inventory(tuple(operations), frozenset(found))


@attrs.frozen
class Coverage:
    operations: int
    operations_generated: int
    schemas: int
    schemas_generated: int
    missing_operations: tuple[str, ...]
    missing_schemas: tuple[str, ...]


def coverage(sdk: ir.Sdk, inv: Inventory) -> Coverage:
    generated = {(op.method, op.path) for r in sdk.resources for op in r.operations}
    missing_ops = tuple(f"{m} {p}" for m, p in inv.operations if (m, p) not in generated)
    missing_schemas = tuple(sorted(k for k in inv.schemas if k not in sdk.schemas))
    return Coverage(
        operations=len(inv.operations),
        operations_generated=len(inv.operations) - len(missing_ops),
        schemas=len(inv.schemas),
        schemas_generated=len(inv.schemas) - len(missing_schemas),
        missing_operations=missing_ops,
        missing_schemas=missing_schemas,
    )


# -- examples --------------------------------------------------------------------


@attrs.frozen
class Example:
    location: str
    type: ir.TypeRef
    value: Any


class _Documents:
    def __init__(self) -> None:
        self._docs: dict[str, Document] = {}

    def node(self, key: str) -> Any:
        file, _, pointer = key.partition("#")
        if file not in self._docs:
            self._docs[file] = load_document(Path(file), file)
        node: Any = self._docs[file].data
        for raw in pointer.split("/")[1:] if pointer else []:
            token = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict):
                node = node.get(token)
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return None
        return node

    def deref(self, node: Any, key: str) -> Any:
        seen = 0
        while isinstance(node, dict) and isinstance(node.get("$ref"), str) and seen < 32:
            seen += 1
            ref = node["$ref"]
            file = key.partition("#")[0]
            target, _, target_pointer = ref.partition("#")
            if target:
                file = os.path.normpath(os.path.join(os.path.dirname(file), target))
            key = f"{file}#{target_pointer}"
            node = self.node(key)
        return node


_MEDIA_SCHEMA = re.compile(r"^(?P<media>.*/content/[^/]+)/schema$")


def examples(sdk: ir.Sdk) -> list[Example]:
    """Every ``example``/``examples`` of a schema or media type, with the type built for it."""
    docs = _Documents()
    out: list[Example] = []
    for key, t in sorted(sdk.located.items()):
        node = docs.node(key)
        if isinstance(node, dict):
            if "example" in node:
                out.append(Example(f"{key}/example", t, node["example"]))
            if isinstance(node.get("examples"), list):
                for index, value in enumerate(node["examples"]):
                    out.append(Example(f"{key}/examples/{index}", t, value))
        match = _MEDIA_SCHEMA.match(key)
        if match is None:
            continue
        media = docs.node(match["media"])
        if not isinstance(media, dict):
            continue
        if "example" in media:
            out.append(Example(f"{match['media']}/example", t, media["example"]))
        named = media.get("examples")
        if isinstance(named, dict):
            for name, item in named.items():
                item = docs.deref(item, match["media"])
                if isinstance(item, dict) and "value" in item:
                    out.append(Example(f"{match['media']}/examples/{name}/value", t, item["value"]))
    return out


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Decoders:
    """Evaluates the generated decoder of any model type inside an imported SDK."""

    def __init__(self, sdk: ir.Sdk, package: ModuleType) -> None:
        self.code = TypeCode(sdk.schemas)
        self.package = package
        self.serde = importlib.import_module(f"{package.__name__}._runtime.wire.serde")
        self.modules = {s.name: s.module for s in sdk.schemas.values()}
        self.modules.update(
            {
                s.decoder if isinstance(s, ir.UnionSchema) else f"decode_{s.module}": s.module
                for s in sdk.schemas.values()
            }
        )

    def decoder(self, t: ir.TypeRef) -> Any:
        expression = self.code.decoder(t)
        namespace: dict[str, Any] = {"_s": self.serde}
        for name in set(_NAME.findall(expression)):
            module = self.modules.get(name)
            if module is not None:
                loaded = importlib.import_module(f"{self.package.__name__}.models.{module}")
                namespace[name] = getattr(loaded, name)
        return eval(expression, namespace)

    def round_trip(self, t: ir.TypeRef, value: Any) -> Any:
        return self.serde.encode(self.decoder(t)(value, "$"))


def _instant(text: str) -> dt.datetime | None:
    try:
        parsed = dt.datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def same(expected: Any, got: Any) -> bool:
    """JSON equality, modulo date-time formatting (``Z`` vs ``+00:00``, fraction digits)."""
    if isinstance(expected, bool) or isinstance(got, bool):
        return type(expected) is type(got) and expected == got
    if isinstance(expected, dict) and isinstance(got, dict):
        return expected.keys() == got.keys() and all(same(expected[k], got[k]) for k in expected)
    if isinstance(expected, list) and isinstance(got, list):
        return len(expected) == len(got) and all(same(a, b) for a, b in zip(expected, got))
    if isinstance(expected, str) and isinstance(got, str) and expected != got:
        a, b = _instant(expected), _instant(got)
        return a is not None and a == b
    return bool(expected == got)


@attrs.frozen
class RoundTrip:
    total: int
    failures: tuple[tuple[str, str], ...]


def round_trip_examples(sdk: ir.Sdk, package: ModuleType) -> RoundTrip:
    """Decode every example with its generated type, encode it again, compare."""
    decoders = Decoders(sdk, package)
    error_type = importlib.import_module(f"{package.__name__}.errors").DecodeError
    failures = []
    found = examples(sdk)
    for example in found:
        try:
            got = decoders.round_trip(example.type, example.value)
        except error_type as exc:
            failures.append((example.location, f"does not decode: {exc}"))
            continue
        if not same(example.value, got):
            failures.append((example.location, f"differs after the round trip: {got!r:.300}"))
    return RoundTrip(len(found), tuple(failures))


# -- the generated package -----------------------------------------------------


def import_all(package: ModuleType) -> tuple[int, list[str]]:
    """Import every module of a package; returns the count and the failures."""
    failures = []
    count = 0
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        count += 1
        try:
            importlib.import_module(info.name)
        except Exception as exc:  # noqa: BLE001 - reported
            failures.append(f"{info.name}: {type(exc).__name__}: {exc}")
    return count, failures


RUFF = (sys.executable, "-m", "ruff", "check", "--isolated", "--target-version", "py39")
MYPY = (
    sys.executable,
    "-m",
    "mypy",
    "--strict",
    "--no-incremental",
    "--cache-dir",
    os.devnull,
    "--python-version",
    "3.10",
)


def mypy_command(cache: Path) -> tuple[str, ...]:
    """:data:`MYPY` with a cache that is kept between runs (incremental)."""
    head = MYPY[: MYPY.index("--no-incremental")]
    return (*head, "--cache-dir", str(cache), "--python-version", "3.10")


def run(command: tuple[str, ...] | list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(command), cwd=cwd, capture_output=True, text=True, check=False)
