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


#: The longest function or method a reader should have to hold in view at once.
MAX_FUNCTION_LINES = 100


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_module_says_what_it_is_for_and_its_functions_fit_in_view(path: Path) -> None:
    """What a cap on module length stood for: a reader learns from the module's first
    docstring sentence what it is for, and reads every function of it whole."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    summary = (ast.get_docstring(tree) or "").split("\n\n")[0]
    assert summary.rstrip().endswith((".", ":")), f"{path.name}: no one-paragraph summary"
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == [], f"{path.name}: split {', '.join(long)}"


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
