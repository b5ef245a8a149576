"""Swagger 2.0 documents, read as the OpenAPI 3.0 documents they describe.

Published specs still ship as Swagger 2.0 (Azure's REST API specs among them). Every
loaded document whose top level says ``swagger: "2.0"`` (the root and the files its
``$ref``s reach) is converted as it is read:

- ``definitions``, ``parameters`` and ``responses`` move under ``components`` (and every
  ``$ref`` with them); ``securityDefinitions`` become the ``securitySchemes``;
- a ``body`` parameter becomes the ``requestBody`` (in each ``consumes`` media type), also
  when the operation names it by ``$ref`` to the root ``parameters``; ``formData``
  parameters become the properties of a form body (``multipart/form-data`` when the
  operation consumes it or sends a file, else ``application/x-www-form-urlencoded``);
- a response ``schema`` becomes its content (in each ``produces`` media type), the
  ``type``/``format``/``items`` of other parameters and of headers their ``schema``, and
  ``x-nullable`` ``nullable``;
- ``x-ms-paths`` (Azure's paths that differ from another only by a query, such as
  ``/documentModels/{modelId}:analyze?_overload=analyzeDocument``) are operations of their
  own; as AutoRest reads them, the query only tells them apart and is not sent;
- ``host``/``basePath``/``schemes`` become the ``servers``. ``x-ms-parameterized-host``
  splits its template into the origin the client is given (``{endpoint}``, or
  ``https://{region}.example.net``) and a path (``/documentintelligence``) that is part
  of every operation's URL. The client's ``base_url`` is the origin, as Azure's own SDKs
  take ``endpoint``: it is required unless every variable of the origin has a default
  (the default URL then). A variable of the path is filled with its default (or its one
  enum value), else it becomes a path parameter of every operation. Host parameters,
  ``x-ms-skip-url-encoding`` ones included, are thereby sent as given: the origin is the
  ``base_url`` verbatim. ``x-ms-skip-url-encoding`` elsewhere is not supported (the value is
  percent-encoded): a warning names it.

A structure Swagger 2.0 does not allow (``paths: [..]``, ``consumes: 5``, ``host: 443``)
is refused with its pointer in the 2.0 document. Problems found later name the 2.0
document too: :func:`convert` returns, with the converted document, where each converted
node came from (``#/components/schemas/X`` from ``#/definitions/X``, a request body from
its ``body`` parameter), and :meth:`SpecSet.source` maps a location back.
"""

from __future__ import annotations

import re
import urllib.parse
from typing import Any

from ..problems import Location, Problem, SpecError, pointer_join
from .wire import WIRE_PATH

__all__ = ["WIRE_PATH", "convert", "is_swagger2", "original_pointer"]


_MOVED = {
    "#/definitions/": "#/components/schemas/",
    "#/parameters/": "#/components/parameters/",
    "#/responses/": "#/components/responses/",
}
_PARAM_SCHEMA_KEYS = (
    "type",
    "format",
    "items",
    "enum",
    "default",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "multipleOf",
)
_METHODS = ("get", "put", "post", "delete", "options", "head", "patch")
_SCHEMES = ("http", "https", "ws", "wss")
_FLOWS = {
    "implicit": "implicit",
    "password": "password",
    "application": "clientCredentials",
    "accessCode": "authorizationCode",
}
# A host as Swagger 2.0 has it: a name or address and an optional port; no scheme, no path.
_HOST = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~%!$&'()*+,;=-]+)(:[0-9]{1,5})?\Z")
_VARIABLE = re.compile(r"{([^{}]*)}")


def is_swagger2(data: Any) -> bool:
    return isinstance(data, dict) and str(data.get("swagger")) == "2.0"


def original_pointer(pointer: str, sources: dict[str, str]) -> str:
    """The pointer in the 2.0 document of what is at ``pointer`` in its conversion."""
    if not sources:
        return pointer
    prefix = pointer
    while True:
        found = sources.get(prefix)
        if found is not None:
            return found + pointer[len(prefix) :]
        if not prefix:
            return pointer
        prefix = prefix.rsplit("/", 1)[0]


