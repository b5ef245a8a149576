"""Values that satisfy a JSON Schema: made up where the spec gives none, and repaired.

:func:`make` builds a value of a (bundled, 2020-12) schema: the spec's own ``const``,
``enum``, ``examples``/``example`` and ``default`` first, where they validate; then a
value of the first type the schema allows, within its bounds: a string matching its
``pattern`` (generated from the regex with ``rstr``), of its ``format`` (``date-time``,
``uuid``, ``uri``, ``email``...), between ``minLength`` and ``maxLength``; a number
between ``minimum`` and ``maximum``, a multiple of ``multipleOf``; arrays of
``minItems`` items; objects with their required properties.

:func:`conform` repairs a value made from the intermediate model (which keeps no
constraints) until the schema accepts it: each value the validator refuses is made
again from the schema that refused it, except under the pointers the caller protects
(an id, a state: values the simulation owns, which the self-check then judges).
Both are deterministic: the same schema, value and seed give the same answer.
"""

from __future__ import annotations

import base64
import math
import random
import re
from collections.abc import Callable, Collection, Sequence
from typing import Any

import jsonschema_rs
import rstr

from ..problems import pointer_join
from .validate import EXAMPLES

__all__ = ["Values", "closest", "conform_rounds"]

JSON = Any

#: How many refusals :func:`Values.conform` repairs before giving up.
conform_rounds = 64
MAX_DEPTH = 12
_FORMATS: dict[str, str] = {
    "date": "2025-01-02",
    "time": "03:04:05Z",
    "duration": "PT1S",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "uri-reference": "https://example.com/",
    "iri": "https://example.com/",
    "iri-reference": "https://example.com/",
    "uri-template": "https://example.com/{id}",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "hostname": "example.com",
    "idn-hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "byte": base64.b64encode(b"example").decode(),
    "json-pointer": "/example",
    "relative-json-pointer": "0",
    "regex": "^example$",
}


def closest(wanted: object, members: Sequence[JSON]) -> JSON:
    """The member of ``members`` nearest ``wanted``: equal, equal ignoring case and
    punctuation (``NotFound`` for ``not_found``), sharing a word, else the first."""
    if wanted in members:
        return wanted

    def squash(value: object) -> str:
        return re.sub(r"[^a-z0-9]", "", str(value).lower())

    for member in members:
        if isinstance(member, str) and squash(member) == squash(wanted):
            return member
    words = set(re.findall(r"[a-z0-9]+", str(wanted).lower())) - {"job", "error", "not"}
    for member in members:
        if isinstance(member, str) and words & set(re.findall(r"[a-z0-9]+", member.lower())):
            return member
    return members[0]


