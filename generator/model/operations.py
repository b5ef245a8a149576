"""Operations, parameters, bodies, responses, auth and resources from a spec."""

from __future__ import annotations

import re
from typing import Any, Literal, cast

import attrs

from ..problems import Location, Problem, SpecError
from ..spec.loader import SpecSet
from ..spec.wire import WIRE_PATH
from . import ir
from .names import NameSet, file_stem, pascal, snake, words
from .schemas import SchemaBuilder

__all__ = [
    "OperationBuilder",
    "build_auths",
    "declared_key",
    "group_resources",
    "key_prefix",
    "looks_like_credential",
    "media_kind",
    "server_url",
]

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
_PATH_PARAM = re.compile(r"{([^{}]+)}")
_VERSION_SEGMENT = re.compile(r"^(v\d+(\.\d+)*|api)$", re.IGNORECASE)
# Names an operation's signature already uses for itself, and the local names of the
# methods that take its parameters (``response``; ``create_and_wait``'s ``deadline``,
# ``on_poll``, ``create``, ``key``, ``outcome`` and ``events``).
_PARAM_RESERVED = frozenset(
    {"self", "body", "timeout", "max_retries", "extra_headers", "extra_query"}
    | {"extra_body", "response"}
    | {"deadline", "on_poll", "create", "key", "outcome", "events"}
)
# An HTTP field name (RFC 9110 token), without the single quote: no spaces, quotes,
# separators or line breaks can reach a request's header lines.
HEADER_TOKEN = re.compile(r"[!#$%&*+\-.^_`|~0-9A-Za-z]+\Z")


def token_problem(where: str, name: str) -> str:
    return (
        f"{name!r} is not a valid {where} name: only letters, digits and !#$%&*+-.^_`|~ are allowed"
    )


WAITER_METHODS = frozenset({"wait_for_job", "wait_for_result", "create_and_wait", "wait_for_jobs"})
# Builtins a resource's annotations use; a method may not shadow them (``list`` may:
# annotations in such a resource say ``builtins.list``).
_METHOD_RESERVED = WAITER_METHODS | {
    "with_raw_response",
    "with_streaming_response",
    "str",
    "int",
    "float",
    "bool",
    "bytes",
    "object",
    "dict",
    "type",
    "httpx",
    "builtins",
}
# Names the client classes use for themselves and in their annotations.
_ATTR_RESERVED = frozenset(
    {"with_options", "close", "aclose", "type", "str", "int", "float", "bool", "httpx"}
    | {"functools", "object"}
)


def media_kind(media_type: str) -> ir.BodyKind | Literal["events"] | None:
    base = media_type.split(";", 1)[0].strip().lower()
    if base == "application/json" or base.endswith("+json"):
        return "json"
    if base == "application/x-www-form-urlencoded":
        return "form"
    if base.startswith("multipart/"):
        return "multipart"
    if base == "text/event-stream":
        return "events"
    if base.startswith("text/"):
        return "text"
    if base in ("application/octet-stream", "*/*") or base.startswith(
        ("image/", "audio/", "video/")
    ):
        return "binary"
    return None


_FILE_SUFFIX = re.compile(r"\.(ya?ml|json)$", re.IGNORECASE)


def _name_source(operation_id: str) -> str:
    """The text an operation's names come from: a copied file name's ``.yml`` is no word of it."""
    return _FILE_SUFFIX.sub("", operation_id) or operation_id


_TRAILING_FILLER = frozenset(
    ["a", "an", "the", "for", "of", "to", "by", "in", "on", "with", "from", "and", "or"]
)

_BODY_PREFERENCE: tuple[ir.BodyKind, ...] = ("json", "form", "multipart", "text", "binary")


def safe_deref(
    spec: SpecSet, node: Any, at: Location, problems: list[Problem]
) -> tuple[Any, Location]:
    """Follow a ``$ref``; a broken one becomes a problem and ``None``."""
    try:
        return spec.deref(node, at)
    except SpecError as exc:
        problems.extend(exc.problems)
        return None, at