def _ref(ref: Any) -> Any:
    if not isinstance(ref, str):
        return ref
    target, hash_, pointer = ref.partition("#")
    for old, new in _MOVED.items():
        if ("#" + pointer).startswith(old):
            return target + new + pointer[len(old) - 1 :]
    return target + hash_ + pointer


def _schema(node: Any) -> Any:
    """A Swagger schema as an OpenAPI 3.0 one (refs moved, x-nullable read)."""
    if isinstance(node, list):
        return [_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$ref":
            out[key] = _ref(value)
        elif key == "x-nullable":
            out["nullable"] = bool(value)
        elif key == "type" and value == "file":
            out["type"], out["format"] = "string", "binary"
        elif key == "discriminator" and isinstance(value, str):
            out[key] = {"propertyName": value}
        elif key in ("properties", "definitions") and isinstance(value, dict):
            out[key] = {name: _schema(sub) for name, sub in value.items()}
        elif key.startswith("x-") or key in ("example", "enum", "default", "required"):
            out[key] = value
        else:
            out[key] = _schema(value)
    return out


def _simple_schema(node: dict[str, Any]) -> dict[str, Any]:
    schema = {k: node[k] for k in _PARAM_SCHEMA_KEYS if k in node}
    if schema.get("type") == "file":
        schema = {"type": "string", "format": "binary"}
    if "x-nullable" in node:
        schema["nullable"] = bool(node["x-nullable"])
    return dict(_schema(schema))


def _simple(node: dict[str, Any]) -> dict[str, Any]:
    """A non-body parameter or a header: its type keywords move into ``schema``."""
    out = {k: v for k, v in node.items() if k not in _PARAM_SCHEMA_KEYS}
    out.pop("collectionFormat", None)
    out.pop("allowEmptyValue", None)
    out.pop("x-nullable", None)
    out["schema"] = _simple_schema(node)
    return out


class _Converter:
    """One 2.0 document's conversion: the output, the problems, and where things came from."""

    def __init__(self, doc: dict[str, Any], name: str) -> None:
        self.doc = doc
        self.name = name
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []
        self.sources: dict[str, str] = {}
        self.root_params: dict[str, Any] = {}
        self.host_params: dict[str, tuple[dict[str, Any], str]] = {}
        """Host-template parameters by name, with their pointers (``x-ms-parameterized-host``)."""
        self.path_prefix = ""
        self.prefix_params: list[tuple[dict[str, Any], str]] = []
        """Host parameters of the path part that every operation takes."""

    # -- checks -----------------------------------------------------------------

    def problem(self, pointer: str, message: str) -> None:
        self.problems.append(Problem(Location(self.name, pointer), message))

    def mapping(self, node: Any, pointer: str, what: str) -> dict[str, Any]:
        if node is None:
            return {}
        if not isinstance(node, dict):
            self.problem(pointer, f"{what} must be a mapping, not {_kind(node)}")
            return {}
        return node

    def listed(self, node: Any, pointer: str, what: str) -> list[Any]:
        if node is None:
            return []
        if not isinstance(node, list):
            self.problem(pointer, f"{what} must be a list, not {_kind(node)}")
            return []
        return node

    def media_types(self, node: Any, pointer: str) -> list[str] | None:
        if node is None:
            return None
        if not isinstance(node, list) or not all(isinstance(m, str) and m for m in node):
            self.problem(pointer, f"must be a list of media types (strings), not {_kind(node)}")
            return None
        return list(node)

    # -- parameters -------------------------------------------------------------

    def local(self, param: Any) -> tuple[Any, str | None]:
        """A parameter with a ``$ref`` to this document's root ``parameters`` followed."""
        if isinstance(param, dict) and isinstance(param.get("$ref"), str):
            ref = param["$ref"]
            if ref.startswith("#/parameters/") and "/" not in ref[len("#/parameters/") :]:
                key = ref[len("#/parameters/") :].replace("~1", "/").replace("~0", "~")
                if key in self.root_params:
                    return self.root_params[key], pointer_join("/parameters", key)
        return param, None

    def identity(self, param: Any) -> tuple[Any, Any]:
        """What makes two parameters one: name and location (a ``$ref`` elsewhere: itself)."""
        resolved, _ = self.local(param)
        if not isinstance(resolved, dict):
            return ("", id(resolved))
        if "$ref" in resolved:
            return ("$ref", repr(resolved["$ref"]))
        return (repr(resolved.get("name")), repr(resolved.get("in")))

    def parameter(self, node: Any) -> Any:
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return {"$ref": _ref(node["$ref"])}
        if node.get("in") in ("body", "formData"):
            return None
        return _simple(node)

    def skip_encoding(self, param: dict[str, Any], pointer: str) -> None:
        if param.get("x-ms-skip-url-encoding") is True and param.get("in") != "body":
            warning = Problem(
                Location(self.name, pointer_join(pointer, "x-ms-skip-url-encoding")),
                "x-ms-skip-url-encoding is supported for host parameters only; "
                "this value is percent-encoded",
            )
            if warning not in self.warnings:
                self.warnings.append(warning)

    # -- operations -------------------------------------------------------------

    def operation(
        self,
        op: dict[str, Any],
        op_at: str,
        out_at: str,
        shared: list[tuple[Any, str]],
        wire: str,
        consumes_doc: list[str] | None,
        produces_doc: list[str] | None,
    ) -> dict[str, Any]:
        consumes = (
            self.media_types(op.get("consumes"), op_at + "/consumes")
            or consumes_doc
            or ["application/json"]
        )
        produces = (
            self.media_types(op.get("produces"), op_at + "/produces")
            or produces_doc
            or ["application/json"]
        )
        skipped = ("parameters", "responses", "consumes", "produces")
        out = {k: v for k, v in op.items() if k not in skipped}
        own = [
            (p, pointer_join(op_at, "parameters", i))
            for i, p in enumerate(
                self.listed(op.get("parameters"), op_at + "/parameters", "parameters")
            )
        ]
        mine = {self.identity(raw) for raw, _ in own}
        entries: list[tuple[Any, str]] = []
        for raw, at in own + [(p, at) for p, at in shared if self.identity(p) not in mine]:
            if not isinstance(raw, dict):
                self.problem(at, f"a parameter must be a mapping, not {_kind(raw)}")
                continue
            entries.append((raw, at))
        templated = set(_VARIABLE.findall(wire))
        parameters: list[Any] = []
        form: list[tuple[dict[str, Any], str]] = []
        for raw, at in entries + self.prefix_params:
            resolved, ref_at = self.local(raw)
            source = ref_at or at
            if isinstance(resolved, dict):
                where, pname = resolved.get("in"), resolved.get("name")
                where = where if isinstance(where, str) else None
                pname = pname if isinstance(pname, str) else None
                if where == "path" and pname in self.host_params and pname not in templated:
                    continue  # a host parameter: the client's base URL has it
                if where == "body":
                    self.body(out, resolved, source, out_at, consumes)
                    continue
                if where == "formData":
                    form.append((resolved, source))
                    continue
                if where == "path" and pname not in self.host_params:
                    self.skip_encoding(resolved, source)
            converted = self.parameter(raw)
            index = len(parameters)
            parameters.append(converted)
            self.sources[pointer_join(out_at, "parameters", index)] = at
            if ref_at is None and isinstance(raw, dict) and "$ref" not in raw:
                self.sources[pointer_join(out_at, "parameters", index, "schema")] = at
        if form:
            self.form(out, form, out_at, consumes)
        if parameters:
            out["parameters"] = parameters
        responses = op.get("responses")
        if not isinstance(responses, dict):
            self.problem(
                op_at + "/responses", f"responses must be a mapping, not {_kind(responses)}"
            )
            responses = {}
        out["responses"] = {
            str(code): self.response(
                resp,
                pointer_join(op_at, "responses", code),
                pointer_join(out_at, "responses", code),
                produces,
            )
            for code, resp in responses.items()
        }
        return out

    def body(
        self, out: dict[str, Any], param: dict[str, Any], at: str, out_at: str, consumes: list[str]
    ) -> None:
        body: dict[str, Any] = {
            "content": {media: {"schema": _schema(param.get("schema", {}))} for media in consumes},
            "required": param.get("required") is True,
        }
        if "description" in param:
            body["description"] = param["description"]
        out["requestBody"] = body
        body_at = pointer_join(out_at, "requestBody")
        self.sources[body_at] = at
        self.sources[body_at + "/content"] = at
        for media in consumes:
            self.sources[pointer_join(body_at, "content", media, "schema")] = at + "/schema"

    def form(
        self,
        out: dict[str, Any],
        params: list[tuple[dict[str, Any], str]],
        out_at: str,
        consumes: list[str],
    ) -> None:
        forms = [m for m in consumes if m.split(";")[0].strip().lower() in _FORM_TYPES]
        if not forms:
            files = any(p.get("type") == "file" for p, _ in params)
            forms = ["multipart/form-data" if files else "application/x-www-form-urlencoded"]
        properties: dict[str, Any] = {}
        required: list[str] = []
        body_at = pointer_join(out_at, "requestBody")
        for param, at in params:
            name = param.get("name")
            if not isinstance(name, str):
                self.problem(at, "a parameter needs a string 'name'")
                continue
            schema = _simple_schema(param)
            if isinstance(param.get("description"), str):
                schema["description"] = param["description"]
            properties[name] = schema
            if param.get("required") is True:
                required.append(name)
            for media in forms:
                self.sources[
                    pointer_join(body_at, "content", media, "schema", "properties", name)
                ] = at
        schema_out: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            schema_out["required"] = required
        out["requestBody"] = {
            "content": {media: {"schema": schema_out} for media in forms},
            "required": bool(required),
        }
        self.sources[body_at] = self.sources[body_at + "/content"] = params[0][1]

    def response(self, node: Any, at: str, out_at: str, produces: list[str]) -> Any:
        self.sources[out_at] = at
        if not isinstance(node, dict):
            self.problem(at, f"a response must be a mapping, not {_kind(node)}")
            return {"description": ""}
        if "$ref" in node:
            return {"$ref": _ref(node["$ref"])}
        out: dict[str, Any] = {"description": node.get("description", "")}
        headers = self.mapping(node.get("headers"), at + "/headers", "headers")
        if headers:
            out["headers"] = {}
            for name, header in headers.items():
                if not isinstance(header, dict):
                    self.problem(pointer_join(at, "headers", name), "a header must be a mapping")
                    continue
                out["headers"][name] = _simple({k: v for k, v in header.items() if k != "name"})
                self.sources[pointer_join(out_at, "headers", name, "schema")] = pointer_join(
                    at, "headers", name
                )
        if "schema" in node:
            schema = _schema(node["schema"])
            out["content"] = {media: {"schema": schema} for media in produces}
            for media in produces:
                self.sources[pointer_join(out_at, "content", media, "schema")] = at + "/schema"
        out.update({k: v for k, v in node.items() if k.startswith("x-")})
        return out

    # -- servers ----------------------------------------------------------------

    def schemes(self) -> list[str]:
        node = self.doc.get("schemes")
        if node is None:
            return ["https"]
        if not isinstance(node, list) or not all(isinstance(s, str) for s in node):
            self.problem("/schemes", f"must be a list of schemes (http, https), not {_kind(node)}")
            return ["https"]
        bad = [s for s in node if s not in _SCHEMES]
        if bad:
            self.problem("/schemes", f"unknown scheme {bad[0]!r} (known: {', '.join(_SCHEMES)})")
            return ["https"]
        return node or ["https"]

    def base_path(self) -> str:
        node = self.doc.get("basePath", "")
        if not isinstance(node, str) or (node and not node.startswith("/")):
            self.problem("/basePath", f"must be a path starting with '/', not {_show(node)}")
            return ""
        return node.rstrip("/")

    def servers(self) -> list[dict[str, Any]]:
        schemes = self.schemes()
        base_path = self.base_path()
        if "x-ms-parameterized-host" in self.doc:
            self.sources["/servers"] = "/x-ms-parameterized-host"
            return self.parameterized(schemes[0], base_path)
        if "host" not in self.doc:
            return []
        host = self.doc["host"]
        if not isinstance(host, str) or not _HOST.match(host):
            self.problem(
                "/host",
                f"must be a host name with an optional port (no scheme, no path), not {_show(host)}",
            )
            return []
        self.sources["/servers"] = "/host"
        return [{"url": f"{schemes[0]}://{host}{base_path}"}]

    def parameterized(self, scheme: str, base_path: str) -> list[dict[str, Any]]:
        at = "/x-ms-parameterized-host"
        node = self.mapping(self.doc["x-ms-parameterized-host"], at, "x-ms-parameterized-host")
        if not node:
            return []
        template = node.get("hostTemplate")
        if not isinstance(template, str) or not template:
            self.problem(at + "/hostTemplate", "must be a non-empty string")
            return []
        use_scheme = node.get("useSchemePrefix", True)
        if not isinstance(use_scheme, bool):
            self.problem(at + "/useSchemePrefix", "must be true or false")
            use_scheme = True
        raw_params = self.listed(node.get("parameters"), at + "/parameters", "parameters")
        for index, raw in enumerate(raw_params):
            param, ref_at = self.local(raw)
            where = ref_at or pointer_join(at, "parameters", index)
            if isinstance(param, dict) and isinstance(param.get("name"), str):
                self.host_params[param["name"]] = (param, where)
            elif not (isinstance(raw, dict) and "$ref" in raw):
                self.problem(where, "a host parameter needs a string 'name'")
        full = (f"{scheme}://" if use_scheme else "") + template.rstrip("/") + base_path
        if full.startswith("{"):
            end = full.index("}") + 1 if "}" in full else len(full)
            origin, rest = full[:end], full[end:]
        elif "://" in full:
            slash = full.find("/", full.index("://") + 3)
            origin, rest = (full, "") if slash < 0 else (full[:slash], full[slash:])
        else:
            origin, rest = f"{scheme}://{full}", ""
            if "/" in full:
                origin, rest = f"{scheme}://" + full.split("/", 1)[0], "/" + full.split("/", 1)[1]
        for name in _VARIABLE.findall(rest):
            param, where = self.host_params.get(name, ({}, at))
            value = _fixed(param)
            if value is not None:
                rest = rest.replace("{" + name + "}", value)
            else:
                self.prefix_params.append((dict(param) or {"name": name, "in": "path"}, where))
        self.path_prefix = rest.rstrip("/")
        variables: dict[str, Any] = {}
        for name in _VARIABLE.findall(origin):
            param, where = self.host_params.get(name, ({}, at))
            value = _fixed(param)
            if value is None:
                return []  # the client is given its base URL
            variables[name] = {"default": value}
            if isinstance(param.get("enum"), list):
                variables[name]["enum"] = [str(v) for v in param["enum"]]
        if not self.host_values(origin, variables):
            return []
        server: dict[str, Any] = {"url": origin}
        if variables:
            server["variables"] = variables
        return [server]

    def host_values(self, origin: str, variables: dict[str, Any]) -> bool:
        """Whether each value a host template's variable may take (its default, its enum)
        makes the template's origin a host: no path, query, fragment or userinfo, and no
        port unless the template has one. Each that does not is a problem at its pointer:
        a default of ``127.0.0.1:8080/x?`` would send the API key to another host."""
        plain = {name: "0" for name in variables}
        template_port = _origin_of(_filled(origin, plain))
        has_port = template_port is not None and template_port.port is not None
        whole = _VARIABLE.fullmatch(origin) is not None  # the variable is the base URL
        ok = True
        for name, variable in variables.items():
            param, where = self.host_params.get(name, ({}, "/x-ms-parameterized-host"))
            values = [("default", variable["default"])]
            values += [(f"enum/{i}", v) for i, v in enumerate(variable.get("enum", []))]
            for key, value in values:
                chosen = {n: v["default"] for n, v in variables.items()}
                url = _filled(origin, {**chosen, name: value})
                problem = _not_a_host(url, has_port or whole)
                if problem is None:
                    continue
                if "default" not in param and key == "default":
                    key = "enum/0"  # the only enum value is the default
                shown = pointer_join(where, *key.split("/")) if param else where
                self.problem(
                    shown,
                    f"{_show(value)} makes the host template {_show(origin)} the URL"
                    f" {_show(url)}, which {problem}; a host variable holds a host name",
                )
                ok = False
        return ok

    # -- security ---------------------------------------------------------------

    def security_scheme(self, key: str, node: Any) -> Any:
        at = pointer_join("/securityDefinitions", key)
        if not isinstance(node, dict):
            self.problem(at, f"a security scheme must be a mapping, not {_kind(node)}")
            return {}
        kind = node.get("type")
        if kind == "basic":
            return {"type": "http", "scheme": "basic", "description": node.get("description", "")}
        if kind == "oauth2":
            flow = node.get("flow")
            if not isinstance(flow, str) or flow not in _FLOWS:
                self.problem(
                    at + "/flow",
                    f"must be one of {', '.join(_FLOWS)}, not {_show(flow)}",
                )
                return {}
            spec: dict[str, Any] = {
                k: node[k] for k in ("authorizationUrl", "tokenUrl") if isinstance(node.get(k), str)
            }
            spec["scopes"] = self.mapping(node.get("scopes"), at + "/scopes", "scopes")
            out_at = pointer_join("/components/securitySchemes", key, "flows", _FLOWS[flow])
            self.sources[out_at] = at
            return {"type": "oauth2", "flows": {_FLOWS[flow]: spec}}
        return dict(node)

    # -- the document -----------------------------------------------------------

    def convert(self) -> dict[str, Any]:
        doc = self.doc
        out: dict[str, Any] = {"openapi": "3.0.3", "info": doc.get("info", {})}
        self.root_params = self.mapping(doc.get("parameters"), "/parameters", "parameters")
        consumes = self.media_types(doc.get("consumes"), "/consumes")
        produces = self.media_types(doc.get("produces"), "/produces")
        servers = self.servers()
        if servers:
            out["servers"] = servers
        for key in ("tags", "security", "externalDocs"):
            if key in doc:
                out[key] = doc[key]
        out.update({k: v for k, v in doc.items() if k.startswith("x-") and k != "x-ms-paths"})
        paths: dict[str, Any] = {}
        for section in ("paths", "x-ms-paths"):
            items = self.mapping(doc.get(section), "/" + section, section)
            for path, item in items.items():
                item_at = pointer_join("/" + section, path)
                if section == "x-ms-paths" and path in paths:
                    self.problem(item_at, f"the path {path!r} is in 'paths' too")
                    continue
                if not isinstance(item, dict):
                    self.problem(item_at, f"a path item must be a mapping, not {_kind(item)}")
                    continue
                out_at = pointer_join("/paths", path)
                self.sources[out_at] = item_at
                shared = [
                    (p, pointer_join(item_at, "parameters", i))
                    for i, p in enumerate(
                        self.listed(item.get("parameters"), item_at + "/parameters", "parameters")
                    )
                ]
                wire = self.path_prefix + str(path).split("?", 1)[0]
                converted: dict[str, Any] = {k: v for k, v in item.items() if k.startswith("x-")}
                if wire != path:
                    converted[WIRE_PATH] = wire
                for method in _METHODS:
                    op = item.get(method)
                    if op is None:
                        continue
                    if not isinstance(op, dict):
                        self.problem(item_at + "/" + method, "an operation must be a mapping")
                        continue
                    op_at = pointer_join(item_at, method)
                    converted[method] = self.operation(
                        op, op_at, pointer_join(out_at, method), shared, wire, consumes, produces
                    )
                    self.sources[pointer_join(out_at, method)] = op_at
                paths[path] = converted
        out["paths"] = paths
        components: dict[str, Any] = {}
        definitions = self.mapping(doc.get("definitions"), "/definitions", "definitions")
        if definitions:
            components["schemas"] = {k: _schema(v) for k, v in definitions.items()}
            self.sources["/components/schemas"] = "/definitions"
        if self.root_params:
            params = {}
            for key, node in self.root_params.items():
                if not isinstance(node, dict):
                    self.problem(pointer_join("/parameters", key), "a parameter must be a mapping")
                    continue
                converted_param = self.parameter(node)
                if converted_param is not None:
                    params[key] = converted_param
                    self.sources[pointer_join("/components/parameters", key, "schema")] = (
                        pointer_join("/parameters", key)
                    )
            components["parameters"] = params
            self.sources["/components/parameters"] = "/parameters"
        responses = self.mapping(doc.get("responses"), "/responses", "responses")
        if responses:
            components["responses"] = {
                k: self.response(
                    v,
                    pointer_join("/responses", k),
                    pointer_join("/components/responses", k),
                    produces or ["application/json"],
                )
                for k, v in responses.items()
            }
            self.sources["/components/responses"] = "/responses"
        security = self.mapping(
            doc.get("securityDefinitions"), "/securityDefinitions", "securityDefinitions"
        )
        if security:
            components["securitySchemes"] = {
                k: self.security_scheme(k, v) for k, v in security.items()
            }
            self.sources["/components/securitySchemes"] = "/securityDefinitions"
        if components:
            out["components"] = components
        return out


_FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")


_HOST_NAME = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?)\Z")


