"""Convert JSON Schema (OpenAPI 3.0 and 3.1 dialects) into the intermediate types.

Named schemas (``components/schemas`` entries, whole files, and anything reached by
``$ref``) become :class:`~.ir.Model`, :class:`~.ir.EnumSchema`,
:class:`~.ir.UnionSchema` or :class:`~.ir.AliasSchema`; inline objects, enums and
unions are hoisted to named schemas called after where they appear.
"""

from __future__ import annotations

from typing import Any, Literal

from ..problems import Location, Problem, SpecError
from ..spec.loader import SpecSet
from . import ir
from .names import NameSet, constant, pascal, snake

__all__ = ["SchemaBuilder"]

_FORMATS: dict[str, ir.PrimitiveKind] = {
    "date-time": "datetime",
    "date": "date",
    "uuid": "uuid",
    "binary": "bytes",
}
_SCALARS: dict[str, ir.PrimitiveKind] = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
}
# Names a model's class body uses: a field must not shadow them.
_MODEL_RESERVED = frozenset(
    {
        "to_dict",
        "from_dict",
        "additional_properties",
        "object",
        "str",
        "int",
        "float",
        "bool",
        "bytes",
        "dict",
        "list",
        "datetime",
        "uuid",
        "attrs",
        "cls",
        "self",
        "path",
        "data",
    }
)


def _types(node: dict[str, Any]) -> tuple[list[str], bool]:
    """The JSON types a schema allows, and whether null is one of them."""
    raw = node.get("type")
    types = [raw] if isinstance(raw, str) else list(raw) if isinstance(raw, list) else []
    nullable = node.get("nullable") is True or "null" in types
    if isinstance(node.get("enum"), list) and None in node["enum"]:
        nullable = True
    for keyword in ("oneOf", "anyOf"):
        branches = node.get(keyword)
        if isinstance(branches, list) and any(_is_null_schema(b) for b in branches):
            nullable = True
    return [t for t in types if t != "null" and isinstance(t, str)], nullable


def _is_null_schema(node: Any) -> bool:
    return isinstance(node, dict) and (
        node.get("type") == "null" or node.get("type") == ["null"] or node.get("enum") == [None]
    )