class OperationBuilder:
    """Reads ``paths`` into :class:`~.ir.Operation` objects, collecting problems."""

    def __init__(self, spec: SpecSet, schemas: SchemaBuilder, problems: list[Problem]) -> None:
        self.spec = spec
        self.schemas = schemas
        self.problems = problems
        self.operations: list[tuple[ir.Operation, str]] = []
        self.by_id: dict[str, ir.Operation] = {}

    def secure_all(self, scheme: str) -> None:
        """Every operation sends the credential ``scheme`` (one a side file declares)."""
        self.operations = [
            (attrs.evolve(op, security=(*op.security, scheme)), tag) for op, tag in self.operations
        ]
        self.by_id = {op.operation_id: op for op, _ in self.operations}

    def build(self, root: dict[str, Any]) -> None:
        paths = root.get("paths")
        at = Location(self.spec.root.name, "/paths")
        if paths is None:
            return
        if not isinstance(paths, dict):
            self.problems.append(Problem(at, "paths must be a mapping"))
            return
        global_security = _security_names(root.get("security"))
        seen: dict[str, Location] = {}
        for path, item in paths.items():
            item_at = at.child(str(path))
            item, item_at = safe_deref(self.spec, item, item_at, self.problems)
            if not isinstance(item, dict):
                self.problems.append(Problem(item_at, "a path item must be a mapping"))
                continue
            shared = item.get("parameters") or []
            self._unsupported_methods(item, item_at)
            # A converted Swagger 2.0 path may send another path than its key says.
            wire = item.get(WIRE_PATH)
            wire_path = wire if isinstance(wire, str) else str(path)
            for method in METHODS:
                if method not in item:
                    continue
                node, op_at = safe_deref(
                    self.spec, item[method], item_at.child(method), self.problems
                )
                if not isinstance(node, dict):
                    self.problems.append(Problem(op_at, "an operation must be a mapping"))
                    continue
                operation = self._operation(
                    wire_path, method, node, op_at, shared, item_at, global_security
                )
                if operation is not None and operation.server is None:
                    path_server = server_url(item.get("servers"))
                    operation = attrs.evolve(operation, server=path_server or None)
                if operation is None:
                    continue
                if operation.operation_id in seen:
                    self.problems.append(
                        Problem(
                            op_at.child("operationId"),
                            f"duplicate operationId '{operation.operation_id}' "
                            f"(first used at {seen[operation.operation_id]})",
                        )
                    )
                    continue
                seen[operation.operation_id] = op_at
                tags = node.get("tags")
                tag = str(tags[0]) if isinstance(tags, list) and tags else _tag_from_path(str(path))
                self.operations.append((operation, tag))
                self.by_id[operation.operation_id] = operation

    def _unsupported_methods(self, item: dict[str, Any], at: Location) -> None:
        """Warn of each operation a path item declares under a method no SDK method
        sends: OpenAPI 3.2's ``query`` and its ``additionalOperations``."""
        if "query" in item:
            self.schemas.warn(
                at.child("query"),
                "the QUERY method is not supported; the operation is left out",
            )
        extra = item.get("additionalOperations")
        if isinstance(extra, dict):
            for method in extra:
                self.schemas.warn(
                    at.child("additionalOperations", str(method)),
                    f"the {str(method).upper()} method is not supported; the operation is left out",
                )

    def _operation(
        self,
        path: str,
        method: str,
        node: dict[str, Any],
        at: Location,
        shared: Any,
        item_at: Location,
        global_security: tuple[str, ...] | None,
    ) -> ir.Operation | None:
        raw_id = node.get("operationId")
        if raw_id is not None and not isinstance(raw_id, str):
            self.problems.append(Problem(at.child("operationId"), "operationId must be a string"))
            return None
        operation_id = raw_id or f"{method}_{path}"
        hint = pascal(_name_source(operation_id), "Operation")
        parameters = self._parameters(path, node, at, shared, item_at, hint)
        body = self._body(node.get("requestBody"), at.child("requestBody"), hint)
        responses = node.get("responses")
        response = self._response(responses, at.child("responses"), hint)
        security = _security_names(node.get("security"))
        # Declared 3xx statuses are returned, not followed: alone, as the Location;
        # beside a success, as a `Redirect` the method may return instead of its result.
        redirects = (
            tuple(sorted(int(c) for c in responses if _is_redirect(c)))
            if isinstance(responses, dict)
            else ()
        )
        return ir.Operation(
            operation_id=operation_id,
            name=snake(_name_source(operation_id), "call"),
            method=method.upper(),
            path=path,
            summary=_text(node.get("summary")),
            description=_text(node.get("description")),
            parameters=parameters,
            body=body,
            response=response,
            security=security if security is not None else (global_security or ()),
            deprecated=node.get("deprecated") is True,
            location=at,
            server=server_url(node.get("servers")) or None,
            redirects=redirects,
        )

    def _parameters(
        self,
        path: str,
        node: dict[str, Any],
        at: Location,
        shared: Any,
        item_at: Location,
        hint: str,
    ) -> tuple[ir.Parameter, ...]:
        merged: dict[tuple[str, str], tuple[dict[str, Any], Location]] = {}
        for source, source_at in (
            (shared, item_at.child("parameters")),
            (node.get("parameters"), at.child("parameters")),
        ):
            if source is None:
                continue
            if not isinstance(source, list):
                self.problems.append(Problem(source_at, "parameters must be a list"))
                continue
            for index, raw in enumerate(source):
                param, param_at = safe_deref(self.spec, raw, source_at.child(index), self.problems)
                if not isinstance(param, dict) or not isinstance(param.get("name"), str):
                    self.problems.append(Problem(param_at, "a parameter needs a string 'name'"))
                    continue
                where = param.get("in")
                if where not in ("path", "query", "header", "cookie"):
                    self.problems.append(
                        Problem(param_at.child("in"), f"unknown parameter location {where!r}")
                    )
                    continue
                if where in ("header", "cookie") and not HEADER_TOKEN.match(param["name"]):
                    # No request can carry it: the operation is generated without it.
                    self.schemas.warn(
                        param_at.child("name"),
                        token_problem(where, param["name"]) + "; the parameter is left out",
                    )
                    continue
                merged[(param["name"], where)] = (param, param_at)
        names = NameSet(_PARAM_RESERVED)
        out: list[ir.Parameter] = []
        templated = _PATH_PARAM.findall(path.split("?", 1)[0])
        for name in templated:
            if (name, "path") not in merged:
                self.problems.append(
                    Problem(at, f"path parameter '{name}' of {path} is not declared")
                )
        # Path parameters first, in the order the path names them.
        order = {name: i for i, name in enumerate(templated)}
        items = sorted(
            merged.items(),
            key=lambda kv: (
                kv[0][1] != "path",
                order.get(kv[0][0], 0) if kv[0][1] == "path" else 0,
            ),
        )
        for (wire, where), (param, param_at) in items:
            if where == "path" and wire not in templated:
                self.problems.append(
                    Problem(param_at, f"path parameter '{wire}' is not in the path {path}")
                )
                continue
            schema = param.get("schema")
            if schema is None and isinstance(param.get("content"), dict):
                media: Any = next(iter(param["content"].values()), {})
                schema = media.get("schema") if isinstance(media, dict) else None
            ptype = self.schemas.type_of(
                schema if schema is not None else {},
                param_at.child("schema"),
                hint + pascal(wire, "Param"),
            )
            style = param.get("style")
            if style is not None and style not in _STYLES[where]:
                self.schemas.warn(
                    param_at.child("style"),
                    f"style {style!r} is not one of {', '.join(_STYLES[where])} for a "
                    f"{where} parameter; the default {_STYLES[where][0]!r} is used",
                )
                style = None
            explode = param.get("explode")
            default = _param_default(
                schema, wire, where, param.get("required") is True, self._api_version()
            )
            has_default = default is not None and where != "path"
            out.append(
                ir.Parameter(
                    name=names.claim(snake(wire, "param")),
                    wire=wire,
                    location=cast(ir.ParamLocation, where),
                    type=ptype,
                    required=where == "path" or param.get("required") is True,
                    description=_text(param.get("description")),
                    style=style if isinstance(style, str) else None,
                    explode=(
                        explode
                        if isinstance(explode, bool)
                        else (style or _STYLES[where][0]) == "form"
                    ),
                    default=default if has_default else None,
                    has_default=has_default,
                )
            )
        return tuple(out)

    def _api_version(self) -> str | None:
        """``info.version`` where it is an Azure-style API version (``2024-11-30``,
        ``2024-07-31-preview``): the value such an API's ``api-version`` parameter takes."""
        info = self.spec.root.data.get("info")
        version = info.get("version") if isinstance(info, dict) else None
        return version if isinstance(version, str) and _AZURE_VERSION.match(version) else None

    def _body(self, raw: Any, at: Location, hint: str) -> ir.Body | None:
        if raw is None:
            return None
        node, at = safe_deref(self.spec, raw, at, self.problems)
        if not isinstance(node, dict) or not isinstance(node.get("content"), dict):
            self.problems.append(Problem(at, "requestBody needs a 'content' mapping"))
            return None
        structured: dict[ir.BodyKind, tuple[str, Any]] = {}
        offered: list[tuple[str, ir.BodyKind, Any]] = []
        for media_type, media in node["content"].items():
            kind_of = media_kind(str(media_type))
            # Any media type that is neither structured nor text goes byte for byte.
            found: ir.BodyKind = (
                "text" if kind_of == "events" else "binary" if kind_of is None else kind_of
            )
            if found in ("text", "binary"):
                offered.append((str(media_type), found, media))
            elif found not in structured:
                structured[found] = (str(media_type), media)
        chosen = next((k for k in _BODY_PREFERENCE if k in structured), None)
        if chosen is not None:
            offered.insert(0, (structured[chosen][0], chosen, structured[chosen][1]))
            offered.sort(key=lambda o: list(node["content"]).index(o[0]))
        if not offered:
            offered.append(("application/octet-stream", "binary", {}))
        # The body's own kind: the structured one, else a binary one, else text.
        media_type, kind, media = next(
            (o for k in _BODY_PREFERENCE for o in offered if o[1] == k), offered[0]
        )
        sent = {o[0] for o in offered}
        others = [str(m) for m in node["content"] if str(m) not in sent]
        if others:
            self.schemas.warn(
                at.child("content"),
                f"the method sends {', '.join(o[0] for o in offered)} only; the other "
                f"encodings of the body ({', '.join(others)}) are not offered",
            )
        schema = media.get("schema") if isinstance(media, dict) else None
        media_at = at.child("content", media_type, "schema")
        if kind == "text":
            body_type: ir.TypeRef = ir.Primitive("str")
        elif kind == "binary":
            body_type = ir.Primitive("bytes")
        else:
            body_type = self.schemas.type_of(
                schema if schema is not None else {}, media_at, hint + "Body"
            )
        # The encoding the method sends names its schema first: it gets the plain name.
        self._other_schemas(node["content"], at, media_type, hint + "Body")
        return ir.Body(
            kind,
            media_type,
            body_type,
            node.get("required") is True,
            _text(node.get("description")),
            _form_encoding(media) if kind == "form" else (),
            tuple((o[0], o[1]) for o in offered) if len(offered) > 1 else (),
            _part_types(media) if kind == "multipart" else (),
        )

    def _other_schemas(self, content: Any, at: Location, chosen: str | None, hint: str) -> None:
        """Build the schemas of the media types an operation does not use (alternative
        encodings, event streams, error bodies), so every schema the spec names is a model."""
        if not isinstance(content, dict):
            return
        for media_type, media in content.items():
            if str(media_type) == chosen or not isinstance(media, dict) or "schema" not in media:
                continue
            if str(at.child("content", str(media_type), "schema")) in self.schemas.located:
                continue
            self.schemas.type_of(
                media["schema"], at.child("content", str(media_type), "schema"), hint
            )

    def _response(self, raw: Any, at: Location, hint: str) -> ir.Response:
        if not isinstance(raw, dict):
            self.problems.append(Problem(at, "responses must be a mapping"))
            return ir.Response("200", "empty", None, None)
        response = self._success(raw, at, hint)
        for code in raw:
            node, node_at = safe_deref(self.spec, raw[code], at.child(str(code)), [])
            if not isinstance(node, dict):
                continue
            chosen = response.media_type if str(code) == response.status else None
            suffix = "Response" if str(code).startswith("2") else f"Error{pascal(str(code))}"
            self._other_schemas(node.get("content"), node_at, chosen, hint + suffix)
            content = node.get("content")
            if str(code).startswith("2") and chosen is None and isinstance(content, dict):
                media = content.get(response.media_type or "application/json")
                if isinstance(media, dict) and "schema" in media:
                    other = self.schemas.located.get(
                        str(node_at.child("content", response.media_type or "", "schema"))
                    )
                    if other is not None and other != response.type:
                        self.schemas.warn(
                            node_at,
                            f"the method decodes every success as the {response.status} "
                            f"response; this {code} response's different body is not typed",
                        )
        return response

    def _event_type(self, media: Any, at: Location, hint: str) -> ir.TypeRef:
        """The type of each event's data: the stream's schema (OpenAPI 3.2's
        ``itemSchema``, or ``schema``) as JSON, or text when it is a string or absent."""
        for key in ("itemSchema", "schema"):
            schema = media.get(key) if isinstance(media, dict) else None
            if schema is not None:
                found = self.schemas.type_of(schema, at.child(key), hint + "Event")
                return (
                    ir.Primitive("str") if found in (ir.AnyType(), ir.Primitive("str")) else found
                )
        return ir.Primitive("str")

    def _success(self, raw: dict[Any, Any], at: Location, hint: str) -> ir.Response:
        codes = sorted(str(code) for code in raw if str(code).startswith("2"))
        for code in codes:
            node, node_at = safe_deref(
                self.spec,
                raw[code] if code in raw else raw[int(code)],
                at.child(code),
                self.problems,
            )
            if not isinstance(node, dict):
                continue
            content = node.get("content")
            description = _text(node.get("description"))
            if not isinstance(content, dict) or not content:
                continue
            kinds: dict[str, tuple[str, Any]] = {}
            for media_type, media in content.items():
                kind = media_kind(str(media_type))
                if kind is not None and kind not in kinds:
                    kinds[kind] = (str(media_type), media)
            events = None
            if "events" in kinds:
                media_type, media = kinds["events"]
                events = self._event_type(media, node_at.child("content", media_type), hint)
            for kind in ("json", "text", "binary"):
                if kind in kinds:
                    media_type, media = kinds[kind]
                    if kind == "json":
                        schema = media.get("schema") if isinstance(media, dict) else None
                        rtype = self.schemas.type_of(
                            schema if schema is not None else {},
                            node_at.child("content", media_type, "schema"),
                            hint + "Response",
                        )
                        return ir.Response(code, "json", media_type, rtype, description, events)
                    ptype: ir.TypeRef = ir.Primitive("str" if kind == "text" else "bytes")
                    return ir.Response(code, kind, media_type, ptype, description, events)  # type: ignore[arg-type]
            if events is not None:
                return ir.Response(code, "events", kinds["events"][0], events, description)
            return ir.Response(
                code, "binary", next(iter(content)), ir.Primitive("bytes"), description
            )
        moved = sorted(str(code) for code in raw if _is_redirect(code))
        if not codes and moved:
            node, _ = safe_deref(self.spec, raw.get(moved[0], raw.get(int(moved[0]))), at, [])
            description = _text(node.get("description")) if isinstance(node, dict) else ""
            return ir.Response(moved[0], "redirect", None, ir.Primitive("str"), description)
        return ir.Response(codes[0] if codes else "200", "empty", None, None)


