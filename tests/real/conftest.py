"""The SDK of every real spec, generated (with its job side file) and imported once per
session (the ``real_sdks`` fixture is in tests/conftest.py: tests/generator uses it too)."""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path
from types import ModuleType

import attrs

from jobgen.pipeline import Generated, Target, generate
from tests.helpers import REAL_SPECS
from tests.real.realspecs import RealSpec

# Without the published specs these tests are not collected; the summary of the run says
# so (tests/conftest.py).
collect_ignore_glob = [] if REAL_SPECS.is_dir() else ["test_*.py"]
if REAL_SPECS.is_dir() and not (REAL_SPECS / "azure").is_dir():
    # an older copy without the corpus
    collect_ignore_glob += ["test_azure_corpus.py", "test_azure_comparison.py"]


@attrs.frozen
class RealSdk:
    spec: RealSpec
    generated: Generated
    root: Path
    """The output directory: it holds the package and its pyproject.toml."""
    package: ModuleType

    @property
    def package_dir(self) -> Path:
        return self.root / self.spec.package


class RealSdks:
    """Generates each SDK on first use; forgets the imported packages at the end."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self._built: dict[str, RealSdk] = {}
        self.seconds: dict[str, float] = {}

    def get(self, spec: RealSpec) -> RealSdk:
        if spec.id not in self._built:
            started = time.perf_counter()
            target = Target(
                spec=spec.spec,
                output=self.base / spec.id,
                package=spec.package,
                jobs=spec.side_file,
            )
            generated = generate(target)
            sys.path.insert(0, str(target.output))
            package = importlib.import_module(spec.package)
            self._built[spec.id] = RealSdk(spec, generated, target.output, package)
            self.seconds[spec.id] = time.perf_counter() - started
        return self._built[spec.id]

    def close(self) -> None:
        for built in self._built.values():
            sys.path.remove(str(built.root))
            name = built.spec.package
            for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
                del sys.modules[module]
