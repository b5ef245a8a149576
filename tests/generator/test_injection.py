"""Spec text found to reach generated code unescaped on main, checked end to end.

An apiKey parameter name and a server URL landed in docstrings (a triple quote ended
them; a backslash gave W605), and the spec's file name ended the header comment of
every file and of pyproject.toml.
"""

from __future__ import annotations

import ast
import inspect
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

from tests.fuzz.support import run_cli
from tests.helpers import imported_sdk, own_modules, write


def _spec(**overrides: object) -> dict[str, object]:
    spec: dict[str, object] = {
        "openapi": "3.1.0",
        "info": {"title": "Hole", "version": "1.0"},
        "paths": {
            "/things": {
                "get": {
                    "operationId": "listThings",
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    spec.update(overrides)
    return spec


def _lint(root: Path) -> None:
    """ruff (pyflakes, pycodestyle errors, W605, isort) and its formatter find nothing."""
    for command in (["check", "--select", "E4,E7,E9,F,W6,I"], ["format", "--check"]):
        proc = subprocess.run(
            [sys.executable, "-m", "ruff", *command, "--isolated", "--target-version", "py39"]
            + ["--no-cache", str(root)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr


API_KEY_NAME = 'X-Key"""\n__import__("os").system("echo pwned")\n"""'


def test_an_api_key_name_stays_in_the_docstring(tmp_path: Path) -> None:
    # A query parameter's name may hold anything; a header's is refused (test_names).
    spec = _spec(
        components={
            "securitySchemes": {"key": {"type": "apiKey", "in": "query", "name": API_KEY_NAME}}
        },
        security=[{"key": []}],
    )
    path = write(tmp_path / "spec.yaml", yaml.safe_dump(spec))
    with imported_sdk(path, tmp_path / "out", "hole_sdk") as sdk:
        assert repr(API_KEY_NAME) in (sdk.Client.__doc__ or "")
    _lint(tmp_path / "out")


SERVER_URL = 'https://api.example/v1"""\\d\n__import__("os")'


def test_a_server_url_is_a_value_not_code(tmp_path: Path) -> None:
    spec = _spec(servers=[{"url": SERVER_URL}])
    path = write(tmp_path / "spec.json", json.dumps(spec))
    with imported_sdk(path, tmp_path / "out", "hole_sdk") as sdk:
        default = inspect.signature(sdk.Client.__init__).parameters["base_url"].default
        assert default == SERVER_URL
    _lint(tmp_path / "out")


def _calls_os_system(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "system"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "os"
    )


def test_the_spec_file_name_cannot_end_the_header_comment(tmp_path: Path) -> None:
    name = 'evil\nimport os\nos.system("echo pwned")\n[tool.x]\n.yaml'
    path = write(tmp_path / name, yaml.safe_dump(_spec()))
    out = tmp_path / "out"
    result = run_cli(["generate", path, "-o", out, "--package", "hole_sdk"])
    assert result.code == 0, result.stderr
    for file in out.rglob("*.py"):
        tree = ast.parse(file.read_text(encoding="utf-8"))
        assert not any(_calls_os_system(node) for node in ast.walk(tree)), file
    for file in own_modules(out / "hole_sdk"):  # the runtime's own modules may import os
        tree = ast.parse(file.read_text(encoding="utf-8"))
        assert not any(
            isinstance(node, ast.Import) and node.names[0].name == "os" for node in tree.body
        ), file
    pyproject = tomllib.loads((out / "pyproject.toml").read_text(encoding="utf-8"))
    assert set(pyproject) == {"build-system", "project", "tool"}
    assert set(pyproject["tool"]) == {"setuptools"}
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert "\nimport os" not in readme
    _lint(out)
