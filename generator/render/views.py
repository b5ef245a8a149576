"""Views: the plain data each template renders, computed from the intermediate model."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import attrs

from ..model import ir
from ..model.names import snake
from .code import TypeCode, docstring, literal

__all__ = ["alias_view", "client_view", "enum_view", "model_view", "resource_view", "union_view"]

_PATH_PARAM = re.compile(r"{([^{}]+)}")


def _ref_items(code: TypeCode, types: list[ir.TypeRef], exclude: str = "") -> list[dict[str, str]]:
    """Imports for the named schemas ``types`` mention: the class, plus a union's decoder."""
    items = []
    for named in code.references(types):
        if named.module == exclude:
            continue
        runtime = (
            f"{named.name}, decode_{named.module}"
            if isinstance(named, ir.UnionSchema)
            else named.name
        )
        items.append({"module": named.module, "name": named.name, "runtime": runtime})
    return items


def _stdlib(code: TypeCode, types: list[ir.TypeRef]) -> list[str]:
    return sorted(code.needs(types) - {"Any"})


def model_view(code: TypeCode, model: ir.Model) -> dict[str, Any]:
    types = [f.type for f in model.fields] + ([model.additional] if model.additional else [])
    refs = _ref_items(code, types, exclude=model.module)
    fields = []
    for f in model.fields:
        annotation = code.annotation(f.type)
        if not f.required:
            annotation = f"{annotation} | Unset" if annotation != "Any" else "Any"
        fields.append(
            {
                "name": f.name,
                "wire": literal(f.wire),
                "annotation": annotation,
                "decoder": code.decoder(f.type),
                "required": f.required,
                "doc": docstring(f.description),
            }
        )
    additional = None
    if model.additional is not None:
        additional = {
            "annotation": code.annotation(model.additional),
            "decoder": code.decoder(model.additional),
        }
    return {
        "name": model.name,
        "doc": docstring(model.description or f"{model.name} object."),
        "fields": fields,
        "additional": additional,
        "refs": refs,
        "type_checking": bool(refs),
        "stdlib": _stdlib(code, types),
    }


def enum_view(enum: ir.EnumSchema) -> dict[str, Any]:
    return {
        "name": enum.name,
        "base": enum.base,
        "doc": docstring(enum.description or f"Values of {enum.name}."),
        "members": [{"name": m.name, "value": literal(m.value)} for m in enum.members],
    }


def alias_view(code: TypeCode, alias: ir.AliasSchema) -> dict[str, Any]:
    """A named alias (``Metadata = dict[str, str]``); it may refer to itself by name."""
    code = attrs.evolve(code, opaque=frozenset({alias.key}))
    annotation = code.annotation(alias.target)
    return {
        "name": alias.name,
        "module": alias.module,
        "doc": docstring(alias.description or f"The {alias.name} type."),
        "annotation": literal(annotation),
        "uses_any": "Any" in code.needs([alias.target]),
        "decoder": code.decoder(alias.target),
        "refs": _ref_items(code, [alias.target], exclude=alias.module),
        "stdlib": _stdlib(code, [alias.target]),
    }


def _pinned_value(code: TypeCode, variant: ir.Ref, prop: str) -> str | None:
    model = code.schemas[variant.key]
    if not isinstance(model, ir.Model):
        return None
    field = next((f for f in model.fields if f.wire == prop), None)
    if field is None:
        return None
    target = code.resolve(field.type)
    if isinstance(target, ir.ConstType) and isinstance(target.value, str):
        return target.value
    if isinstance(target, ir.Ref):
        named = code.schemas[target.key]
        if isinstance(named, ir.EnumSchema) and len(named.members) == 1:
            return str(named.members[0].value)
    return None


