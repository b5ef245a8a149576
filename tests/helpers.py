"""Shared test helpers: generate an SDK into a temporary directory and import it."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from jobgen.config import load_targets
from jobgen.pipeline import Target, generate

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "specs"
TEST_SPECS = ROOT / "tests" / "specs"
# shared/ sits beside the clone (or beside the folder of worktrees that holds it);
# JOBGEN_REAL_SPECS names another folder.
REAL_SPECS = (
    Path(os.environ["JOBGEN_REAL_SPECS"])
    if os.environ.get("JOBGEN_REAL_SPECS")
    else next(
        (
            p / "shared" / "specs-real"
            for p in ROOT.parents
            if (p / "shared" / "specs-real").is_dir()
        ),
        ROOT.parent / "shared" / "specs-real",
    )
)


@contextmanager
def imported_sdk(
    spec: Path, out: Path, package: str, jobs: Path | None = None, ref_root: Path | None = None
) -> Iterator[ModuleType]:
    """Generate the SDK of ``spec`` into ``out`` and import it; unimport it afterwards."""
    target = Target(spec=spec, output=out / package, package=package, jobs=jobs, ref_root=ref_root)
    generate(target)
    sys.path.insert(0, str(out / package))
    try:
        yield importlib.import_module(package)
    finally:
        sys.path.remove(str(out / package))
        for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
            del sys.modules[name]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


PYRIGHT = Path(sys.executable).with_name("pyright")


def own_modules(package: Path) -> list[Path]:
    """The modules of a generated ``package`` that its spec shaped: all but the runtime,
    whose modules are the same in every SDK (copied verbatim; only ``_runtime/__init__.py``,
    which names what ships, is written per SDK and is included)."""
    runtime = package / "_runtime"
    return sorted(
        p
        for p in package.rglob("*.py")
        if not p.is_relative_to(runtime) or p == runtime / "__init__.py"
    )


def typecheck_paths(packages: list[Path]) -> list[Path]:
    """What a type checker needs to see of generated ``packages`` to cover them all: the
    modules each spec shaped, and each runtime module once (the runtime is copied
    verbatim: a module is the same in every SDK)."""
    paths: list[Path] = []
    seen: set[str] = set()
    for package in packages:
        paths += own_modules(package)
        for module in runtime_modules(package):
            name = module.relative_to(package / "_runtime").as_posix()
            if name not in seen:
                seen.add(name)
                paths.append(module)
    return paths


def runtime_modules(package: Path) -> list[Path]:
    """The runtime modules a generated ``package`` ships, in its subpackages included, but
    for ``_runtime/__init__.py`` (written per SDK: `own_modules` holds it)."""
    runtime = package / "_runtime"
    return sorted(p for p in runtime.rglob("*.py") if p != runtime / "__init__.py")


def pyright_strict(packages: list[Path], folder: Path) -> tuple[list[str], int]:
    """pyright --strict over ``packages`` at the SDKs' Python floor (3.9), configured in
    ``folder``: each error or warning as ``file:line: message (rule)``, and the number of
    files analysed."""
    config = {
        "include": [os.path.relpath(p, folder) for p in packages],
        "typeCheckingMode": "strict",
        "pythonVersion": "3.9",
    }
    (folder / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    proc = subprocess.run(
        [str(PYRIGHT), "--outputjson", "--pythonpath", sys.executable, "--project", str(folder)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    report = json.loads(proc.stdout)
    problems = [
        f"{d['file']}:{d['range']['start']['line'] + 1}: {d['message']} ({d.get('rule')})"
        for d in report["generalDiagnostics"]
        if d["severity"] in ("error", "warning")
    ]
    return problems, int(report["summary"]["filesAnalyzed"])


class CommittedSdks:
    """The SDKs of [tool.jobgen], imported once per session from generated/.

    Other tests import SDKs of the same package names (generated anew into a temporary
    folder) and unimport them, which takes these out of ``sys.modules`` too; a lazy import
    inside one of these would then load a second copy of a module, whose classes are not
    the first's. :meth:`active` puts every module of theirs back for a test."""

    def __init__(self) -> None:
        targets = load_targets(ROOT / "pyproject.toml")
        self.paths = [str(ROOT / t.output) for t in targets]
        self.packages = {t.package for t in targets if t.package is not None}
        self.modules: dict[str, ModuleType] = {}
        self._known: dict[str, ModuleType] = {}

    def ours(self, name: str) -> bool:
        return name.split(".")[0] in self.packages

    def _mine(self) -> dict[str, ModuleType]:
        generated = str(ROOT / "generated")
        return {
            n: m
            for n, m in sys.modules.items()
            if self.ours(n) and (getattr(m, "__file__", None) or "").startswith(generated)
        }

    @contextmanager
    def active(self) -> Iterator[dict[str, ModuleType]]:
        """For one test: every module of these SDKs in ``sys.modules`` (those the test
        imports lazily are remembered for the next)."""
        sys.modules.update(self._known)
        try:
            yield self.modules
        finally:
            self._known.update(self._mine())

    def load(self) -> None:
        for name in [n for n in sys.modules if self.ours(n)]:
            del sys.modules[name]
        sys.path[:0] = self.paths
        for package in sorted(self.packages):
            module = importlib.import_module(package)
            importlib.import_module(f"{package}.errors")
            importlib.import_module(f"{package}.models")
            assert module.__file__ and module.__file__.startswith(str(ROOT / "generated"))
            self.modules[package] = module
        self._known = self._mine()

    def unload(self) -> None:
        for path in self.paths:
            sys.path.remove(path)
        for name in [n for n in sys.modules if self.ours(n)]:
            del sys.modules[name]