def _is_redirect(code: object) -> bool:
    return str(code).isdigit() and 300 <= int(str(code)) < 400 and int(str(code)) != 304


def server_url(servers: Any) -> str:
    """The first server's URL with its variables' defaults, or ""."""
    if not isinstance(servers, list) or not servers or not isinstance(servers[0], dict):
        return ""
    url = servers[0].get("url")
    if not isinstance(url, str):
        return ""
    variables = servers[0].get("variables")
    if isinstance(variables, dict):
        for key, var in variables.items():
            if isinstance(var, dict) and var.get("default") is not None:
                url = url.replace("{" + str(key) + "}", str(var["default"]))
    return url


_STYLES = {
    "path": ("simple", "label", "matrix"),
    "query": ("form", "spaceDelimited", "pipeDelimited", "deepObject"),
    "header": ("simple",),
    "cookie": ("form",),
}


def _form_encoding(media: Any) -> tuple[tuple[str, str, bool], ...]:
    """The ``encoding`` of a form body's properties that differs from ``form``/explode."""
    encoding = media.get("encoding") if isinstance(media, dict) else None
    if not isinstance(encoding, dict):
        return ()
    out = []
    for prop, node in encoding.items():
        if not isinstance(node, dict):
            continue
        style = node.get("style") if node.get("style") in _STYLES["query"] else "form"
        explode = node.get("explode")
        explode = explode if isinstance(explode, bool) else style == "form"
        if (style, explode) != ("form", True):
            out.append((str(prop), str(style), explode))
    return tuple(out)


