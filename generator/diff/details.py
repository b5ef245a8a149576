"""What callers notice but the SDK model leaves out, read from the spec documents.

The SDK model keeps types; a caller also meets the spec's constraints (a request the
server now rejects), defaults, readOnly/writeOnly, ``allOf`` bases, success statuses,
and response headers and media types. These are read from the documents the model was
built from (:attr:`ir.Sdk.spec`); an SDK model built without them has none of these.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import attrs

from ..model import ir
from ..problems import Location, SpecError
from ..spec.loader import SpecSet

__all__ = [
    "Facets",
    "ResponseFacts",
    "bases",
    "constraint_changes",
    "field_facets",
    "parameter_facets",
    "response_facts",
    "schema_facets",
]

#: Bounds that exclude more values as they grow, and as they shrink.
_LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
#: Constraints that can only be told to have changed: any new one may exclude values.
_OTHER = ("pattern", "multipleOf", "uniqueItems")
_NESTED_DEPTH = 8
_NO_DEFAULT = object()


@attrs.frozen
class Facets:
    """A value's constraints (``items.`` prefixed for an array's items), default, access."""

    constraints: dict[str, Any] = attrs.field(factory=dict)
    default: Any = _NO_DEFAULT
    read_only: bool = False
    write_only: bool = False

    @property
    def has_default(self) -> bool:
        return self.default is not _NO_DEFAULT


@attrs.frozen
class ResponseFacts:
    """An operation's success responses: statuses, media types, headers (lower-cased)."""

    statuses: tuple[str, ...] = ()
    media_types: tuple[str, ...] = ()
    headers: tuple[str, ...] = ()


def _walk(spec: SpecSet, location: Location) -> Any:
    try:
        node: Any = spec.document_at(location).data
    except KeyError:
        return None
    for raw in location.pointer.split("/")[1:]:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node


def _deref(spec: SpecSet, node: Any, at: Location) -> tuple[Any, Location]:
    try:
        return spec.deref(node, at)
    except SpecError:
        return None, at


def _non_null(node: Any) -> Any:
    """``anyOf: [X, {type: null}]`` (3.1's way to say nullable) stands for X."""
    if not isinstance(node, dict):
        return node
    for word in ("anyOf", "oneOf"):
        parts = node.get(word)
        if isinstance(parts, list):
            kept = [
                p for p in parts if not (isinstance(p, dict) and p.get("type") in ("null", None))
            ]
            if len(kept) == 1 and len(parts) == 2:
                return kept[0]
    return node


def _constraints(
    spec: SpecSet, node: Any, at: Location, prefix: str = "", depth: int = 0
) -> dict[str, Any]:
    node, at = _deref(spec, node, at)
    node = _non_null(node)
    if not isinstance(node, dict) or depth > _NESTED_DEPTH:
        return {}
    found = {prefix + name: node[name] for name in (*_LOWER, *_UPPER, *_OTHER) if name in node}
    if "items" in node:
        found.update(
            _constraints(spec, node["items"], at.child("items"), f"{prefix}items.", depth + 1)
        )
    return found


def _facets(spec: SpecSet, node: Any, at: Location) -> Facets:
    target, target_at = _deref(spec, node, at)
    if not isinstance(target, dict):
        return Facets()
    # Annotations beside a ``$ref`` (3.1) win over the target's.
    here = node if isinstance(node, dict) else {}

    def pick(word: str, default: Any) -> Any:
        if word in here:
            return here[word]
        return target.get(word, default)

    default = pick("default", _NO_DEFAULT)
    return Facets(
        constraints=_constraints(spec, target, target_at),
        # ``default: null`` says what leaving the value out says: no default.
        default=_NO_DEFAULT if default is None else default,
        read_only=pick("readOnly", False) is True,
        write_only=pick("writeOnly", False) is True,
    )


def _properties(
    spec: SpecSet, node: Any, at: Location, into: dict[str, tuple[Any, Location]], depth: int = 0
) -> None:
    """Every property of a model, through ``allOf``, as the model builder collects them."""
    node, at = _deref(spec, node, at)
    if not isinstance(node, dict) or depth > 64:
        return
    parts = node.get("allOf")
    for index, part in enumerate(parts if isinstance(parts, list) else []):
        _properties(spec, part, at.child("allOf", index), into, depth + 1)
    properties, properties_at = node.get("properties"), at.child("properties")
    if isinstance(properties, dict) and "$ref" in properties:
        properties, properties_at = _deref(spec, properties, properties_at)
    if isinstance(properties, dict):
        for wire, schema in properties.items():
            into[str(wire)] = (schema, properties_at.child(str(wire)))


