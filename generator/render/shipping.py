"""Which runtime modules an SDK ships: those its generated code imports, and theirs.

The features of the intermediate model (jobs, webhooks, event streams, carried values,
pagination, OAuth 2, ...) decide what the templates write, and so which runtime modules
the generated modules import. The SDK ships the closure of those over the runtime's own
relative imports, each import statement read with ``ast``: every one, at module level,
inside functions and under ``TYPE_CHECKING`` (the SDK is type-checked too). No module is listed
by hand, so a module added to or split off the runtime is picked up as it is imported.
The runtime is grouped in subpackages by concern (``shared``, ``wire``, ``http``,
``waiting``, ``webhooks``, ``fleet``): a module is named by its dotted path below it
(``waiting.core``), and a subpackage's ``__init__`` ships with any module under it.
The runtime package's ``__init__`` is rewritten to name only what ships.

What the import statements say is surveyed once per runtime version: the survey of the
runtime this package holds is stored beside this module (``runtime_index.json``), with a
digest of the runtime's sources, and used while the digest matches; a runtime that differs
(being edited, or another folder) is surveyed anew. ``python -m jobgen.render.shipping``
writes the stored survey again; a test fails while it is stale.
"""

from __future__ import annotations

import ast
import functools
import json
import re
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..model import ir

__all__ = [
    "INDEX",
    "Features",
    "closure",
    "error_bases",
    "imported",
    "names_from",
    "path_of",
    "runtime_init",
    "source_of",
    "survey",
]

# The stored survey of the runtime this package holds (see the module's docstring).
INDEX = Path(__file__).with_name("runtime_index.json")
_RUNTIME = Path(__file__).resolve().parent.parent / "runtime"

# ``from ._runtime.waiting.handle import ...`` / ``from .._runtime.wire import serde as _s``
# in a generated module (found by its literal start, which is fast; ``imported`` checks it
# begins its line).
_IMPORT = re.compile(r"from \.+_runtime((?:\.\w+)*) import[ \t]+(\([^)]*\)|[^\n]*)")
_NAME = re.compile(r"(\w+)(?:\s+as\s+\w+)?")


class Features:
    """What an SDK's public surface offers beyond plain calls, from its model."""

    def __init__(self, sdk: ir.Sdk) -> None:
        ops = [op for resource in sdk.resources for op in resource.operations]
        self.jobs = bool(sdk.jobs)
        self.events = any(op.response.kind == "events" or op.stream_name for op in ops)
        # ClientCredentials ships only where a scheme declares the client-credentials flow.
        self.oauth2 = any(isinstance(a, ir.BearerAuth) and a.token_url for a in sdk.auths)


@functools.cache
def _modules(runtime: Path) -> frozenset[str]:
    """The runtime's modules by dotted name below it (``waiting.core``); a package is its
    ``__init__`` (``__init__`` for the runtime itself, ``waiting.__init__``)."""
    return frozenset(
        ".".join(path.relative_to(runtime).with_suffix("").parts) for path in runtime.rglob("*.py")
    )


def path_of(module: str) -> str:
    """The file of a runtime module, below the runtime's folder: ``waiting/core.py``."""
    return module.replace(".", "/") + ".py"


def _named(package: list[str], names: Iterable[str], known: frozenset[str]) -> set[tuple[str, str]]:
    """What ``from <package> import <names>`` imports, as pairs of module and name: a name
    that is a module or subpackage of the package is that module (``(m, "")``), any other
    a name of the package's module or ``__init__``."""
    module = ".".join(package)
    if module not in known:
        module = ".".join([*package, "__init__"])
    found: set[tuple[str, str]] = set()
    for name in names:
        sub = ".".join([*package, name])
        if sub not in known:
            sub += ".__init__"
        found.add((sub, "") if sub in known else (module, name))
    return found


def _above(module: str) -> list[str]:
    """The ``__init__`` of every package that holds ``module`` (they load before it)."""
    parts = module.split(".")[:-1]
    return [".".join([*parts[:depth], "__init__"]) for depth in range(len(parts) + 1)]


# A relative import statement of the runtime (formatted by ruff: one per line, or names in
# parentheses), at any indentation: in a function, under ``if TYPE_CHECKING:``.
_RELATIVE = re.compile(r"^[ \t]*from \.[\w.]* import[ \t]+(?:\([^)]*\)|[^\n]*)", re.MULTILINE)


