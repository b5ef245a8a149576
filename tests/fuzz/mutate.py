"""Structural mutations of a spec, drawn by hypothesis.

A mutation picks a node of the document by index (so every draw is valid whatever
the document looks like by then) and deletes, retypes, duplicates, truncates,
renames, re-references or deepens it, or plants hostile text in it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from jobgen.problems import pointer_join

Path_ = tuple[Any, ...]

# Text that would run if spec text ever became code: it touches SENTINEL.
HOSTILE = [
    '"""; __import__("pathlib").Path(SENTINEL).touch(); """',
    "'''; __import__('pathlib').Path(SENTINEL).touch(); '''",
    "\\\"; __import__('pathlib').Path(SENTINEL).touch() #",
    "{{ __import__('pathlib').Path(SENTINEL).touch() }}{% raw %}",
    "x\n__import__('pathlib').Path(SENTINEL).touch()\n",
    "${__import__('os').system('touch ' + SENTINEL)}",
    "\\",
    "'",
    '"',
    "\\u0000\\n",
    "{job_id}",
    "class",
    "__init__",
    "1st-name.with dots",
    "日本語",
    "",
    " ",
    "$ref",
    "x" * 300,
]

OTHER_TYPES: list[Any] = [None, True, False, 0, -1, 7, 1.5, 2**70, "", "x", [], {}, ["x"], {"x": 1}]

NAMES = ["id", "kind", "class", "from", "to_dict", "self", "data", "1st", "x-y", "$ref", "日本", ""]
TYPES: list[Any] = ["string", "integer", "number", "boolean", "object", "array", "null"]
TYPES += [["string", "null"], ["integer", "string"], "strange", 5, []]
FORMATS: list[Any] = ["date-time", "date", "uuid", "binary", "int64", "byte", 5]


def _text(sentinel: str) -> st.SearchStrategy[str]:
    return st.sampled_from([t.replace("SENTINEL", repr(sentinel)) for t in HOSTILE])


def _json_values(sentinel: str) -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        _text(sentinel),
    )
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(NAMES), inner, max_size=3)
        ),
        max_leaves=6,
    )


def schemas(sentinel: str, refs: list[str]) -> st.SearchStrategy[Any]:
    """JSON Schema-shaped values, right and wrong: what the schema builder must survive."""
    values = _json_values(sentinel)
    leaf = st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(TYPES),
            "format": st.sampled_from(FORMATS),
            "enum": st.lists(values, max_size=4),
            "const": values,
            "default": values,
            "example": values,
            "nullable": st.booleans(),
            "description": _text(sentinel),
            "title": _text(sentinel),
        },
    )
    ref = st.fixed_dictionaries({"$ref": st.sampled_from(refs)})

    def extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        branches = st.lists(inner, max_size=3)
        names = st.sampled_from(NAMES)
        structure = st.fixed_dictionaries(
            {},
            optional={
                "properties": st.dictionaries(names, inner, max_size=3),
                "required": st.lists(names, max_size=3),
                "items": inner,
                "additionalProperties": st.booleans() | inner,
                "allOf": branches,
                "oneOf": branches,
                "anyOf": branches,
                "discriminator": st.fixed_dictionaries(
                    {"propertyName": names},
                    optional={"mapping": st.dictionaries(names, st.sampled_from(refs), max_size=2)},
                ),
            },
        )
        return st.builds(lambda a, b: {**a, **b}, leaf, structure) | ref

    return st.recursive(leaf | ref, extend, max_leaves=8)


def _schema_paths(doc: Any, paths: list[Path_]) -> list[Path_]:
    def is_schema(path: Path_) -> bool:
        if len(path) >= 3 and path[-3:-1] == ("components", "schemas"):
            return True
        if len(path) >= 2 and path[-2] in ("properties", "allOf", "oneOf", "anyOf"):
            return True
        keys = ("schema", "items", "additionalProperties")
        return bool(path) and path[-1] in keys and isinstance(value_at(doc, path), dict)

    out = [path for path in paths if is_schema(path)]
    return out


def node_paths(doc: Any) -> list[Path_]:
    """Paths of every node, root first, in document order."""
    out: list[Path_] = []
    stack: list[tuple[Any, Path_]] = [(doc, ())]
    while stack:
        node, path = stack.pop()
        out.append(path)
        if isinstance(node, dict):
            stack.extend((v, (*path, k)) for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((v, (*path, i)) for i, v in reversed(list(enumerate(node))))
    return out


def value_at(doc: Any, path: Path_) -> Any:
    for token in path:
        doc = doc[token]
    return doc


def _set(doc: Any, path: Path_, value: Any) -> Any:
    if not path:
        return value
    value_at(doc, path[:-1])[path[-1]] = value
    return doc


def _pointer(path: Path_) -> str:
    return pointer_join("", *path)


@st.composite
def _payload(draw: st.DrawFn, sentinel: str) -> str:
    text = draw(st.sampled_from(HOSTILE))
    return text.replace("SENTINEL", repr(sentinel))


@st.composite
def mutation(draw: st.DrawFn, doc: Any, sentinel: str) -> tuple[str, Any]:
    """Apply one mutation to ``doc`` (a copy); returns a description and the new document."""
    paths = node_paths(doc)
    path = paths[draw(st.integers(0, len(paths) - 1))]
    node = value_at(doc, path)
    kind = draw(
        st.sampled_from(
            ["delete", "retype", "list", "text", "rename", "ref", "deepen", "schema", "schema"]
        )
    )
    where = _pointer(path)
    if kind == "schema":
        targets = _schema_paths(doc, paths)
        if targets:
            path = targets[draw(st.integers(0, len(targets) - 1))]
            components = doc.get("components") if isinstance(doc, dict) else None
            named = components.get("schemas") if isinstance(components, dict) else None
            refs = ["#/components/schemas/" + str(k) for k in named or {}] or ["#/nowhere"]
            value = draw(schemas(sentinel, refs))
            return f"schema {_pointer(path)} = {value!r}", _set(doc, path, value)
    if kind == "delete" and path:
        parent = value_at(doc, path[:-1])
        del parent[path[-1]]
        return f"delete {where}", doc
    if kind == "list":
        lists = [p for p in paths if isinstance(value_at(doc, p), list) and value_at(doc, p)]
        if lists:
            path = lists[draw(st.integers(0, len(lists) - 1))]
            items = value_at(doc, path)
            how = draw(st.sampled_from(["duplicate", "double", "truncate", "empty"]))
            if how == "duplicate":
                items.insert(0, copy.deepcopy(items[draw(st.integers(0, len(items) - 1))]))
            elif how == "double":
                items.extend(copy.deepcopy(items))
            elif how == "truncate":
                del items[draw(st.integers(0, len(items) - 1)) :]
            else:
                items.clear()
            return f"{how} list {_pointer(path)}", doc
    if kind == "text":
        strings = [p for p in paths if isinstance(value_at(doc, p), str)]
        if strings:
            path = strings[draw(st.integers(0, len(strings) - 1))]
            value = draw(_payload(sentinel))
            return f"text {_pointer(path)} = {value!r}", _set(doc, path, value)
    if kind == "rename":
        keyed = [p for p in paths if p and isinstance(value_at(doc, p[:-1]), dict)]
        if keyed:
            path = keyed[draw(st.integers(0, len(keyed) - 1))]
            parent = value_at(doc, path[:-1])
            name = draw(_payload(sentinel))
            if name not in parent:
                items = [(name if k == path[-1] else k, v) for k, v in parent.items()]
                parent.clear()
                parent.update(items)
                return f"rename {_pointer(path)} -> {name!r}", doc
    if kind == "ref":
        target = paths[draw(st.integers(0, len(paths) - 1))]
        ref = draw(
            st.sampled_from(
                [
                    "#" + _pointer(target),
                    "#" + _pointer(target) + "/missing",
                    "#" + _pointer(path),
                    "./nowhere.yaml#/A",
                    "../outside.yaml#/A",
                    "#/components/schemas",
                ]
            )
        )
        return f"ref {where} -> {ref}", _set(doc, path, {"$ref": ref})
    if kind == "deepen":
        times = draw(st.sampled_from([1, 2, 3, 8, 40]))
        wrap = draw(
            st.sampled_from(["allOf", "items", "properties", "oneOf", "list", "additional"])
        )
        wrapped = node
        for _ in range(times):
            wrapped = _WRAPS[wrap](wrapped)
        return f"deepen {where} x{times} with {wrap}", _set(doc, path, wrapped)
    value = copy.deepcopy(draw(st.sampled_from(OTHER_TYPES)))
    return f"retype {where} = {value!r}", _set(doc, path, value)


_WRAPS: dict[str, Callable[[Any], Any]] = {
    "allOf": lambda v: {"allOf": [v]},
    "items": lambda v: {"type": "array", "items": v},
    "properties": lambda v: {"type": "object", "properties": {"x": v}},
    "oneOf": lambda v: {"oneOf": [v, {"type": "string"}]},
    "list": lambda v: [v],
    "additional": lambda v: {"type": "object", "additionalProperties": v},
}


@st.composite
def mutated(draw: st.DrawFn, doc: Any, sentinel: str) -> tuple[list[str], Any]:
    """1 to 4 mutations of ``doc``."""
    doc = copy.deepcopy(doc)
    steps = []
    for _ in range(draw(st.integers(1, 4))):
        step, doc = draw(mutation(doc, sentinel))
        steps.append(step)
    return steps, doc


# -- Swagger 2.0 ---------------------------------------------------------------------------
# The places of a Swagger 2.0 document whose shape the conversion to OpenAPI 3 relies on,
# with values that are the wrong shape there (or the right shape and a wrong value): each
# must be refused at its pointer (exit 2), never reach an internal error or a wrong URL.
# "*" matches any key, "#" any list index.

_WRONG = [5, "x", [1], {"a": 1}, None, True]
_MEDIA = [5, "application/json", [5], [""], []]
SWAGGER2_SLOTS: list[tuple[tuple[str, ...], list[Any]]] = [
    (("host",), [{"a": 1}, 443, "h://x", "x/y", "", " ", "a b", "https://x"]),
    (("schemes",), ["http", 5, ["ftp"], [5], [], ["h"]]),
    (("basePath",), [5, "v1", "", "/v1?x=1"]),
    (("consumes",), _MEDIA),
    (("produces",), _MEDIA),
    (("paths",), [[1], 5, "x", {"/x": 5}, {"/x": {"get": 5}}]),
    (("x-ms-paths",), [[1], 5, {"/x?y=1": []}]),
    (("parameters",), [5, [1], {"P": 5}, {"P": {"in": "body"}}]),
    (("definitions",), [[1], 5, {"D": 5}]),
    (("responses",), [[1], 5, {"R": 5}]),
    (("securityDefinitions",), [[1], 5, {"S": 5}]),
    (("securityDefinitions", "*"), [5, [], {"type": "oauth2"}, {"type": "apiKey"}]),
    (("securityDefinitions", "*", "flow"), [[1], 5, "magic", None]),
    (("securityDefinitions", "*", "type"), ["oauth3", 5, None]),
    (("securityDefinitions", "*", "scopes"), [[1], 5, "x"]),
    (("securityDefinitions", "*", "in"), ["body", 5]),
    (("securityDefinitions", "*", "name"), ["Connection String", 5, "", "X\r\nY: 1"]),
    (("x-ms-parameterized-host",), [5, {}, [1]]),
    (("x-ms-parameterized-host", "hostTemplate"), [5, "", "{endpoint", "{a}{b}", "h://{e}"]),
    (("x-ms-parameterized-host", "useSchemePrefix"), ["yes", 5]),
    (("x-ms-parameterized-host", "parameters"), [5, [5], [{"name": 5}], [{"$ref": "#/nowhere"}]]),
    (("paths", "*", "*", "parameters"), [5, ["x"], [{"in": "body"}], [{"in": "formData"}]]),
    (("paths", "*", "parameters"), [5, ["x"], [{"$ref": "#/parameters/Nowhere"}]]),
    (("paths", "*", "*", "parameters", "#", "in"), ["body", "formData", "nowhere", 5]),
    (("paths", "*", "*", "parameters", "#", "type"), ["file", "strange", 5, ["string"]]),
    (("paths", "*", "*", "parameters", "#", "items"), [5, {"type": "file"}]),
    (("paths", "*", "*", "parameters", "#", "collectionFormat"), ["multi", 5]),
    (("paths", "*", "*", "parameters", "#", "$ref"), [5, "#/parameters", "#/definitions/X"]),
    (("paths", "*", "*", "consumes"), _MEDIA),
    (("paths", "*", "*", "produces"), _MEDIA),
    (("paths", "*", "*", "responses"), [[1], 5, {}, {"200": 5}]),
    (("paths", "*", "*", "responses", "*"), [5, [], {"schema": 5}]),
    (("paths", "*", "*", "responses", "*", "headers"), [[1], 5, {"h": 5}]),
    (("paths", "*", "*", "responses", "*", "schema"), [5, {"type": "file"}, []]),
    (("x-ms-paths", "*", "*", "parameters"), [5, ["x"]]),
    (("parameters", "*", "in"), ["body", "formData", "path", 5]),
    (("parameters", "*", "schema"), [5, []]),
    (("definitions", "*", "discriminator"), [5, ["kind"], {"propertyName": 5}]),
    (("definitions", "*", "x-nullable"), ["yes", 5]),
]


def _matches(pattern: tuple[str, ...], path: Path_) -> bool:
    return len(pattern) == len(path) and all(
        p == "*" and isinstance(t, str) or p == "#" and isinstance(t, int) or p == t
        for p, t in zip(pattern, path)
    )


def swagger2_slots(doc: Any) -> list[tuple[Path_, list[Any]]]:
    """Every place of ``doc`` a :data:`SWAGGER2_SLOTS` pattern names (present or not, for
    the top-level ones), with its wrong values."""
    paths = node_paths(doc)
    found: list[tuple[Path_, list[Any]]] = []
    for pattern, values in SWAGGER2_SLOTS:
        hits = [p for p in paths if _matches(pattern, p)]
        if not hits and len(pattern) == 1:
            hits = [pattern]  # a top-level key the seed leaves out can be added
        found.extend((hit, values) for hit in hits)
    return found


@st.composite
def swagger2_mutation(draw: st.DrawFn, doc: Any, sentinel: str) -> tuple[str, Any]:
    """One structure-aware change of a Swagger 2.0 document: a slot it relies on set to a
    wrong shape or value, or one of the generic mutations."""
    slots = swagger2_slots(doc) if isinstance(doc, dict) else []
    if not slots or draw(st.integers(0, 3)) == 0:
        return draw(mutation(doc, sentinel))
    path, values = slots[draw(st.integers(0, len(slots) - 1))]
    value = copy.deepcopy(draw(st.sampled_from([*values, *_WRONG])))
    if len(path) > 1 and not isinstance(value_at(doc, path[:-1]), (dict, list)):
        return draw(mutation(doc, sentinel))
    return f"swagger2 {_pointer(path)} = {value!r}", _set(doc, path, value)


@st.composite
def swagger2_mutated(draw: st.DrawFn, doc: Any, sentinel: str) -> tuple[list[str], Any]:
    """1 to 3 changes of a Swagger 2.0 ``doc``, most of them structure-aware."""
    doc = copy.deepcopy(doc)
    steps = []
    for _ in range(draw(st.integers(1, 3))):
        step, doc = draw(swagger2_mutation(doc, sentinel))
        steps.append(step)
    return steps, doc
