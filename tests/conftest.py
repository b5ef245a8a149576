"""Fixtures shared by every test package."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tests.helpers import REAL_SPECS, TEST_SPECS, imported_sdk


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The real-spec tests skip when the published specs are absent: say so, once."""
    if not REAL_SPECS.is_dir():
        terminalreporter.write_line(
            f"real-spec tests skipped: {REAL_SPECS} is missing", yellow=True, bold=True
        )


@pytest.fixture(scope="session")
def features(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The SDK of tests/specs/features-3.1.yaml: every schema feature and auth scheme."""
    with imported_sdk(
        TEST_SPECS / "features-3.1.yaml", tmp_path_factory.mktemp("sdk"), "features_sdk"
    ) as sdk:
        yield sdk


@pytest.fixture(scope="session")
def features30(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The SDK of tests/specs/features-3.0.json (OpenAPI 3.0: nullable, allOf refs)."""
    with imported_sdk(
        TEST_SPECS / "features-3.0.json", tmp_path_factory.mktemp("sdk"), "features30_sdk"
    ) as sdk:
        yield sdk


@pytest.fixture
def spec_dir(tmp_path: Path) -> Path:
    return tmp_path
