"""The state every comparison shares: both SDK models, their schemas paired, structural
equality through named schemas, and which way each schema travels."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import ir
from .changes import RESPONSE, Side
from .details import bases
from .typeref import normalised, operations, refs, schema_refs

__all__ = ["Context"]


def _usage(sdk: ir.Sdk) -> dict[str, set[Side]]:
    """For every schema reachable from an operation, whether requests or responses carry
    it. A model's ``allOf`` bases travel where the model does."""
    usage: dict[str, set[Side]] = {}
    roots: list[tuple[Side, ir.TypeRef | None]] = []
    for _, op in operations(sdk).values():
        roots.extend(("request", p.type) for p in op.parameters)
        roots.append(("request", op.body.type if op.body is not None else None))
        roots.append(("response", op.response.type))
    for side, t in roots:
        stack = list(refs(t))
        while stack:
            key = stack.pop()
            if side in usage.setdefault(key, set()):
                continue
            usage[key].add(side)
            schema = sdk.schemas.get(key)
            if schema is not None:
                stack.extend(schema_refs(schema))
                if isinstance(schema, ir.Model):
                    stack.extend(bases(sdk, schema))
    return usage


def _element(t: ir.TypeRef) -> ir.TypeRef:
    """The type inside lists and optionals: ``list[Job] | None`` -> ``Job``."""
    while isinstance(t, (ir.ListType, ir.Nullable)):
        t = t.item if isinstance(t, ir.ListType) else t.inner
    return t


