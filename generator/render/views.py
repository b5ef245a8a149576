"""Views: the plain data each template renders, computed from the intermediate model."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import Any

import attrs

from ..model import ir
from ..model.names import pascal, snake, words
from .carry_view import carry_call, carry_spec_args, carry_view
from .code import ANY, LINE_LENGTH, Imports, TypeCode, all_key, from_line, names_in
from .escape import Code, doc_text, docstring, ident, join, py_literal, py_str

__all__ = ["alias_view", "client_view", "enum_view", "model_view", "resource_view", "union_view"]

_PATH_PARAM = re.compile(r"{([^{}]+)}")


def _ref_items(code: TypeCode, types: list[ir.TypeRef], exclude: str = "") -> list[dict[str, Code]]:
    """Imports for the named schemas ``types`` mention: the class, plus a union's decoder."""
    items = []
    for named in code.references(types):
        if named.module == exclude:
            continue
        runtime = (
            f"{named.name}, {named.decoder}" if isinstance(named, ir.UnionSchema) else named.name
        )
        items.append(
            {"module": ident(named.module), "name": ident(named.name), "runtime": Code(runtime)}
        )
    return items


def _local_imports(
    refs: list[dict[str, Code]], code: str, indent: int, prefix: str = "."
) -> list[Code]:
    """``from .module import Name, decode_module`` for the names ``code`` uses."""
    imports = Imports()
    for ref in refs:
        for name in ref["runtime"].split(", "):
            imports.add(prefix + ref["module"], name)
    return imports.used(names_in(code)).lines(indent)


# Enum fields accept the documented values as plain strings up to this many members.
LITERAL_MEMBERS = 64


def _enum_converter(code: TypeCode, f: ir.Field, annotation: Code) -> dict[str, Code] | None:
    """A string enum field (possibly nullable or optional) accepts its documented values
    as plain strings: a converter typed ``Enum | Literal[...]`` turns them into members."""
    t = code.resolve(f.type)
    nullable = isinstance(t, ir.Nullable)
    if isinstance(t, ir.Nullable):
        t = code.resolve(t.inner)
    if not isinstance(t, ir.Ref):
        return None
    enum = code.schemas[t.key]
    if not isinstance(enum, ir.EnumSchema) or enum.base != "str":
        return None
    if not enum.members or len(enum.members) > LITERAL_MEMBERS:
        return None
    literal = ", ".join(str(py_str(str(m.value))) for m in enum.members)
    accepted = f"{enum.name} | _t.Literal[{literal}]"
    if nullable:
        accepted += " | None"
    if not f.required:
        accepted += " | _s.Unset"
    return {
        "name": ident(f"_convert_{f.name}"),
        "accepts": Code(accepted),
        "returns": annotation,
        "enum": ident(enum.name),
    }


def _module_imports(code: TypeCode, types: list[ir.TypeRef]) -> Imports:
    imports = Imports()
    for module in code.needs(types):
        imports.add(module)
    return imports


def model_view(
    code: TypeCode, model: ir.Model, own: Iterable[ir.NamedSchema] = ()
) -> dict[str, Any]:
    """A model: its attrs fields, and the field table ``serde.Model`` decodes and encodes by;
    ``own`` are the enums and unions its module defines too (those only it uses)."""
    types = [f.type for f in model.fields] + ([model.additional] if model.additional else [])
    refs = _ref_items(code, types, exclude=model.module)
    # Enums have no imports of their own, so a model imports them eagerly (its enum
    # converters need them); other models and unions only when the table is first read.
    enum_modules = {n.module for n in code.references(types) if isinstance(n, ir.EnumSchema)}
    enums = [r for r in refs if r["module"] in enum_modules]
    lazy = [r for r in refs if r not in enums]
    fields = []
    converters = []
    entries = []
    for f in model.fields:
        annotation = code.annotation(f.type)
        if not f.required:
            annotation = Code(f"{annotation} | _s.Unset" if annotation != ANY else ANY)
        converter = _enum_converter(code, f, annotation)
        if converter is not None:
            converters.append(converter)
        decoder = code.decoder(f.type)
        const = code.resolve(f.type)
        # A required field of a single value has it as its default: the caller may leave
        # it out, encoding writes it, decoding refuses any other value.
        default = (
            py_literal(const.value) if f.required and isinstance(const, ir.ConstType) else None
        )
        wire = "" if f.wire == f.name else f", {py_str(f.wire)}"
        entries.append(Code(f"({py_str(f.name)}, {decoder}{wire})"))
        fields.append(
            {
                "name": ident(f.name),
                "annotation": annotation,
                "required": f.required,
                "doc": docstring(f.description, indent=4),
                "converter": converter["name"] if converter else None,
                "default": default,
            }
        )
    additional: dict[str, Code] | None = None
    if model.additional is not None:
        decoder = code.decoder(model.additional)
        additional = {"annotation": code.annotation(model.additional)}
        if decoder != "_s.any_value":
            entries.append(Code(f'("additional_properties", {decoder})'))
    imports = _module_imports(code, types)
    if lazy or converters:
        imports.add("typing")
    imports.add("attrs")
    imports.add(".._runtime", "serde", "_s")
    for ref in enums:
        imports.add("." + ref["module"], ref["name"])
    checking = Imports()
    for ref in lazy:
        checking.add("." + ref["module"], ref["name"])
    names = [model.name]
    own_enums, own_unions = [], []
    for schema in sorted(own, key=lambda s: all_key(s.name)):
        names.append(schema.name)
        if isinstance(schema, ir.EnumSchema):
            own_enums.append(enum_view(schema))
        elif isinstance(schema, ir.UnionSchema):
            bound = {str(ref["name"]) for ref in enums}
            union, union_imports, union_checking = _union_parts(code, schema, bound)
            own_unions.append(union)
            names.append(schema.decoder)
            imports.merge(union_imports)
            checking.merge(union_checking)
    lines = imports.lines()
    checking = checking.without(imports)
    if checking:
        lines += [Code(""), Code("if _t.TYPE_CHECKING:")]
        lines += [Code("    " + line if line else "") for line in checking.lines(4)]
    return {
        "name": ident(model.name),
        "all_names": join(", ", [py_str(n) for n in sorted(names, key=all_key)]),
        "enums": own_enums,
        "unions": own_unions,
        "doc": docstring(model.description or f"{model.name} object.", indent=4),
        "fields": fields,
        "additional": additional,
        "imports": lines,
        "entries": entries,
        "single": len(entries) == 1,
        "local_imports": _local_imports(lazy, " ".join(entries), 8),
        "converters": converters,
    }


