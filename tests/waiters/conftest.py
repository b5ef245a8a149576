"""Fixtures of the waiter tests: the committed SDKs, imported from generated/, and
a `twin` fixture that runs each test against `Client` and `AsyncClient`."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.helpers import CommittedSdks
from tests.waiters.support import Twin

ROOT = Path(__file__).resolve().parents[2]


def _targets() -> list[dict[str, Any]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return list(config["tool"]["jobgen"]["sdk"])


@pytest.fixture
def sdks(committed_sdks: CommittedSdks) -> Iterator[dict[str, ModuleType]]:
    """Every SDK listed under [tool.jobgen], imported from its committed folder."""
    with committed_sdks.active() as modules:
        yield modules


@pytest.fixture(params=["sync", "async"])
def twin(request: pytest.FixtureRequest, sdks: dict[str, ModuleType]) -> Twin:
    """Each test runs once with `Client` and once with `AsyncClient`."""
    return Twin(str(request.param), sdks)


@pytest.fixture
def twins(sdks: dict[str, ModuleType]) -> tuple[Twin, Twin]:
    """Both twins at once, for tests that compare them."""
    return Twin("sync", sdks), Twin("async", sdks)