class Values:
    """Makes and repairs values of one bundled schema (its ``$defs`` hold the ``$ref``s)."""

    def __init__(self, schema: JSON, *, timestamp: str, seed: str = "") -> None:
        self.schema = schema
        self.timestamp = timestamp
        self.seed = seed
        self._defs = schema.get("$defs", {}) if isinstance(schema, dict) else {}
        self._validators: dict[int, Any] = {}
        self.validator = self._validator(schema)

    def _validator(self, schema: JSON) -> Any:
        found = self._validators.get(id(schema))
        if found is None:
            whole = schema
            if isinstance(schema, dict) and self._defs and "$defs" not in schema:
                whole = {**schema, "$defs": self._defs}
            try:
                found = jsonschema_rs.Draft202012Validator(whole, validate_formats=True)
            except (jsonschema_rs.ValidationError, ValueError):
                found = jsonschema_rs.Draft202012Validator(True)
            self._validators[id(schema)] = found
        return found

    def valid(self, value: JSON, schema: JSON | None = None) -> bool:
        validator = self.validator if schema is None else self._validator(schema)
        return bool(validator.is_valid(value))

    def _resolve(self, schema: JSON) -> JSON:
        for _ in range(MAX_DEPTH):
            if not (isinstance(schema, dict) and isinstance(schema.get("$ref"), str)):
                return schema
            name = schema["$ref"].rsplit("/", 1)[-1]
            schema = self._defs.get(name, True)
        return schema

    # -- making values ----------------------------------------------------------------

    def make(self, schema: JSON | None = None, *, like: JSON = None, where: str = "") -> JSON:
        """A value of ``schema`` (the whole schema by default), near ``like`` where it can be."""
        return self._make(self.schema if schema is None else schema, like, where, 0)

    def _rng(self, where: str) -> random.Random:
        return random.Random(f"{self.seed}#{where}")

    def _make(self, schema: JSON, like: JSON, where: str, depth: int) -> JSON:
        schema = self._resolve(schema)
        if depth > MAX_DEPTH or not isinstance(schema, dict):
            return like if like is not None else "example"
        if "const" in schema:
            return schema["const"]
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            present = [m for m in enum if m is not None] or enum
            return closest(like, present)
        for candidate in self._given(schema):
            if self.valid(candidate, schema):
                return candidate
        for key in ("allOf", "anyOf", "oneOf"):
            parts = schema.get(key)
            if isinstance(parts, list) and parts:
                return self._combined(schema, key, parts, like, where, depth)
        kinds = schema.get("type")
        kind = kinds if isinstance(kinds, str) else None
        if isinstance(kinds, list):
            kind = next((k for k in kinds if k != "null"), "null")
        if kind is None:
            kind = _kind_of(schema, like)
        return self._typed(kind, schema, like, where, depth)

    def _given(self, schema: dict[str, JSON]) -> list[JSON]:
        examples = schema.get(EXAMPLES)
        found: list[JSON] = list(examples) if isinstance(examples, list) else []
        if "default" in schema:
            found.append(schema["default"])
        return found

    def _combined(
        self,
        schema: dict[str, JSON],
        key: str,
        parts: list[JSON],
        like: JSON,
        where: str,
        depth: int,
    ) -> JSON:
        rest = {k: v for k, v in schema.items() if k not in ("allOf", "anyOf", "oneOf")}
        if key != "allOf":
            if like is not None:  # the value repaired for a variant, before a new one
                for part in parts:
                    if not _same_kind(self._resolve(part), like):
                        continue
                    repaired = self._conform(like, {**rest, "allOf": [part]}, where, ())
                    if self.valid(repaired, schema):
                        return repaired
            for part in parts:
                value = self._make({**rest, "allOf": [part]}, like, where, depth + 1)
                if self.valid(value, schema):
                    return value
            # Objects that satisfy several variants (a oneOf of optional fields): one
            # with every property of a variant tells it apart.
            for part in parts:
                value = self._full(part, where, depth + 1)
                if value is not None and self.valid(value, schema):
                    return value
            return self._make({**rest, "allOf": [parts[0]]}, like, where, depth + 1)
        merged: JSON = None
        for part in [rest, *parts]:
            if not rest and part is rest:
                continue
            value = self._make(part, like, where, depth + 1)
            if isinstance(merged, dict) and isinstance(value, dict):
                merged = {**value, **merged}
            elif merged is None:
                merged = value
        return self._conform(merged, schema, where, ())

    def _full(self, schema: JSON, where: str, depth: int) -> JSON:
        """An object of ``schema`` with each of its properties (None when it is not one)."""
        schema = self._resolve(schema)
        if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
            return None
        value = self._make(schema, None, where, depth)
        if not isinstance(value, dict):
            return None
        for name, sub in schema["properties"].items():
            if name not in value:
                value[str(name)] = self._make(sub, None, pointer_join(where, str(name)), depth + 1)
        return value

    def _typed(
        self, kind: str, schema: dict[str, JSON], like: JSON, where: str, depth: int
    ) -> JSON:
        if kind == "null":
            return None
        if kind == "boolean":
            return like if isinstance(like, bool) else False
        if kind in ("integer", "number"):
            return _number(schema, like, integer=kind == "integer")
        if kind == "string":
            return self._string(schema, like, where)
        if kind == "array":
            items = schema.get("items", True)
            prefix = schema.get("prefixItems")
            count = max(
                int(schema.get("minItems", 0) or 0), 1 if schema.get("maxItems") != 0 else 0
            )
            out = [
                self._make(
                    prefix[i] if isinstance(prefix, list) and i < len(prefix) else items,
                    None,
                    pointer_join(where, i),
                    depth + 1,
                )
                for i in range(count)
            ]
            return out
        out_obj: dict[str, JSON] = {}
        properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = schema.get("required") if isinstance(schema.get("required"), list) else []
        for name in required or ():
            sub = properties.get(name, True) if isinstance(properties, dict) else True
            out_obj[str(name)] = self._make(sub, None, pointer_join(where, str(name)), depth + 1)
        return out_obj

    def _string(self, schema: dict[str, JSON], like: JSON, where: str) -> str:
        low = int(schema.get("minLength", 0) or 0)
        high = schema.get("maxLength")
        fmt = schema.get("format")
        pattern = schema.get("pattern")
        candidates: list[str] = []
        if isinstance(like, str):
            candidates.append(like)
        if fmt == "date-time":
            candidates.append(self.timestamp)
        elif isinstance(fmt, str) and fmt in _FORMATS:
            candidates.append(_FORMATS[fmt])
        if isinstance(pattern, str):
            generator = rstr.Rstr(self._rng(where))
            for _ in range(8):
                try:
                    candidates.append(generator.xeger(pattern))
                except Exception:  # noqa: BLE001 - a regex rstr cannot read: no candidate
                    break
        candidates.append("example")
        for text in candidates:
            fitted = text + "x" * max(0, low - len(text))
            if isinstance(high, int) and len(fitted) > high:
                fitted = fitted[:high]
            if self.valid(fitted, schema):
                return fitted
        return candidates[0] if candidates else "example"

    # -- repairing values -------------------------------------------------------------

    def conform(self, value: JSON, *, protect: Collection[str] = ()) -> JSON:
        """``value``, with each placeholder (``"example"``, ``0``) that the schema gives an
        example for replaced by it, and each part the schema refuses made again from
        the refusing schema; the parts under a pointer in ``protect`` are left as they are."""
        kept = tuple(protect)
        value = self._examples(value, self.schema, "", kept, 0)
        return self._conform(value, self.schema, "", kept)

    def _examples(
        self, value: JSON, schema: JSON, where: str, protect: tuple[str, ...], depth: int
    ) -> JSON:
        """``value`` with the spec's examples in place of the model's placeholders."""
        schema = self._resolve(schema)
        if depth > MAX_DEPTH or not isinstance(schema, dict) or _under(where, protect):
            return value
        if isinstance(value, dict):
            properties = self._properties(schema, depth)
            return {
                key: self._examples(
                    item, properties[key], pointer_join(where, key), protect, depth + 1
                )
                if key in properties
                else item
                for key, item in value.items()
            }
        if isinstance(value, list):
            items = schema.get("items", True)
            return [
                self._examples(item, items, pointer_join(where, i), protect, depth + 1)
                for i, item in enumerate(value)
            ]
        if value in _PLACEHOLDERS and not isinstance(value, bool):
            for example in self._given(schema):
                if example != value and self.valid(example, schema):
                    return example
        return value

    def _properties(self, schema: dict[str, JSON], depth: int) -> dict[str, JSON]:
        """The property schemas of an object schema, its ``allOf`` members' included."""
        found: dict[str, JSON] = {}
        for part in schema.get("allOf") or ():
            resolved = self._resolve(part)
            if isinstance(resolved, dict) and depth < MAX_DEPTH:
                found.update(self._properties(resolved, depth + 1))
        properties = schema.get("properties")
        if isinstance(properties, dict):
            found.update({str(k): v for k, v in properties.items()})
        return found

    def _conform(self, value: JSON, schema: JSON, where: str, protect: tuple[str, ...]) -> JSON:
        validator = self._validator(schema)
        dropped: set[str] = set()
        for _ in range(conform_rounds):
            error = next(
                (
                    e
                    for e in validator.iter_errors(value)
                    if not _under(pointer_join("", *map(str, e.instance_path)), protect)
                ),
                None,
            )
            if error is None:
                return value
            fixed = self._fix(value, error, schema, where)
            if fixed is _STUCK:
                # No value fits there (a oneOf whose variants all match any object): an
                # optional property is better left out, once.
                path = list(error.instance_path)
                pointer = pointer_join("", *map(str, path))
                owner = _get(value, path[:-1])
                if not path or pointer in dropped or not isinstance(owner, dict):
                    return value
                dropped.add(pointer)
                fixed = _set(
                    value, path[:-1], {k: v for k, v in owner.items() if k != str(path[-1])}
                )
            value = fixed
        return value

    def _fix(self, value: JSON, error: Any, schema: JSON, where: str) -> JSON:
        path = list(error.instance_path)
        keyword = error.schema_path[-1] if error.schema_path else None
        parent = _walk_schema(schema, list(error.schema_path)[:-1], self)
        current = _get(value, path)
        kind = error.kind
        at = pointer_join(where, *map(str, path))
        if isinstance(kind, jsonschema_rs.ValidationErrorKind.Required) and isinstance(
            current, dict
        ):
            properties = parent.get("properties", {}) if isinstance(parent, dict) else {}
            name = str(kind.property)
            sub = properties.get(name, True) if isinstance(properties, dict) else True
            return _set(value, [*path, name], self._make(sub, None, pointer_join(at, name), 0))
        unexpected = getattr(kind, "unexpected", None)
        extra = keyword in ("additionalProperties", "unevaluatedProperties")
        if extra and isinstance(current, dict) and unexpected:
            names = set(map(str, unexpected))
            return _set(value, path, {k: v for k, v in current.items() if k not in names})
        if keyword == "maxItems" and isinstance(current, list) and isinstance(parent, dict):
            return _set(value, path, current[: int(parent.get("maxItems", 0))])
        if keyword == "minItems" and isinstance(current, list) and isinstance(parent, dict):
            items = parent.get("items", True)
            grown = [*current, self._make(items, None, pointer_join(at, len(current)), 0)]
            return _set(value, path, grown)
        if keyword == "uniqueItems" and isinstance(current, list):
            unique: list[JSON] = []
            for item in current:
                if item not in unique:
                    unique.append(item)
            if unique == current:
                return _STUCK
            return _set(value, path, unique)
        made = self._make(parent, current, at, 0)
        if made == current:
            return _STUCK
        return _set(value, path, made)