def union_view(code: TypeCode, union: ir.UnionSchema) -> dict[str, Any]:
    refs = _ref_items(code, list(union.variants), exclude=union.module)
    cases = []
    if union.discriminator:
        mapping = list(union.mapping)
        mapped = {key for _, key in mapping}
        values = {value for value, _ in mapping}
        for variant in union.variants:
            if not isinstance(variant, ir.Ref) or variant.key in mapped:
                continue
            # The value a variant pins its discriminator to (a const or a one-value
            # enum) selects it; without one, OpenAPI's implicit value is the schema name.
            tag = _pinned_value(code, variant, union.discriminator)
            if tag is None and not union.mapping:
                tag = variant.key.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
            if tag is not None and tag not in values:
                values.add(tag)
                mapping.append((tag, variant.key))
        for value, key in mapping:
            cases.append({"value": literal(value), "decoder": code.decoder(ir.Ref(key))})
        refs = _ref_items(
            code, list(union.variants) + [ir.Ref(k) for _, k in mapping], exclude=union.module
        )
    return {
        "name": union.name,
        "module": union.module,
        "doc": docstring(union.description or f"One of the {union.name} variants."),
        "variants": _unique_strings(literal(code.annotation(v)) for v in union.variants),
        "decoders": [code.decoder(v) for v in union.variants],
        "discriminator": literal(union.discriminator) if union.discriminator else None,
        "discriminator_doc": docstring(union.discriminator or ""),
        "cases": cases,
        "refs": refs,
        "stdlib": _stdlib(code, list(union.variants)),
    }


def _unique_strings(items: Iterable[str]) -> list[str]:
    out: list[str] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def _id_annotation(code: TypeCode, p: ir.Parameter) -> str:
    """Path and header parameters also take a plain string (ids arrive as strings)."""
    annotation = code.annotation(p.type)
    if p.location in ("path", "header") and not {"str", "Any"} & set(annotation.split(" | ")):
        return f"{annotation} | str"
    return annotation


def _default(code: TypeCode, p: ir.Parameter) -> str | None:
    """The spec's default as an expression of the parameter's type, if it has one that fits."""
    if not p.has_default:
        return None
    value, target = p.default, code.resolve(p.type)
    if isinstance(target, ir.Nullable):
        target = code.resolve(target.inner)
    if isinstance(target, ir.Primitive):
        fits = {
            "str": isinstance(value, str),
            "int": isinstance(value, int) and not isinstance(value, bool),
            "float": isinstance(value, (int, float)) and not isinstance(value, bool),
            "bool": isinstance(value, bool),
        }.get(target.kind, False)
        return literal(value) if fits else None
    if isinstance(target, ir.Ref):
        named = code.schemas[target.key]
        if isinstance(named, ir.EnumSchema):
            # A member, not a call: defaults are evaluated once, at import.
            member = next((m for m in named.members if m.value == value), None)
            if member is not None and type(member.value) is type(value):
                return f"{named.name}.{member.name}"
    return None


def _param_annotation(code: TypeCode, p: ir.Parameter) -> tuple[str, str | None]:
    annotation = _id_annotation(code, p)
    default = _default(code, p)
    if default is not None:
        return annotation, default
    if p.required:
        return annotation, None
    return (f"{annotation} | Unset" if annotation != "Any" else "Any"), "UNSET"


def _path_expression(path: str, params: dict[str, ir.Parameter]) -> str:
    parts: list[str] = []
    pos = 0
    for match in _PATH_PARAM.finditer(path):
        if match.start() > pos:
            parts.append(literal(path[pos : match.start()]))
        parts.append(f"_path({params[match.group(1)].name})")
        pos = match.end()
    if pos < len(path):
        parts.append(literal(path[pos:]))
    return " + ".join(parts) or literal("")


