"""Fixtures of the waiter tests: the committed SDKs, imported from generated/, and
a `twin` fixture that runs each test against `Client` and `AsyncClient`."""

from __future__ import annotations

import importlib
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.waiters.support import Twin

ROOT = Path(__file__).resolve().parents[2]


def _targets() -> list[dict[str, Any]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return list(config["tool"]["jobgen"]["sdk"])


@pytest.fixture(scope="session")
def sdks() -> Iterator[dict[str, ModuleType]]:
    """Every SDK listed under [tool.jobgen], imported from its committed folder."""
    targets = _targets()
    paths = [str(ROOT / t["output"]) for t in targets]
    packages = {t["package"] for t in targets}
    ours = lambda name: name.split(".")[0] in packages
    saved = {n: m for n, m in sys.modules.items() if ours(n)}
    for name in saved:
        del sys.modules[name]
    sys.path[:0] = paths
    try:
        modules = {}
        for package in sorted(packages):
            module = importlib.import_module(package)
            importlib.import_module(f"{package}.errors")
            importlib.import_module(f"{package}.models")
            assert module.__file__ and module.__file__.startswith(str(ROOT / "generated"))
            modules[package] = module
        yield modules
    finally:
        for path in paths:
            sys.path.remove(path)
        for name in [n for n in sys.modules if ours(n)]:
            del sys.modules[name]
        sys.modules.update(saved)


@pytest.fixture(params=["sync", "async"])
def twin(request: pytest.FixtureRequest, sdks: dict[str, ModuleType]) -> Twin:
    """Each test runs once with `Client` and once with `AsyncClient`."""
    return Twin(str(request.param), sdks)


@pytest.fixture
def twins(sdks: dict[str, ModuleType]) -> tuple[Twin, Twin]:
    """Both twins at once, for tests that compare them."""
    return Twin("sync", sdks), Twin("async", sdks)