def field_facets(sdk: ir.Sdk, model: ir.Model) -> dict[str, Facets]:
    """Each field's facets, by wire name."""
    if sdk.spec is None or model.location is None:
        return {}
    props: dict[str, tuple[Any, Location]] = {}
    _properties(sdk.spec, _walk(sdk.spec, model.location), model.location, props)
    return {wire: _facets(sdk.spec, node, at) for wire, (node, at) in props.items()}


def schema_facets(sdk: ir.Sdk, schema: ir.NamedSchema) -> Facets:
    """The facets of a named schema itself (an alias of a constrained string, say)."""
    if sdk.spec is None or schema.location is None:
        return Facets()
    return _facets(sdk.spec, _walk(sdk.spec, schema.location), schema.location)


def bases(sdk: ir.Sdk, model: ir.Model) -> Iterator[str]:
    """Keys of the named schemas a model extends with ``allOf``."""
    if sdk.spec is None or model.location is None:
        return
    yield from _bases(sdk, sdk.spec, _walk(sdk.spec, model.location), model.location, 0)


def _bases(sdk: ir.Sdk, spec: SpecSet, node: Any, at: Location, depth: int) -> Iterator[str]:
    if not isinstance(node, dict) or depth > 64:
        return
    parts = node.get("allOf")
    for index, part in enumerate(parts if isinstance(parts, list) else []):
        target, target_at = _deref(spec, part, at.child("allOf", index))
        if isinstance(part, dict) and "$ref" in part and str(target_at) in sdk.schemas:
            yield str(target_at)
        yield from _bases(sdk, spec, target, target_at, depth + 1)


def _operation_node(sdk: ir.Sdk, op: ir.Operation) -> tuple[SpecSet, Any, Location] | None:
    if sdk.spec is None or op.location is None:
        return None
    node = _walk(sdk.spec, op.location)
    return (sdk.spec, node, op.location) if isinstance(node, dict) else None


def parameter_facets(sdk: ir.Sdk, op: ir.Operation) -> dict[tuple[str, str], Facets]:
    """Facets of each parameter's schema, by (place, wire name); the operation's own win."""
    found = _operation_node(sdk, op)
    if found is None:
        return {}
    spec, node, at = found
    item_at = Location(at.file, at.pointer.rsplit("/", 1)[0])
    out: dict[tuple[str, str], Facets] = {}
    for owner, owner_at in ((_walk(spec, item_at), item_at), (node, at)):
        params = owner.get("parameters") if isinstance(owner, dict) else None
        for index, param in enumerate(params if isinstance(params, list) else []):
            p, p_at = _deref(spec, param, owner_at.child("parameters", index))
            if isinstance(p, dict) and isinstance(p.get("name"), str):
                out[(str(p.get("in")), p["name"])] = _facets(
                    spec, p.get("schema"), p_at.child("schema")
                )
    return out


def response_facts(sdk: ir.Sdk, op: ir.Operation) -> ResponseFacts | None:
    found = _operation_node(sdk, op)
    if found is None:
        return None
    spec, node, at = found
    responses = node.get("responses")
    if not isinstance(responses, dict):
        return ResponseFacts()
    statuses: list[str] = []
    media: set[str] = set()
    headers: set[str] = set()
    for status, response in responses.items():
        if not str(status).startswith("2"):
            continue
        statuses.append(str(status))
        target, _ = _deref(spec, response, at.child("responses", str(status)))
        if not isinstance(target, dict):
            continue
        if isinstance(target.get("content"), dict):
            media.update(str(m) for m in target["content"])
        if isinstance(target.get("headers"), dict):
            headers.update(str(h).lower() for h in target["headers"])
    return ResponseFacts(tuple(sorted(statuses)), tuple(sorted(media)), tuple(sorted(headers)))


def _show(value: Any) -> str:
    return "(none)" if value is None else repr(value)


def constraint_changes(old: dict[str, Any], new: dict[str, Any]) -> Iterator[tuple[str, bool]]:
    """Each changed constraint as (text, tighter): whether it may exclude a value it allowed."""
    for name in sorted(old.keys() | new.keys()):
        a, b = old.get(name), new.get(name)
        if a == b and isinstance(a, bool) == isinstance(b, bool):
            continue
        word = name.rpartition(".")[2]
        numeric = not isinstance(a, bool) and not isinstance(b, bool)
        if word in _LOWER + _UPPER and numeric:
            if a is None or b is None:
                tighter = a is None
            else:
                try:
                    tighter = b > a if word in _LOWER else b < a
                except TypeError:
                    tighter = True
        elif isinstance(a, bool) or isinstance(b, bool):
            tighter = b is True  # exclusiveMinimum: true (3.0), uniqueItems: true
        else:
            tighter = b is not None
        yield f"{name} {_show(a)} -> {_show(b)}", tighter