def operation_view(
    code: TypeCode, op: ir.Operation, idempotency_header: str | None = None
) -> dict[str, Any]:
    path, _, fixed_query = op.path.partition("?")
    by_wire = {p.wire: p for p in op.parameters if p.location == "path"}
    positional = [p for p in op.parameters if p.location == "path"]
    keyword = [p for p in op.parameters if p.location != "path"]
    sig: list[str] = []
    call: list[str] = []
    for p in positional:
        sig.append(f"{p.name}: {_id_annotation(code, p)}")
        call.append(p.name)
    kw: list[str] = []
    required_kw = [p for p in keyword if p.required and _default(code, p) is None]
    optional_kw = [p for p in keyword if p not in required_kw]
    body_sig = None
    if op.body is not None:
        annotation = code.annotation(op.body.type)
        if op.body.kind == "binary":
            annotation = "bytes"
        body_sig = (
            f"body: {annotation}" if op.body.required else f"body: {annotation} | Unset = UNSET"
        )
    if body_sig and op.body is not None and op.body.required:
        kw.append(body_sig)
    for p in required_kw:
        kw.append(f"{p.name}: {_id_annotation(code, p)}")
    if body_sig and op.body is not None and not op.body.required:
        kw.append(body_sig)
    for p in optional_kw:
        annotation, default = _param_annotation(code, p)
        kw.append(f"{p.name}: {annotation} = {default}")
    kw.append("timeout: float | None = None")
    kw.append("extra_headers: Mapping[str, str] | None = None")
    signature = ", ".join(sig + ["*"] + kw)
    call_kw = [f"{name}={name}" for name in ["body"] if op.body is not None]
    call_kw += [f"{p.name}={p.name}" for p in keyword]
    call_kw += ["timeout=timeout", "extra_headers=extra_headers"]
    call_args = ", ".join(call + call_kw)

    params = [f"{literal(p.wire)}: {p.name}" for p in keyword if p.location == "query"]
    for pair in filter(None, fixed_query.split("&")):
        key, _, value = pair.partition("=")
        params.append(f"{literal(key)}: {literal(value)}")
    headers = [f"{literal(p.wire)}: {p.name}" for p in keyword if p.location == "header"]
    cookies = [f"({literal(p.wire)}, {p.name})" for p in keyword if p.location == "cookie"]
    if cookies:
        pairs = "(" + ", ".join(cookies) + ",)"
        headers.append(
            f'"Cookie": "; ".join(k + "=" + _path(v) for k, v in {pairs} '
            "if v is not None and not isinstance(v, Unset)) or None"
        )
    body_arg = None
    if op.body is not None:
        body_arg = {
            "json": "json=_s.encode(body)",
            "form": "form=_s.encode(body)",
            "multipart": "files=_multipart(body)",
            "text": f"content=body, content_type={literal(op.body.media_type)}",
            "binary": f"content=body, content_type={literal(op.body.media_type)}",
        }[op.body.kind]
        if not op.body.required:
            body_arg = body_arg.replace(
                "=_s.encode(body)", "=None if isinstance(body, Unset) else _s.encode(body)"
            )
            body_arg = body_arg.replace(
                "content=body", "content=None if isinstance(body, Unset) else body"
            )
            body_arg = body_arg.replace(
                "files=_multipart(body)",
                "files=None if isinstance(body, Unset) else _multipart(body)",
            )

    response = op.response
    if response.kind == "json" and response.type is not None:
        returns = code.annotation(response.type)
        decode = f"decode_json(response, {code.decoder(response.type)})"
    elif response.kind == "text":
        returns, decode = "str", "response.text"
    elif response.kind == "binary":
        returns, decode = "bytes", "response.content"
    else:
        returns, decode = "None", "None"

    doc_args = []
    for p in op.parameters:
        if p.description:
            doc_args.append(f"{p.name}: {p.description}")
    if op.body is not None and op.body.description:
        doc_args.append(f"body: {op.body.description}")
    lines = [op.summary, op.description]
    if doc_args:
        lines.append("Args:\n" + "\n".join("    " + " ".join(a.split()) for a in doc_args))
    lines.append(f"``{op.method} {op.path}`` (operationId ``{op.operation_id}``).")
    idem = None
    if idempotency_header is not None:
        idem = literal(idempotency_header)
    elif any(p.location == "header" and p.wire.lower() == "idempotency-key" for p in keyword):
        idem = literal(next(p.wire for p in keyword if p.wire.lower() == "idempotency-key"))
    return {
        "name": op.name,
        "options_fn": f"_{op.name}_request",
        "decode_fn": f"_{op.name}_response",
        "signature": signature,
        "call_args": call_args,
        "method": literal(op.method),
        "path": _path_expression(path, by_wire),
        "params": params,
        "headers": headers,
        "body_arg": body_arg,
        "security": "(" + "".join(literal(s) + ", " for s in op.security) + ")",
        "returns": returns,
        "decode": decode,
        "doc": docstring(*lines),
        "idempotency_header": idem,
        "deprecated": op.deprecated,
        "types": [p.type for p in op.parameters]
        + ([op.body.type] if op.body is not None else [])
        + ([response.type] if response.type is not None and response.kind == "json" else []),
    }


