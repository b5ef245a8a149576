"""Checking each request against the operation it reaches, as the real API would.

Every parameter (path, query, header, cookie) is read the way its ``style`` and
``explode`` say, its text turned into the type its schema names, and checked against that
schema: required, type, format, enum, bounds. The ``Content-Type`` must be one of the
request body's media types, and the body must match the schema of that media type: JSON,
a form, the parts of a multipart body, text. A binary body is only checked for its media
type. Each problem is a :class:`Violation` naming its place by JSON pointer:
``/query/limit``, ``/header/Idempotency-Key``, ``/body/input/type``.

The schemas are taken from the spec document itself (the model keeps no constraints),
their ``$ref``s bundled into one JSON Schema per parameter and per media type, and
compiled once, when the server starts, with ``jsonschema_rs`` (see docs/serve.md for why).
An OpenAPI 3.0 schema is read as the JSON Schema it means: ``nullable``, the boolean
``exclusiveMinimum``/``exclusiveMaximum``; a property marked ``readOnly`` is never
required of a request.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import parse_qs, unquote

import attrs
import jsonschema_rs
from multipart import (
    MultipartError,
    MultipartSegment,
    PushMultipartParser,
    parse_options_header,
)

from ..model import ir
from ..problems import Location, SpecError, pointer_join
from ..spec.loader import SpecSet
from .wire import Request, parse_json

__all__ = ["OperationCheck", "RequestChecks", "Violation"]

JSON = Any
Where = Literal["path", "query", "header", "cookie"]

#: A message longer than this is cut (jsonschema_rs quotes the whole value it refuses).
MESSAGE_CAP = 200
#: Header parameters OpenAPI says to ignore: the protocol sets them.
IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
#: The bounds of the integer formats.
INT_FORMATS = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
#: The most parts a multipart body may have, header lines a part may have, and bytes one
#: of its header lines (folded lines joined) may hold; the most fields of a form.
MAX_PARTS = 1000
MAX_PART_HEADERS = 16
MAX_PART_HEADER = 8192
MAX_FORM_FIELDS = 1000
#: The backtracking steps the regex engine may take on one value before it gives up (a
#: pattern with look-around or back-references; others never backtrack): the default of
#: jsonschema-rs, a million, takes some 0.1 s of one core, during which the server answers
#: no one.
PATTERN_BACKTRACK_LIMIT = 20_000
#: Where a schema bundled for an answer keeps the spec's examples (out of the validator's way).
EXAMPLES = "x-jobgen-examples"
#: A value jsonschema_rs can check in place of a part that holds bytes.
_BYTES = "<bytes>"


@attrs.frozen
class Violation:
    """One way a request breaks its operation's contract.

    ``kind`` is ``parameter``, ``media_type`` or ``body``; ``pointer`` names the place
    (``/query/limit``, ``/body/input/type``); ``message`` says what is wrong.
    """

    kind: Literal["parameter", "media_type", "body"]
    pointer: str
    message: str

    def __str__(self) -> str:
        return f"{self.pointer}: {self.message}"


# -- schemas --------------------------------------------------------------------------


class _Bundler:
    """One self-contained JSON Schema (2020-12) from a schema of the spec and its ``$ref``s."""

    _ONE = (
        "items",
        "additionalProperties",
        "not",
        "contains",
        "propertyNames",
        "if",
        "then",
        "else",
        "unevaluatedItems",
        "unevaluatedProperties",
        "additionalItems",
    )
    _MANY = ("allOf", "anyOf", "oneOf", "prefixItems")
    _MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")

    def __init__(self, spec: SpecSet, openapi30: bool, *, response: bool = False) -> None:
        self.spec = spec
        self.openapi30 = openapi30
        #: Bundled for an answer: a ``writeOnly`` property is not required of it (a
        #: ``readOnly`` one is not of a request), and examples are kept (as annotations).
        self.response = response
        self.defs: dict[str, JSON] = {}
        self._names: dict[Location, str] = {}

    def bundle(self, node: JSON, at: Location) -> JSON:
        top = self._schema(node, at)
        if self.defs:
            if isinstance(top, bool):
                top = {"allOf": [top]}
            top = {**top, "$defs": dict(self.defs)}
        return top

    def _ref(self, ref: object, at: Location) -> JSON:
        target, where = self.spec.resolve(ref, at.child("$ref"))
        name = self._names.get(where)
        if name is None:
            name = self._names[where] = f"s{len(self._names)}"
            self.defs[name] = True  # a cycle back to it finds the name
            self.defs[name] = self._schema(target, where)
        return {"$ref": f"#/$defs/{name}"}

    def _schema(self, node: JSON, at: Location) -> JSON:
        if not isinstance(node, dict):
            return node if isinstance(node, bool) else True
        if "$ref" in node:
            ref = self._ref(node["$ref"], at)
            rest = {k: v for k, v in node.items() if k != "$ref"}
            if self.openapi30 or not rest:
                return ref  # 3.0: what stands beside a $ref is ignored
            return {"allOf": [ref, self._schema(rest, at)]}
        out: dict[str, JSON] = {}
        for key, value in node.items():
            if key in self._ONE and isinstance(value, dict | bool):
                out[key] = self._schema(value, at.child(key))
            elif key in self._ONE and key == "items" and isinstance(value, list):
                out["prefixItems"] = [
                    self._schema(v, at.child(key, i)) for i, v in enumerate(value)
                ]
            elif key in self._MANY and isinstance(value, list):
                out[key] = [self._schema(v, at.child(key, i)) for i, v in enumerate(value)]
            elif key in self._MAPS and isinstance(value, dict):
                out["$defs" if key == "definitions" else key] = {
                    str(k): self._schema(v, at.child(key, str(k))) for k, v in value.items()
                }
            elif key.startswith("x-") or key in ("discriminator", "xml"):
                continue
            elif key in ("example", "examples"):
                if self.response:
                    given = value if key == "examples" and isinstance(value, list) else [value]
                    out[EXAMPLES] = [*out.get(EXAMPLES, []), *given]
            else:
                out[key] = value
        # 3.0's forms, also where a 3.1 spec still writes them (OpenAI's boolean
        # exclusiveMinimum): in 3.1 they are errors, so reading them as 3.0 harms nothing.
        return _from_openapi30(self._request_only(out, node, at))

    def _request_only(
        self, out: dict[str, JSON], node: dict[str, JSON], at: Location
    ) -> dict[str, JSON]:
        """A property marked ``readOnly`` is not required of a request (``writeOnly``, of
        an answer)."""
        required = out.get("required")
        properties = node.get("properties")
        if not isinstance(required, list) or not isinstance(properties, dict):
            return out
        kept = []
        for name in required:
            try:
                prop, _ = self.spec.deref(properties.get(name), at.child("properties", str(name)))
            except SpecError:
                prop = None
            marker = "writeOnly" if self.response else "readOnly"
            if not (isinstance(prop, dict) and prop.get(marker) is True):
                kept.append(name)
        if len(kept) != len(required):
            out["required"] = kept
        return out


def _from_openapi30(schema: dict[str, JSON]) -> JSON:
    """An OpenAPI 3.0 schema object (its children already done) as JSON Schema 2020-12."""
    for bound, limit in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        flag = schema.get(bound)
        if isinstance(flag, bool):
            del schema[bound]
            if flag and limit in schema:
                schema[bound] = schema.pop(limit)
    fmt, kind = schema.get("format"), schema.get("type")
    if kind == "integer" and fmt in INT_FORMATS:
        low, high = INT_FORMATS[fmt]
        schema.setdefault("minimum", low)
        schema.setdefault("maximum", high)
    if schema.pop("nullable", False) is True:
        if isinstance(kind, str):
            schema["type"] = [kind, "null"]
            if isinstance(schema.get("enum"), list) and None not in schema["enum"]:
                schema["enum"] = [*schema["enum"], None]
        elif kind is None:
            return {"anyOf": [schema, {"type": "null"}]}
    return schema


class _Compiled:
    """A bundled schema and its validator, which names a pattern the engine gave up on."""

    def __init__(self, schema: JSON) -> None:
        self.schema = schema
        try:
            self.validator = jsonschema_rs.Draft202012Validator(
                schema,
                validate_formats=True,
                pattern_options=jsonschema_rs.FancyRegexOptions(
                    backtrack_limit=PATTERN_BACKTRACK_LIMIT
                ),
            )
        except (jsonschema_rs.ValidationError, ValueError):
            self.validator = jsonschema_rs.Draft202012Validator(True)

    def iter_errors(self, value: JSON) -> Any:
        return self.validator.iter_errors(value)

    def problems(self, value: JSON, base: str) -> list[Violation]:
        """Every way ``value`` breaks the schema, by JSON pointer under ``base``."""
        found = []
        kinds = jsonschema_rs.ValidationErrorKind
        for error in self.validator.iter_errors(value):
            problem = _problem(error, base)
            if isinstance(error.kind, kinds.BacktrackLimitExceeded | kinds.RegexEngineFailure):
                pattern = _walk(self.schema, "".join(f"/{p}" for p in error.schema_path))
                found.append(attrs.evolve(problem, message=undecided(pattern)))
            elif isinstance(error.kind, kinds.AdditionalProperties):
                found += [_unexpected(problem, name) for name in error.kind.unexpected]
            elif isinstance(error.kind, kinds.FalseSchema) and list(error.schema_path)[-1:] == [
                "additionalProperties"
            ]:
                # Reported at the object, with the value: name the properties holding it.
                holder = _walk(value, "".join(f"/{p}" for p in error.instance_path))
                pairs = holder.items() if isinstance(holder, dict) else ()
                names = [k for k, v in pairs if v == error.instance]
                found += [_unexpected(problem, name) for name in names] or [problem]
            else:
                found.append(problem)
        return list(dict.fromkeys(found))


def _unexpected(problem: Violation, name: str) -> Violation:
    """``problem`` as the property ``name`` that ``additionalProperties: false`` refuses."""
    return attrs.evolve(
        problem,
        pointer=pointer_join(problem.pointer, str(name)),
        message="is not allowed (the schema says additionalProperties: false)",
    )


def undecided(pattern: object) -> str:
    """The message refusing a value that ``pattern`` cannot be decided for."""
    shown = json.dumps(pattern, ensure_ascii=False) if isinstance(pattern, str) else "its pattern"
    return (
        f"cannot be checked against the spec's pattern {shown}: the regular expression "
        f"engine gave up after {PATTERN_BACKTRACK_LIMIT:,} backtracking steps (a pattern "
        "with look-around or back-references, nested quantifiers and a long value)"
    )


def _compile(schema: JSON) -> _Compiled:
    """A validator of ``schema``; one accepting anything when the spec's schema is not
    valid JSON Schema (the spec's own problem, which the generator reports)."""
    return _Compiled(schema)


def _types(schema: JSON, spec: SpecSet, at: Location) -> tuple[set[str], JSON, Location]:
    """The types a (raw) schema allows, and the schema itself with its ``$ref`` followed."""
    try:
        node, where = spec.deref(schema, at)
    except SpecError:
        return set(), None, at
    if not isinstance(node, dict):
        return set(), None, where
    kind = node.get("type")
    kinds = {kind} if isinstance(kind, str) else {k for k in kind or () if isinstance(k, str)}
    if not kinds:
        for key in ("allOf", "anyOf", "oneOf"):
            for i, part in enumerate(node.get(key) or ()):
                kinds |= _types(part, spec, where.child(key, i))[0]
        if not kinds and isinstance(node.get("properties"), dict):
            kinds = {"object"}
    return kinds, node, where


# -- parameters -----------------------------------------------------------------------


@attrs.frozen
class _Param:
    name: str
    where: Where
    required: bool
    style: str
    explode: bool
    kinds: frozenset[str]
    item_kinds: frozenset[str]
    properties: Mapping[str, frozenset[str]]
    json_content: bool
    validator: _Compiled

    @property
    def pointer(self) -> str:
        return pointer_join("", self.where, self.name)


def _scalar(text: str, kinds: frozenset[str] | set[str]) -> JSON:
    """``text`` as the JSON value its schema's types name (itself when none fits)."""
    if "integer" in kinds and re.fullmatch(r"-?\d+", text):
        return int(text)
    if "number" in kinds:
        try:
            number = float(text)
        except ValueError:
            pass
        else:
            if math.isfinite(number):
                return int(number) if re.fullmatch(r"-?\d+", text) else number
    if "boolean" in kinds and text in ("true", "false"):
        return text == "true"
    if "null" in kinds and text in ("", "null"):
        return None
    return text


def _pairs(items: list[str]) -> dict[str, str] | None:
    if len(items) % 2:
        return None
    return dict(zip(items[::2], items[1::2], strict=True))


class _ParamReader:
    """Reads one parameter's value out of a request, by its style and explode."""

    def __init__(self, param: _Param) -> None:
        self.p = param

    def value(self, request: Request, path: Mapping[str, str]) -> tuple[bool, JSON]:
        """(present, value): the parameter's value, typed, or its text when it cannot be."""
        p = self.p
        if p.where == "path":
            if p.name not in path:
                return False, None
            return True, self._text(unquote(path[p.name]), p.style or "simple")
        if p.where == "header":
            found = request.headers.get(p.name.lower())
            if found is None:
                return False, None
            # A header list may have spaces after its commas (RFC 9110, section 5.6.1).
            return True, self._text(re.sub(r"\s*,\s*", ",", found.strip()), "simple")
        if p.where == "cookie":
            cookies = _cookies(request.headers.get("cookie", ""))
            if p.name not in cookies:
                return False, None
            return True, self._text(cookies[p.name], "form", explode=False)
        return self._query(request.params)

    def _query(self, params: Mapping[str, list[str]]) -> tuple[bool, JSON]:
        p = self.p
        style = p.style or "form"
        if p.json_content:
            values = params.get(p.name)
            return (False, None) if values is None else (True, _json_or_text(values[-1]))
        if "object" in p.kinds and style == "deepObject":
            prefix = p.name + "["
            found = {
                key[len(prefix) : -1]: values[-1]
                for key, values in params.items()
                if key.startswith(prefix) and key.endswith("]")
            }
            return bool(found), self._object(found)
        if "object" in p.kinds and style == "form" and p.explode:
            found = {k: params[k][-1] for k in p.properties if k in params}
            return bool(found), self._object(found)
        values = params.get(p.name)
        if values is None:
            return False, None
        if "array" in p.kinds and style == "form" and p.explode:
            return True, [_scalar(v, p.item_kinds) for v in values]
        separator = {"spaceDelimited": " ", "pipeDelimited": "|"}.get(style, ",")
        return True, self._split(values[-1], separator)

    def _text(self, text: str, style: str, *, explode: bool | None = None) -> JSON:
        p = self.p
        explode = p.explode if explode is None else explode
        if p.json_content:
            return _json_or_text(text)
        separator = ","
        if style == "label":
            if not text.startswith("."):
                return text
            text, separator = text[1:], "." if explode else ","
        elif style == "matrix":
            prefix = f";{p.name}="
            if explode and "array" in p.kinds:
                return [_scalar(v, p.item_kinds) for v in text.split(prefix)[1:]]
            if not text.startswith(prefix) and not (explode and "object" in p.kinds):
                return text
            text = text[len(prefix) :] if text.startswith(prefix) else text.lstrip(";")
            separator = ";" if explode and "object" in p.kinds else ","
        if "object" in p.kinds and explode and style in ("simple", "label", "matrix"):
            entries = dict(e.partition("=")[::2] for e in text.split(separator) if e)
            return self._object(entries)
        return self._split(text, separator)

    def _split(self, text: str, separator: str) -> JSON:
        p = self.p
        if "array" in p.kinds:
            return [_scalar(v, p.item_kinds) for v in text.split(separator)] if text else []
        if "object" in p.kinds:
            pairs = _pairs(text.split(separator)) if text else {}
            return text if pairs is None else self._object(pairs)
        return _scalar(text, p.kinds)

    def _object(self, entries: Mapping[str, str]) -> JSON:
        kinds = self.p.properties
        return {k: _scalar(v, kinds.get(k, frozenset())) for k, v in entries.items()}


def _cookies(header: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for part in header.split(";"):
        name, equals, value = part.strip().partition("=")
        if equals:
            found.setdefault(name, unquote(value))
    return found


def _json_or_text(text: str) -> JSON:
    try:
        return parse_json(text)
    except ValueError:
        return text


# -- bodies ---------------------------------------------------------------------------


@attrs.frozen
class _Media:
    media_type: str  # as declared, lowercased ("application/json", "image/*")
    form: Literal["json", "form", "multipart", "text", "binary"]
    validator: _Compiled | None
    properties: Mapping[str, frozenset[str]]
    binary_parts: frozenset[str]
    json_parts: frozenset[str]
    array_parts: frozenset[str]


def _form_of(media_type: str) -> Literal["json", "form", "multipart", "text", "binary"]:
    if media_type == "application/json" or media_type.endswith("+json"):
        return "json"
    if media_type == "application/x-www-form-urlencoded":
        return "form"
    if media_type.startswith("multipart/"):
        return "multipart"
    if media_type.startswith("text/") or media_type in ("application/jsonl", "*/*"):
        return "text" if media_type != "*/*" else "binary"
    return "binary"


def _media_matches(declared: str, sent: str) -> bool:
    if declared in ("*/*", sent):
        return True
    kind, _, sub = declared.partition("/")
    return sub == "*" and sent.partition("/")[0] == kind


def _problem(error: Any, base: str) -> Violation:
    path = [str(p) for p in error.instance_path]
    kind = error.kind
    message = str(error.message)
    if isinstance(kind, jsonschema_rs.ValidationErrorKind.Required):
        path.append(str(kind.property))
        message = "is required"
    if len(message) > MESSAGE_CAP:
        message = message[: MESSAGE_CAP - 3] + "..."
    pointer = pointer_join(base, *path)
    return Violation("body" if base.startswith("/body") else "parameter", pointer, message)


class OperationCheck:
    """The contract of one operation's requests, compiled."""

    def __init__(self, op: ir.Operation, spec: SpecSet, openapi30: bool) -> None:
        self.operation = op
        self.params: list[_Param] = []
        self.body_required = False
        self.media: list[_Media] = []
        self._spec, self._openapi30 = spec, openapi30
        #: The statuses the operation declares answers for ("400", "422", "4XX", ...).
        self.statuses: frozenset[str] = frozenset()
        self.readers: list[_ParamReader] = []
        if op.location is None:
            return
        raw = spec.document_at(op.location).data
        node = _walk(raw, op.location.pointer)
        item_pointer = op.location.pointer.rsplit("/", 1)[0]
        item = _walk(raw, item_pointer)
        declared: dict[tuple[str, str], tuple[JSON, Location]] = {}
        for source, pointer in ((item, item_pointer), (node, op.location.pointer)):
            listed = source.get("parameters") if isinstance(source, dict) else None
            for i, entry in enumerate(listed if isinstance(listed, list) else ()):
                where = Location(op.location.file, pointer_join(pointer, "parameters", i))
                try:
                    param, param_at = spec.deref(entry, where)
                except SpecError:
                    continue
                if isinstance(param, dict) and isinstance(param.get("name"), str):
                    declared[(str(param.get("in")), param["name"])] = (param, param_at)
        for param, param_at in declared.values():
            compiled = self._param(param, param_at)
            if compiled is not None:
                self.params.append(compiled)
        self.readers = [_ParamReader(p) for p in self.params]
        responses = node.get("responses") if isinstance(node, dict) else None
        self.statuses = (
            frozenset(str(k) for k in responses or ())
            if isinstance(responses, dict)
            else frozenset()
        )
        body = node.get("requestBody") if isinstance(node, dict) else None
        if body is not None:
            where = Location(op.location.file, pointer_join(op.location.pointer, "requestBody"))
            self._body(body, where)

    def _bundle(self, schema: JSON, at: Location) -> _Compiled:
        return _compile(_Bundler(self._spec, self._openapi30).bundle(schema, at))

    def _param(self, param: dict[str, JSON], at: Location) -> _Param | None:
        where = param.get("in")
        if where not in ("path", "query", "header", "cookie"):
            return None
        name = str(param["name"])
        if where == "header" and name.lower() in IGNORED_HEADERS:
            return None
        schema, schema_at, json_content = param.get("schema"), at.child("schema"), False
        content = param.get("content")
        if schema is None and isinstance(content, dict) and content:
            media_type, media = next(iter(content.items()))
            json_content = _form_of(str(media_type).lower()) == "json"
            schema = media.get("schema") if isinstance(media, dict) else None
            schema_at = at.child("content", str(media_type), "schema")
        kinds, resolved, resolved_at = _types(schema, self._spec, schema_at)
        item_kinds: set[str] = set()
        properties: dict[str, frozenset[str]] = {}
        if isinstance(resolved, dict):
            if "items" in resolved:
                item_kinds = _types(resolved["items"], self._spec, resolved_at.child("items"))[0]
            for key, prop in (resolved.get("properties") or {}).items():
                properties[str(key)] = frozenset(
                    _types(prop, self._spec, resolved_at.child("properties", str(key)))[0]
                )
        default_style = {"path": "simple", "header": "simple"}.get(where, "form")
        style = str(param.get("style") or default_style)
        explode = param.get("explode")
        return _Param(
            name=name,
            where=where,
            required=bool(param.get("required")) or where == "path",
            style=style,
            explode=bool(explode) if isinstance(explode, bool) else style == "form",
            kinds=frozenset(kinds),
            item_kinds=frozenset(item_kinds),
            properties=properties,
            json_content=json_content,
            validator=self._bundle(schema if schema is not None else True, schema_at),
        )

    def _body(self, body: JSON, at: Location) -> None:
        try:
            node, at = self._spec.deref(body, at)
        except SpecError:
            return
        if not isinstance(node, dict):
            return
        self.body_required = node.get("required") is True
        content = node.get("content")
        for media_type, media in (content or {}).items() if isinstance(content, dict) else ():
            lowered = str(media_type).split(";")[0].strip().lower()
            form = _form_of(lowered)
            media = media if isinstance(media, dict) else {}
            schema_at = at.child("content", str(media_type), "schema")
            schema = media.get("schema", True)
            properties: dict[str, frozenset[str]] = {}
            binary, as_json, arrays = set(), set(), set()
            _, resolved, resolved_at = _types(schema, self._spec, schema_at)
            raw_encoding = media.get("encoding")
            encoding: dict[str, JSON] = raw_encoding if isinstance(raw_encoding, dict) else {}
            if isinstance(resolved, dict) and isinstance(resolved.get("properties"), dict):
                for key, prop in resolved["properties"].items():
                    prop_at = resolved_at.child("properties", str(key))
                    kinds, prop_node, prop_node_at = _types(prop, self._spec, prop_at)
                    properties[str(key)] = frozenset(kinds)
                    items = prop_node.get("items") if isinstance(prop_node, dict) else None
                    leaf = prop_node
                    if "array" in kinds:
                        arrays.add(str(key))
                        _, leaf, _ = _types(items, self._spec, prop_node_at.child("items"))
                    if isinstance(leaf, dict) and (
                        leaf.get("format") in ("binary", "byte")
                        or "contentMediaType" in leaf
                        or "contentEncoding" in leaf
                    ):
                        binary.add(str(key))
                    part = encoding.get(key)
                    part_type = part.get("contentType", "") if isinstance(part, dict) else ""
                    if "json" in str(part_type) or ({"object"} & kinds and "array" not in kinds):
                        as_json.add(str(key))
            validator = None
            if form != "binary":
                validator = self._bundle(schema, schema_at)
            self.media.append(
                _Media(
                    lowered,
                    form,
                    validator,
                    properties,
                    frozenset(binary),
                    frozenset(as_json),
                    frozenset(arrays),
                )
            )

    # -- checking ---------------------------------------------------------------------

    def check(self, request: Request, path: Mapping[str, str]) -> list[Violation]:
        """Every way ``request`` breaks the contract (path parameters: ``path``)."""
        problems: list[Violation] = []
        for param, reader in zip(self.params, self.readers, strict=True):
            present, value = reader.value(request, path)
            if not present:
                if param.required:
                    problems.append(Violation("parameter", param.pointer, "is required"))
                continue
            problems += param.validator.problems(value, param.pointer)
        if self.media:
            problems += self._check_body(request)
        return problems

    def _check_body(self, request: Request) -> list[Violation]:
        sent_type = request.headers.get("content-type")
        if not request.body and not sent_type:
            return [Violation("body", "/body", "is required")] if self.body_required else []
        if not request.body and not self.body_required:
            return []
        if sent_type is None:
            return [Violation("media_type", "/header/Content-Type", self._expected("is missing"))]
        sent = sent_type.split(";")[0].strip().lower()
        media = next((m for m in self.media if _media_matches(m.media_type, sent)), None)
        if media is None:
            return [Violation("media_type", "/header/Content-Type", self._expected(f"{sent}"))]
        if not request.body:
            return [Violation("body", "/body", "is required")]
        if media.form == "binary" or media.validator is None:
            return []
        value, problem = self._read_body(media, request.body, sent_type)
        if problem is not None:
            return [problem]
        return media.validator.problems(value, "/body")

    def _expected(self, what: str) -> str:
        declared = ", ".join(m.media_type for m in self.media)
        return f"{what}: the operation takes {declared}"

    def _read_body(
        self, media: _Media, raw: bytes, content_type: str
    ) -> tuple[JSON, Violation | None]:
        if media.form == "json":
            try:
                return parse_json(raw), None
            except (ValueError, UnicodeDecodeError) as exc:
                return None, Violation("body", "/body", f"is not JSON: {exc}")
        if media.form == "text":
            try:
                return raw.decode("utf-8"), None
            except UnicodeDecodeError:
                return None, Violation("body", "/body", "is not UTF-8 text")
        if media.form == "form":
            try:
                text = raw.decode("ascii")
            except UnicodeDecodeError:
                return None, Violation("body", "/body", "is not a URL-encoded form")
            try:
                fields = parse_qs(text, keep_blank_values=True, max_num_fields=MAX_FORM_FIELDS)
            except ValueError:
                return None, Violation("body", "/body", f"has more than {MAX_FORM_FIELDS} fields")
            return self._fields({k: list(v) for k, v in fields.items()}, media), None
        return self._multipart(media, raw, content_type)

    def _fields(self, fields: Mapping[str, list[JSON]], media: _Media) -> JSON:
        out: dict[str, JSON] = {}
        for name, values in fields.items():
            kinds = media.properties.get(name, frozenset())
            typed = [
                _json_or_text(v)
                if name in media.json_parts and isinstance(v, str)
                else _scalar(v, kinds)
                if isinstance(v, str)
                else v
                for v in values
            ]
            if name in media.array_parts:
                if len(typed) == 1 and isinstance(typed[0], str) and "," in typed[0]:
                    typed = typed[0].split(",")
                out[name] = typed
            else:
                out[name] = typed[-1]
        return out

    def _multipart(
        self, media: _Media, raw: bytes, content_type: str
    ) -> tuple[JSON, Violation | None]:
        _, options = parse_options_header(content_type)
        boundary = options.get("boundary")
        if not boundary:
            return None, Violation(
                "media_type", "/header/Content-Type", "a multipart body needs a boundary"
            )
        fields: dict[str, list[JSON]] = {}
        try:
            parts = PushMultipartParser(
                boundary,
                content_length=len(raw),
                max_header_size=MAX_PART_HEADER,
                max_header_count=MAX_PART_HEADERS,
                max_segment_count=MAX_PARTS,
            )
            name: str | None = None
            data = bytearray()
            for event in parts.parse(raw):
                if isinstance(event, MultipartSegment):
                    name, data = event.name, bytearray()
                    if not name:
                        parts.close(check_complete=False)
                        return None, Violation("body", "/body", "a part has no name")
                elif event is None:
                    assert name is not None
                    fields.setdefault(name, []).append(self._part(media, name, bytes(data)))
                else:
                    data += event
            parts.close()
        except MultipartError as exc:
            return None, Violation("body", "/body", f"is not a multipart body: {exc}")
        return self._fields(fields, media), None

    @staticmethod
    def _part(media: _Media, name: str, data: bytes) -> JSON:
        """A part's value as its schema reads it: text, or a stand-in for bytes. A part is
        never read as a multipart body itself (parts do not nest)."""
        if name in media.binary_parts:
            return _BYTES
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return _BYTES


def _walk(data: JSON, pointer: str) -> JSON:
    node = data
    for raw in pointer.split("/")[1:] if pointer else []:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            node = node.get(token) if isinstance(node, dict) else None
    return node


class RequestChecks:
    """The compiled contracts of the operations a server answers, by operation id."""

    def __init__(self, spec: SpecSet, operations: list[ir.Operation]) -> None:
        version = (
            str(spec.root.data.get("openapi", "3.0")) if isinstance(spec.root.data, dict) else "3.0"
        )
        openapi30 = not version.startswith("3.1")
        self._checks: dict[str, OperationCheck] = {}
        for op in operations:
            # A status operation made up for a monitor the spec has no operation for
            # (an imported Azure job's) has no contract of its own to check.
            if op.operation_id not in self._checks and not op.synthetic:
                self._checks[op.operation_id] = OperationCheck(op, spec, openapi30)

    def check(self, op: ir.Operation, request: Request, path: Mapping[str, str]) -> list[Violation]:
        """Every way ``request`` to ``op`` (path parameters ``path``) breaks its contract."""
        found = self._checks.get(op.operation_id)
        return [] if found is None else found.check(request, path)

    def status(self, op: ir.Operation, problems: list[Violation]) -> int:
        """The status refusing ``problems``: 415 for a media type; 422 for the body or the
        parameters where the operation declares 422 (and, for parameters, not 400); else 400."""
        if any(p.kind == "media_type" for p in problems):
            return 415
        found = self._checks.get(op.operation_id)
        declared = found.statuses if found is not None else frozenset()
        if "422" in declared and (any(p.kind == "body" for p in problems) or "400" not in declared):
            return 422
        return 400
