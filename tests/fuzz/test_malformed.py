"""Malformed specs, each through the CLI: exit 2, ``file#pointer: message``, nothing written.

Every case runs ``validate``, ``generate`` into a new folder and ``generate`` over an
existing generated tree (see :func:`tests.fuzz.support.check_refused_everywhere`).
"""

from __future__ import annotations

import copy
import json
import os
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.fuzz.support import assert_refused, check_refused_everywhere, run_cli
from tests.helpers import SPECS, TEST_SPECS

SUME = SPECS / "sume.yaml"
FEATURES_JSON = TEST_SPECS / "features-3.0.json"


def base() -> dict[str, Any]:
    """A small valid spec the cases below break one piece at a time."""
    item = {"$ref": "#/components/schemas/Item"}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Base", "version": "1"},
        "security": [{"key": []}],
        "paths": {
            "/items/{item_id}": {
                "parameters": [
                    {
                        "name": "item_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    }
                ],
                "get": {
                    "operationId": "getItem",
                    "parameters": [
                        {"name": "expand", "in": "query", "schema": {"type": "boolean"}}
                    ],
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": item}},
                        }
                    },
                },
            },
            "/items": {
                "post": {
                    "operationId": "createItem",
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": item}},
                    },
                    "responses": {
                        "201": {
                            "description": "ok",
                            "content": {"application/json": {"schema": item}},
                        }
                    },
                }
            },
        },
        "components": {
            "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}},
            "schemas": {
                "Item": {
                    "type": "object",
                    "required": ["id"],
                    "properties": {
                        "id": {"type": "string"},
                        "tags": {"type": "array", "items": {"type": "string"}},
                        "kind": {"$ref": "#/components/schemas/Kind"},
                        "parent": {"allOf": [{"$ref": "#/components/schemas/Item"}]},
                    },
                },
                "Kind": {"type": "string", "enum": ["a", "b"]},
                "Pet": {
                    "oneOf": [
                        {"$ref": "#/components/schemas/Item"},
                        {"$ref": "#/components/schemas/Kind"},
                    ],
                    "discriminator": {
                        "propertyName": "kind",
                        "mapping": {"a": "#/components/schemas/Item"},
                    },
                },
            },
        },
    }


def _tokens(pointer: str) -> list[str]:
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


def mutate(doc: dict[str, Any], pointer: str, value: Any = ...) -> dict[str, Any]:
    """A copy of ``doc`` with the value at ``pointer`` replaced (or deleted: no value)."""
    doc = copy.deepcopy(doc)
    *parents, last = _tokens(pointer)
    node: Any = doc
    for token in parents:
        node = node[int(token)] if isinstance(node, list) else node[token]
    if value is ...:
        del node[int(last) if isinstance(node, list) else last]
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return doc


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "specs").mkdir()
    return tmp_path


def save(work: Path, name: str, content: str | bytes | dict[str, Any]) -> Path:
    path = work / "specs" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, dict):
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 20_000))  # PyYAML dumps deep documents recursively
        try:
            content = (
                json.dumps(content)
                if name.endswith(".json")
                else yaml.safe_dump(content, sort_keys=False)
            )
        finally:
            sys.setrecursionlimit(limit)
    if isinstance(content, str):
        content = content.encode()
    path.write_bytes(content)
    return path


def test_the_base_spec_is_valid(work: Path, generated: Path) -> None:
    from tests.fuzz.support import run_cli

    spec = save(work, "spec.yaml", base())
    assert run_cli(["validate", spec]).code == 0


# -- truncated files ------------------------------------------------------------

YAML_CUTS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]


def _quoted_starts(text: str) -> list[int]:
    """Offsets of the double-quoted scalars of a YAML text."""
    return [
        token.start_mark.index
        for token in yaml.scan(text, Loader=yaml.SafeLoader)
        if isinstance(token, yaml.ScalarToken) and token.style == '"'
    ]


@pytest.mark.parametrize("fraction", YAML_CUTS)
def test_truncated_yaml(work: Path, generated: Path, fraction: float) -> None:
    # Cut at the first quoted string past ``fraction`` of the file, one character in: the
    # text then ends inside a string, so no cut can leave a valid (shorter) spec.
    text = SUME.read_text()
    starts = _quoted_starts(text)
    start = next((i for i in starts if i >= len(text) * fraction), starts[-1])
    spec = save(work, "sume.yaml", text[: start + 2])
    found = check_refused_everywhere(spec, work, generated, contains="is not valid YAML")
    # The pointer names where the parser was when the text ran out.
    assert any(p.pointer.startswith("/") for p in found), found


