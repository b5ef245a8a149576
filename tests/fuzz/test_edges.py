"""Valid specs at the edges: they must generate an SDK that compiles and imports inertly.

Also the data model YAML is read with: the YAML 1.2 core schema, as JSON would carry it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jobgen.problems import SpecError
from jobgen.spec.loader import MAX_DEPTH, load_document
from tests.fuzz.test_fuzz_specs import check_outcome
from tests.fuzz.test_malformed import ITEM, base, mutate, save


def _nested(wrap: str, times: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string"}
    for _ in range(times):
        if wrap == "items":
            node = {"type": "array", "items": node}
        elif wrap == "additional":
            node = {"type": "object", "additionalProperties": node}
        elif wrap == "oneOf":
            node = {"oneOf": [node, {"type": "integer"}]}
        else:
            node = {"type": "object", "properties": {"x": node}}
    return node


def _long_schema_name() -> dict[str, Any]:
    doc = base()
    doc["components"]["schemas"]["K" * 300] = {"type": "string", "enum": ["a"]}
    return doc


EDGES: list[tuple[str, Any]] = [
    ("long-title", lambda: mutate(base(), "/info/title", "x" * 300)),
    ("long-tag", lambda: mutate(base(), "/paths/~1items/post/tags", ["t" * 300])),
    ("long-operation-id", lambda: mutate(base(), "/paths/~1items/post/operationId", "c" * 300)),
    ("long-schema-name", _long_schema_name),
    # Unions whose every branch is null: nothing but None.
    (
        "null-only-any-of",
        lambda: mutate(base(), ITEM + "/properties/n", {"anyOf": [{"type": "null"}]}),
    ),
    (
        "null-only-one-of",
        lambda: mutate(
            base(), "/components/schemas/Nil", {"oneOf": [{"type": "null"}, {"enum": [None]}]}
        ),
    ),
    # Hoisted inline schemas are named after their parents: the names grow with depth.
    ("nested-one-of", lambda: mutate(base(), ITEM + "/properties/deep", _nested("oneOf", 28))),
    ("nested-objects", lambda: mutate(base(), ITEM + "/properties/deep", _nested("objects", 28))),
]


@pytest.mark.parametrize("make", [pytest.param(m, id=i) for i, m in EDGES])
def test_valid_edge_specs_generate(tmp_path: Path, make: Any) -> None:
    (tmp_path / "specs").mkdir()
    spec = save(tmp_path, "spec.json", make())
    assert check_outcome(spec, tmp_path, tmp_path / "pwned", "edge_sdk") == 0


# Inline schemas nested as deep as the loader allows, in the forms that put the most
# brackets in a generated annotation per level: the SDK must still compile.
DEEPEST: dict[str, Any] = {
    "items": lambda v: {"type": "array", "items": v},
    "nullable-items": lambda v: {"type": ["array", "null"], "items": v},
    "multi-type": lambda v: {"type": ["array", "integer", "null"], "items": v},
    "maps": lambda v: {"type": ["object", "boolean", "null"], "additionalProperties": v},
    "nullable-30": lambda v: {"type": "array", "items": v, "nullable": True},
    "any-of": lambda v: {"anyOf": [{"type": "array", "items": v}, {"type": "null"}]},
}


def _depth(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        children = (
            node.values() if isinstance(node, dict) else node if isinstance(node, list) else []
        )
        stack.extend((child, depth + 1) for child in children)
    return deepest


@pytest.mark.parametrize("wrap", DEEPEST)
def test_the_deepest_schema_allowed_compiles(tmp_path: Path, wrap: str) -> None:
    doc = base()
    schemas = doc["components"]["schemas"]
    schemas["Deep"] = {"type": "string", "enum": ["a", "b"]}
    while True:
        deeper = DEEPEST[wrap](schemas["Deep"])
        if _depth({"components": {"schemas": {"Deep": deeper}}}) > MAX_DEPTH:
            break
        schemas["Deep"] = deeper
    (tmp_path / "specs").mkdir()
    spec = save(tmp_path, "spec.json", doc)
    assert check_outcome(spec, tmp_path, tmp_path / "pwned", "deepest_sdk") == 0


def _load(tmp_path: Path, text: str) -> Any:
    path = tmp_path / "doc.yaml"
    path.write_text(text, encoding="utf-8")
    return load_document(path, "doc.yaml").data


def test_yaml_is_read_as_json_would_carry_it(tmp_path: Path) -> None:
    data = _load(
        tmp_path,
        "enum: [no, yes, on, off, y, n, true, False, ~, null, '']\n"
        "dates: [2020-08-27, 2020-07-28T18:00:00Z]\n"
        "numbers: [1, -2, 0x1F, 0o17, 017, 1.5, .5, 1e3, 1_000, '12', 1:30]\n"
        "200: ok\n"
        "true: yes-key\n"
        "~: null-key\n"
        "merged: {<<: [{a: 1, b: 1}, {b: 2, c: 2}], c: 3}\n",
    )
    assert data["enum"] == ["no", "yes", "on", "off", "y", "n", True, False, None, None, ""]
    assert data["dates"] == ["2020-08-27", "2020-07-28T18:00:00Z"]
    assert data["numbers"] == [1, -2, 31, 15, 17, 1.5, 0.5, 1000.0, "1_000", "12", "1:30"]
    assert [type(n) for n in data["numbers"][:5]] == [int] * 5
    assert list(data)[3:6] == ["200", "true", "~"]
    assert data["merged"] == {"a": 1, "b": 1, "c": 3}


def test_aliases_share_and_count(tmp_path: Path) -> None:
    data = _load(tmp_path, "a: &x {k: [1, 2]}\nb: *x\nc: [*x, *x]\n")
    assert data["b"] is data["a"] and data["c"] == [data["a"], data["a"]]


def test_nesting_up_to_the_limit_loads(tmp_path: Path) -> None:
    lists = MAX_DEPTH - 1  # inside the top-level mapping
    node = _load(tmp_path, "x: " + "[" * lists + "]" * lists + "\n")["x"]
    for _ in range(lists - 1):
        node = node[0]
    assert node == []
    with pytest.raises(SpecError, match="nests deeper"):
        _load(tmp_path, "x: " + "[" * (lists + 1) + "]" * (lists + 1) + "\n")
