"""Convert JSON Schema (OpenAPI 3.0 and 3.1 dialects) into the intermediate types.

Named schemas (``components/schemas`` entries, whole files, and anything reached by
``$ref``) become :class:`~.ir.Model`, :class:`~.ir.EnumSchema`,
:class:`~.ir.UnionSchema` or :class:`~.ir.AliasSchema`; inline objects, enums and
unions are hoisted to named schemas called after where they appear.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from ..problems import Location, Problem, SpecError, did_you_mean
from ..spec.loader import SpecSet
from . import ir
from .names import NameSet, constant, file_stem, pascal, snake

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
_TYPE_NAMES = (*_SCALARS, "object", "array", "null")
# Names a model's class body uses: a field must not shadow them.
_MODEL_RESERVED = frozenset(
    {
        "to_dict",
        "from_dict",
        "additional_properties",
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

    def __init__(
        self, spec: SpecSet, problems: list[Problem], warnings: list[Problem] | None = None
    ) -> None:
        self.spec = spec
        self.problems = problems
        self.warnings: list[Problem] = [] if warnings is None else warnings
        self.schemas: dict[str, ir.NamedSchema] = {}
        self.located: dict[str, ir.TypeRef] = {}
        """The type built for each schema location (examples are checked against these)."""
        self._names = NameSet({"Client", "AsyncClient", "Unset", "UNSET"})
        self._modules = NameSet({"__init__"})
        self._building: dict[str, tuple[str, str]] = {}
        self._reserved: dict[str, tuple[str, str]] = {}
        # Named schemas being built, outermost first, and whether each is a
        # ``$recursiveAnchor``: what ``$recursiveRef: "#"`` resolves against.
        self._scopes: list[tuple[Location, bool]] = []

    # -- naming -------------------------------------------------------------

    def _claim(self, hint: str) -> tuple[str, str]:
        name = self._names.claim(pascal(hint))
        return name, self._modules.claim(file_stem(snake(name)))

    @staticmethod
    def _hint_for(location: Location) -> str:
        tokens = location.pointer.rsplit("/", 1)
        last = tokens[-1].replace("~1", "/").replace("~0", "~") if location.pointer else ""
        if not last:
            stem = location.file.rsplit("/", 1)[-1].split(".", 1)[0]
            return stem or "Model"
        return last

    def reserve(self, location: Location, hint: str) -> None:
        """Claim the name of a schema the spec names (a ``components/schemas`` key) first.

        Names of inline schemas hoisted while building others are derived from their
        parents, so without this a hoisted ``Transcript.language_code`` would take
        ``TranscriptLanguageCode`` from the component of that name.
        """
        key = str(location)
        if key not in self.schemas and key not in self._reserved:
            self._reserved[key] = self._claim(hint)

    def warn(self, location: Location, message: str) -> None:
        problem = Problem(location, message)
        if problem not in self.warnings:
            self.warnings.append(problem)

    # -- entry points -------------------------------------------------------

    def named(self, node: Any, location: Location, hint: str | None = None) -> ir.Ref:
        """The schema at ``location`` as a named schema, building it once."""
        key = str(location)
        if key in self.schemas or key in self._building:
            return ir.Ref(key)
        reserved = self._reserved.pop(key, None)
        name, module = reserved or self._claim(hint or self._hint_for(location))
        self._building[key] = (name, module)
        anchor = isinstance(node, dict) and node.get("$recursiveAnchor") is True
        self._scopes.append((location, anchor))
        try:
            self.schemas[key] = self._build_named(node, location, key, name, module)
        finally:
            del self._building[key]
            self._scopes.pop()
        self.located.setdefault(key, ir.Ref(key))
        return ir.Ref(key)

    def type_of(self, node: Any, location: Location, hint: str) -> ir.TypeRef:
        """The type of a schema found inline at ``location``."""
        found = self._type_of(node, location, hint)
        self.located.setdefault(str(location), found)
        return found

    def _recursive_ref(self, node: dict[str, Any], location: Location) -> ir.TypeRef:
        """``$recursiveRef: "#"`` (JSON Schema 2019-09): the outermost enclosing schema
        marked ``$recursiveAnchor``, else the enclosing schema resource (the component)."""
        keyword = "$recursiveRef" if "$recursiveRef" in node else "$dynamicRef"
        if node.get(keyword) == "#":
            anchored = [at for at, anchor in self._scopes if anchor]
            roots = [at for at, _ in self._scopes if _is_resource_root(at)]
            target = anchored[0] if anchored else roots[-1] if roots else None
            if target is not None:
                return ir.Ref(str(target))
        self.warn(
            location.child(keyword),
            f"{keyword} {node.get(keyword)!r} cannot be resolved; typed as Any",
        )
        return ir.AnyType()

    def _type_of(self, node: Any, location: Location, hint: str) -> ir.TypeRef:
        if not isinstance(node, dict):
            if node is True or node is None:
                return ir.AnyType()
            self.problems.append(Problem(location, "a schema must be an object"))
            return ir.AnyType()
        if "$recursiveRef" in node or "$dynamicRef" in node:
            return self._recursive_ref(node, location)
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
        if types == ["object"] and "items" in node:
            self.warn(
                location.child("items"),
                "'items' on a 'type: object' schema is ignored (it applies to arrays only)",
            )
        inner = self._inner_type(node, location, hint, types)
        if nullable and not isinstance(inner, (ir.Nullable, ir.AnyType)):
            return ir.Nullable(inner)
        return inner

    def check_alias_cycles(self) -> None:
        """Refuse schemas that are only one another (``L1: {allOf: [$ref: L2]}``,
        ``L2: {allOf: [$ref: L1]}``): no value has such a type, and its decoder would
        never return. Each is named, with the others of its cycle. Every alias is walked
        once (a long chain of aliases costs its length, not its square)."""
        settled: set[str] = set()
        for start in self.schemas.values():
            chain: list[ir.AliasSchema] = []
            on_chain: dict[str, int] = {}
            current: ir.NamedSchema | None = start
            while isinstance(current, ir.AliasSchema) and current.key not in settled:
                if current.key in on_chain:
                    self._report_cycle(chain[on_chain[current.key] :])
                    break
                on_chain[current.key] = len(chain)
                chain.append(current)
                current = self.schemas.get(_alias_target(current.target) or "")
            settled.update(on_chain)

    def _report_cycle(self, cycle: list[ir.AliasSchema]) -> None:
        for member in cycle:
            others = [str(m.location or m.key) for m in cycle if m is not member]
            via = f" through {', '.join(others)}" if others else ""
            self.problems.append(
                Problem(
                    member.location or Location(member.key),
                    f"allOf/$ref cycle: the schema is only itself{via}; it has no type",
                )
            )

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
            single = self._single_all_of(node, location, hint)
            return single if single is not None else self.named(node, location, hint)
        if "const" in node:
            return ir.ConstType(node["const"]) if _json_scalar(node["const"]) else ir.AnyType()
        only = _only_value(node, types)
        if only is not None:  # inline: a named one-value enum stays a class users may name
            return ir.ConstType(only)
        if _enum_kind(node) is not None:
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
            hint = did_you_mean(str(kind), _TYPE_NAMES)
            self.problems.append(Problem(location.child("type"), f"unknown type '{kind}'{hint}"))
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
        kind = _enum_kind(node) if "properties" not in node else None
        if kind is not None:
            values = [v for v in node["enum"] if v is not None]
            if kind == "str" and not all(isinstance(v, str) for v in values):
                odd = [v for v in values if not isinstance(v, str)]
                self.warn(
                    location.child("enum"),
                    f"enum values {', '.join(repr(v) for v in odd)} of a string enum are not "
                    "strings (YAML 1.1 reads unquoted yes/no/on/off as booleans); they are "
                    "left out of the members and still accepted as unknown values",
                )
                values = [v for v in values if isinstance(v, str)]
            return self._build_enum(key, name, module, kind, values, description, location)
        single = self._single_all_of(node, location, name)
        if single is not None:
            return ir.AliasSchema(key, name, module, single, description, location)
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

    def _single_all_of(
        self, node: dict[str, Any], location: Location, hint: str
    ) -> ir.TypeRef | None:
        """The type of an ``allOf`` with one part that says what the value is.

        ``allOf: [{$ref: tags.yml}, {description: ...}]`` is how a spec annotates a
        reference; the other parts carry no type, so the value is the referenced one.
        """
        all_of = node.get("allOf")
        if not isinstance(all_of, list) or not all_of or node.get("properties"):
            return None
        structural = [(i, part) for i, part in enumerate(all_of) if _is_structural(part)]
        if len(structural) != 1:
            return None
        index, part = structural[0]
        inner = self.type_of(part, location.child("allOf", index), hint)
        marked = any(isinstance(p, dict) and p.get("nullable") is True for p in all_of)
        if marked and not isinstance(inner, (ir.Nullable, ir.AnyType)):
            return ir.Nullable(inner)
        return inner

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
        # Where a value has a plus sign (``Etc/GMT+1``), a dash before a digit is a minus.
        signed = base == "str" and any(re.search(r"\+[0-9]", str(v)) for v in values)
        for value in values:
            if value in seen:
                continue
            seen.add(value)
            text = str(value) if base == "str" else f"VALUE_{value}".replace("-", "MINUS_")
            out.append(ir.EnumMember(members.claim(constant(text, "EMPTY", signed)), value))
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
        if len(variants) <= 1:  # no variant: every branch was ``type: null``
            target = variants[0] if variants else ir.AnyType()
            return ir.AliasSchema(key, name, module, target, description, location)
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
        all_of = node.get("allOf")
        if all_of is not None and not isinstance(all_of, list):
            self.problems.append(Problem(location.child("allOf"), "allOf must be a list"))
            all_of = None
        for index, part in enumerate(all_of or []):
            try:
                part_node, part_at = self.spec.deref(part, location.child("allOf", index))
            except SpecError as exc:
                self.problems.extend(exc.problems)
                continue
            if isinstance(part_node, dict) and isinstance(part, dict) and "$ref" in part:
                # A referenced base is a schema of its own as well as a part of this one.
                self.named(part_node, part_at)
            if isinstance(part_node, dict):
                self._collect_properties(part_node, part_at, props, required, extra, depth + 1)
        properties = node.get("properties")
        properties_at = location.child("properties")
        if isinstance(properties, dict) and isinstance(properties.get("$ref"), str):
            # A ``$ref`` standing for the whole map of properties (DigitalOcean's style).
            try:
                properties, properties_at = self.spec.deref(properties, properties_at)
            except SpecError as exc:
                self.problems.extend(exc.problems)
                properties = {}
        if isinstance(properties, dict):
            for wire, schema in properties.items():
                props[str(wire)] = (schema, properties_at.child(str(wire)))
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


def _alias_target(target: ir.TypeRef) -> str | None:
    """The key of the named schema an alias is, nullable or not."""
    if isinstance(target, ir.Nullable):
        target = target.inner
    return target.key if isinstance(target, ir.Ref) else None


def _enum_kind(node: dict[str, Any]) -> Literal["str", "int"] | None:
    """The base of the enum class a schema with ``enum`` becomes, if it becomes one."""
    enum = node.get("enum")
    if not isinstance(enum, list):
        return None
    values = [v for v in enum if v is not None]
    if not values:
        return None
    if all(isinstance(v, str) for v in values):
        return "str"
    if _all_ints(values):
        return "int"
    types, _ = _types(node)
    if types == ["string"] and any(isinstance(v, str) for v in values):
        return "str"
    return None


_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _only_value(node: dict[str, Any], types: list[str]) -> str | int | float | bool | None:
    """The value of an ``enum`` with exactly one non-null scalar value that fits the
    schema's ``type``: such a schema is typed as that value, like ``const``."""
    enum = node.get("enum")
    if not isinstance(enum, list):
        return None
    values = [v for v in enum if v is not None]
    if len(values) != 1 or type(values[0]) not in _JSON_TYPES:
        return None
    value: str | int | float | bool = values[0]
    kind = _JSON_TYPES[type(value)]
    if types and kind not in types and not (kind == "integer" and "number" in types):
        return None
    return value


_STRUCTURE = frozenset(
    {
        "$ref",
        "type",
        "properties",
        "items",
        "allOf",
        "anyOf",
        "oneOf",
        "enum",
        "const",
        "additionalProperties",
        "$recursiveRef",
    }
)


def _is_structural(part: Any) -> bool:
    """Whether an ``allOf`` part says what the value is (not only how it is documented)."""
    return isinstance(part, dict) and any(key in part for key in _STRUCTURE)


def _is_resource_root(location: Location) -> bool:
    pointer = location.pointer
    return pointer == "" or (pointer.startswith("/components/schemas/") and pointer.count("/") == 3)


def _json_scalar(value: object) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _all_ints(values: list[Any]) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""