def _json_texts() -> dict[str, str]:
    sume = json.dumps(yaml.safe_load(SUME.read_text()), indent=2, default=str)
    return {"features": FEATURES_JSON.read_text().rstrip(), "sume": sume}


@pytest.mark.parametrize("fraction", [0.01, 0.1, 0.33, 0.5, 0.75, 0.9, 0.999])
@pytest.mark.parametrize("which", ["features", "sume"])
def test_truncated_json(work: Path, generated: Path, which: str, fraction: float) -> None:
    text = _json_texts()[which]
    spec = save(work, "spec.json", text[: int(len(text) * fraction)])
    found = check_refused_everywhere(spec, work, generated, contains="is not valid JSON")
    if fraction >= 0.1:
        assert any(p.pointer.startswith("/") for p in found), found


def test_cut_inside_a_multibyte_character(work: Path, generated: Path) -> None:
    raw = SUME.read_bytes().replace(b"title: Sume API", "title: Sumé API".encode())
    cut = raw.index("é".encode()) + 1
    spec = save(work, "sume.yaml", raw[:cut])
    check_refused_everywhere(spec, work, generated, contains="is not UTF-8")


# -- wrong types at every level -------------------------------------------------

GET = "/paths/~1items~1{item_id}/get"
POST = "/paths/~1items/post"
ITEM = "/components/schemas/Item"

WRONG_TYPES: list[tuple[str, str, Any, str]] = [
    # (id, pointer to replace, new value, pointer a problem must name)
    ("root-list", "", ["openapi"], ""),
    ("openapi-number", "/openapi", 3.1, "/openapi"),
    ("openapi-missing", "/openapi", ..., "/openapi"),
    ("info-list", "/info", ["Base"], "/info"),
    ("info-title-number", "/info/title", 7, "/info/title"),
    ("paths-list", "/paths", ["/items"], "/paths"),
    ("paths-string", "/paths", "/items", "/paths"),
    ("path-item-string", "/paths/~1items", "post", "/paths/~1items"),
    ("path-item-list", "/paths/~1items", [{"post": {}}], "/paths/~1items"),
    ("operation-string", POST, "createItem", POST),
    ("operation-list", POST, ["createItem"], POST),
    ("operation-number", POST, 12, POST),
    ("operation-id-number", POST + "/operationId", 12, POST + "/operationId"),
    ("operation-id-mapping", POST + "/operationId", {"a": 1}, POST + "/operationId"),
    (
        "parameters-mapping",
        GET + "/parameters",
        {"name": "expand", "in": "query"},
        GET + "/parameters",
    ),
    ("path-parameters-mapping", "/paths/~1items~1{item_id}/parameters", {"item_id": {}}, "/paths"),
    ("parameter-number", GET + "/parameters/0", 5, GET + "/parameters/0"),
    ("parameter-name-number", GET + "/parameters/0/name", 5, GET + "/parameters/0"),
    ("parameter-in-list", GET + "/parameters/0/in", ["query"], GET + "/parameters/0/in"),
    ("parameter-schema-number", GET + "/parameters/0/schema", 5, GET + "/parameters/0/schema"),
    (
        "parameter-schema-string",
        GET + "/parameters/0/schema",
        "boolean",
        GET + "/parameters/0/schema",
    ),
    ("schema-number", ITEM, 5, ITEM),
    ("schema-string", ITEM, "object", ITEM),
    ("schema-list", ITEM, [{"type": "object"}], ITEM),
    ("schemas-list", "/components/schemas", [{"Item": {}}], "/components/schemas"),
    ("properties-list", ITEM + "/properties", ["id"], ITEM + "/properties"),
    ("property-number", ITEM + "/properties/id", 5, ITEM + "/properties/id"),
    ("items-number", ITEM + "/properties/tags/items", 5, ITEM + "/properties/tags/items"),
    ("items-string", ITEM + "/properties/tags/items", "string", ITEM + "/properties/tags/items"),
    ("type-unknown", ITEM + "/properties/id/type", "text", ITEM + "/properties/id/type"),
    ("allof-number", ITEM + "/allOf", 1.5, ITEM + "/allOf"),
    ("allof-string", ITEM + "/allOf", "Kind", ITEM + "/allOf"),
    ("responses-missing", GET + "/responses", ..., GET + "/responses"),
    ("responses-list", GET + "/responses", [{"200": {}}], GET + "/responses"),
    ("responses-string", GET + "/responses", "200", GET + "/responses"),
    ("response-schema-number", GET + "/responses/200/content/application~1json/schema", 5, GET),
    ("request-body-without-content", POST + "/requestBody/content", ..., POST + "/requestBody"),
    ("request-body-content-list", POST + "/requestBody/content", ["application/json"], POST),
    ("request-body-string", POST + "/requestBody", "Item", POST + "/requestBody"),
    ("request-body-schema-number", POST + "/requestBody/content/application~1json/schema", 5, POST),
    ("ref-number", ITEM + "/properties/kind/$ref", 5, ITEM + "/properties/kind/$ref"),
    (
        "ref-list",
        ITEM + "/properties/kind/$ref",
        ["#/components/schemas/Kind"],
        ITEM + "/properties/kind",
    ),
    ("ref-mapping", ITEM + "/properties/kind/$ref", {"a": "b"}, ITEM + "/properties/kind"),
    (
        "discriminator-mapping-number",
        "/components/schemas/Pet/discriminator/mapping/a",
        5,
        "/components/schemas/Pet",
    ),
    (
        "api-key-without-name",
        "/components/securitySchemes/key/name",
        ...,
        "/components/securitySchemes/key",
    ),
]