@functools.cache
def _sources(runtime: Path) -> dict[str, str]:
    """The source of every runtime module, by dotted name, read once."""
    return {
        module: (runtime / path_of(module)).read_text(encoding="utf-8")
        for module in sorted(_modules(runtime))
    }


def source_of(module: str, runtime: Path) -> str:
    """The source of a runtime module (``waiting.core``)."""
    return _sources(runtime)[module]


def _digest(runtime: Path) -> str:
    """What tells the runtime's sources apart from the stored survey's: each module's name,
    length and CRC-32 (it detects edits; nothing here needs a cryptographic hash, whose
    cost on the whole runtime was a third of what the survey saves)."""
    return ";".join(
        f"{module}:{len(source)}:{zlib.crc32(source.encode()):08x}"
        for module, source in _sources(runtime).items()
    )


def _parsed_imports(runtime: Path, module: str) -> list[list[str]]:
    """What ``module`` (a runtime module, by dotted name) imports from the others, wherever
    it does: pairs of module and name (``from ..http.send import s`` is ``["http.send", "s"]``;
    ``from . import m`` is ``["<package>.m", ""]``), at any level, sorted.

    The import statements are parsed with ``ast``, only they (parsing whole modules cost
    more than the rest of a small SDK's rendering). A docstring line that
    reads like an import could only add a module, never drop one."""
    known = _modules(runtime)
    package = module.split(".")[:-1]
    statements = _RELATIVE.findall(source_of(module, runtime))
    found: set[tuple[str, str]] = set()
    for node in ast.parse("\n".join(line.strip() for line in statements)).body:
        if isinstance(node, ast.ImportFrom) and 0 < node.level <= len(package) + 1:
            base = package[: len(package) - node.level + 1]
            target = [*base, *(node.module.split(".") if node.module else [])]
            found |= _named(target, (alias.name for alias in node.names), known)
    return [list(pair) for pair in sorted(found)]


def _parsed_errors(runtime: Path) -> list[list[Any]]:
    """The public exception classes of the runtime's errors module (``shared.errors``: its
    ``__all__``, in its order, helpers aside), each with the classes it derives from; none
    without one."""
    if "shared.errors" not in _modules(runtime):
        return []
    tree = ast.parse(source_of("shared.errors", runtime))
    _, names = _assigned(tree, "__all__")
    if not isinstance(names, list):
        raise TypeError("the runtime's shared/errors.py: __all__ must be a list")
    bases = {
        node.name: [base.id for base in node.bases if isinstance(base, ast.Name)]
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    }
    return [[name, bases.get(name, [])] for name in names if name[:1].isupper()]


def survey(runtime: Path = _RUNTIME) -> dict[str, Any]:
    """What the runtime's sources say, parsed: their digest, each module's imports of the
    others and the public exception classes with their bases (the stored index's form)."""
    return {
        "digest": _digest(runtime),
        "imports": {m: _parsed_imports(runtime, m) for m in sorted(_modules(runtime))},
        "errors": _parsed_errors(runtime),
    }