_AZURE_VERSION = re.compile(r"^\d{4}-\d{2}-\d{2}(-preview)?$")


def _param_default(
    schema: Any, wire: str, where: str, required: bool, api_version: str | None
) -> str | int | float | bool | None:
    """A parameter's default value: its schema's ``default``, else the one value of an
    ``enum`` of one (a required parameter only); else, for a required ``api-version``
    query string of an Azure-style API, the document's ``info.version``."""
    if not isinstance(schema, dict):
        return None
    default = schema.get("default")
    if isinstance(default, (str, int, float, bool)):
        return default
    enum = schema.get("enum")
    if required and isinstance(enum, list) and len(enum) == 1:
        only = enum[0]
        return only if isinstance(only, (str, int, float, bool)) else None
    if (
        required
        and api_version is not None
        and where == "query"
        and wire.lower() == "api-version"
        and schema.get("type", "string") == "string"
        and "enum" not in schema
        and "const" not in schema
    ):
        return api_version
    return None


def _part_types(media: Any) -> tuple[tuple[str, str], ...]:
    """The ``contentType`` a multipart body declares for its properties (its ``encoding``)."""
    encoding = media.get("encoding") if isinstance(media, dict) else None
    if not isinstance(encoding, dict):
        return ()
    return tuple(
        (str(prop), node["contentType"].split(",", 1)[0].strip())
        for prop, node in encoding.items()
        if isinstance(node, dict)
        and isinstance(node.get("contentType"), str)
        and node["contentType"].strip()
    )