@pytest.mark.parametrize(
    ("pointer", "value", "expected"),
    [pytest.param(p, v, e, id=i) for i, p, v, e in WRONG_TYPES],
)
@pytest.mark.parametrize("suffix", ["yaml", "json"])
def test_wrong_types(
    work: Path, generated: Path, suffix: str, pointer: str, value: Any, expected: str
) -> None:
    doc = value if pointer == "" else mutate(base(), pointer, value)
    content = json.dumps(doc) if suffix == "json" else yaml.safe_dump(doc, sort_keys=False)
    spec = save(work, f"spec.{suffix}", content)
    check_refused_everywhere(spec, work, generated, pointer=expected)


JOB = "/x-jobgen/jobs/job"


@pytest.mark.parametrize(
    ("pointer", "value"),
    [
        (JOB + "/poll/headers", 1.5),
        (JOB + "/poll/headers", True),
        (JOB + "/poll", 5),
        (JOB + "/state", "status"),
        (JOB + "/create", ["createJob"]),
        ("/x-jobgen/jobs", ["job"]),
    ],
)
def test_wrong_types_in_the_job_extension(
    work: Path, generated: Path, pointer: str, value: Any
) -> None:
    sume = yaml.safe_load(SUME.read_text())
    spec = save(work, "sume.yaml", mutate(sume, pointer, value))
    check_refused_everywhere(spec, work, generated, pointer=pointer)


def test_duplicate_operation_ids(work: Path, generated: Path) -> None:
    spec = save(work, "spec.yaml", mutate(base(), POST + "/operationId", "getItem"))
    check_refused_everywhere(spec, work, generated, pointer=POST + "/operationId")


def test_duplicate_keys_in_yaml(work: Path, generated: Path) -> None:
    text = yaml.safe_dump(base(), sort_keys=False).replace(
        "    Kind:\n", "    Pet: {type: string}\n    Kind:\n", 1
    )
    spec = save(work, "spec.yaml", text)
    check_refused_everywhere(
        spec, work, generated, pointer="/components/schemas/Pet", contains="duplicate key"
    )


