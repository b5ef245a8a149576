"""Input specs checked against the official OpenAPI JSON Schemas, before anything else.

A spec's root document is checked against the schema of its version (Swagger 2.0,
OpenAPI 3.0 or 3.1), as published by the OpenAPI Initiative and shipped by
``openapi-spec-validator``, with the ``jsonschema-rs`` validator (tens of milliseconds on
OpenAI's and Stripe's specs). Every problem is found in one run; the answer names each by
``file#pointer``, at most :data:`MAX_PROBLEMS` of them and a count of the rest.

An unknown key (a misspelling such as ``requestbody``) is an error, with the nearest
allowed key as "did you mean". Extensions (``x-...``) are allowed by the schemas
themselves. A few rules that published specs break without harm, and that their vendors'
tooling accepts, give a warning instead (:data:`LENIENT`, listed in docs/input-limits.md).
A document that ``$ref`` reaches is a fragment of a spec, and is not checked here.
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import attrs

from ..fieldwise import MutableNode, Node
from ..problems import Location, Problem, closest, counted

__all__ = ["LENIENT", "MAX_PROBLEMS", "check_spec_schema", "merge_problems", "version_of"]

#: Problems named in one run; the rest are counted.
MAX_PROBLEMS = 50

#: JSON Schema keywords of later drafts that OpenAPI 3.0's Schema object does not list.
_LATER_KEYWORDS = frozenset(
    {
        "const", "examples", "$schema", "$id", "$comment", "$defs", "contentMediaType",
        "contentEncoding", "prefixItems", "if", "then", "else", "dependentRequired",
        "dependentSchemas", "unevaluatedProperties", "unevaluatedItems", "propertyNames",
        "contains", "minContains", "maxContains",
    }
)  # fmt: skip

#: The rules published specs break without harm, whose breaking is a warning (one per
#: rule and spec, with the first place and a count): name -> what the warning says.
LENIENT = {
    "operation-ref": "an operation given by $ref, which the generator follows (the"
    " OpenAPI schema wants the Operation object itself)",
    "operation-title": "'title' on an operation, which the generator ignores",
    "later-keyword-30": "a JSON Schema keyword of a later draft in an OpenAPI 3.0 schema,"
    " which the generator reads as 3.1 does",
    "component-name": "a component name with characters the OpenAPI schema does not allow,"
    " which the generator turns into a Python name",
    "ref-for-text": "a $ref where the OpenAPI schema wants text (a description), which"
    " the generator does not read",
    "untyped": "a header or parameter with neither 'schema' nor 'content', which the"
    " generator takes as any value",
}
_UNTYPED = frozenset({'"schema" is a required property', '"content" is a required property'})

_UNEXPECTED = re.compile(r"\('(.+)' (?:was|were) unexpected\)")
_METHODS = frozenset({"get", "put", "post", "delete", "options", "head", "patch", "trace"})
_RESOURCES = {"2.0": "v2.0", "3.0": "v3.0", "3.1": "v3.1"}


@cache
def _schema(version: str) -> tuple[dict[str, Any], Any]:
    """The official schema of ``version`` ("2.0", "3.0", "3.1") and its compiled validator.

    The schema files are read from ``openapi-spec-validator``'s resources, without
    importing that package (a third of a second, for two files of data).
    """
    import jsonschema_rs

    found = importlib.util.find_spec("openapi_spec_validator")
    folders = list(found.submodule_search_locations or ()) if found is not None else []
    for folder in folders:
        path = Path(folder) / "resources" / "schemas" / _RESOURCES[version] / "schema.json"
        if path.is_file():
            schema = json.loads(path.read_text(encoding="utf-8"))
            break
    else:  # pragma: no cover - the package moved its files
        from openapi_spec_validator import schemas

        schema = dict(getattr(schemas, "schema_v" + version.replace(".", "").rstrip("0")))
    return schema, jsonschema_rs.validator_for(schema)


def version_of(data: Any) -> str | None:
    """The schema version a root document claims: "2.0", "3.0", "3.1", or None."""
    if not isinstance(data, dict):
        return None
    if str(data.get("swagger", "")).startswith("2."):
        return "2.0"
    declared = str(data.get("openapi", ""))
    for version in ("3.0", "3.1"):
        if declared.startswith(version + "."):
            return version
    return None


def _walk(data: Any, pointer: str) -> Any:
    node = data
    for raw in pointer.split("/")[1:] if pointer else []:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            node = node.get(token) if isinstance(node, dict) else None
    return node


def _allowed(schema: dict[str, Any], location: str) -> tuple[str, ...]:
    """The keys the schema object owning the keyword at ``location`` names."""
    pointer = location.partition("#")[2]
    owner = _walk(schema, pointer.rsplit("/", 1)[0])
    properties = owner.get("properties") if isinstance(owner, dict) else None
    return tuple(sorted(properties)) if isinstance(properties, dict) else ()


def _did_you_mean(name: str, allowed: tuple[str, ...]) -> str:
    folded = {a.lower(): a for a in allowed}
    close = folded.get(name.lower()) or closest(name, allowed)
    return f"; did you mean '{close}'?" if close else ""


def _noise(location: str, message: str) -> bool:
    """An error of the ``$ref`` branch of a "Reference or X" choice, or the echo of an
    unknown key at the key itself (3.1's ``unevaluatedProperties``)."""
    if "/reference/" in location.lower() or message == '"$ref" is a required property':
        return True
    return message.startswith("False schema does not allow")


_LATER_METHODS = frozenset({"query", "additionalOperations"})


def _path_item(pointer: str) -> bool:
    parts = pointer.split("/")
    return len(parts) == 3 and parts[1] == "paths"


def _operation(pointer: str) -> bool:
    parts = pointer.split("/")
    return len(parts) == 4 and parts[1] == "paths" and parts[3] in _METHODS


def _ancestors(pointer: str) -> Iterator[str]:
    """``pointer`` and every pointer above it, the root ("") included."""
    yield pointer
    while pointer:
        pointer = pointer.rpartition("/")[0]
        yield pointer


@attrs.frozen(eq=False, repr=False)
class _Named(Node):
    """A problem to show, its message made only if it is: an unknown key's "did you
    mean" compares it with the keys allowed there, which is done for the shown ones."""

    location: Location
    sort_key: str
    allowed: tuple[str, ...] | None = None

    def problem(self) -> Problem:
        if self.allowed is None:
            return Problem(self.location, self.sort_key)
        name = self.sort_key
        return Problem(self.location, f"unknown key '{name}'{_did_you_mean(name, self.allowed)}")


@attrs.define(eq=False, repr=False)
class _Found(MutableNode):
    errors: list[_Named] = attrs.field(factory=list)
    lenient: dict[str, list[Location]] = attrs.field(factory=dict)


def check_spec_schema(data: Any, file: str) -> tuple[list[Problem], list[Problem]]:
    """The errors and the warnings of the root document ``data`` (of file ``file``)
    against its OpenAPI schema; both empty for a document that claims no version."""
    version = version_of(data)
    if version is None:
        return [], []
    schema, validator = _schema(version)
    if validator.is_valid(data):
        return [], []
    import jsonschema_rs

    errors = [
        (str(e["instanceLocation"]), str(e["schemaLocation"]), str(e["error"]))
        for e in jsonschema_rs.evaluate(schema, data).errors()
    ]
    real = [e for e in errors if not _noise(e[1], e[2])]
    # A choice's $ref branch failing matters only where nothing else failed, there or
    # deeper: the places of the real errors and all their ancestors, indexed once.
    taken = set(real)
    covered = {above for e in real for above in _ancestors(e[0])}
    kept = real + [
        e
        for e in errors
        if e not in taken and e[0] not in covered and not e[2].startswith("False schema")
    ]
    found = _Found()
    for where, location, message in kept:
        _explain(found, schema, data, version, Location(file, where), location, message)
    # Only the problems shown are explained ("did you mean"): the others are counted.
    named = sorted(set(found.errors), key=lambda p: (p.location.pointer, p.sort_key))
    shown = [p.problem() for p in named[:MAX_PROBLEMS]]
    if len(named) > MAX_PROBLEMS:
        more = len(named) - MAX_PROBLEMS
        shown.append(
            Problem(
                Location(file), f"and {counted(more, 'more place')} that break the OpenAPI schema"
            )
        )
    warnings = []
    for rule, places in found.lenient.items():
        unique = sorted(set(places), key=lambda at: at.pointer)
        more = len(unique) - 1
        count = f" (and {counted(more, 'more place')})" if more else ""
        warnings.append(Problem(unique[0], f"{LENIENT[rule]}{count}"))
    return shown, warnings


def _explain(
    found: _Found,
    schema: dict[str, Any],
    data: Any,
    version: str,
    at: Location,
    location: str,
    message: str,
) -> None:
    keyword = location.rsplit("/", 1)[-1]
    node = _walk(data, at.pointer)
    if _operation(at.pointer) and isinstance(node, dict) and "$ref" in node:
        found.lenient.setdefault("operation-ref", []).append(at)
        return
    parts = at.pointer.split("/")
    if len(parts) == 3 and parts[1] == "components" and "does not match" in message:
        found.lenient.setdefault("component-name", []).append(at)
        return
    if (
        message in _UNTYPED
        and isinstance(node, dict)
        and not {"schema", "content", "$ref"} & set(node)
    ):
        found.lenient.setdefault("untyped", []).append(at)
        return
    ref_only = isinstance(node, dict) and set(node) == {"$ref"}
    if keyword == "type" and ref_only and at.pointer.endswith("/description"):
        found.lenient.setdefault("ref-for-text", []).append(at)
        return
    names: list[str] = []
    if keyword in ("additionalProperties", "unevaluatedProperties"):
        unexpected = _UNEXPECTED.search(message)
        if unexpected is not None:
            names = [n.strip().strip("'") for n in unexpected.group(1).split("', '")]
    if not names:
        found.errors.append(_Named(at, _short(message)))
        return
    allowed = _allowed(schema, location)
    for name in names:
        place = at.child(name)
        if name in _LATER_METHODS and _path_item(at.pointer):
            continue  # OpenAPI 3.2's methods: the generator warns of each operation itself
        if name == "title" and _operation(at.pointer):
            found.lenient.setdefault("operation-title", []).append(place)
        elif version == "3.0" and name in _LATER_KEYWORDS and "/Schema/" in location:
            found.lenient.setdefault("later-keyword-30", []).append(place)
        else:
            found.errors.append(_Named(place, name, allowed))


def _short(message: str) -> str:
    message = message.replace("\n", " ")
    return message if len(message) <= 200 else message[:197] + "..."


def merge_problems(schema: tuple[Problem, ...], found: list[Problem]) -> list[Problem]:
    """The schema's problems first, then the generator's own (``found``); a schema problem
    on the branch of one of the generator's, which says more, is left out, except an
    unknown key, which only the schema catches."""

    # Indexed once, so the merge is linear: the generator's places, and every place
    # above one of them (a schema problem there is on the branch of one below).
    places = {(f.location.file, f.location.pointer) for f in found}
    above = {(file, up) for file, pointer in places for up in _ancestors(pointer)}

    def related(at: Location) -> bool:
        return (at.file, at.pointer) in above or any(
            (at.file, up) in places for up in _ancestors(at.pointer)
        )

    kept = [p for p in schema if p.message.startswith("unknown key") or not related(p.location)]
    return [*kept, *found]