def _tuple(path: tuple[str, ...] | None) -> str:
    if path is None:
        return "None"
    return "(" + "".join(literal(t) + ", " for t in path) + ")"


def _frozen(values: tuple[str, ...]) -> str:
    if not values:
        return "frozenset()"
    return "frozenset({" + ", ".join(literal(v) for v in values) + "})"


def job_view(code: TypeCode, job: ir.Job, single: bool, owner: dict[str, str]) -> dict[str, Any]:
    name = snake(job.name, "job")
    status_id_param = next(
        p for p in job.status.parameters if p.location == "path" and p.wire == job.id_parameter
    )
    spec_args = {
        "name": literal(job.name),
        "record_path": _tuple(job.record_path),
        "state_path": _tuple(job.state_path),
        "success": _frozen(job.success),
        "failure": _frozen(job.failure),
        "canceled": _frozen(job.canceled),
        "pending": _frozen(job.pending),
        "terminal_path": _tuple(job.terminal_path),
        "ready_path": _tuple(job.ready_path),
        "error_path": _tuple(job.error_path),
        "hint_path": _tuple(job.hint_path),
        "hint_scale": "0.001" if job.hint_unit == "milliseconds" else "1.0",
        "header_hints": "("
        + "".join(f"HeaderHint({literal(h.name)}, {literal(h.format)}), " for h in job.header_hints)
        + ")",
        "floor": repr(job.floor),
        "first": repr(job.first),
        "cap": repr(job.cap),
        "id_path": _tuple(job.id_path),
        "id_header": literal(job.id_header),
        "idempotency_header": literal(job.idempotency_header),
    }
    record_path = "$" + "".join(f".{t}" for t in job.record_path)
    view: dict[str, Any] = {
        "name": name,
        "spec_const": f"_{name.upper()}_SPEC",
        "waiter_attr": f"_{name}_waiter",
        "spec_args": spec_args,
        "record_annotation": code.annotation(job.record_type),
        "record_decoder": code.decoder(job.record_type),
        "record_path": literal(record_path),
        "status_request": f"_{job.status.name}_request",
        "status_id_kw": status_id_param.name,
        "wait_for_job": "wait_for_job" if single else f"wait_for_{name}",
        "wait_for_result": "wait_for_result" if single else f"wait_for_{name}_result",
        "create_and_wait": "create_and_wait" if single else f"create_{name}_and_wait",
        "wait_for_jobs": "wait_for_jobs" if single else f"wait_for_{name}s",
        "types": [job.record_type],
        "imports": [],
    }
    view["status_import"] = owner.get(job.status.operation_id)
    if job.result is not None:
        result_view = operation_view(code, job.result)
        view["result"] = {
            "request": f"_{job.result.name}_request",
            "response": f"_{job.result.name}_response",
            "returns": result_view["returns"],
            "id_kw": next(
                p.name
                for p in job.result.parameters
                if p.location == "path" and p.wire == job.id_parameter
            ),
            "module": owner.get(job.result.operation_id),
        }
        view["types"] += result_view["types"]
    else:
        view["result"] = None
    if job.create is not None:
        create_view = operation_view(code, job.create, job.idempotency_header)
        idem_param = None
        if job.idempotency_header is not None:
            idem_param = next(
                (
                    p.name
                    for p in job.create.parameters
                    if p.location == "header" and p.wire.lower() == job.idempotency_header.lower()
                ),
                None,
            )
        # The waiter owns the idempotency key: the caller does not pass one.
        signature = create_view["signature"]
        call_args = create_view["call_args"]
        if idem_param is not None:
            signature = re.sub(rf", {idem_param}: [^,]*= UNSET", "", signature)
            call_args = call_args.replace(
                f"{idem_param}={idem_param}", f"{idem_param}=UNSET if key is None else key"
            )
        extra = "extra_headers=extra_headers"
        if idem_param is None and job.idempotency_header is not None:
            call_args = call_args.replace(
                extra,
                f"extra_headers=_with_key(extra_headers, {literal(job.idempotency_header)}, key)",
            )
        view["create"] = {
            "signature": signature.replace(
                "timeout: float | None = None, ",
                "timeout: float | None = None, deadline: float = 600.0, on_poll: Callable[[PollEvent], None] | None = None, ",
            ),
            "call_args": call_args,
            "request": f"_{job.create.name}_request",
            "module": owner.get(job.create.operation_id),
            "idempotency_header": literal(job.idempotency_header),
        }
        view["types"] += create_view["types"]
    else:
        view["create"] = None
    returns = view["result"]["returns"] if view["result"] else view["record_annotation"]
    view["create_returns"] = returns
    return view


