"""The runtime is copied verbatim into every SDK: keep it self-contained and the twins alike."""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path

import pytest

from jobgen import runtime
from jobgen.runtime.waiting.waiter import AsyncJobWaiter, SyncJobWaiter

RUNTIME = Path(runtime.__file__).parent
# Every module of the runtime, in its subpackages too.
MODULES = sorted(RUNTIME.rglob("*.py"))
ALLOWED = {"httpx", "attrs", "tenacity"}
# Type checkers always have typing_extensions (typeshed); the runtime never imports it.
TYPE_CHECKING_ONLY = {"typing_extensions"}


@pytest.mark.skipif(sys.version_info < (3, 10), reason="needs sys.stdlib_module_names")
@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(RUNTIME)))
def test_module_is_self_contained(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert ast.get_docstring(tree), "every runtime module starts with a docstring"
    assigned = {
        t.id
        for n in tree.body
        if isinstance(n, (ast.Assign, ast.AnnAssign))
        for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
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
            assert top in ALLOWED or top in sys.stdlib_module_names, (
                f"{path.relative_to(RUNTIME)}: {name}"
            )


#: The runtime's subpackages, lowest first: a module imports from its own group or a lower
#: one, never from a higher one or a sibling of the same rank (no circle between groups).
LAYERS = {"shared": 0, "wire": 1, "http": 2, "waiting": 3, "webhooks": 4, "fleet": 4}


def test_the_groups_are_the_runtime_packages() -> None:
    folders = {p.name for p in RUNTIME.iterdir() if (p / "__init__.py").is_file()}
    assert folders == set(LAYERS)
    assert [p.name for p in RUNTIME.glob("*.py")] == ["__init__.py"]


@pytest.mark.parametrize(
    "path",
    [p for p in MODULES if p.parent != RUNTIME],
    ids=lambda p: str(p.relative_to(RUNTIME)),
)
def test_a_group_imports_only_from_itself_and_the_groups_below(path: Path) -> None:
    group = path.relative_to(RUNTIME).parts[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            assert node.level <= 2, f"{path.relative_to(RUNTIME)}:{node.lineno}"
            if node.level == 2:
                names = [alias.name for alias in node.names]
                for target in [node.module.split(".")[0]] if node.module else names:
                    assert LAYERS[target] < LAYERS[group], (
                        f"{path.relative_to(RUNTIME)}:{node.lineno} imports {target}"
                    )


#: The longest function or method a reader should have to hold in view at once.
MAX_FUNCTION_LINES = 100


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(RUNTIME)))
def test_module_says_what_it_is_for_and_its_functions_fit_in_view(path: Path) -> None:
    """What a cap on module length stood for: a reader learns from the module's first
    docstring sentence what it is for, and reads every function of it whole."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    summary = (ast.get_docstring(tree) or "").split("\n\n")[0]
    assert summary.rstrip().endswith((".", ":")), (
        f"{path.relative_to(RUNTIME)}: no one-paragraph summary"
    )
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == [], f"{path.relative_to(RUNTIME)}: split {', '.join(long)}"


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