def _security_names(raw: Any) -> tuple[str, ...] | None:
    if not isinstance(raw, list):
        return None
    names: list[str] = []
    for requirement in raw:
        if isinstance(requirement, dict):
            names.extend(str(k) for k in requirement if str(k) not in names)
    return tuple(names)


def _tag_from_path(path: str) -> str:
    for segment in path.split("?", 1)[0].strip("/").split("/"):
        if segment and not segment.startswith("{") and not _VERSION_SEGMENT.match(segment):
            return segment
    return "default"


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def build_auths(
    root: dict[str, Any], name: str, problems: list[Problem], warnings: list[Problem]
) -> tuple[ir.Auth, ...]:
    """Client credentials from ``components/securitySchemes``.

    An API key whose header or cookie name no request can carry (App Configuration's
    ``Connection String``) is left out with a warning, as such parameters are.
    """
    components = root.get("components")
    schemes = components.get("securitySchemes") if isinstance(components, dict) else None
    if not isinstance(schemes, dict):
        return ()
    params = NameSet(
        {"base_url", "timeout", "headers", "http_client", "transport", "max_retries", "wait_config"}
    )

    def kind_of(node: dict[str, Any]) -> str:
        if node.get("type") == "http" and str(node.get("scheme", "")).lower() == "basic":
            return "basic"
        return (
            "bearer"
            if node.get("type") in ("http", "oauth2", "openIdConnect")
            else str(node.get("type"))
        )

    kinds = [kind_of(s) for s in schemes.values() if isinstance(s, dict)]
    out: list[ir.Auth] = []
    at = Location(name, "/components/securitySchemes")
    for scheme, node in schemes.items():
        if not isinstance(node, dict):
            continue
        kind = node.get("type")
        if kind == "apiKey":
            where = node.get("in")
            if where not in ("header", "query", "cookie") or not isinstance(node.get("name"), str):
                problems.append(
                    Problem(
                        at.child(scheme), "apiKey needs 'in' (header, query, cookie) and 'name'"
                    )
                )
                continue
            if where in ("header", "cookie") and not HEADER_TOKEN.match(node["name"]):
                warnings.append(
                    Problem(
                        at.child(scheme, "name"),
                        token_problem(where, node["name"]) + "; the scheme is left out",
                    )
                )
                continue
            base = "api_key" if kinds.count("apiKey") == 1 else f"{snake(scheme)}_api_key"
            prefix = key_prefix(node) if where == "header" else ""
            out.append(ir.ApiKeyAuth(scheme, params.claim(base), node["name"], where, prefix))
        elif kind == "http" and str(node.get("scheme", "")).lower() == "basic":
            out.append(ir.BasicAuth(scheme, params.claim("username"), params.claim("password")))
        elif kind in ("http", "oauth2", "openIdConnect"):
            single = kinds.count("bearer") == 1
            param = params.claim("token" if single else f"{snake(scheme)}_token")
            out.append(ir.BearerAuth(scheme, param, _token_url(node), _default_scopes(node)))
    return tuple(out)


