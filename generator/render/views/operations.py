"""Operation views: how one operation builds its request (path, query, headers, body)
and decodes its response -- every request-building decision lives here."""

from __future__ import annotations

import re
from typing import Any

from ...model import ir
from ..code import ANY, TypeCode
from ..escape import Code, docstring, ident, join, py_literal, py_str

__all__ = ["OPTION_PARAMS", "operation_view", "path_tuple", "required_keywords", "tuple_of"]

_PATH_PARAM = re.compile(r"{([^{}]+)}")


def _id_annotation(code: TypeCode, p: ir.Parameter) -> str:
    """Path and header parameters also take a plain string (ids arrive as strings)."""
    annotation = code.annotation(p.type)
    if p.location in ("path", "header") and not {"str", ANY} & set(annotation.split(" | ")):
        return f"{annotation} | str"
    return annotation


def _default(code: TypeCode, p: ir.Parameter) -> str | None:
    """The spec's default as an expression of the parameter's type, if it has one that fits;
    a required parameter of a single value has that value (as a model's field has)."""
    value, target = p.default, code.resolve(p.type)
    if p.required and isinstance(target, ir.ConstType):
        return py_literal(target.value)
    if not p.has_default:
        return None
    if isinstance(target, ir.Nullable):
        target = code.resolve(target.inner)
    if isinstance(target, ir.Primitive):
        fits = {
            "str": isinstance(value, str),
            "int": isinstance(value, int) and not isinstance(value, bool),
            "float": isinstance(value, (int, float)) and not isinstance(value, bool),
            "bool": isinstance(value, bool),
        }.get(target.kind, False)
        return py_literal(value) if fits else None
    if isinstance(target, ir.Ref):
        named = code.schemas[target.key]
        if isinstance(named, ir.EnumSchema):
            # A member, not a call: defaults are evaluated once, at import.
            member = next((m for m in named.members if m.value == value), None)
            if member is not None and type(member.value) is type(value):
                return f"{named.name}.{member.name}"
    return None


def required_keywords(code: TypeCode, op: ir.Operation) -> list[ir.Parameter]:
    """The parameters an operation's method takes by keyword and needs (no default)."""
    return [
        p
        for p in op.parameters
        if p.location != "path" and p.required and _default(code, p) is None
    ]


def _param_annotation(code: TypeCode, p: ir.Parameter) -> tuple[str, str | None]:
    annotation = _id_annotation(code, p)
    default = _default(code, p)
    if default is not None:
        return annotation, default
    if p.required:
        return annotation, None
    return (f"{annotation} | _s.Unset" if annotation != ANY else ANY), "_s.UNSET"


def _path_expression(path: str, params: dict[str, ir.Parameter]) -> str:
    parts: list[str] = []
    pos = 0
    for match in _PATH_PARAM.finditer(path):
        if match.start() > pos:
            parts.append(py_literal(path[pos : match.start()]))
        p = params[match.group(1)]
        args = [p.name]
        if (p.style or "simple", p.explode) != ("simple", False):
            args += [py_str(p.style or "simple"), str(p.explode), py_str(p.wire)]
        parts.append(f"_path({', '.join(args)})")
        pos = match.end()
    if pos < len(path):
        parts.append(py_literal(path[pos:]))
    return " + ".join(parts) or py_literal("")


_IDEMPOTENCY_KEY = "idempotency_key"
# The per-call options every operation takes, after its own parameters.
OPTION_PARAMS = [
    "timeout: float | httpx.Timeout | None = None",
    "max_retries: int | None = None",
    "extra_headers: _abc.Mapping[str, str] | None = None",
    "extra_query: _abc.Mapping[str, object] | None = None",
    "extra_body: _abc.Mapping[str, object] | None = None",
]
_OPTION_NAMES = ["timeout", "max_retries", "extra_headers", "extra_query", "extra_body"]
_CALL_PARAM = "call: _http.CallOptions = _http.NO_OPTIONS"
_CALL_ARG = "call=(" + ", ".join(_OPTION_NAMES) + ")"