def _filled(template: str, values: dict[str, str]) -> str:
    """``template`` with each ``{name}`` of ``values`` replaced by its value."""
    return _VARIABLE.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def _origin_of(url: str) -> urllib.parse.SplitResult | None:
    """``url`` split, or None when it is not one (a port that is not a number)."""
    try:
        parts = urllib.parse.urlsplit(url)
        _ = parts.port
    except ValueError:
        return None
    return parts


def _not_a_host(url: str, port_allowed: bool) -> str | None:
    """What makes ``url`` more than ``scheme://host[:port]``, or None."""
    parts = _origin_of(url)
    if parts is None:
        return "has no valid port"
    if parts.scheme.lower() not in ("http", "https") or "://" not in url:
        return "is not an http or https URL"
    for part, what in ((parts.path, "a path"), (parts.query, "a query")):
        if part or (what == "a query" and "?" in url):
            return f"has {what}"
    if parts.fragment or "#" in url:
        return "has a fragment"
    if "@" in parts.netloc:
        return "has userinfo"
    if parts.port is not None and not port_allowed:
        return "has a port the template does not have"
    if not _HOST_NAME.match(parts.hostname or ""):
        return "has no valid host name"
    return None


def _fixed(param: dict[str, Any]) -> str | None:
    """The value a host parameter always has: its default, or its only enum value."""
    default = param.get("default")
    if isinstance(default, (str, int, float)) and not isinstance(default, bool):
        return str(default)
    enum = param.get("enum")
    if isinstance(enum, list) and len(enum) == 1 and isinstance(enum[0], (str, int)):
        return str(enum[0])
    return None


def _kind(node: Any) -> str:
    if node is None:
        return "null"
    for kind, label in ((bool, "a boolean"), (int, "a number"), (float, "a number")):
        if isinstance(node, kind):
            return label
    if isinstance(node, str):
        return "a string"
    if isinstance(node, list):
        return "a list"
    return "a mapping" if isinstance(node, dict) else type(node).__name__


def _show(node: Any) -> str:
    text = repr(node)
    return text if len(text) <= 60 else text[:57] + "..."


def convert(
    doc: dict[str, Any], name: str = ""
) -> tuple[dict[str, Any], dict[str, str], list[Problem]]:
    """The OpenAPI 3.0 reading of the Swagger 2.0 document ``doc`` (named ``name`` in
    problems), the 2.0 pointer of each converted node that moved, and the warnings.

    Raises SpecError naming every structure Swagger 2.0 does not allow.
    """
    converter = _Converter(doc, name)
    out = converter.convert()
    if converter.problems:
        raise SpecError(converter.problems)
    return out, converter.sources, converter.warnings