# A placeholder for the key in an ``x-default`` (``$token``, ``{key}``, ``<key>``, ``[key]``).
_PLACEHOLDER = re.compile(r"^(\$\w+|\{[^{}]*\}|<[^<>]*>|\[[^\[\]]*\])$")
# A description naming the scheme word: "`DeepL-Auth-Key` followed by your key",
# "the `DeepL-Auth-Key` authentication scheme".
_DESCRIBED_PREFIX = re.compile(
    r"`([!#$%&'*+.^_|~0-9A-Za-z-]+)`\s+(?:followed\s+by|(?:authentication|auth)\s+scheme)\b",
    re.IGNORECASE,
)


def key_prefix(node: dict[str, Any]) -> str:
    """The word a header API key is sent after, where the scheme says so: an
    ``x-default`` of the form ``<word> <placeholder>`` (``DeepL-Auth-Key $token``), or, for
    the ``Authorization`` header, a description that names a word in backquotes followed by
    "followed by" or "authentication scheme"."""
    default = node.get("x-default")
    if isinstance(default, str):
        words = default.split()
        if len(words) == 2 and _PLACEHOLDER.match(words[1]) and HEADER_TOKEN.match(words[0]):
            return words[0]
    description = node.get("description")
    if str(node.get("name", "")).lower() == "authorization" and isinstance(description, str):
        found = _DESCRIBED_PREFIX.search(description)
        if found is not None and found.group(1).lower() != "authorization":
            return found.group(1)
    return ""


