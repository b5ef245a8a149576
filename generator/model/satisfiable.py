"""Warnings about schemas no value can satisfy, and patterns a regex engine may not decide.

A spec can be valid OpenAPI and still declare a schema that refuses every value (or every
value a client would send): an ``allOf`` member with ``additionalProperties: false``
beside members that add properties (``additionalProperties`` sees only its own schema's
``properties``, so it refuses what the others add), ``allOf`` members of different types,
an ``enum`` none of whose values has the declared type, ``allOf`` enums with no common
value, or a minimum above its maximum. A ``pattern`` with look-around or back-references
needs a backtracking regex engine, and one that also nests quantifiers can make it give up
on a long value (``jobgen serve`` then refuses the value, naming the pattern).

Each node of the document is visited once; ``allOf`` members are followed through their
``$ref`` (one step of the spec's cached dereferencing), so the pass is linear in the spec.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from ..problems import Location, Problem, SpecError
from ..spec.loader import SpecSet

__all__ = ["schema_warnings"]

JSON = Any

#: Keys under which a document holds values, not schemas.
_VALUES = frozenset({"example", "examples", "default", "enum", "const", "x-ms-examples"})
_JSON_TYPES = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}
#: Look-around, back-references: what only a backtracking engine runs.
_BACKTRACKING = re.compile(r"\(\?<?[=!]|\\[1-9]|\\k<")
#: A group holding a quantifier, itself quantified: ``(\w+\s?)*``, ``(a|aa)+``.
_NESTED = re.compile(
    r"\((?:[^()\\]|\\.)*(?:[+*]|\{\d+,\d*\})(?:[^()\\]|\\.)*\)(?:[+*]|\{\d+,\d*\})"
)


def schema_warnings(spec: SpecSet) -> list[Problem]:
    """Every schema of the spec's root document that no value (or no value carrying the
    properties it declares) can satisfy, and every pattern a regex engine may give up on."""
    root = spec.root
    base = Location(root.name)
    found: list[Problem] = []
    for node, path in _schemas(root.data):
        if _all_of_checked(node):
            found += _all_of(spec, node, _located(base, path))
        for tokens, message in (*_types(node), *_bounds(node), *_pattern(node)):
            found.append(Problem(_located(base, path, *tokens), message))
    return found


#: A problem of a node: the tokens from the node to where it is, and the message.
_Found = tuple[tuple[str, ...], str]


def _pattern(node: dict[str, JSON]) -> list[_Found]:
    pattern = node.get("pattern")
    if isinstance(pattern, str) and _BACKTRACKING.search(pattern) and _NESTED.search(pattern):
        return [
            (
                ("pattern",),
                (
                    f"the pattern {json.dumps(pattern)} needs a backtracking regex engine "
                    "(look-around or back-references) and nests quantifiers: on a long "
                    "value the engine can give up, and jobgen serve then refuses the value "
                    "naming the pattern; write it without nested quantifiers, or without "
                    "look-around"
                ),
            )
        ]
    return []


#: Where a node is in the document: its parent's path and its key or index (None: the
#: root). The pass builds a `Location` only for a node it reports, from this chain.
_Path = tuple[Any, str | int] | None


def _located(base: Location, path: _Path, *tokens: str | int) -> Location:
    chain: list[str | int] = []
    while path is not None:
        path, token = path
        chain.append(token)
    chain.reverse()
    return base.child(*chain, *tokens)


def _schemas(node: JSON) -> Iterator[tuple[dict[str, JSON], _Path]]:
    """Every mapping of the document outside values (examples, defaults, enums), once, in
    document order, with its path."""
    stack: list[tuple[JSON, _Path]] = [(node, None)]
    while stack:
        current, where = stack.pop()
        children: list[tuple[JSON, _Path]]
        if isinstance(current, dict):
            yield current, where
            children = [
                (value, (where, name))
                for name, value in ((str(key), value) for key, value in current.items())
                if name not in _VALUES and not name.startswith("x-")
            ]
        elif isinstance(current, list):
            children = [(value, (where, i)) for i, value in enumerate(current)]
        else:
            continue
        stack.extend(reversed(children))


def _deref(spec: SpecSet, node: JSON, at: Location) -> tuple[JSON, Location]:
    try:
        return spec.deref(node, at)
    except SpecError:
        return None, at


def _names(node: JSON) -> list[str]:
    properties = node.get("properties") if isinstance(node, dict) else None
    return [str(k) for k in properties] if isinstance(properties, dict) else []


def _all_of_checked(node: dict[str, JSON]) -> bool:
    """Whether ``node``'s ``allOf`` has members to compare (two, or one and own properties)."""
    members = node.get("allOf")
    return isinstance(members, list) and (len(members) >= 2 or bool(_names(node)))