@pytest.mark.parametrize(
    ("name", "old", "new", "pointer"),
    [
        (
            "spec.json",
            '"Kind": {',
            '"Pet": {"type": "string"}, "Kind": {',
            "/components/schemas/Pet",
        ),
        ("spec.json", '"openapi": "3.1.0"', '"openapi": "3.1.0", "openapi": "3.0.3"', "/openapi"),
        (  # the same key in two objects is fine; the second in one object is not
            "spec.json",
            '"type": "string"',
            '"type": "string", "description": "a", "description": "b"',
            "/paths/~1items~1{item_id}/parameters/0/schema/description",
        ),
        (
            "spec.yaml",
            '"Kind": {',
            '"Pet": {"type": "string"}, "Kind": {',
            "/components/schemas/Pet",
        ),
    ],
)
def test_duplicate_keys_in_json(
    work: Path, generated: Path, name: str, old: str, new: str, pointer: str
) -> None:
    text = json.dumps(base())
    assert old in text
    spec = save(work, name, text.replace(old, new, 1))
    found = check_refused_everywhere(spec, work, generated, contains="duplicate key")
    assert [p.pointer for p in found] == [pointer]
    assert found[0].message.startswith(f"duplicate key '{pointer.rsplit('/', 1)[1]}' (line 1)")


# -- size -------------------------------------------------------------------------------


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(
    work: Path, generated: Path
) -> None:
    spec = work / "specs" / "huge.yaml"
    with spec.open("wb") as file:
        file.truncate(3 << 30)  # sparse: 3 GiB that take no disk space
    tracemalloc.start()
    try:
        found = check_refused_everywhere(spec, work, generated)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = (
        "is 3.0 GiB (3,221,225,472 bytes), over the 64 MiB limit for one file;"
        " set JOBGEN_MAX_SPEC_MIB to raise it"
    )
    assert [p.message for p in found] == [message]
    assert peak < 32 << 20  # the file was never read whole