class Context:
    """Both SDK models, their schemas paired, and the questions every comparison asks."""

    def __init__(self, old: ir.Sdk, new: ir.Sdk) -> None:
        self.old = old
        self.new = new
        self.pairs: dict[str, str] = {}
        self.back: dict[str, str] = {}
        self.old_usage = _usage(old)
        self.new_usage = _usage(new)
        self._pair_schemas()

    # schema pairing

    def _pair(self, old_key: str, new_key: str) -> None:
        self.pairs[old_key] = new_key
        self.back[new_key] = old_key

    def _pair_schemas(self) -> None:
        old_norm, new_norm = normalised(self.old), normalised(self.new)
        by_norm = {norm: key for key, norm in new_norm.items()}
        for key, norm in old_norm.items():
            if norm in by_norm:
                self._pair(key, by_norm[norm])
        old_names = self._unpaired_by_name(self.old, self.pairs)
        new_names = self._unpaired_by_name(self.new, self.back)
        for name, key in sorted(old_names.items()):
            if name in new_names:
                self._pair(key, new_names[name])
        # Renamed keys: an unpaired old schema whose structure only one unpaired new one has.
        old_left = [k for k in self.old.schemas if k not in self.pairs]
        new_left = [k for k in self.new.schemas if k not in self.back]
        matches: dict[str, list[str]] = {}
        for old_key in old_left:
            matches[old_key] = [
                new_key for new_key in new_left if self._same_schema(old_key, new_key, set())
            ]
        claimed: dict[str, int] = {}
        for found in matches.values():
            for new_key in found:
                claimed[new_key] = claimed.get(new_key, 0) + 1
        for old_key, found in matches.items():
            if len(found) == 1 and claimed[found[0]] == 1:
                self._pair(old_key, found[0])
        self._pair_through_references(matches)

    def _pair_through_references(self, matches: dict[str, list[str]]) -> None:
        """Structural twins that one match cannot tell apart (two identical option
        models renamed at once) are paired by what refers to them: the same field of
        paired models, or the same operation's body or response."""
        changed = any(len(found) > 1 for found in matches.values())
        while changed:
            changed = False
            for old_ref, new_ref in self._referrers():
                a, b = _element(old_ref), _element(new_ref)
                if not (isinstance(a, ir.Ref) and isinstance(b, ir.Ref)):
                    continue
                if a.key in self.pairs or b.key in self.back:
                    continue
                if b.key in matches.get(a.key, ()):
                    self._pair(a.key, b.key)
                    changed = True

    def _referrers(self) -> Iterator[tuple[ir.TypeRef, ir.TypeRef]]:
        for old_key, new_key in list(self.pairs.items()):
            a, b = self.old.schemas[old_key], self.new.schemas[new_key]
            if isinstance(a, ir.Model) and isinstance(b, ir.Model):
                news = {f.wire: f for f in b.fields}
                for f in a.fields:
                    if f.wire in news:
                        yield f.type, news[f.wire].type
        new_ops = operations(self.new)
        for op_id, (_, a_op) in operations(self.old).items():
            if op_id not in new_ops:
                continue
            b_op = new_ops[op_id][1]
            if a_op.body is not None and b_op.body is not None:
                yield a_op.body.type, b_op.body.type
            if a_op.response.type is not None and b_op.response.type is not None:
                yield a_op.response.type, b_op.response.type

    @staticmethod
    def _unpaired_by_name(sdk: ir.Sdk, paired: dict[str, str]) -> dict[str, str]:
        names: dict[str, list[str]] = {}
        for key, schema in sdk.schemas.items():
            if key not in paired:
                names.setdefault(schema.name, []).append(key)
        return {name: keys[0] for name, keys in names.items() if len(keys) == 1}

    # structural equality, through named schemas, with a guard against cycles

    def same(self, a: ir.TypeRef | None, b: ir.TypeRef | None) -> bool:
        if a is None or b is None:
            return a is None and b is None
        return self._same(a, b, set())

    def _unalias(self, sdk: ir.Sdk, t: ir.TypeRef) -> ir.TypeRef:
        seen: set[str] = set()
        while isinstance(t, ir.Ref) and t.key not in seen:
            schema = sdk.schemas.get(t.key)
            if not isinstance(schema, ir.AliasSchema):
                break
            seen.add(t.key)
            t = schema.target
        return t

    def _same(self, a: ir.TypeRef, b: ir.TypeRef, assumed: set[tuple[str, str]]) -> bool:
        if isinstance(a, ir.Ref) and isinstance(b, ir.Ref) and self.pairs.get(a.key) == b.key:
            return True
        a2, b2 = self._unalias(self.old, a), self._unalias(self.new, b)
        if a2 != a or b2 != b:
            return self._same(a2, b2, assumed)
        if isinstance(a, ir.Ref) and isinstance(b, ir.Ref):
            if a.key in self.pairs or b.key in self.back:
                return False
            return self._same_schema(a.key, b.key, assumed)
        if isinstance(a, ir.ListType) and isinstance(b, ir.ListType):
            return self._same(a.item, b.item, assumed)
        if isinstance(a, ir.MapType) and isinstance(b, ir.MapType):
            return self._same(a.value, b.value, assumed)
        if isinstance(a, ir.Nullable) and isinstance(b, ir.Nullable):
            return self._same(a.inner, b.inner, assumed)
        if isinstance(a, ir.InlineUnion) and isinstance(b, ir.InlineUnion):
            return len(a.variants) == len(b.variants) and all(
                self._same(x, y, assumed) for x, y in zip(a.variants, b.variants, strict=True)
            )
        if isinstance(a, ir.ConstType) and isinstance(b, ir.ConstType):
            return type(a.value) is type(b.value) and a.value == b.value
        return a == b

    def _same_schema(self, old_key: str, new_key: str, assumed: set[tuple[str, str]]) -> bool:
        if (old_key, new_key) in assumed:
            return True
        assumed.add((old_key, new_key))
        a, b = self.old.schemas.get(old_key), self.new.schemas.get(new_key)
        if isinstance(a, ir.Model) and isinstance(b, ir.Model):
            fa = {f.wire: f for f in a.fields}
            fb = {f.wire: f for f in b.fields}
            if fa.keys() != fb.keys():
                return False
            for wire, x in fa.items():
                y = fb[wire]
                if x.name != y.name or x.required != y.required:
                    return False
                if not self._same(x.type, y.type, assumed):
                    return False
            if a.additional is None or b.additional is None:
                return a.additional is None and b.additional is None
            return self._same(a.additional, b.additional, assumed)
        if isinstance(a, ir.EnumSchema) and isinstance(b, ir.EnumSchema):
            return a.base == b.base and set(a.members) == set(b.members)
        if isinstance(a, ir.UnionSchema) and isinstance(b, ir.UnionSchema):
            return (
                len(a.variants) == len(b.variants)
                and a.discriminator == b.discriminator
                and {tag for tag, _ in a.mapping} == {tag for tag, _ in b.mapping}
                and all(
                    self._same(x, y, assumed) for x, y in zip(a.variants, b.variants, strict=True)
                )
            )
        if isinstance(a, ir.AliasSchema) and isinstance(b, ir.AliasSchema):
            return self._same(a.target, b.target, assumed)
        return False

    def widens(self, a: ir.TypeRef, b: ir.TypeRef) -> bool:
        """Whether every value of old type ``a`` is still a value of new type ``b``:
        integer -> number, a value -> a union or optional holding it, a literal -> its type
        or an enum holding it."""
        if self.same(a, b):
            return True
        a, b = self._unalias(self.old, a), self._unalias(self.new, b)
        if isinstance(b, ir.Nullable):
            return self.widens(a.inner if isinstance(a, ir.Nullable) else a, b.inner)
        if isinstance(a, ir.Nullable):
            return False
        if isinstance(a, ir.Primitive) and isinstance(b, ir.Primitive):
            return a.kind == "int" and b.kind == "float"
        if isinstance(a, ir.ConstType) and isinstance(b, ir.Primitive):
            kinds = {bool: "bool", int: "int", float: "float", str: "str"}
            kind = kinds.get(type(a.value))
            return kind == b.kind or (kind == "int" and b.kind == "float")
        if isinstance(a, ir.ConstType) and isinstance(b, ir.Ref):
            # A single value that becomes an enum holding it (a one-value enum grown).
            enum = self.new.schemas.get(b.key)
            return isinstance(enum, ir.EnumSchema) and any(
                type(m.value) is type(a.value) and m.value == a.value for m in enum.members
            )
        if isinstance(a, ir.ListType) and isinstance(b, ir.ListType):
            return self.widens(a.item, b.item)
        if isinstance(a, ir.MapType) and isinstance(b, ir.MapType):
            return self.widens(a.value, b.value)
        if isinstance(b, ir.InlineUnion):
            olds = a.variants if isinstance(a, ir.InlineUnion) else (a,)
            return all(any(self.widens(x, y) for y in b.variants) for x in olds)
        return isinstance(b, ir.AnyType)

    def sides(self, old_key: str, new_key: str) -> frozenset[Side]:
        """Where a model travels; one no operation carries (an error body, a webhook
        payload) is only ever received, so it counts as a response model."""
        sides = self.old_usage.get(old_key, set()) | self.new_usage.get(new_key, set())
        return frozenset(sides) if sides else RESPONSE