def _all_of(spec: SpecSet, node: dict[str, JSON], at: Location) -> list[Problem]:
    members: list[JSON] = node["allOf"]
    resolved = [_deref(spec, m, at.child("allOf", i)) for i, m in enumerate(members)]
    found = []
    for i, (member, member_at) in enumerate(resolved):
        if not isinstance(member, dict) or member.get("additionalProperties") is not False:
            continue
        own = set(_names(member))
        added: dict[str, None] = dict.fromkeys(n for n in _names(node) if n not in own)
        required: dict[str, None] = dict.fromkeys(
            str(r) for r in node.get("required") or () if str(r) not in own
        )
        for j, (other, _) in enumerate(resolved):
            if j != i and isinstance(other, dict):
                added.update(dict.fromkeys(n for n in _names(other) if n not in own))
                required.update(
                    dict.fromkeys(str(r) for r in other.get("required") or () if str(r) not in own)
                )
        if not added and not required:
            continue
        names = required or added
        verb = "are" if len(names) > 1 else "is"
        if required:
            what = f"no value can satisfy it: the required {_listed(required)} {verb}"
        else:
            what = f"no value carrying {_listed(added)} can satisfy it: {'they' if len(added) > 1 else 'it'} {verb}"
        found.append(
            Problem(
                at.child("allOf", i),
                f"{what} refused by this member's additionalProperties: false (at "
                f"{member_at.pointer or '/'}), which sees only its own "
                f"{_listed(own) if own else 'properties (none)'}; fix: move "
                "additionalProperties: false to the schema holding the allOf, with every "
                "property listed there (OpenAPI 3.1: unevaluatedProperties: false)",
            )
        )
    return found


def _listed(names: dict[str, None] | set[str]) -> str:
    shown = sorted(names) if isinstance(names, set) else list(names)
    text = ", ".join(shown[:5]) + (f" and {len(shown) - 5} more" if len(shown) > 5 else "")
    return f"propert{'ies' if len(shown) > 1 else 'y'} {text}"


def _type_set(node: JSON) -> set[str] | None:
    kind = node.get("type") if isinstance(node, dict) else None
    if isinstance(kind, str):
        kinds = {kind}
    elif isinstance(kind, list) and all(isinstance(k, str) for k in kind):
        kinds = set(kind)
    else:
        return None
    if node.get("nullable") is True:
        kinds.add("null")
    if "number" in kinds:
        kinds.add("integer")
    return kinds


def _types(node: dict[str, JSON]) -> list[_Found]:
    found: list[_Found] = []
    kinds = _type_set(node)
    enum = node.get("enum")
    if kinds is not None and isinstance(enum, list) and enum:
        allowed = tuple(t for k in kinds if k in _JSON_TYPES for t in _JSON_TYPES[k])
        fits = [
            v
            for v in enum
            if isinstance(v, allowed) and not (isinstance(v, bool) and bool not in allowed)
        ]
        if allowed and not fits:
            found.append(
                (
                    ("enum",),
                    (
                        f"no value can satisfy it: none of the enum's values is of type "
                        f"{' or '.join(sorted(kinds))}; fix: make the type and the values agree"
                    ),
                )
            )
    members = node.get("allOf")
    if isinstance(members, list):
        sets = [(i, _type_set(m)) for i, m in enumerate(members)]
        typed = [(i, s) for i, s in sets if s is not None]
        if kinds is not None:
            typed.insert(0, (-1, kinds))
        common = set.intersection(*(s for _, s in typed)) if len(typed) > 1 else None
        if common is not None and not common:
            said = "; ".join(
                f"{'the schema' if i < 0 else f'allOf/{i}'}: {' or '.join(sorted(s))}"
                for i, s in typed
            )
            found.append(
                (
                    ("allOf",),
                    (
                        f"no value can satisfy it: its parts ask for types no value has at "
                        f"once ({said}); fix: give every part the same type"
                    ),
                )
            )
        enums = [
            (i, m["enum"])
            for i, m in enumerate(members)
            if isinstance(m, dict) and isinstance(m.get("enum"), list)
        ]
        if len(enums) > 1:
            shared = set.intersection(*({json.dumps(v) for v in e} for _, e in enums))
            if not shared:
                found.append(
                    (
                        ("allOf",),
                        (
                            "no value can satisfy it: the enums of "
                            f"{', '.join(f'allOf/{i}' for i, _ in enums)} have no value in "
                            "common; fix: keep one enum"
                        ),
                    )
                )
    return found


_BOUNDS = (
    ("minimum", "maximum"),
    ("minLength", "maxLength"),
    ("minItems", "maxItems"),
    ("minProperties", "maxProperties"),
)


def _bounds(node: dict[str, JSON]) -> list[_Found]:
    found: list[_Found] = []
    for low, high in _BOUNDS:
        a, b = node.get(low), node.get(high)
        if (
            isinstance(a, int | float)
            and isinstance(b, int | float)
            and not isinstance(a, bool)
            and not isinstance(b, bool)
            and a > b
        ):
            found.append(
                (
                    (low,),
                    (
                        f"no value can satisfy it: {low} {a} is above {high} {b}; "
                        "fix: swap or correct them"
                    ),
                )
            )
    return found