def operation_view(
    code: TypeCode, op: ir.Operation, idempotency_header: str | None = None, *, follow: bool = False
) -> dict[str, Any]:
    """What the templates render of one operation; ``follow``: a 3xx it declares beside
    its success is followed (a job's own call), not returned as a ``Redirect``."""
    path, _, fixed_query = op.path.partition("?")
    by_wire = {p.wire: p for p in op.parameters if p.location == "path"}
    media_param = _media_param(op)
    call = _call_view(code, op, idempotency_header, media_param)
    synthetic_idem = idempotency_header if call.pop("synthetic_idem") else None
    response = op.response
    # Beside a success, a declared 3xx is returned as a `Redirect` (not followed).
    redirected = (
        bool(op.redirects)
        and response.kind not in ("redirect", "events")
        and op.pagination is None
        and not follow
    )
    returns, decode, typed = _decoding(code, response, redirected)
    paging = _paging_view(code, op)
    event_type = response.type if response.kind == "events" else response.events
    return {
        "name": ident(op.name),
        "options_fn": ident(f"_{op.name}_request"),
        "decode_fn": ident(f"_{op.name}_response"),
        **call,
        "method": py_str(op.method),
        "path": Code(_path_expression(path, by_wire)),
        "params": _query_params(op, fixed_query),
        "header_dict": _header_dict(op, synthetic_idem),
        "body_args": _request_args(op, media_param, redirected),
        "security": tuple_of([py_str(s) for s in op.security]),
        "returns": Code(returns),
        "decode": Code(decode),
        "typed_decode": typed,
        "redirected": redirected,
        "doc": docstring(*_doc_lines(op, media_param, paging is not None), indent=8),
        "paging": paging,
        "events": _events_view(code, op, event_type),
        "deprecated": op.deprecated,
        "types": [p.type for p in op.parameters]
        + ([op.body.type] if op.body is not None else [])
        + ([response.type] if response.type is not None and response.kind == "json" else [])
        + ([event_type] if event_type is not None else [])
        + ([op.pagination.item_type] if op.pagination is not None else []),
    }


def _call_view(
    code: TypeCode, op: ir.Operation, idempotency_header: str | None, media_param: str | None
) -> dict[str, Any]:
    """The method's signature, the request function's, the arguments one passes to the
    other, and the idempotency key the call sends (its header and parameter)."""
    positional = [p for p in op.parameters if p.location == "path"]
    keyword = [p for p in op.parameters if p.location != "path"]
    sig = [f"{p.name}: {_id_annotation(code, p)}" for p in positional]
    kw: list[str] = []
    required_kw = required_keywords(code, op)
    body_sig = None
    if op.body is not None:
        annotation = _body_annotation(code, op.body)
        body_sig = (
            f"body: {annotation}"
            if op.body.required
            else f"body: {annotation} | _s.Unset = _s.UNSET"
        )
    if body_sig and op.body is not None and op.body.required:
        kw.append(body_sig)
    kw += [f"{p.name}: {_id_annotation(code, p)}" for p in required_kw]
    if body_sig and op.body is not None and not op.body.required:
        kw.append(body_sig)
    if media_param is not None and op.body is not None:
        choices = ", ".join(py_literal(m) for m, _ in op.body.media)
        kw.append(f"{media_param}: _t.Literal[{choices}] | None = None")
    for p in keyword:
        if p not in required_kw:
            annotation, default = _param_annotation(code, p)
            kw.append(f"{p.name}: {annotation} = {default}")
    idem = None
    if idempotency_header is not None:
        idem = py_literal(idempotency_header)
    elif any(p.location == "header" and p.wire.lower() == "idempotency-key" for p in keyword):
        idem = py_literal(next(p.wire for p in keyword if p.wire.lower() == "idempotency-key"))
    wire_idem = idempotency_header or "Idempotency-Key"
    declared = next(
        (p for p in keyword if p.location == "header" and p.wire.lower() == wire_idem.lower()),
        None,
    )
    synthetic_idem = (
        idempotency_header is not None
        and declared is None
        and all(p.name != _IDEMPOTENCY_KEY for p in op.parameters)
    )
    idem_param = None
    if declared is not None:
        idem_param = declared.name
    elif synthetic_idem:
        idem_param = _IDEMPOTENCY_KEY
        kw.append(f"{_IDEMPOTENCY_KEY}: str | _s.Unset = _s.UNSET")
    # The request function takes the per-call options as one tuple (``CallOptions``).
    options_signature = ", ".join([*sig, "*", *kw, _CALL_PARAM])
    signature = ", ".join([*sig, "*", *kw, *OPTION_PARAMS])
    call_kw = [f"{name}={name}" for name in ["body"] if op.body is not None]
    if media_param is not None:
        call_kw.append(f"{media_param}={media_param}")
    call_kw += [f"{p.name}={p.name}" for p in keyword]
    if synthetic_idem:
        call_kw.append(f"{_IDEMPOTENCY_KEY}={_IDEMPOTENCY_KEY}")
    call_kw.append(_CALL_ARG)
    return {
        "signature": Code(signature),
        "options_signature": Code(options_signature),
        "call_args": Code(", ".join([p.name for p in positional] + call_kw)),
        "idempotency_header": idem,
        "idem_param": idem_param,
        "synthetic_idem": synthetic_idem,
    }


