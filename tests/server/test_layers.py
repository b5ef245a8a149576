"""The server's modules import one way: routing on top, then control and webhook
deliveries, then the jobs and their store. A module never imports one above it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers import ROOT

SERVER = ROOT / "generator" / "server"

# Each module, and the modules of the server it may not import (directly or lazily).
ABOVE = {
    "jobs": {"app", "control", "webhooks", "runner"},
    "store": {"app", "control", "webhooks", "jobs", "kinds", "runner"},
    "kinds": {"app", "control", "webhooks", "jobs", "runner"},
    "webhooks": {"app", "control", "runner"},
    "control": {"app", "runner"},
}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            names.add(node.module.split(".")[0])
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and "jobgen.server." in (node.module + ".")
        ):
            names.add(node.module.removeprefix("jobgen.server.").split(".")[0])
    return names


@pytest.mark.parametrize("module", sorted(ABOVE))
def test_a_lower_module_imports_nothing_above_it(module: str) -> None:
    assert _imports(SERVER / f"{module}.py") & ABOVE[module] == set()