def resource_view(code: TypeCode, resource: ir.Resource, owner: dict[str, str]) -> dict[str, Any]:
    if any(op.name == "list" for op in resource.operations):
        code = attrs.evolve(code, shadowed=frozenset({"list"}))
    keys = {
        j.create.operation_id: j.idempotency_header for j in resource.jobs if j.create is not None
    }
    ops = [operation_view(code, op, keys.get(op.operation_id)) for op in resource.operations]
    jobs = [job_view(code, job, len(resource.jobs) == 1, owner) for job in resource.jobs]
    types = [t for op in ops for t in op["types"]] + [t for job in jobs for t in job["types"]]
    refs = _ref_items(code, types)
    cross: dict[str, set[str]] = {}
    for job in jobs:
        if job["status_import"] and job["status_import"] != resource.module:
            cross.setdefault(job["status_import"], set()).add(job["status_request"])
        if job["result"] and job["result"]["module"] != resource.module:
            cross.setdefault(job["result"]["module"], set()).update(
                {job["result"]["request"], job["result"]["response"]}
            )
        if job["create"] and job["create"]["module"] != resource.module:
            cross.setdefault(job["create"]["module"], set()).add(job["create"]["request"])
    needs = code.needs(types)
    if code.shadowed:
        needs.add("builtins")
    return {
        "name": resource.name,
        "module": resource.module,
        "attr": resource.attr,
        "operations": ops,
        "jobs": jobs,
        "refs": refs,
        "stdlib": sorted(needs - {"Any"}),
        "cross": [{"module": m, "names": sorted(n)} for m, n in sorted(cross.items())],
        "has_multipart": any(op["body_arg"] and "_multipart" in op["body_arg"] for op in ops),
        "has_with_key": any(
            job["create"] and "_with_key(" in job["create"]["call_args"] for job in jobs
        ),
    }


def client_view(sdk: ir.Sdk) -> dict[str, Any]:
    auths = []
    for auth in sdk.auths:
        if isinstance(auth, ir.ApiKeyAuth):
            auths.append(
                {
                    "params": [auth.param],
                    "doc": f"{auth.param}: API key sent as the {auth.where} {auth.wire!r}.",
                    "make": f"ApiKey({literal(auth.scheme)}, {literal(auth.wire)}, {literal(auth.where)}, {auth.param})",
                    "check": auth.param,
                }
            )
        elif isinstance(auth, ir.BearerAuth):
            auths.append(
                {
                    "params": [auth.param],
                    "doc": f"{auth.param}: bearer token sent in the Authorization header.",
                    "make": f"Bearer({literal(auth.scheme)}, {auth.param})",
                    "check": auth.param,
                }
            )
        else:
            auths.append(
                {
                    "params": [auth.username_param, auth.password_param],
                    "doc": f"{auth.username_param}, {auth.password_param}: HTTP basic credentials.",
                    "make": f"Basic({literal(auth.scheme)}, {auth.username_param}, {auth.password_param})",
                    "check": f"{auth.username_param} is not None and {auth.password_param}",
                }
            )
    return {
        "auths": auths,
        "base_url": literal(sdk.base_url) if sdk.base_url and "://" in sdk.base_url else None,
        "resources": [{"name": r.name, "attr": r.attr, "module": r.module} for r in sdk.resources],
    }