def _query_params(op: ir.Operation, fixed_query: str) -> Code | None:
    """The query's parameters, and the pairs written into the spec's path after ``?``."""
    params = [f"{py_literal(p.wire)}: {p.name}" for p in op.parameters if p.location == "query"]
    for pair in filter(None, fixed_query.split("&")):
        key, _, value = pair.partition("=")
        params.append(f"{py_literal(key)}: {py_literal(value)}")
    return Code("{" + ", ".join(params) + "}") if params else None


def _header_dict(op: ir.Operation, synthetic_idem: str | None) -> Code:
    """The request's headers: declared ones, ``Accept`` for a non-JSON answer, the
    idempotency key the SDK adds (``synthetic_idem``), cookies, then ``extra_headers``."""
    keyword = [p for p in op.parameters if p.location != "path"]
    headers = [
        f"{py_literal(p.wire)}: " + (f"_styles.header({p.name}, True)" if p.explode else p.name)
        for p in keyword
        if p.location == "header"
    ]
    response = op.response
    accepts = response.media_type if response.kind in ("binary", "text", "events") else None
    if accepts and not any(p.wire.lower() == "accept" for p in keyword if p.location == "header"):
        headers.insert(0, f'"Accept": {py_literal(accepts)}')
    if synthetic_idem is not None:
        headers.append(f"{py_literal(synthetic_idem)}: {_IDEMPOTENCY_KEY}")
    cookies = [
        f"({py_str(p.wire)}, {p.name}, {p.explode})" for p in keyword if p.location == "cookie"
    ]
    if cookies:
        headers.append(f'"Cookie": _styles.cookie_header({tuple_of([Code(c) for c in cookies])})')
    return Code("{" + "".join(h + ", " for h in headers) + "**(extra_headers or {})}")


def _request_args(op: ir.Operation, media_param: str | None, redirected: bool) -> list[Code]:
    """The request's other arguments: query styles beyond the defaults, the operation's
    own server, the redirects it declares, and its body."""
    styles = [
        f"{py_literal(p.wire)}: ({py_str(p.style or 'form')}, {p.explode})"
        for p in op.parameters
        if p.location == "query" and (p.style or "form", p.explode) != ("form", True)
    ]
    args: list[Code] = []
    if styles:
        args.append(Code("styles={" + ", ".join(styles) + "}"))
    if op.server is not None:
        args.append(Code(f"server={py_str(op.server)}"))
    if op.redirects and (op.response.kind == "redirect" or redirected):
        args.append(Code(f"redirects={tuple_of([Code(str(c)) for c in op.redirects])}"))
    if op.body is not None:
        args += _body_args(op.body, media_param)
    return args


def _decoding(code: TypeCode, response: ir.Response, redirected: bool) -> tuple[str, str, bool]:
    """What the method returns, the expression decoding it from ``response``, and whether
    that decoding is typed."""
    returns: str
    if response.kind == "json" and response.type is not None:
        returns = code.annotation(response.type)
        decoder = code.decoder(response.type)
        decode = f"_http.decode_json(response, {decoder})"
        if decoder == "_s.as_str":  # a body of another media type is read as its text
            decode = "_http.decode_json_text(response)"
    elif response.kind == "text":
        returns, decode = "str", "response.text"
    elif response.kind == "binary":
        returns, decode = "bytes", "response.content"
    elif response.kind == "redirect":
        returns, decode = "str", 'str(response.headers.get("location", ""))'
    elif response.kind == "events":
        # The raw and streaming variants read the stream as text.
        returns, decode = "str", "response.text"
    else:
        returns, decode = "None", "None"
    typed = decode.startswith("_http.decode_json")
    if redirected:
        returns = f"{returns} | _resp.Redirect"
        decode = f"_resp.redirected(response) or {decode}"
        typed = True
    return returns, decode, typed


def _doc_lines(op: ir.Operation, media_param: str | None, paged: bool) -> list[str | None]:
    """The paragraphs of the method's docstring."""
    doc_args = [f"{p.name}: {p.description}" for p in op.parameters if p.description]
    if op.body is not None and op.body.description:
        doc_args.append(f"body: {op.body.description}")
    if media_param is not None and op.body is not None:
        doc_args.append(
            f"{media_param}: the media type to send the body as (default: text for a "
            "str, application/octet-stream or another binary type for bytes, a path or "
            "a file, the structured type for anything else; or the Content-Type of "
            "extra_headers)."
        )
    lines: list[str | None] = [op.summary, op.description]
    if doc_args:
        lines.append("Args:\n" + "\n".join("    " + " ".join(a.split()) for a in doc_args))
    if paged:
        lines.append(
            "Returns every item, fetching pages as iteration needs them; ``.page()`` "
            "is the first page (``.items``, ``.has_next()``, ``.next_page()``)."
        )
    lines.append(f"``{op.method} {op.path}`` (operationId ``{op.operation_id}``).")
    return lines