def enum_view(enum: ir.EnumSchema) -> dict[str, Any]:
    return {
        "name": ident(enum.name),
        "base": Code("OpenStrEnum" if enum.base == "str" else "OpenIntEnum"),
        "doc": docstring(enum.description or f"Values of {enum.name}.", indent=4),
        "members": [{"name": ident(m.name), "value": py_literal(m.value)} for m in enum.members],
    }


def alias_view(code: TypeCode, alias: ir.AliasSchema) -> dict[str, Any]:
    """A named alias (``Metadata = dict[str, str]``); it may refer to itself by name."""
    code = attrs.evolve(code, opaque=frozenset({alias.key}))
    annotation = code.annotation(alias.target)
    decoder = code.decoder(alias.target)
    refs = _ref_items(code, [alias.target], exclude=alias.module)
    imports = _module_imports(code, [alias.target])
    imports.add("typing")
    if "_s" in names_in(decoder):
        imports.add(".._runtime", "serde", "_s")
    checking = Imports()
    for ref in refs:
        checking.add("." + ref["module"], ref["name"])
    return {
        "name": ident(alias.name),
        "module": ident(alias.module),
        "doc": docstring(alias.description or f"The {alias.name} type."),
        "annotation": py_str(annotation),
        "decoder": decoder,
        "imports": imports.lines(),
        "type_imports": checking.lines(4),
        "local_imports": _local_imports(refs, decoder, 4),
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
    """A union in a module of its own."""
    view, imports, checking = _union_parts(code, union)
    return {**view, "imports": imports.lines(), "type_imports": checking.lines(4)}


def _union_parts(
    code: TypeCode, union: ir.UnionSchema, bound: set[str] | None = None
) -> tuple[dict[str, Any], Imports, Imports]:
    """A union's code, and what its module imports, at run time and for type checkers;
    ``bound``: names its module imports at run time anyway (not imported again)."""
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
            cases.append({"value": py_str(value), "decoder": code.decoder(ir.Ref(key))})
        refs = _ref_items(
            code, list(union.variants) + [ir.Ref(k) for _, k in mapping], exclude=union.module
        )
    annotations = _unique_strings(code.annotation(v) for v in union.variants)
    decoders = [code.decoder(v) for v in union.variants]
    imports = _module_imports(code, list(union.variants))
    imports.add("typing")
    imports.add(".._runtime", "serde", "_s")
    checking = Imports()
    for ref in refs:
        checking.add("." + ref["module"], ref["name"])
    checking = checking.used(names_in(*annotations))
    local_code = " ".join(decoders + [c["decoder"] for c in cases])
    # In a model's module, its variants function is named after it (a module may hold
    # two), or by a digest of its name where that would not fit on the line.
    variants_fn = f"_{union.stem}_variants" if union.stem else "_variants"
    returns = "Tagged" if union.discriminator else "Variants"
    if len(f"def {variants_fn}() -> _s.{returns}:") > LINE_LENGTH:
        variants_fn = f"_variants_{hashlib.sha256(union.stem.encode()).hexdigest()[:8]}"
    view = {
        "name": ident(union.name),
        "decoder": ident(union.decoder),
        "variants_fn": ident(variants_fn),
        "doc": docstring(union.description or f"One of the {union.name} variants."),
        "variants": [py_str(a) for a in annotations],
        "decoders": decoders,
        "discriminator": py_str(union.discriminator) if union.discriminator else None,
        "discriminator_doc": doc_text(union.discriminator or ""),
        "cases": Code(
            "{" + join(", ", [Code(f"{c['value']}: {c['decoder']}") for c in cases]) + "}"
        ),
        "tried": Code("(" + join(", ", decoders) + ("," if len(decoders) == 1 else "") + ")"),
        "local_imports": _local_imports(
            [r for r in refs if r["name"] not in (bound or set())], local_code, 4
        ),
    }
    return view, imports, checking


def _unique_strings(items: Iterable[str]) -> list[str]:
    out: list[str] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


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
_OPTION_PARAMS = [
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
        annotation: str = code.annotation(op.body.type)
        if op.body.kind == "binary":
            annotation = "_wire.FileContent"
        body_sig = (
            f"body: {annotation}"
            if op.body.required
            else f"body: {annotation} | _s.Unset = _s.UNSET"
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
    idem = None
    idem_param = None
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
    if declared is not None:
        idem_param = declared.name
    elif synthetic_idem:
        idem_param = _IDEMPOTENCY_KEY
        kw.append(f"{_IDEMPOTENCY_KEY}: str | _s.Unset = _s.UNSET")
    # The request function takes the per-call options as one tuple (``CallOptions``).
    options_signature = ", ".join([*sig, "*", *kw, _CALL_PARAM])
    kw += _OPTION_PARAMS
    signature = ", ".join(sig + ["*"] + kw)
    call_kw = [f"{name}={name}" for name in ["body"] if op.body is not None]
    call_kw += [f"{p.name}={p.name}" for p in keyword]
    if synthetic_idem:
        call_kw.append(f"{_IDEMPOTENCY_KEY}={_IDEMPOTENCY_KEY}")
    call_kw.append(_CALL_ARG)
    call_args = ", ".join(call + call_kw)

    params = [f"{py_literal(p.wire)}: {p.name}" for p in keyword if p.location == "query"]
    for pair in filter(None, fixed_query.split("&")):
        key, _, value = pair.partition("=")
        params.append(f"{py_literal(key)}: {py_literal(value)}")
    # Only the styles the spec declares beyond the defaults are passed on.
    styles = [
        f"{py_literal(p.wire)}: ({py_str(p.style or 'form')}, {p.explode})"
        for p in keyword
        if p.location == "query" and (p.style or "form", p.explode) != ("form", True)
    ]
    headers = [
        f"{py_literal(p.wire)}: " + (f"_styles.header({p.name}, True)" if p.explode else p.name)
        for p in keyword
        if p.location == "header"
    ]
    accepts = op.response.media_type if op.response.kind in ("binary", "text", "events") else None
    if accepts and not any(p.wire.lower() == "accept" for p in keyword if p.location == "header"):
        headers.insert(0, f'"Accept": {py_literal(accepts)}')
    if synthetic_idem and idempotency_header is not None:
        headers.append(f"{py_literal(idempotency_header)}: {_IDEMPOTENCY_KEY}")
    cookies = [
        f"({py_str(p.wire)}, {p.name}, {p.explode})" for p in keyword if p.location == "cookie"
    ]
    if cookies:
        headers.append(f'"Cookie": _styles.cookie_header({_tuple_of([Code(c) for c in cookies])})')
    body_args: list[Code] = []
    if styles:
        body_args.append(Code("styles={" + ", ".join(styles) + "}"))
    if op.server is not None:
        body_args.append(Code(f"server={py_str(op.server)}"))
    if op.redirects:
        body_args.append(Code(f"redirects={_tuple_of([Code(str(c)) for c in op.redirects])}"))
    if op.body is not None:
        keyword_, value = {
            "json": ("json", "_s.encode(body)"),
            "form": ("form", "_s.encode(body)"),
            "multipart": ("files", "_multipart(body)"),
            "text": ("content", "body"),
            "binary": ("content", "_wire.binary_content(body)"),
        }[op.body.kind]
        if not op.body.required:
            value = f"None if isinstance(body, _s.Unset) else {value}"
        body_args.append(Code(f"{keyword_}={value}"))
        if op.body.kind in ("text", "binary"):
            body_args.append(Code(f"content_type={py_str(op.body.media_type)}"))
        if op.body.encoding:
            encoding = [
                f"{py_literal(prop)}: ({py_str(style)}, {explode})"
                for prop, style, explode in op.body.encoding
            ]
            body_args.append(Code("encoding={" + ", ".join(encoding) + "}"))

    response = op.response
    returns: str
    if response.kind == "json" and response.type is not None:
        returns = code.annotation(response.type)
        decode = f"_http.decode_json(response, {code.decoder(response.type)})"
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

    doc_args = []
    for p in op.parameters:
        if p.description:
            doc_args.append(f"{p.name}: {p.description}")
    if op.body is not None and op.body.description:
        doc_args.append(f"body: {op.body.description}")
    lines = [op.summary, op.description]
    if doc_args:
        lines.append("Args:\n" + "\n".join("    " + " ".join(a.split()) for a in doc_args))
    paging = _paging_view(code, op)
    events = None
    event_type = response.type if response.kind == "events" else response.events
    if event_type is not None:
        plain = code.resolve(event_type) == ir.Primitive("str")
        events = {
            "item": Code(code.annotation(event_type)),
            "decode_fn": ident(f"_{op.name}_event"),
            "decoder": None if plain else Code(code.decoder(event_type)),
            "main": response.kind == "events",
            "method": ident(op.stream_name) if op.stream_name else None,
        }
    if paging is not None:
        lines.append(
            "Returns every item, fetching pages as iteration needs them; ``.page()`` "
            "is the first page (``.items``, ``.has_next()``, ``.next_page()``)."
        )
    lines.append(f"``{op.method} {op.path}`` (operationId ``{op.operation_id}``).")
    return {
        "name": ident(op.name),
        "options_fn": ident(f"_{op.name}_request"),
        "decode_fn": ident(f"_{op.name}_response"),
        "signature": Code(signature),
        "options_signature": Code(options_signature),
        "call_args": Code(call_args),
        "method": py_str(op.method),
        "path": Code(_path_expression(path, by_wire)),
        "params": Code("{" + ", ".join(params) + "}") if params else None,
        "header_dict": Code("{" + "".join(h + ", " for h in headers) + "**(extra_headers or {})}"),
        "body_args": body_args,
        "security": _tuple_of([py_str(s) for s in op.security]),
        "returns": Code(returns),
        "decode": Code(decode),
        "doc": docstring(*lines, indent=8),
        "idempotency_header": idem,
        "idem_param": idem_param,
        "paging": paging,
        "events": events,
        "deprecated": op.deprecated,
        "types": [p.type for p in op.parameters]
        + ([op.body.type] if op.body is not None else [])
        + ([response.type] if response.type is not None and response.kind == "json" else [])
        + ([event_type] if event_type is not None else [])
        + ([op.pagination.item_type] if op.pagination is not None else []),
    }


def _paging_view(code: TypeCode, op: ir.Operation) -> dict[str, Code] | None:
    """The ``Paging`` of a list operation, its item type and decoder."""
    p = op.pagination
    if p is None:
        return None
    args = [f"style={py_str(p.style)}", f"items={_tuple(p.items)}"]
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
            args.append(f"{key}={_tuple(path)}")
    return {
        "const": Code(ident(f"_{op.name}_paging").upper()),
        "args": Code(", ".join(args)),
        "item": code.annotation(p.item_type),
        "decoder": code.decoder(p.item_type),
    }


def _tuple_of(items: list[Code]) -> Code:
    """A tuple display: ``()``, ``(a,)`` or ``(a, b)``."""
    if len(items) == 1:
        return Code(f"({items[0]},)")
    return Code("(" + join(", ", items) + ")")


def job_phrase(name: str) -> tuple[str, str, str]:
    """How docs name a job: ``report_run`` -> ("report run job", "a report run job",
    "report run jobs"); ``job`` -> ("job", "a job", "jobs"), never "job job"."""
    phrase = " ".join(w.lower() for w in words(name)) or "job"
    if phrase.split()[-1] != "job":
        phrase += " job"
    article = "an" if phrase[0] in "aeiou" else "a"
    return phrase, f"{article} {phrase}", phrase + "s"


def _tuple(path: tuple[str, ...] | None) -> Code:
    if path is None:
        return Code("None")
    return _tuple_of([py_str(t) for t in path])


def _frozen(values: tuple[str, ...]) -> Code:
    if not values:
        return Code("frozenset()")
    return Code("frozenset({" + join(", ", [py_str(v) for v in values]) + "})")


def _polling_args(job: ir.Job) -> dict[str, Code]:
    """The JobSpec arguments of operation URLs and status rules, where declared."""
    args: dict[str, Code] = {}
    if job.operation_url:
        args["operation_url"] = _tuple_of([py_str(h) for h in job.operation_url])
    if job.status_rules:
        rules = []
        for rule in job.status_rules:
            parts = [f"state={py_str(rule.state)}"]
            if rule.status:
                parts.append("status=frozenset({" + ", ".join(map(str, rule.status)) + "})")
            if rule.path is not None:
                parts.append(f"path={_tuple(rule.path)}")
            if rule.equals is not None:
                parts.append(f"equals={py_str(rule.equals)}")
            rules.append(Code("_ws.StatusRule(" + ", ".join(parts) + ")"))
        args["status_rules"] = _tuple_of(rules)
    if job.final_from != "result":
        args["final_from"] = py_str(job.final_from)
    return args


_JOB_ID = Code("job_id")


def _target_options(
    by_url: object,
    request: Code,
    op: ir.Operation,
    *,
    by_id: bool = False,
    call: Code = _JOB_ID,
) -> Code:
    """The request options of a status read or result fetch given ``job_id``: the
    operation's own (by id, with ``call`` as its arguments), or a GET of the absolute
    URL ``job_id`` holds (or, when ``by_id``, the operation's own for a ``job_id``
    that is no URL)."""
    if not by_url:
        return Code(f"{request}({call})")
    security = _tuple_of([py_str(s) for s in op.security])
    url = f"_opurl.url_options(self._http, job_id, {security})"
    if by_id:
        return Code(f"({url} if _opurl.is_url(job_id) else {request}({call}))")
    return Code(url)


def _takes_the_id_alone(op: ir.Operation, id_parameter: str) -> bool:
    """Whether ``op`` can be called with the job id and nothing else."""
    needs = [
        p for p in op.parameters if p.required and not p.has_default and p.wire != id_parameter
    ]
    has_id = any(p.wire == id_parameter for p in op.path_parameters)
    return has_id and not needs and (op.body is None or not op.body.required)


def _free_name(preferred: str, fallback: str, taken: frozenset[str]) -> str:
    """`preferred` unless an operation of the resource already has that name."""
    return fallback if preferred in taken else preferred


def error_classes(sdk: ir.Sdk, reserved: Iterable[str]) -> dict[str, tuple[str, str]]:
    """Each job's own ``JobFailed`` / ``JobCanceled`` subclasses, by job name:
    ``TranscriptFailed``, or ``SumeJobFailed`` where the plain name is taken."""
    taken = set(reserved) | {schema.name for schema in sdk.schemas.values()}
    prefix = pascal(sdk.package.removesuffix("_sdk"), "Api")
    classes = {}
    for job in sdk.jobs:
        base = pascal(job.name, "Job")
        pair = (f"{base}Failed", f"{base}Canceled")
        if taken & set(pair):
            pair = (f"{prefix}{base}Failed", f"{prefix}{base}Canceled")
        taken.update(pair)
        classes[job.name] = pair
    return classes


def error_type(job: ir.Job) -> ir.TypeRef | None:
    """The job's error model: the type at its error field, null aside."""
    found = job.error_type
    return found.inner if isinstance(found, ir.Nullable) else found


_EVENTS_PARAM = "events: _wh.WebhookReceiver[_t.Any] | None = None, "


def _webhooks_view(code: TypeCode, job: ir.Job, name: str, single: bool) -> dict[str, Any] | None:
    """What the resource module declares for a job's webhook deliveries, if it has any."""
    hooks = job.webhooks
    if hooks is None:
        return None
    args: dict[str, Code] = {
        "scheme": py_str(hooks.scheme),
        "id_header": py_str(hooks.id_header),
        "timestamp_header": py_str(hooks.timestamp_header),
        "signature_header": py_str(hooks.signature_header),
        "tolerance": py_literal(float(hooks.tolerance)),
        "secret_env": py_str(hooks.secret_env),
        "record_path": _tuple(hooks.record_path),
        "job_id_path": _tuple(hooks.id_path),
        "fallback_floor": py_literal(float(hooks.fallback_floor)),
        "fallback_first": py_literal(float(hooks.fallback_first)),
        "fallback_cap": py_literal(float(hooks.fallback_cap)),
    }
    event = hooks.event_type
    return {
        "args": {ident(k): v for k, v in args.items()},
        "event_annotation": Code("object") if event is None else code.annotation(event),
        "event_decoder": None if event is None else code.decoder(event),
        "receiver": ident("webhook_receiver" if single else f"{name}_webhook_receiver"),
        "events_attr": ident(f"_{name}_events"),
        "secret_env": doc_text(hooks.secret_env),
    }


def job_view(
    code: TypeCode,
    job: ir.Job,
    single: bool,
    owner: dict[str, str],
    taken: frozenset[str] = frozenset(),
    classes: tuple[str, str] | None = None,
) -> dict[str, Any]:
    name = snake(job.name, "job")
    failed, canceled = classes or ("JobFailed", "JobCanceled")
    error = error_type(job)
    status_id_param = next(
        p for p in job.status.parameters if p.location == "path" and p.wire == job.id_parameter
    )
    spec_args: dict[str, Code] = {
        "name": py_str(job.name),
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
        "hint_scale": Code("0.001" if job.hint_unit == "milliseconds" else "1.0"),
        "header_hints": _tuple_of(
            [
                Code(f"_ws.HeaderHint({py_str(h.name)}, {py_str(h.format)})")
                for h in job.header_hints
            ]
        ),
        "floor": py_literal(float(job.floor)),
        "first": py_literal(float(job.first)),
        "cap": py_literal(float(job.cap)),
        "id_path": _tuple(job.id_path),
        "id_header": py_literal(job.id_header),
        "idempotency_header": py_literal(job.idempotency_header),
        "progress_path": _tuple(job.progress_path),
        "progress_done_path": _tuple(job.progress_done_path),
        "progress_total_path": _tuple(job.progress_total_path),
        "stall_after": py_literal(None if job.stall_after is None else float(job.stall_after)),
        **carry_spec_args(job),
        "failed_error": ident(failed),
        "canceled_error": ident(canceled),
        **_polling_args(job),
    }
    if error is not None:
        spec_args["decode_error"] = code.decoder(error)
    record_path = "$" + "".join(f".{t}" for t in job.record_path)
    view: dict[str, Any] = {
        "name": ident(name),
        "doc_name": doc_text(job.name),
        "doc_phrase": doc_text(job_phrase(job.name)[0]),
        "doc_a_phrase": doc_text(job_phrase(job.name)[1]),
        "doc_plural": doc_text(job_phrase(job.name)[2]),
        "spec_const": ident(f"_{name.upper()}_SPEC"),
        "waiter_attr": ident(f"_{name}_waiter"),
        "spec_args": {ident(k): v for k, v in spec_args.items()},
        "record_annotation": code.annotation(job.record_type),
        "record_decoder": code.decoder(job.record_type),
        "record_path": py_str(record_path),
        "status_request": ident(f"_{job.status.name}_request"),
        "status_options": _target_options(
            job.operation_url,
            ident(f"_{job.status.name}_request"),
            job.status,
            by_id=_takes_the_id_alone(job.status, job.id_parameter),
            call=carry_call(code, job, job.status),
        ),
        "carry": carry_view(job),
        "status_id_kw": ident(status_id_param.name),
        "wait_for_job": ident("wait_for_job" if single else f"wait_for_{name}"),
        "wait_for_result": ident("wait_for_result" if single else f"wait_for_{name}_result"),
        "create_and_wait": ident("create_and_wait" if single else f"create_{name}_and_wait"),
        "wait_for_jobs": ident("wait_for_jobs" if single else f"wait_for_{name}s"),
        "handle": ident(
            _free_name("handle" if single else f"{name}_handle", f"{name}_job_handle", taken)
        ),
        "start": ident(
            _free_name("start" if single else f"start_{name}", f"start_{name}_job", taken)
        ),
        "types": [job.record_type]
        + ([error] if error is not None else [])
        + ([job.status.body.type] if job.status.body is not None and job.carry else []),
        "error_classes": (ident(failed), ident(canceled)),
        "imports": [],
    }
    view["by_url"] = bool(job.operation_url)
    view["status_import"] = owner.get(job.status.operation_id)
    view["webhooks"] = _webhooks_view(code, job, name, single)
    view["wait_target"] = ident(f"_{name}_events" if job.webhooks else f"_{name}_waiter")
    view["events_param"] = Code(_EVENTS_PARAM if job.webhooks else "")
    view["events_arg"] = Code(", events=events" if job.webhooks else "")
    if job.webhooks is not None and job.webhooks.event_type is not None:
        view["types"].append(job.webhooks.event_type)
    if job.result is not None:
        result_view = operation_view(code, job.result)
        view["result"] = {
            "request": ident(f"_{job.result.name}_request"),
            "response": ident(f"_{job.result.name}_response"),
            "returns": result_view["returns"],
            "module": owner.get(job.result.operation_id),
            "options": _target_options(
                job.final_from == "location",
                ident(f"_{job.result.name}_request"),
                job.result,
                call=carry_call(code, job, job.result),
            ),
            "once": job.result_once,
            "to_file": result_view["returns"] in ("bytes", "str"),
        }
        view["types"] += result_view["types"]
    else:
        view["result"] = None
    view["cancel"] = None
    if job.cancel is not None:
        cancel_view = operation_view(code, job.cancel)
        method: str | None = "cancel" if single else f"cancel_{name}"
        if method == job.cancel.name:
            method = None  # the cancel operation's own method already takes the job id
        elif method in taken:
            method = f"cancel_{name}_job"
        view["cancel"] = {
            "request": ident(f"_{job.cancel.name}_request"),
            "response": ident(f"_{job.cancel.name}_response"),
            "returns": cancel_view["returns"],
            "module": owner.get(job.cancel.operation_id),
            "method": None if method is None else ident(method),
            "attr": ident(f"_cancel_{name}"),
            "call": carry_call(code, job, job.cancel),
        }
        view["types"] += cancel_view["types"]
    if job.create is not None:
        create_view = operation_view(code, job.create, job.idempotency_header)
        idem_param = create_view["idem_param"] if job.idempotency_header is not None else None
        # The waiter owns the idempotency key: the caller does not pass one.
        signature = create_view["signature"]
        call_args = create_view["call_args"]
        if idem_param is not None:
            signature = re.sub(rf", {idem_param}: [^,]*= _s\.UNSET", "", signature)
            call_args = call_args.replace(
                f"{idem_param}={idem_param}", f"{idem_param}=_s.UNSET if key is None else key"
            )
        extra = "max_retries, extra_headers,"
        if idem_param is None and job.idempotency_header is not None:
            call_args = call_args.replace(
                extra,
                "max_retries, "
                f"_with_key(extra_headers, {py_literal(job.idempotency_header)}, key),",
            )
        view["create"] = {
            "signature": Code(
                signature.replace(
                    _OPTION_PARAMS[0] + ", ",
                    _OPTION_PARAMS[0] + ", deadline: float = 600.0, on_poll: "
                    f"_abc.Callable[[_ws.PollEvent[{view['record_annotation']}]], None] | None = None, "
                    f"stall_after: float | None = None, {view['events_param']}",
                )
            ),
            "start_signature": Code(
                signature.replace(
                    _OPTION_PARAMS[0] + ", ",
                    _OPTION_PARAMS[0] + ", deadline: float | None = None, on_poll: "
                    f"_abc.Callable[[_ws.PollEvent[{view['record_annotation']}]], None] | None = None, "
                    "stall_after: float | None = None, ",
                )
            ),
            "call_args": Code(call_args),
            "request": ident(f"_{job.create.name}_request"),
            "module": owner.get(job.create.operation_id),
            "idempotency_header": py_literal(job.idempotency_header),
            "sends_key": job.idempotency_header is not None,
        }
        view["types"] += create_view["types"]
    else:
        view["create"] = None
    # With final_from: record, the terminal record is the result.
    view["record_result"] = job.final_from == "record"
    record_result = view["record_annotation"] if view["record_result"] else Code("None")
    view["result_returns"] = view["result"]["returns"] if view["result"] else record_result
    returns = view["result"]["returns"] if view["result"] else view["record_annotation"]
    view["create_returns"] = returns
    view["create_returns_str"] = py_str(returns)
    return view


_LAZY_RUNTIME = (("events", "_events"), ("handle", "_handle"), ("webhooks", "_wh"))
_RESOURCE_STATIC = "_http httpx _resp functools"
_OPERATION_STATIC = "_http httpx"
_JOB_STATIC = "_abc _ws _waiter _handle _statusread _jobhttp"


def _resource_code(ops: list[dict[str, Any]], jobs: list[dict[str, Any]]) -> str:
    """The code (no docstrings) a resource module holds besides its template's fixed text."""
    parts = [_RESOURCE_STATIC]
    for op in ops:
        parts += [_OPERATION_STATIC, op["signature"], op["call_args"], op["path"], op["returns"]]
        if op["paging"] is not None:
            parts += ["_pages", op["paging"]["item"], op["paging"]["decoder"]]
        if op["events"] is not None:
            parts += ["_events", op["events"]["item"], op["events"]["decoder"] or ""]
        parts += [op["decode"], op["header_dict"], op["params"] or "", *op["body_args"]]
    for job in jobs:
        parts += [_JOB_STATIC, *job["spec_args"].values(), job["record_annotation"]]
        parts += [job["record_decoder"], job["result_returns"], job["create_returns"]]
        parts.append(job["status_options"])
        if job["carry"]["names"]:
            parts.append("_carry")
        if job["webhooks"]:
            hooks = job["webhooks"]
            parts += ["_wh _hybrid _t", *hooks["args"].values(), hooks["event_annotation"]]
            parts.append(hooks["event_decoder"] or "")
        if job["result"]:
            # every result fetch takes to_file (a _dl.PathLike)
            parts += [job["result"]["options"], job["result"]["response"], "_dl"]
        if job["cancel"]:
            parts += [job["cancel"]["request"], job["cancel"]["response"], job["cancel"]["returns"]]
            parts.append(job["cancel"]["call"])
        if job["create"]:
            parts += [job["create"]["signature"], job["create"]["call_args"]]
            if not job["record_result"]:
                parts.append("_t.cast")
            parts.append(job["create"]["start_signature"])
            parts.append(job["create"]["request"])
    return " ".join(parts)


def resource_view(
    code: TypeCode,
    resource: ir.Resource,
    owner: dict[str, str],
    classes: dict[str, tuple[str, str]] | None = None,
) -> dict[str, Any]:
    if any(op.name == "list" for op in resource.operations):
        code = attrs.evolve(code, shadowed=frozenset({"list"}))
    keys = {
        j.create.operation_id: j.idempotency_header for j in resource.jobs if j.create is not None
    }
    ops = [operation_view(code, op, keys.get(op.operation_id)) for op in resource.operations]
    taken = frozenset(op.name for op in resource.operations)
    jobs = [
        job_view(code, job, len(resource.jobs) == 1, owner, taken, (classes or {}).get(job.name))
        for job in resource.jobs
    ]
    types = [t for op in ops for t in op["types"]] + [t for job in jobs for t in job["types"]]
    refs = _ref_items(code, types)
    cross: dict[str, set[str]] = {}
    for job in jobs:
        status_import = job["status_import"]
        by_id = job["status_request"] in job["status_options"]
        if status_import and status_import != resource.module and by_id:
            cross.setdefault(status_import, set()).add(job["status_request"])
        if job["result"] and job["result"]["module"] != resource.module:
            cross.setdefault(job["result"]["module"], set()).add(job["result"]["response"])
            if job["result"]["request"] in job["result"]["options"]:
                cross[job["result"]["module"]].add(job["result"]["request"])
        if job["cancel"] and job["cancel"]["module"] != resource.module:
            cross.setdefault(job["cancel"]["module"], set()).update(
                {job["cancel"]["request"], job["cancel"]["response"]}
            )
        if job["create"] and job["create"]["module"] != resource.module:
            cross.setdefault(job["create"]["module"], set()).add(job["create"]["request"])
    imports = _module_imports(code, types)
    if code.shadowed:
        imports.add("builtins")
    imports.add("collections.abc")
    imports.add("functools")
    imports.add("typing")
    imports.add("httpx")
    for name, alias in [
        ("serde", "_s"),
        ("http", "_http"),
        ("response", "_resp"),
        ("pagination", "_pages"),
        ("wire", "_wire"),
        ("waiter", "_waiter"),
        ("waitspec", "_ws"),
        ("carry", "_carry"),
        ("download", "_dl"),
        ("styles", "_styles"),
        ("hybrid", "_hybrid"),
        ("opurl", "_opurl"),
        ("statusread", "_statusread"),
        ("jobhttp", "_jobhttp"),
    ]:
        imports.add(".._runtime", name, alias)
    # Handles, event streams and webhook receivers load when a method asks for one
    # (each imports its module in its body); a plain call or wait needs none of them.
    lazy = Imports()
    for name, alias in _LAZY_RUNTIME:
        lazy.add(".._runtime", name, alias)
    imports.add(".._runtime.http", "path_param", "_path")
    imports.add(".._runtime.http", "multipart", "_multipart")
    imports.add(".._runtime.http", "with_header", "_with_key")
    for job in jobs:
        for name in job["error_classes"]:
            imports.add("..errors", name)
    for ref in refs:
        for name in ref["runtime"].split(", "):
            imports.add("..models." + ref["module"], name)
    for c in cross.items():
        for name in c[1]:
            imports.add("." + c[0], name)
    used = names_in(_resource_code(ops, jobs))
    type_imports = [Code("    " + line) for line in lazy.used(used).lines(4)]
    if type_imports:
        imports.add("typing")
        used.add("_t")
    return {
        "name": ident(resource.name),
        "doc_name": doc_text(resource.name),
        "module": ident(resource.module),
        "attr": ident(resource.attr),
        "operations": ops,
        "jobs": jobs,
        "refs": refs,
        # A resource with jobs takes the HTTP layer that carries the client's waits.
        "http_types": (
            (Code("_jobhttp.SyncJobHTTP"), Code("_jobhttp.AsyncJobHTTP"))
            if jobs
            else (Code("_http.SyncHTTP"), Code("_http.AsyncHTTP"))
        ),
        "imports": imports.used(used).lines(),
        "type_imports": type_imports,
        "all_names": join(
            ", ",
            [
                py_str(n)
                for n in sorted(
                    [
                        prefix + resource.name + suffix
                        for prefix in ["", "Async"]
                        for suffix in ["", "WithRawResponse", "WithStreamingResponse"]
                    ],
                    key=all_key,
                )
            ],
        ),
        "has_multipart": any("_multipart" in arg for op in ops for arg in op["body_args"]),
        "has_with_key": any(
            job["create"] and "_with_key(" in job["create"]["call_args"] for job in jobs
        ),
    }


_PROVIDED_SYNC = "str | _abc.Callable[[], str] | None"
_PROVIDED_ASYNC = "str | _abc.Callable[[], str | _abc.Awaitable[str]] | None"


def env_prefix(sdk: ir.Sdk) -> str:
    """The prefix of the environment variables a client reads its credentials from."""
    stem = sdk.package.upper()
    return stem[: -len("_SDK")] if stem.endswith("_SDK") and len(stem) > 4 else stem


def client_view(sdk: ir.Sdk) -> dict[str, Any]:
    auths = []
    for auth in sdk.auths:
        if isinstance(auth, ir.ApiKeyAuth):
            auths.append(
                {
                    "params": [ident(auth.param)],
                    "doc": doc_text(
                        f"{auth.param}: API key sent as the {auth.where} {auth.wire!r}."
                    ),
                    "make": Code(
                        f"_http.ApiKey({py_str(auth.scheme)}, {py_str(auth.wire)}, "
                        f"{py_str(auth.where)}, {ident(auth.param)})"
                    ),
                    "check": ident(auth.param),
                    "types": (Code(_PROVIDED_SYNC), Code(_PROVIDED_ASYNC)),
                }
            )
        elif isinstance(auth, ir.BearerAuth):
            auths.append(
                {
                    "params": [ident(auth.param)],
                    "doc": doc_text(
                        f"{auth.param}: bearer token sent in the Authorization header."
                    ),
                    "make": Code(f"_http.Bearer({py_str(auth.scheme)}, {ident(auth.param)})"),
                    "check": ident(auth.param),
                    "types": (Code(_PROVIDED_SYNC), Code(_PROVIDED_ASYNC)),
                }
            )
        else:
            auths.append(
                {
                    "params": [ident(auth.username_param), ident(auth.password_param)],
                    "doc": doc_text(
                        f"{auth.username_param}, {auth.password_param}: HTTP basic credentials."
                    ),
                    "make": Code(
                        f"_http.Basic({py_str(auth.scheme)}, {ident(auth.username_param)}, "
                        f"{ident(auth.password_param)})"
                    ),
                    "check": Code(
                        f"{ident(auth.username_param)} is not None and {ident(auth.password_param)}"
                    ),
                    "types": (Code("str | None"), Code("str | None")),
                }
            )
    prefix = env_prefix(sdk)
    envs = [
        {"param": p, "name": py_str(f"{prefix}_{p.upper()}"), "doc": Code(f"{prefix}_{p.upper()}")}
        for auth in auths
        for p in auth["params"]
    ]
    ops = [op for r in sdk.resources for op in r.operations]
    required = bool(auths) and bool(ops) and all(op.security for op in ops)
    choices = "; or ".join(
        "=, ".join(str(p) for p in auth["params"])
        + "= or set "
        + ", ".join(f"{prefix}_{str(p).upper()}" for p in auth["params"])
        for auth in auths
    )
    return {
        "operation_urls": any(j.operation_url or j.final_from == "location" for j in sdk.jobs),
        "auths": auths,
        "envs": envs,
        "required": required,
        "missing": py_str(f"no credentials: pass {choices}"),
        "base_url": py_str(sdk.base_url) if sdk.base_url and "://" in sdk.base_url else None,
        "token_url": next(
            (
                py_str(a.token_url)
                for a in sdk.auths
                if isinstance(a, ir.BearerAuth) and a.token_url
            ),
            None,
        ),
        "resources": [
            {
                "name": ident(r.name),
                "doc_name": doc_text(r.name),
                "attr": ident(r.attr),
                "module": ident(r.module),
                "import": Code(from_line(".resources." + r.module, [r.name], 8)),
                "async_import": Code(from_line(".resources." + r.module, ["Async" + r.name], 8)),
            }
            for r in sdk.resources
        ],
    }