#: The values the model's sampler stands in with, which a spec's example beats.
_PLACEHOLDERS: tuple[JSON, ...] = ("example", 0, 0.0)


class _Stuck:
    pass


_STUCK: Any = _Stuck()


def _under(pointer: str, protect: tuple[str, ...]) -> bool:
    return any(pointer == p or pointer.startswith(p + "/") for p in protect)


def _walk_schema(schema: JSON, path: list[object], values: Values) -> JSON:
    node = {"$defs": values._defs} if path[:1] == ["$defs"] else schema
    for key in path:
        if isinstance(node, dict):
            node = node.get(str(key), True)
        elif isinstance(node, list) and isinstance(key, int) and key < len(node):
            node = node[key]
        else:
            return True
    return node


def _get(value: JSON, path: list[object]) -> JSON:
    for key in path:
        if isinstance(value, dict):
            value = value.get(str(key))
        elif isinstance(value, list) and isinstance(key, int) and key < len(value):
            value = value[key]
        else:
            return None
    return value


def _set(value: JSON, path: list[object], new: JSON) -> JSON:
    if not path:
        return new
    key, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, str(key): _set(value.get(str(key)), rest, new)}
    if isinstance(value, list) and isinstance(key, int) and key < len(value):
        return [*value[:key], _set(value[key], rest, new), *value[key + 1 :]]
    return value


