"""The runtime is copied verbatim into every SDK: keep it self-contained and the twins alike."""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path

import pytest

from jobgen import runtime
from jobgen.runtime.waiter import AsyncJobWaiter, SyncJobWaiter

RUNTIME = Path(runtime.__file__).parent
MODULES = sorted(RUNTIME.glob("*.py"))
ALLOWED = {"httpx", "attrs", "tenacity"}
# Type checkers always have typing_extensions (typeshed); the runtime never imports it.
TYPE_CHECKING_ONLY = {"typing_extensions"}


@pytest.mark.skipif(sys.version_info < (3, 10), reason="needs sys.stdlib_module_names")
@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_module_is_self_contained(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert ast.get_docstring(tree), "every runtime module starts with a docstring"
    assigned = {
        t.id
        for n in tree.body
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    assert "__all__" in assigned, "every runtime module declares __all__"
    checking_only = {
        id(inner)
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
        for inner in ast.walk(node)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if id(node) in checking_only and top in TYPE_CHECKING_ONLY:
                continue
            assert top in ALLOWED or top in sys.stdlib_module_names, f"{path.name}: {name}"
    assert len(path.read_text(encoding="utf-8").splitlines()) < 500


def test_public_names_exist() -> None:
    for name in runtime.__all__:
        assert hasattr(runtime, name), name


@pytest.mark.parametrize(
    "name", ["wait_for_job", "wait_for_result", "create_and_wait", "wait_for_jobs"]
)
def test_twins_share_signatures(name: str) -> None:
    sync = inspect.signature(getattr(SyncJobWaiter, name))
    async_ = inspect.signature(getattr(AsyncJobWaiter, name))
    assert [(p.name, p.kind, p.default) for p in sync.parameters.values()] == [
        (p.name, p.kind, p.default) for p in async_.parameters.values()
    ]
    is_coroutine = inspect.iscoroutinefunction(getattr(AsyncJobWaiter, name))
    assert is_coroutine == (name != "wait_for_jobs")
