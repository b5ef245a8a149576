"""Shared test helpers: generate an SDK into a temporary directory and import it."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

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