_CREDENTIAL = re.compile(
    r"api[-_]?key|token|secret|passw|auth|credential|(?:^|[-_])key$", re.IGNORECASE
)


def looks_like_credential(header: str) -> bool:
    """Whether a header parameter's name says it holds a key, token, secret or password
    (`xi-api-key`, `X-Auth-Token`), and not an idempotency key."""
    return bool(_CREDENTIAL.search(header)) and "idempotency" not in header.lower()


def declared_key(operations: list[ir.Operation]) -> ir.ApiKeyAuth | None:
    """The API key of a spec that declares no security scheme but a credential header
    parameter on every operation (an optional `xi-api-key`), if it has one."""
    shared: dict[str, ir.Parameter] | None = None
    for op in operations:
        found = {
            p.wire.lower(): p
            for p in op.parameters
            if p.location == "header" and not p.required and looks_like_credential(p.wire)
        }
        shared = found if shared is None else {k: v for k, v in shared.items() if k in found}
    if not shared or len(shared) != 1:
        return None
    (param,) = shared.values()
    return ir.ApiKeyAuth(param.wire, param.name, param.wire, "header", declared=True)


def _default_scopes(node: dict[str, Any]) -> tuple[str, ...]:
    """The ``.default`` scopes of an OAuth 2 scheme's flows (Azure's
    ``https://vault.azure.net/.default``): what a token credential is asked for."""
    flows = node.get("flows")
    found: list[str] = []
    for flow in flows.values() if isinstance(flows, dict) else ():
        scopes = flow.get("scopes") if isinstance(flow, dict) else None
        for scope in scopes if isinstance(scopes, dict) else ():
            if isinstance(scope, str) and scope.endswith("/.default") and scope not in found:
                found.append(scope)
    return tuple(found)