def _events_view(
    code: TypeCode, op: ir.Operation, event_type: ir.TypeRef | None
) -> dict[str, Any] | None:
    """The events the operation streams, as its main answer or a variant of it."""
    if event_type is None:
        return None
    plain = code.resolve(event_type) == ir.Primitive("str")
    return {
        "item": Code(code.annotation(event_type)),
        "decode_fn": ident(f"_{op.name}_event"),
        "decoder": None if plain else Code(code.decoder(event_type)),
        "main": op.response.kind == "events",
        "method": ident(op.stream_name) if op.stream_name else None,
    }


def _media_param(op: ir.Operation) -> str | None:
    """The name of the argument choosing the body's media type, where there is a choice."""
    if op.body is None or not op.body.media:
        return None
    taken = {p.name for p in op.parameters}
    return "content_type" if "content_type" not in taken else "body_content_type"


def _body_annotation(code: TypeCode, body: ir.Body) -> str:
    """What the body argument takes: the structured type (a model), bytes or a file
    for a binary media type, ``str`` for a text one -- each the operation declares."""
    kinds = {kind for _, kind in body.media} or {body.kind}
    parts: list[str] = []
    if kinds & {"json", "form", "multipart"}:
        parts.append(code.annotation(body.type))
    if "binary" in kinds:
        parts.append("_wire.FileContent")
    if "text" in kinds and "str" not in parts:
        parts.append("str")
    return " | ".join(parts)


def _body_args(body: ir.Body, media_param: str | None) -> list[Code]:
    """The `RequestOptions` arguments that carry the body."""
    unset = "" if body.required else "{} if isinstance(body, _s.Unset) else "
    parts = (
        "{" + ", ".join(f"{py_literal(k)}: {py_str(v)}" for k, v in body.part_types) + "}"
        if body.part_types
        else None
    )
    if media_param is not None:
        media = tuple_of([py_str(m) for m, _ in body.media])
        extra = f", {parts}" if parts else ""
        call = f"_wire.body_fields(body, {media_param}, {media}, extra_headers{extra})"
        return [Code(f"**({unset}{call})" if unset else f"**{call}")]
    keyword, value = {
        "json": ("json", "_s.encode(body)"),
        "form": ("form", "_s.encode(body)"),
        "multipart": ("files", f"_multipart(body, {parts})" if parts else "_multipart(body)"),
        "text": ("content", "body"),
        "binary": ("upload", "_wire.upload(body)"),
    }[body.kind]
    if not body.required:
        value = f"None if isinstance(body, _s.Unset) else {value}"
    args = [Code(f"{keyword}={value}")]
    if body.kind in ("text", "binary") or (
        body.kind == "json" and body.media_type.split(";")[0].strip() != "application/json"
    ):
        args.append(Code(f"content_type={py_str(body.media_type)}"))
    if body.encoding:
        encoding = [
            f"{py_literal(prop)}: ({py_str(style)}, {explode})"
            for prop, style, explode in body.encoding
        ]
        args.append(Code("encoding={" + ", ".join(encoding) + "}"))
    return args


def _paging_view(code: TypeCode, op: ir.Operation) -> dict[str, Code] | None:
    """The ``Paging`` of a list operation, its item type and decoder."""
    p = op.pagination
    if p is None:
        return None
    args = [f"style={py_str(p.style)}", f"items={path_tuple(p.items)}"]
    for key, text in (("param", p.param), ("limit_param", p.limit_param)):
        if text is not None:
            args.append(f"{key}={py_str(text)}")
    for key, path in (
        ("next_cursor", p.next_cursor),
        ("item_cursor", p.item_cursor),
        ("has_more", p.has_more),
        ("next_url", p.next_url),
    ):
        if path is not None:
            args.append(f"{key}={path_tuple(path)}")
    return {
        "const": Code(ident(f"_{op.name}_paging").upper()),
        "args": Code(", ".join(args)),
        "item": code.annotation(p.item_type),
        "decoder": code.decoder(p.item_type),
    }


def tuple_of(items: list[Code]) -> Code:
    """A tuple display: ``()``, ``(a,)`` or ``(a, b)``."""
    if len(items) == 1:
        return Code(f"({items[0]},)")
    return Code("(" + join(", ", items) + ")")


def path_tuple(path: tuple[str, ...] | None) -> Code:
    """A JSON-pointer-like path as a tuple display of its tokens, or ``None``."""
    if path is None:
        return Code("None")
    return tuple_of([py_str(t) for t in path])