def _same_kind(schema: JSON, value: JSON) -> bool:
    """Whether ``schema`` declares a type that ``value`` has (or declares none)."""
    if not isinstance(schema, dict) or "type" not in schema:
        return True
    declared = schema["type"]
    kinds = {declared} if isinstance(declared, str) else set(declared or ())
    mine = next((kind for kind, test in _LIKE if test(value)), "string")
    return mine in kinds or (mine == "integer" and "number" in kinds)


def _kind_of(schema: dict[str, JSON], like: JSON) -> str:
    if "properties" in schema or "required" in schema or "additionalProperties" in schema:
        return "object"
    if "items" in schema or "prefixItems" in schema:
        return "array"
    if any(k in schema for k in ("pattern", "format", "minLength", "maxLength")):
        return "string"
    if any(k in schema for k in ("minimum", "maximum", "multipleOf")):
        return "number"
    for kind, test in _LIKE:
        if test(like):
            return kind
    return "string"


_LIKE: tuple[tuple[str, Callable[[JSON], bool]], ...] = (
    ("null", lambda v: v is None),
    ("boolean", lambda v: isinstance(v, bool)),
    ("integer", lambda v: isinstance(v, int)),
    ("number", lambda v: isinstance(v, float)),
    ("array", lambda v: isinstance(v, list)),
    ("object", lambda v: isinstance(v, dict)),
)


def _number(schema: dict[str, JSON], like: JSON, *, integer: bool) -> int | float:
    """A number within the schema's bounds, ``like`` when it already is one."""

    def bound(name: str) -> float | None:
        value = schema.get(name)
        return (
            float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
        )

    low, high = bound("minimum"), bound("maximum")
    xlow, xhigh = bound("exclusiveMinimum"), bound("exclusiveMaximum")
    step = bound("multipleOf")
    unit = step or (1.0 if integer else 0.5)
    if xlow is not None:
        low = max(low, xlow + unit) if low is not None else xlow + unit
    if xhigh is not None:
        high = min(high, xhigh - unit) if high is not None else xhigh - unit
    start = float(like) if isinstance(like, int | float) and not isinstance(like, bool) else 0.0
    value = start
    if low is not None and value < low:
        value = low
    if high is not None and value > high:
        value = high
    if step:
        value = math.ceil(value / step) * step
        if high is not None and value > high:
            value -= step
    if integer:
        value = float(math.ceil(value)) if low is not None and value == low else float(round(value))
        return int(value)
    return int(value) if value == int(value) and isinstance(like, int) else value