def _token_url(node: dict[str, Any]) -> str | None:
    """The token endpoint of an OAuth 2 scheme's client-credentials flow, if absolute."""
    flows = node.get("flows")
    flow = flows.get("clientCredentials") if isinstance(flows, dict) else None
    url = flow.get("tokenUrl") if isinstance(flow, dict) else None
    return url if isinstance(url, str) and url.startswith(("https://", "http://")) else None


def group_resources(
    operations: list[tuple[ir.Operation, str]],
    jobs: tuple[ir.Job, ...],
    model_names: frozenset[str] = frozenset(),
) -> tuple[ir.Resource, ...]:
    """One resource per tag; method names lose the tag's own words (``createJob`` -> ``create``).

    Each job joins the resource of its status operation. A resource class whose name a
    model already has (and its ``Async`` twin) is called ``<Tag>Resource``.
    """
    grouped: dict[str, list[ir.Operation]] = {}
    spelled: dict[str, str] = {}
    for operation, tag in operations:
        # "Responses" (a tag) and "responses" (from the path of an untagged operation)
        # are one resource.
        tag = spelled.setdefault(snake(tag, "default"), tag)
        grouped.setdefault(tag, []).append(operation)
    attr_names = NameSet(_ATTR_RESERVED)
    modules = NameSet({"__init__"})
    classes = NameSet(
        {"Client", "AsyncClient"} | set(model_names) | {"Async" + n for n in model_names}
    )
    staged: list[tuple[str, str, str, list[ir.Operation]]] = []
    final: dict[str, ir.Operation] = {}
    for tag, ops in grouped.items():
        tag_words = {w.lower() for w in words(tag)}
        tag_words |= {w[:-1] for w in tag_words if w.endswith("s")} | {w + "s" for w in tag_words}
        method_names = NameSet(_METHOD_RESERVED)
        renamed = []
        for op in ops:
            source = _name_source(op.operation_id)
            kept = [w.lower() for w in words(source) if w.lower() not in tag_words]
            # "create an API key for a service account" in "service accounts": no "_for_a".
            while kept and kept[-1] in _TRAILING_FILLER:
                kept.pop()
            name = method_names.claim(snake("_".join(kept)) if kept else op.name)
            stream = method_names.claim(name + "_stream") if op.response.events else None
            renamed.append(attrs.evolve(op, name=name, stream_name=stream))
            final[op.operation_id] = renamed[-1]
        attr = attr_names.claim(snake(tag, "default"))
        class_name = pascal(tag, "Default")
        if class_name in classes:
            class_name += "Resource"
        # Each resource is a pair of classes, X and AsyncX: both names must be free
        # (tags "things" and "async things").
        name = classes.claim(class_name)
        while "Async" + name in classes:
            name = classes.claim(class_name)
        classes.claim("Async" + name)
        staged.append((name, attr, modules.claim(file_stem(attr)), renamed))
    resources = []
    for name, attr, module, ops in staged:
        ids = {op.operation_id for op in ops}
        own = tuple(_rebind(job, final) for job in jobs if _home(job) in ids)
        resources.append(
            ir.Resource(name=name, attr=attr, module=module, operations=tuple(ops), jobs=own)
        )
    return tuple(resources)


def _home(job: ir.Job) -> str:
    """The operation whose resource holds the job: its status operation, or for a job
    imported from the spec's own dialect (whose status operation may be shared by many,
    or made up), its create: ``client.document_models.create_and_wait``."""
    imported = job.origin is not None and job.origin.startswith("imported")
    if job.create is not None and (job.status.synthetic or imported):
        return job.create.operation_id
    return job.status.operation_id


def _rebind(job: ir.Job, final: dict[str, ir.Operation]) -> ir.Job:
    def pick(op: ir.Operation | None) -> ir.Operation | None:
        return final.get(op.operation_id, op) if op is not None else None

    return attrs.evolve(
        job,
        status=final.get(job.status.operation_id, job.status),
        create=pick(job.create),
        result=pick(job.result),
        cancel=pick(job.cancel),
    )
