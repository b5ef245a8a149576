"""Job declarations have one home: ``generator/model/declare``, one reader per source over
shared public helpers, no module borrowing another's private names, no import circle."""

from __future__ import annotations

import ast
from pathlib import Path

GENERATOR = Path(__file__).resolve().parents[2] / "generator"
DECLARE = GENERATOR / "model" / "declare"


def _modules(root: Path) -> dict[str, ast.Module]:
    return {
        str(path.relative_to(GENERATOR.parent)): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(root.rglob("*.py"))
    }


def _local_imports(tree: ast.Module) -> list[ast.ImportFrom]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level]


def test_no_module_of_the_model_imports_another_modules_private_names() -> None:
    borrowed = [
        f"{path}:{node.lineno} imports {alias.name} from {'.' * node.level}{node.module or ''}"
        for path, tree in _modules(GENERATOR / "model").items()
        for node in _local_imports(tree)
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__")
    ]
    assert borrowed == []


#: The one exception: ``dialects`` loads a dialect's reader only for a spec that shows its
#: mark, so a plain generation does not import it (the circle test below reads these too).
LOADED_WHEN_USED = {("generator/model/declare/dialects.py", m) for m in ("aip151", "speakeasy")}


def test_declaration_readers_import_at_module_level_only() -> None:
    """An import inside a function is how a circle hides; the readers have none."""
    hidden = [
        f"{path}:{node.lineno}"
        for path, tree in _modules(DECLARE).items()
        for func in ast.walk(tree)
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef))
        for node in ast.walk(func)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        and (path, getattr(node, "module", None)) not in LOADED_WHEN_USED
    ]
    assert hidden == []


def test_the_declaration_modules_import_each_other_without_a_circle() -> None:
    names = {path.stem for path in DECLARE.glob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in names}
    for path in DECLARE.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in _local_imports(tree):
            if node.level == 1 and node.module in names:
                graph[path.stem].add(node.module)
            if node.level == 1 and node.module is None:
                graph[path.stem].update(a.name for a in node.names if a.name in names)
    assert "__init__" not in {dep for deps in graph.values() for dep in deps}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(
            dep == goal or (dep not in seen and reaches(dep, goal, seen | {dep}))
            for dep in graph[start]
        )

    assert [name for name in sorted(names) if reaches(name, name, set())] == []
    # The shared helpers depend on no reader.
    assert graph["common"] == set()


def test_no_declaration_reader_is_left_outside_its_home() -> None:
    outside = {path.name for path in (GENERATOR / "model").glob("*.py")}
    assert outside.isdisjoint({"jobs.py", "carry.py", "opurl.py", "webhooks.py"})
