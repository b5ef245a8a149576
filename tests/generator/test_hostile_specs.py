"""Spec text is untrusted: nothing in it may become code in the generated SDK."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import sys
from pathlib import Path

import yaml

from jobgen.pipeline import Target, generate
from tests.helpers import write

PAYLOADS = [
    '"""; __import__("pathlib").Path(SENTINEL).touch(); """',
    "'''; __import__('pathlib').Path(SENTINEL).touch(); '''",
    "\\\"; __import__('pathlib').Path(SENTINEL).touch() #",
    "{{ __import__('pathlib').Path(SENTINEL).touch() }}{% raw %}",
    "x\n__import__('pathlib').Path(SENTINEL).touch()\n",
    "\\",
]


def hostile_spec(sentinel: Path) -> dict[str, object]:
    p = [payload.replace("SENTINEL", repr(str(sentinel))) for payload in PAYLOADS]
    props = {text: {"type": "string", "description": text, "default": text} for text in p}
    return {
        "openapi": "3.1.0",
        "info": {"title": p[0], "version": p[1], "description": p[2]},
        "servers": [{"url": "https://x.example/" + p[3]}],
        "paths": {
            "/things/{" + "id" + "}": {
                "get": {
                    "operationId": p[4],
                    "tags": [p[0]],
                    "summary": p[1],
                    "description": p[2],
                    "parameters": [
                        {
                            "name": "id",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string"},
                            "description": p[3],
                        },
                        {
                            "name": p[5],
                            "in": "query",
                            "schema": {"type": "string", "default": p[0]},
                        },
                        # (A header's name must be a token: test_names.)
                        {"name": p[2], "in": "query", "schema": {"type": "string"}},
                    ],
                    "responses": {
                        "200": {
                            "description": p[4],
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/" + "Evil"}
                                }
                            },
                        }
                    },
                }
            }
        },
        "components": {
            "securitySchemes": {p[1]: {"type": "apiKey", "in": "query", "name": p[2]}},
            "schemas": {
                "Evil": {
                    "type": "object",
                    "title": p[0],
                    "description": p[1],
                    "properties": {**props, "state": {"type": "string", "enum": p}},
                },
                p[3]: {"type": "string", "enum": p, "description": p[4]},
                p[4]: {
                    "oneOf": [{"$ref": "#/components/schemas/Evil"}],
                    "discriminator": {"propertyName": p[0]},
                },
            },
        },
        "security": [{p[1]: []}],
    }


def test_hostile_spec_generates_inert_code(tmp_path: Path) -> None:
    sentinel = tmp_path / "pwned"
    spec = write(tmp_path / "evil.yaml", yaml.safe_dump(hostile_spec(sentinel)))
    out = tmp_path / "out"
    generate(Target(spec=spec, output=out, package="evil_sdk"))

    for path in (out / "evil_sdk").rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                assert node.id != "__import__", f"spec text became code in {path}"
            if isinstance(node, ast.Attribute):
                assert node.attr != "touch", f"spec text became code in {path}"

    sys.path.insert(0, str(out))
    try:
        package = importlib.import_module("evil_sdk")
        for info in pkgutil.walk_packages(package.__path__, "evil_sdk."):
            importlib.import_module(info.name)
        from evil_sdk.models import Evil

        values = {payload.replace("SENTINEL", repr(str(sentinel))): "v" for payload in PAYLOADS}
        assert Evil.from_dict(values).to_dict() == values
    finally:
        sys.path.remove(str(out))
        for name in [n for n in sys.modules if n.startswith("evil_sdk")]:
            del sys.modules[name]
    assert not sentinel.exists()