def test_size_limit_applies_to_referenced_and_side_files(
    work: Path, generated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    padding = "#" + "x" * (1 << 20) + "\n"  # a 1 MiB comment
    kind = save(work, "kind.yaml", "Kind: {type: string}\n" + padding)
    at = ITEM + "/properties/kind"
    spec = save(work, "spec.yaml", mutate(base(), at + "/$ref", "./kind.yaml#/Kind"))
    side = save(work, "side.yaml", padding)
    assert run_cli(["validate", spec]).code == 0
    monkeypatch.setenv("JOBGEN_MAX_SPEC_MIB", "1")
    found = check_refused_everywhere(spec, work, generated, files=[spec, kind])
    assert found[0].file == str(kind) and "over the 1 MiB limit" in found[0].message
    found = check_refused_everywhere(
        save(work, "plain.yaml", base()), work, generated, files=[side], extra=["--jobs", side]
    )
    assert "over the 1 MiB limit" in found[0].message


@pytest.mark.parametrize("value", ["0", "lots", "-1", "1.5", "99999999"])
def test_a_bad_size_limit_setting_is_named(
    work: Path, generated: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("JOBGEN_MAX_SPEC_MIB", value)
    check_refused_everywhere(
        save(work, "spec.yaml", base()), work, generated, contains="JOBGEN_MAX_SPEC_MIB must be"
    )


# -- broken and circular references -----------------------------------------------

BROKEN_REFS = [
    ("missing-target", "#/components/schemas/Missing"),
    ("not-a-pointer", "#components/schemas/Kind"),
    ("through-a-scalar", "#/components/schemas/Kind/type/deeper"),
    ("index-out-of-range", "#/components/schemas/Pet/oneOf/9"),
    ("unicode-digit-index", "#/components/schemas/Pet/oneOf/\u00b2"),
    ("remote", "https://example.com/schemas.yaml#/Kind"),
    ("file-scheme", "file:///etc/passwd"),
    ("nul-byte", "./a\x00b.yaml#/Kind"),
    ("percent-nul", "./a%00b.yaml#/Kind"),
    ("long-name", "./" + "x" * 5000 + ".yaml#/Kind"),
    ("missing-file", "./nowhere.yaml#/Kind"),
    ("missing-folder", "./no/such/dir/kind.yaml#/Kind"),
    ("folder", "./#/Kind"),
    ("other-file-bad-pointer", "./spec.yaml#/components/schemas/Nope"),
]


@pytest.mark.parametrize(("ref",), [pytest.param(r, id=i) for i, r in BROKEN_REFS])
def test_broken_refs(work: Path, generated: Path, ref: str) -> None:
    at = ITEM + "/properties/kind"
    spec = save(work, "spec.yaml", mutate(base(), at + "/$ref", ref))
    check_refused_everywhere(spec, work, generated, pointer=at)


CYCLES: list[tuple[str, str, Any]] = [
    ("schema-self", "/components/schemas/Kind", {"$ref": "#/components/schemas/Kind"}),
    ("schema-pair", "/components/schemas/Kind", {"$ref": "#/components/schemas/Other"}),
    ("path-item", "/paths/~1items", {"$ref": "#/paths/~1items"}),
    ("operation", POST, {"$ref": "#/paths/~1items/post"}),
    ("parameter", GET + "/parameters/0", {"$ref": "#/paths/~1items~1{item_id}/get/parameters/0"}),
    ("request-body", POST + "/requestBody", {"$ref": "#/paths/~1items/post/requestBody"}),
    ("response", GET + "/responses/200", {"$ref": "#/paths/~1items~1{item_id}/get/responses/200"}),
]


@pytest.mark.parametrize(("pointer", "value"), [pytest.param(p, v, id=i) for i, p, v in CYCLES])
def test_circular_refs(work: Path, generated: Path, pointer: str, value: Any) -> None:
    doc = mutate(base(), pointer, value)
    doc["components"]["schemas"]["Other"] = {"$ref": "#/components/schemas/Kind"}
    spec = save(work, "spec.yaml", doc)
    check_refused_everywhere(spec, work, generated, pointer=pointer)


def test_circular_refs_across_files(work: Path, generated: Path) -> None:
    doc = mutate(base(), "/components/schemas/Kind", {"$ref": "./a.yaml#/A"})
    spec = save(work, "spec.yaml", doc)
    a = save(work, "a.yaml", {"A": {"$ref": "./sub/b.yaml#/B"}})
    b = save(work, "sub/b.yaml", {"B": {"$ref": "../spec.yaml#/components/schemas/Kind"}})
    found = check_refused_everywhere(spec, work, generated, files=[a, b], contains="cycle")
    assert found


def test_missing_and_malformed_referenced_files(work: Path, generated: Path) -> None:
    doc = base()
    doc["components"]["schemas"].update(
        {
            "A": {"$ref": "./gone.yaml#/A"},
            "B": {"$ref": "./cut.yaml#/B"},
            "C": {"$ref": "./latin1.yaml#/C"},
            "D": {"$ref": "./bomb.yaml#/D"},
            "E": {"$ref": "./empty.yaml#/E"},
        }
    )
    spec = save(work, "spec.yaml", doc)
    cut = save(work, "cut.yaml", "B:\n  type: object\n  properties: {a: [")
    latin1 = save(work, "latin1.yaml", b"C: {type: string, description: caf\xe9}\n")
    bomb = save(work, "bomb.yaml", _alias_bomb())
    empty = save(work, "empty.yaml", "")
    found = check_refused_everywhere(spec, work, generated, files=[cut, latin1, bomb, empty])
    text = "\n".join(f"{p.file}#{p.pointer}: {p.message}" for p in found)
    # The first problem stops the load, so the schemas report in turn: each names its file.
    assert "gone.yaml not found" in text or str(cut) in text or str(latin1) in text, text


# -- refs that leave the spec's folder ----------------------------------------------


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "secret.yaml"
    secret.write_text("Kind: {type: string}\n")
    return secret


def _escape_refs(work: Path, outside: Path) -> list[tuple[str, str]]:
    os.symlink(outside, work / "specs" / "link.yaml")
    os.symlink(outside.parent, work / "specs" / "linkdir")
    return [
        ("parent", "../secret.yaml#/Kind"),
        ("parent-via-subfolder", "./sub/../../secret.yaml#/Kind"),
        ("percent-encoded", "..%2Fsecret.yaml#/Kind"),
        ("absolute", f"{outside}#/Kind"),
        ("symlink-to-file", "./link.yaml#/Kind"),
        ("symlink-to-folder", "./linkdir/secret.yaml#/Kind"),
    ]


@pytest.mark.parametrize(
    "case",
    [
        "parent",
        "parent-via-subfolder",
        "percent-encoded",
        "absolute",
        "symlink-to-file",
        "symlink-to-folder",
    ],
)
def test_refs_outside_the_spec_folder(
    work: Path, generated: Path, outside: Path, case: str
) -> None:
    # ``work/specs`` holds the spec; ``outside`` is ``work/secret.yaml``.
    ref = dict(_escape_refs(work, outside))[case]
    at = ITEM + "/properties/kind"
    spec = save(work, "spec.yaml", mutate(base(), at + "/$ref", ref))
    check_refused_everywhere(
        spec, work, generated, pointer=at, contains="outside the spec's folder"
    )


# -- files that are not specs ---------------------------------------------------------


def _alias_bomb(levels: int = 9) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [
        f"a{i}: &a{i} [{', '.join(f'*a{i - 1}' for _ in range(10))}]" for i in range(1, levels)
    ]
    return "\n".join(lines) + "\n"


def _alias_dag(levels: int = 20) -> str:
    """Schemas whose two properties alias the level below: 2**20 schemas once expanded."""
    lines = ["openapi: 3.1.0", "info: {title: Dag, version: '1'}", "components:", "  schemas:"]
    lines.append("    S0: &s0 {type: string}")
    for i in range(1, levels):
        lines.append(
            f"    S{i}: &s{i} {{type: object, properties: {{a: *s{i - 1}, b: *s{i - 1}}}}}"
        )
    return "\n".join(lines) + "\n"


NOT_SPECS: list[tuple[str, str, bytes, str, str | None]] = [
    # (id, file name, content, pointer a problem names, words in its message)
    ("empty", "spec.yaml", b"", "", "mapping"),
    ("only-comments", "spec.yaml", b"# nothing here\n", "", "mapping"),
    ("scalar", "spec.yaml", b"just some text\n", "", "mapping"),
    ("number", "spec.yaml", b"42\n", "", "mapping"),
    ("null", "spec.yaml", b"~\n", "", "mapping"),
    ("list", "spec.yaml", b"- openapi\n", "", "mapping"),
    ("json-scalar", "spec.json", b'"openapi"', "", "mapping"),
    ("json-empty", "spec.json", b"", "", "not valid JSON"),
    (
        "latin-1",
        "spec.yaml",
        b"openapi: 3.1.0\ninfo: {title: caf\xe9, version: '1'}\n",
        "",
        "UTF-8",
    ),
    ("utf-16", "spec.yaml", "openapi: 3.1.0\n".encode("utf-16"), "", "UTF-8"),
    ("nul-bytes", "spec.yaml", b"openapi: 3.1.0\x00\n", "", "not valid YAML"),
    ("control-chars", "spec.yaml", b"openapi: 3.1.0\ninfo: {title: \x07}\n", "", "not valid YAML"),
    ("two-documents", "spec.yaml", b"openapi: 3.1.0\n---\nopenapi: 3.1.0\n", "", "more than one"),
    ("alias-bomb", "spec.yaml", _alias_bomb().encode(), "/a", "YAML aliases"),
    ("alias-dag", "spec.yaml", _alias_dag().encode(), "/components/schemas/S", "YAML aliases"),
    ("recursive-alias", "spec.yaml", b"openapi: 3.1.0\nx: &a [1, *a]\n", "/x/1", "recursive"),
    ("undefined-alias", "spec.yaml", b"openapi: 3.1.0\nx: *nowhere\n", "/x", "no anchor"),
    ("merge-of-scalar", "spec.yaml", b"openapi: 3.1.0\nx: {<<: 5}\n", "/x/<<", "merge"),
    ("complex-key", "spec.yaml", b"openapi: 3.1.0\n? [a, b]\n: c\n", "", "mapping key"),
    (
        "python-object",
        "spec.yaml",
        b"x: !!python/object/apply:os.system ['touch SENTINEL']\n",
        "/x",
        "tag",
    ),
    (
        "python-name",
        "spec.yaml",
        b"openapi: 3.1.0\nx: {y: !!python/name:os.system }\n",
        "/x/y",
        "tag",
    ),
    ("binary", "spec.yaml", b"openapi: 3.1.0\nx: !!binary aGVsbG8=\n", "/x", "tag"),
    ("set", "spec.yaml", b"openapi: 3.1.0\nx: !!set {a, b}\n", "/x", "tag"),
    ("timestamp-tag", "spec.yaml", b"openapi: 3.1.0\nx: !!timestamp 2020-01-01\n", "/x", "tag"),
    ("local-tag", "spec.yaml", b"openapi: 3.1.0\nx: [1, !Ref y]\n", "/x/1", "tag"),
    ("tagged-key", "spec.yaml", b"openapi: 3.1.0\nx: {!!binary aGk=: 1}\n", "/x", "tag"),
    ("bad-int-tag", "spec.yaml", b"openapi: 3.1.0\nx: !!int twelve\n", "/x", "!!int"),
    ("yaml-nan", "spec.yaml", b"openapi: 3.1.0\nx: {const: .nan}\n", "/x/const", "JSON"),
    ("yaml-inf", "spec.yaml", b"openapi: 3.1.0\nx: [-.inf]\n", "/x/0", "JSON"),
    ("yaml-huge-float", "spec.yaml", b"openapi: 3.1.0\nx: 1e999\n", "/x", "out of range"),
    (
        "yaml-huge-int",
        "spec.yaml",
        b"openapi: 3.1.0\nx: " + b"9" * 5000 + b"\n",
        "/x",
        "4300 digits",
    ),
    ("json-nan", "spec.json", b'{"openapi": "3.1.0", "x": {"NaN": NaN}}', "/x/NaN", "NaN"),
    ("json-infinity", "spec.json", b'{"x": "-Infinity", "y": [1, -Infinity]}', "/y/1", "Infinity"),
    ("json-huge-float", "spec.json", b'{"openapi": "3.1.0", "x": [1e999]}', "/x/0", "out of range"),
    ("json-huge-int", "spec.json", b'{"x": {"y": ' + b"9" * 5000 + b"}}", "/x/y", "4300 digits"),
    (
        "json-surrogate",
        "spec.json",
        b'{"openapi": "3.1.0", "x": {"y": ["\\ud800"]}}',
        "/x/y/0",
        "surrogate",
    ),
    (
        "json-surrogate-key",
        "spec.json",
        b'{"openapi": "3.1.0", "x": {"\\udfff": 1}}',
        "/x",
        "surrogate",
    ),
]


@pytest.mark.parametrize(
    ("name", "content", "pointer", "contains"),
    [pytest.param(n, c, p, w, id=i) for i, n, c, p, w in NOT_SPECS],
)
def test_not_a_spec(
    work: Path, generated: Path, name: str, content: bytes, pointer: str, contains: str | None
) -> None:
    sentinel = work / "pwned"
    spec = save(work, name, content.replace(b"SENTINEL", str(sentinel).encode()))
    check_refused_everywhere(spec, work, generated, pointer=pointer, contains=contains)
    assert not sentinel.exists()


def test_a_directory_as_the_spec(work: Path, generated: Path) -> None:
    check_refused_everywhere(work / "specs", work, generated, contains="directory")


def test_a_missing_spec(work: Path, generated: Path) -> None:
    check_refused_everywhere(work / "specs" / "nope.yaml", work, generated, contains="not found")


def test_a_fifo_as_the_spec(work: Path, generated: Path) -> None:
    fifo = work / "specs" / "fifo.yaml"
    os.mkfifo(fifo)
    check_refused_everywhere(fifo, work, generated, contains="not a regular file")


# -- deep nesting -----------------------------------------------------------------------

DEPTH = 3000


def _deep_yaml_flow() -> str:
    return "openapi: 3.1.0\nx: " + "[" * DEPTH + "]" * DEPTH + "\n"


def _deep_yaml_block() -> str:
    return "openapi: 3.1.0\nx:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, DEPTH))


def _deep_json() -> str:
    return '{"openapi": "3.1.0", "x": ' + '{"a": ' * DEPTH + "1" + "}" * DEPTH + "}"


NESTED = 300  # schemas inside schemas: 600 levels of YAML, far past the loader's limit


def _deep_inline_properties() -> dict[str, Any]:
    doc = base()
    node = doc["components"]["schemas"]["Item"]["properties"]
    for _ in range(NESTED):
        node["next"] = {"type": "object", "properties": {}}
        node = node["next"]["properties"]
    return doc


def _deep_inline_items() -> dict[str, Any]:
    doc = base()
    node = doc["components"]["schemas"]["Item"]["properties"]["tags"]
    for _ in range(NESTED):
        node["items"] = {"type": "array"}
        node = node["items"]
    return doc


@pytest.mark.parametrize(
    ("name", "make", "pointer"),
    [
        # Newer libyaml stops flow nesting itself while scanning ahead: the pointer is
        # then where the parse had got to.
        pytest.param("spec.yaml", _deep_yaml_flow, "/x/0", id="yaml-flow"),
        pytest.param("spec.yaml", _deep_yaml_block, "/x/k1/k2", id="yaml-block"),
        pytest.param("spec.json", _deep_json, "/x/a/a", id="json"),
        pytest.param(
            "spec.yaml", _deep_inline_properties, ITEM + "/properties/next", id="properties"
        ),
        pytest.param("spec.json", _deep_inline_items, ITEM + "/properties/tags/items", id="items"),
    ],
)
def test_nesting_thousands_deep(
    work: Path, generated: Path, name: str, make: Callable[[], Any], pointer: str
) -> None:
    spec = save(work, name, make())
    check_refused_everywhere(spec, work, generated, pointer=pointer, contains="nests deeper")


CHAIN = 2000


def _chain(kind: str, index: int, target: str) -> dict[str, Any]:
    ref = {"$ref": target}
    if kind == "properties":
        return {"type": "object", "properties": {"next": ref}}
    if kind == "items":
        return {"type": "array", "items": ref}
    return {"allOf": [ref, {"type": "object", "properties": {f"p{index}": {"type": "string"}}}]}


@pytest.mark.parametrize("kind", ["properties", "items", "allOf"])
def test_nesting_through_refs_in_one_file(work: Path, generated: Path, kind: str) -> None:
    doc = base()
    schemas = doc["components"]["schemas"]
    schemas["Item"]["properties"]["chain"] = {"$ref": "#/components/schemas/S0"}
    for i in range(CHAIN):
        schemas[f"S{i}"] = _chain(kind, i, f"#/components/schemas/S{i + 1}")
    schemas[f"S{CHAIN}"] = {"type": "string"}
    spec = save(work, "spec.json", doc)
    check_refused_everywhere(spec, work, generated, contains="deep")


@pytest.mark.parametrize("kind", ["properties", "items", "allOf"])
def test_nesting_through_refs_across_files(work: Path, generated: Path, kind: str) -> None:
    doc = mutate(base(), ITEM + "/properties/kind", {"$ref": "./s/0.yaml"})
    spec = save(work, "spec.yaml", doc)
    files = [spec]
    for i in range(CHAIN):
        files.append(save(work, f"s/{i}.yaml", _chain(kind, i, f"./{i + 1}.yaml")))
    files.append(save(work, f"s/{CHAIN}.yaml", {"type": "string"}))
    check_refused_everywhere(spec, work, generated, files=files, contains="deep")


# -- the side file of job declarations, and --check -------------------------------------


@pytest.mark.parametrize(
    ("name", "content", "contains"),
    [
        ("gone.yaml", None, "not found"),
        ("cut.yaml", b"jobs:\n  job: {create: [", "not valid YAML"),
        ("latin1.yaml", b"jobs: {caf\xe9: 1}\n", "UTF-8"),
        ("bomb.yaml", _alias_bomb().encode(), "YAML aliases"),
        ("tag.yaml", b"jobs: !!python/object/apply:os.system [id]\n", "tag"),
        ("empty.yaml", b"", "the side file is empty"),
        ("comments.yaml", b"# jobs: to do\n", "the side file is empty"),
    ],
)
def test_broken_side_files(
    work: Path, generated: Path, name: str, content: bytes | None, contains: str
) -> None:
    spec = save(work, "spec.yaml", base())
    side = work / "specs" / name
    if content is not None:
        side.write_bytes(content)
    check_refused_everywhere(
        spec, work, generated, files=[side], contains=contains, extra=["--jobs", side]
    )


def test_check_mode_refuses_a_malformed_spec(work: Path, generated: Path) -> None:
    spec = save(work, "sume.yaml", SUME.read_bytes()[:2000])
    assert_refused(["generate", spec, "-o", generated, "--check"], files=[spec])


def test_symlink_loops(work: Path, generated: Path) -> None:
    folder = work / "specs"
    os.symlink(folder / "loop-b.yaml", folder / "loop-a.yaml")
    os.symlink(folder / "loop-a.yaml", folder / "loop-b.yaml")
    at = ITEM + "/properties/kind"
    spec = save(work, "spec.yaml", mutate(base(), at + "/$ref", "./loop-a.yaml#/Kind"))
    check_refused_everywhere(spec, work, generated, pointer=at)
    check_refused_everywhere(folder / "loop-a.yaml", work, generated)
