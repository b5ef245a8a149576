"""Model views: a model class, an enum, an alias and a union, and the imports their
modules take."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

import attrs

from ...model import ir
from ..code import ANY, LINE_LENGTH, Imports, TypeCode, all_key, names_in
from ..escape import Code, doc_text, docstring, ident, join, py_literal, py_str

__all__ = ["alias_view", "enum_view", "model_view", "module_imports", "ref_items", "union_view"]


def ref_items(code: TypeCode, types: list[ir.TypeRef], exclude: str = "") -> list[dict[str, Code]]:
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


def module_imports(code: TypeCode, types: list[ir.TypeRef]) -> Imports:
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
    refs = ref_items(code, types, exclude=model.module)
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
    imports = module_imports(code, types)
    if lazy or converters:
        imports.add("typing")
    imports.add("attrs")
    imports.add(".._runtime.wire", "serde", "_s")
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
    refs = ref_items(code, [alias.target], exclude=alias.module)
    imports = module_imports(code, [alias.target])
    imports.add("typing")
    if "_s" in names_in(decoder):
        imports.add(".._runtime.wire", "serde", "_s")
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
    refs = ref_items(code, list(union.variants), exclude=union.module)
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
        refs = ref_items(
            code, list(union.variants) + [ir.Ref(k) for _, k in mapping], exclude=union.module
        )
    annotations = _unique_strings(code.annotation(v) for v in union.variants)
    decoders = [code.decoder(v) for v in union.variants]
    imports = module_imports(code, list(union.variants))
    imports.add("typing")
    imports.add(".._runtime.wire", "serde", "_s")
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
