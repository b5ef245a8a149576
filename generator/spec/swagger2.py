"""Swagger 2.0 documents, read as the OpenAPI 3.0 documents they describe.

Published specs still ship as Swagger 2.0 (Azure's REST API specs among them). Every
loaded document whose top level says ``swagger: "2.0"`` (the root and the files its
``$ref``s reach) is converted as it is read: ``definitions``, ``parameters`` and
``responses`` move under ``components`` (and every ``$ref`` with them), a ``body``
parameter becomes the ``requestBody`` (in each ``consumes`` media type), a response
``schema`` its content (in each ``produces`` media type), ``type``/``format``/``items``
of other parameters and of headers their ``schema``, ``x-nullable`` ``nullable``,
``securityDefinitions`` the ``securitySchemes``, and ``host``/``basePath``/``schemes``
the ``servers``. A host template (``x-ms-parameterized-host``) has no default: the
client then takes ``base_url``. Form parameters are not converted.

Problems found later name pointers in the converted document (``#/components/schemas/X``
for ``#/definitions/X``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["convert", "is_swagger2"]

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


def is_swagger2(data: Any) -> bool:
    return isinstance(data, dict) and str(data.get("swagger")) == "2.0"


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


def _simple(node: dict[str, Any]) -> dict[str, Any]:
    """A non-body parameter or a header: its type keywords move into ``schema``."""
    out = {k: v for k, v in node.items() if k not in _PARAM_SCHEMA_KEYS}
    out.pop("collectionFormat", None)
    out.pop("allowEmptyValue", None)
    schema = {k: node[k] for k in _PARAM_SCHEMA_KEYS if k in node}
    if schema.get("type") == "file":
        schema = {"type": "string", "format": "binary"}
    if "x-nullable" in out:
        schema["nullable"] = bool(out.pop("x-nullable"))
    out["schema"] = _schema(schema)
    return out


def _parameter(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return {"$ref": _ref(node["$ref"])}
    if node.get("in") in ("body", "formData"):
        return None
    return _simple(node)


def _response(node: Any, produces: list[str]) -> Any:
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return {"$ref": _ref(node["$ref"])}
    out: dict[str, Any] = {"description": node.get("description", "")}
    headers = node.get("headers")
    if isinstance(headers, dict):
        out["headers"] = {
            name: _simple({k: v for k, v in h.items() if k != "name"})
            for name, h in headers.items()
            if isinstance(h, dict)
        }
    if "schema" in node:
        schema = _schema(node["schema"])
        out["content"] = {media: {"schema": schema} for media in produces}
    out.update({k: v for k, v in node.items() if k.startswith("x-")})
    return out


def _operation(op: dict[str, Any], shared: list[Any], doc: dict[str, Any]) -> dict[str, Any]:
    consumes = op.get("consumes") or doc.get("consumes") or ["application/json"]
    produces = op.get("produces") or doc.get("produces") or ["application/json"]
    out = {
        k: v for k, v in op.items() if k not in ("parameters", "responses", "consumes", "produces")
    }
    own = [p for p in op.get("parameters", []) if isinstance(p, dict)]
    names = {(p.get("name"), p.get("in")) for p in own}
    merged = own + [p for p in shared if (p.get("name"), p.get("in")) not in names]
    parameters = []
    for param in merged:
        if param.get("in") == "body":
            body: dict[str, Any] = {
                "content": {
                    media: {"schema": _schema(param.get("schema", {}))} for media in consumes
                },
                "required": bool(param.get("required", False)),
            }
            if "description" in param:
                body["description"] = param["description"]
            out["requestBody"] = body
            continue
        converted = _parameter(param)
        if converted is not None:
            parameters.append(converted)
    if parameters:
        out["parameters"] = parameters
    responses = op.get("responses", {})
    out["responses"] = {str(code): _response(resp, produces) for code, resp in responses.items()}
    return out


def _servers(doc: dict[str, Any]) -> list[dict[str, Any]]:
    if "x-ms-parameterized-host" in doc or "host" not in doc:
        return []
    schemes = doc.get("schemes") or ["https"]
    return [{"url": f"{schemes[0]}://{doc['host']}{doc.get('basePath', '')}"}]


def _security_scheme(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    kind = node.get("type")
    if kind == "basic":
        return {"type": "http", "scheme": "basic", "description": node.get("description", "")}
    if kind == "oauth2":
        flow = {
            "implicit": "implicit",
            "password": "password",
            "application": "clientCredentials",
            "accessCode": "authorizationCode",
        }
        name = flow.get(node.get("flow", ""), "clientCredentials")
        spec = {k: node[k] for k in ("authorizationUrl", "tokenUrl") if k in node}
        spec["scopes"] = node.get("scopes", {})
        return {"type": "oauth2", "flows": {name: spec}}
    return dict(node)


def convert(doc: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI 3.0 reading of the Swagger 2.0 document ``doc``."""
    out: dict[str, Any] = {"openapi": "3.0.3", "info": doc.get("info", {})}
    servers = _servers(doc)
    if servers:
        out["servers"] = servers
    for key in ("tags", "security", "externalDocs"):
        if key in doc:
            out[key] = doc[key]
    out.update({k: v for k, v in doc.items() if k.startswith("x-")})
    paths: dict[str, Any] = {}
    for path, item in (doc.get("paths") or {}).items():
        if not isinstance(item, dict):
            continue
        shared = [p for p in item.get("parameters", []) if isinstance(p, dict)]
        converted: dict[str, Any] = {k: v for k, v in item.items() if k.startswith("x-")}
        for method in _METHODS:
            if isinstance(item.get(method), dict):
                converted[method] = _operation(item[method], shared, doc)
        paths[path] = converted
    out["paths"] = paths
    components: dict[str, Any] = {}
    if isinstance(doc.get("definitions"), dict):
        components["schemas"] = {k: _schema(v) for k, v in doc["definitions"].items()}
    if isinstance(doc.get("parameters"), dict):
        params = {k: _parameter(v) for k, v in doc["parameters"].items()}
        components["parameters"] = {k: v for k, v in params.items() if v is not None}
    if isinstance(doc.get("responses"), dict):
        produces = doc.get("produces") or ["application/json"]
        components["responses"] = {k: _response(v, produces) for k, v in doc["responses"].items()}
    if isinstance(doc.get("securityDefinitions"), dict):
        components["securitySchemes"] = {
            k: _security_scheme(v) for k, v in doc["securityDefinitions"].items()
        }
    if components:
        out["components"] = components
    return out