class SchemaBuilder:
    """Builds named schemas on demand; keeps them in the order they were first met."""

    def __init__(self, spec: SpecSet, problems: list[Problem]) -> None:
        self.spec = spec
        self.problems = problems
        self.schemas: dict[str, ir.NamedSchema] = {}
        self._names = NameSet({"Client", "AsyncClient", "Unset", "UNSET"})
        self._modules = NameSet({"__init__"})
        self._building: dict[str, tuple[str, str]] = {}

    # -- naming -------------------------------------------------------------

    def _claim(self, hint: str) -> tuple[str, str]:
        name = self._names.claim(pascal(hint))
        return name, self._modules.claim(snake(name))

    @staticmethod
    def _hint_for(location: Location) -> str:
        tokens = location.pointer.rsplit("/", 1)
        last = tokens[-1].replace("~1", "/").replace("~0", "~") if location.pointer else ""
        if not last:
            stem = location.file.rsplit("/", 1)[-1].split(".", 1)[0]
            return stem or "Model"
        return last

    # -- entry points -------------------------------------------------------

    def named(self, node: Any, location: Location, hint: str | None = None) -> ir.Ref:
        """The schema at ``location`` as a named schema, building it once."""
        key = str(location)
        if key in self.schemas or key in self._building:
            return ir.Ref(key)
        name, module = self._claim(hint or self._hint_for(location))
        self._building[key] = (name, module)
        try:
            self.schemas[key] = self._build_named(node, location, key, name, module)
        finally:
            del self._building[key]
        return ir.Ref(key)

    def type_of(self, node: Any, location: Location, hint: str) -> ir.TypeRef:
        """The type of a schema found inline at ``location``."""
        if not isinstance(node, dict):
            if node is True or node is None:
                return ir.AnyType()
            self.problems.append(Problem(location, "a schema must be an object"))
            return ir.AnyType()
        if "$ref" in node:
            try:
                target, target_at = self.spec.deref(node, location)
            except SpecError as exc:
                self.problems.extend(exc.problems)
                return ir.AnyType()
            if not isinstance(target, dict):
                self.problems.append(Problem(target_at, "a schema must be an object"))
                return ir.AnyType()
            ref = self.named(target, target_at)
            if node.get("nullable") is True or _types(target)[1]:
                return ir.Nullable(ref)
            return ref
        if _is_null_schema(node):
            return ir.Nullable(ir.AnyType())
        types, nullable = _types(node)
        inner = self._inner_type(node, location, hint, types)
        if nullable and not isinstance(inner, (ir.Nullable, ir.AnyType)):
            return ir.Nullable(inner)
        return inner

    # -- internals ----------------------------------------------------------

    def _variants(self, node: dict[str, Any]) -> tuple[str, list[Any]] | None:
        for keyword in ("oneOf", "anyOf"):
            branches = node.get(keyword)
            if isinstance(branches, list) and branches:
                return keyword, branches
        return None

    def _inner_type(
        self, node: dict[str, Any], location: Location, hint: str, types: list[str]
    ) -> ir.TypeRef:
        union = self._variants(node)
        if union is not None:
            keyword, branches = union
            real = [(i, b) for i, b in enumerate(branches) if not _is_null_schema(b)]
            nullable = len(real) < len(branches)
            if len(real) == 1 and not node.get("properties"):
                index, branch = real[0]
                inner = self.type_of(branch, location.child(keyword, index), hint)
            else:
                inner = self.named(node, location, hint)
            return ir.Nullable(inner) if nullable and not isinstance(inner, ir.Nullable) else inner
        all_of = node.get("allOf")
        if isinstance(all_of, list) and all_of:
            if len(all_of) == 1 and not node.get("properties"):
                return self.type_of(all_of[0], location.child("allOf", 0), hint)
            return self.named(node, location, hint)
        if "const" in node:
            return ir.ConstType(node["const"]) if _json_scalar(node["const"]) else ir.AnyType()
        enum = node.get("enum")
        if isinstance(enum, list) and enum:
            values = [v for v in enum if v is not None]
            if values and (all(isinstance(v, str) for v in values) or _all_ints(values)):
                return self.named(node, location, hint)
        if len(types) > 1:
            return ir.InlineUnion(tuple(self._inner_type(node, location, hint, [t]) for t in types))
        kind = types[0] if types else None
        if kind == "array" or (kind is None and "items" in node):
            items = node.get("items")
            if isinstance(items, list):  # draft-4 tuple form
                return ir.ListType(ir.AnyType())
            return ir.ListType(self.type_of(items, location.child("items"), hint + "Item"))
        if kind == "object" or (
            kind is None and ("properties" in node or "additionalProperties" in node)
        ):
            if node.get("properties"):
                return self.named(node, location, hint)
            extra = node.get("additionalProperties")
            if isinstance(extra, dict) and extra:
                return ir.MapType(
                    self.type_of(extra, location.child("additionalProperties"), hint + "Value")
                )
            return ir.MapType(ir.AnyType())
        if kind in _SCALARS:
            if kind == "string":
                fmt = node.get("format")
                return ir.Primitive(_FORMATS.get(fmt, "str") if isinstance(fmt, str) else "str")
            return ir.Primitive(_SCALARS[kind])
        if kind is not None and kind not in ("object", "array"):
            self.problems.append(Problem(location.child("type"), f"unknown type '{kind}'"))
        return ir.AnyType()

    def _build_named(
        self, node: Any, location: Location, key: str, name: str, module: str
    ) -> ir.NamedSchema:
        description = _text(node.get("description")) if isinstance(node, dict) else ""
        if not isinstance(node, dict):
            return ir.AliasSchema(key, name, module, ir.AnyType(), "", location)
        if "$ref" in node:
            return ir.AliasSchema(
                key, name, module, self.type_of(node, location, name), description, location
            )
        union = self._variants(node)
        if union is not None and not node.get("properties"):
            return self._build_union(node, location, key, name, module, union, description)
        enum = node.get("enum")
        if isinstance(enum, list) and enum and "properties" not in node:
            values = [v for v in enum if v is not None]
            if values and all(isinstance(v, str) for v in values):
                return self._build_enum(key, name, module, "str", values, description, location)
            if values and _all_ints(values):
                return self._build_enum(key, name, module, "int", values, description, location)
        types, nullable = _types(node)
        is_object = (
            "properties" in node
            or "allOf" in node
            or (
                types == ["object"]
                and not ("additionalProperties" in node and not node.get("properties"))
            )
        )
        if is_object:
            return self._build_model(node, location, key, name, module, description)
        inner = self._inner_type(node, location, name, types)
        if nullable and not isinstance(inner, (ir.Nullable, ir.AnyType)):
            inner = ir.Nullable(inner)
        return ir.AliasSchema(key, name, module, inner, description, location)

    def _build_enum(
        self,
        key: str,
        name: str,
        module: str,
        base: Literal["str", "int"],
        values: list[Any],
        description: str,
        location: Location,
    ) -> ir.EnumSchema:
        members = NameSet({"name", "value", "is_known", "mro"})
        seen: set[object] = set()
        out = []
        for value in values:
            if value in seen:
                continue
            seen.add(value)
            text = str(value) if base == "str" else f"VALUE_{value}".replace("-", "MINUS_")
            out.append(ir.EnumMember(members.claim(constant(text, "EMPTY")), value))
        return ir.EnumSchema(key, name, module, base, tuple(out), description, location)

    def _build_union(
        self,
        node: dict[str, Any],
        location: Location,
        key: str,
        name: str,
        module: str,
        union: tuple[str, list[Any]],
        description: str,
    ) -> ir.NamedSchema:
        keyword, branches = union
        variants: list[ir.TypeRef] = []
        for index, branch in enumerate(branches):
            if _is_null_schema(branch):
                continue
            variant = self.type_of(
                branch, location.child(keyword, index), f"{name}{keyword[:-2].title()}{index}"
            )
            if variant not in variants:
                variants.append(variant)
        discriminator = node.get("discriminator")
        prop: str | None = None
        mapping: list[tuple[str, str]] = []
        if isinstance(discriminator, dict) and isinstance(discriminator.get("propertyName"), str):
            prop = discriminator["propertyName"]
            raw_mapping = discriminator.get("mapping")
            if isinstance(raw_mapping, dict):
                for value, target in raw_mapping.items():
                    at = location.child("discriminator", "mapping", value)
                    try:
                        ref = self.type_of({"$ref": target}, at, name)
                    except Exception as exc:  # noqa: BLE001 - reported as a problem
                        self.problems.append(Problem(at, str(exc)))
                        continue
                    if isinstance(ref, ir.Ref):
                        mapping.append((str(value), ref.key))
        if len(variants) == 1:
            return ir.AliasSchema(key, name, module, variants[0], description, location)
        return ir.UnionSchema(
            key, name, module, tuple(variants), prop, tuple(mapping), description, location
        )

    def _collect_properties(
        self,
        node: dict[str, Any],
        location: Location,
        props: dict[str, tuple[Any, Location]],
        required: set[str],
        extra: list[tuple[Any, Location]],
        depth: int = 0,
    ) -> None:
        if depth > 64:
            self.problems.append(Problem(location, "allOf nests too deep"))
            return
        for index, part in enumerate(node.get("allOf") or []):
            try:
                part_node, part_at = self.spec.deref(part, location.child("allOf", index))
            except SpecError as exc:
                self.problems.extend(exc.problems)
                continue
            if isinstance(part_node, dict):
                self._collect_properties(part_node, part_at, props, required, extra, depth + 1)
        properties = node.get("properties")
        if isinstance(properties, dict):
            for wire, schema in properties.items():
                props[str(wire)] = (schema, location.child("properties", str(wire)))
        elif properties is not None:
            self.problems.append(
                Problem(location.child("properties"), "properties must be a mapping")
            )
        req = node.get("required")
        if isinstance(req, list):
            required.update(str(r) for r in req)
        if "additionalProperties" in node:
            extra.append((node["additionalProperties"], location.child("additionalProperties")))

    def _build_model(
        self,
        node: dict[str, Any],
        location: Location,
        key: str,
        name: str,
        module: str,
        description: str,
    ) -> ir.Model:
        props: dict[str, tuple[Any, Location]] = {}
        required: set[str] = set()
        extra: list[tuple[Any, Location]] = []
        self._collect_properties(node, location, props, required, extra)
        names = NameSet(_MODEL_RESERVED)
        fields = []
        for wire, (schema, at) in props.items():
            field_type = self.type_of(schema, at, f"{name}{pascal(wire, 'Field')}")
            field_description = ""
            default_repr = None
            if isinstance(schema, dict):
                field_description = _text(schema.get("description"))
            fields.append(
                ir.Field(
                    name=names.claim(snake(wire, "field")),
                    wire=wire,
                    type=field_type,
                    required=wire in required,
                    description=field_description,
                    default_repr=default_repr,
                )
            )
        additional: ir.TypeRef | None = ir.AnyType()
        if extra:
            value, at = extra[-1]
            if value is False:
                additional = None
            elif isinstance(value, dict) and value:
                additional = self.type_of(value, at, f"{name}Value")
        # Required fields first keeps the generated signature readable; order is stable.
        fields.sort(key=lambda f: not f.required)
        return ir.Model(key, name, module, tuple(fields), additional, description, location)


def _json_scalar(value: object) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _all_ints(values: list[Any]) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""