@functools.cache
def _index(runtime: Path) -> dict[str, Any]:
    """The stored survey where the runtime's sources are the ones it was made from, else
    a survey made now."""
    try:
        stored: dict[str, Any] = json.loads(INDEX.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return survey(runtime)
    return stored if stored.get("digest") == _digest(runtime) else survey(runtime)


@functools.cache
def _imports_of(runtime: Path, module: str) -> frozenset[tuple[str, str]]:
    """What ``module`` imports from the other runtime modules: pairs of module and name."""
    return frozenset((found, name) for found, name in _index(runtime)["imports"][module])


def error_bases(runtime: Path) -> dict[str, tuple[str, ...]]:
    """The runtime's public exception classes in the order of its ``__all__``, each with
    the classes it derives from."""
    return {name: tuple(bases) for name, bases in _index(runtime)["errors"]}


def imported(files: Mapping[str, str], runtime: Path) -> set[str]:
    """The runtime modules the generated (non-runtime) ``.py`` files import."""
    known = _modules(runtime)
    found: set[str] = set()
    for path, text in files.items():
        if not path.endswith(".py") or "/_runtime/" in path or "_runtime" not in text:
            continue
        at = 0
        while match := _IMPORT.search(text, at):
            start = match.start()
            if text[text.rfind("\n", 0, start) + 1 : start].strip(" \t"):
                at = start + 1  # not at the start of its line: look on from there
                continue
            at = match.end()
            package = match.group(1).split(".")[1:]
            if ".".join(package) in known:
                found.add(".".join(package))
            else:
                names = _NAME.findall(match.group(2).strip("()"))
                found |= {module for module, _ in _named(package, names, known)}
    return found & known


def closure(roots: Iterable[str], runtime: Path) -> frozenset[str]:
    """``roots``, the ``__init__`` of every package on their way and every runtime module
    they import, transitively (modules by dotted name: ``waiting.core``).

    The runtime ``__init__``'s own imports (its public names, for type checkers) are not
    followed: `runtime_init` cuts them to what ships."""
    known = _modules(runtime)
    todo = [*roots, "__init__"]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen or name not in known:
            continue
        seen.add(name)
        todo.extend(_above(name))
        if name != "__init__":
            todo.extend(module for module, _ in _imports_of(runtime, name))
    return frozenset(seen)


def names_from(module: str, shipped: frozenset[str], runtime: Path) -> set[str]:
    """The names the other shipped modules import from ``module`` (the package
    ``__init__``'s imports for type checkers aside: they name everything)."""
    return {
        name
        for other in shipped - {module, "__init__"}
        for imported_from, name in _imports_of(runtime, other)
        if imported_from == module and name
    }


def _assigned(tree: ast.Module, name: str) -> tuple[ast.stmt, object]:
    """The module-level statement assigning ``name``, and its (literal) value."""
    for node in tree.body:
        if isinstance(node, ast.Assign):
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == name:
            return node, ast.literal_eval(value)
    raise LookupError(f"the runtime's __init__.py assigns no {name}")


def _checked_imports(homes: Mapping[str, str]) -> list[str]:
    """The ``if TYPE_CHECKING:`` block importing each name of ``homes`` from its module,
    as ruff formats and sorts it (line length 88), so type checkers see what
    ``__getattr__`` loads on first use."""
    lines = ["if TYPE_CHECKING:\n"]
    for home in sorted(set(homes.values())):
        names = sorted(
            (n for n, h in homes.items() if h == home),
            key=lambda n: (0 if n.isupper() else 1 if n[:1].isupper() else 2, n),
        )
        one = f"    from .{home} import {', '.join(names)}\n"
        if len(one) <= 89:
            lines.append(one)
        else:
            lines += [
                f"    from .{home} import (\n",
                *(f"        {n},\n" for n in names),
                "    )\n",
            ]
    return lines


def _type_checking_block(tree: ast.Module) -> ast.stmt:
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            return node
    raise LookupError("the runtime's __init__.py has no `if TYPE_CHECKING:` block")


def runtime_init(source: str, shipped: frozenset[str]) -> str:
    """The runtime's ``__init__`` with its name table (``_HOMES``), ``__all__`` and the
    imports type checkers read cut to the names whose module ships: any other name
    raises ``AttributeError``."""
    tree = ast.parse(source)
    homes_node, homes = _assigned(tree, "_HOMES")
    all_node, names = _assigned(tree, "__all__")
    if not isinstance(homes, dict) or not isinstance(names, list):
        raise TypeError("the runtime's __init__.py: _HOMES must be a dict, __all__ a list")
    kept = {name: home for name, home in homes.items() if home in shipped}
    edits = [
        (all_node, ["__all__ = [\n", *(f'    "{n}",\n' for n in names if n in kept), "]\n"]),
        (homes_node, ["_HOMES = {\n", *(f'    "{n}": "{h}",\n' for n, h in kept.items()), "}\n"]),
        (_type_checking_block(tree), _checked_imports(kept)),
    ]
    lines = source.splitlines(keepends=True)
    for node, text in sorted(edits, key=lambda edit: -edit[0].lineno):
        lines[node.lineno - 1 : node.end_lineno] = text
    return "".join(lines)


def write_index() -> None:
    """Store the survey of the runtime this package holds (``INDEX``)."""
    INDEX.write_text(json.dumps(survey(), indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write_index()
