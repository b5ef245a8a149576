"""Fixtures of the malformed-input and fuzz tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzz.support import run_cli
from tests.helpers import SPECS


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tree jobgen generated: refused specs must leave such a tree byte-identical."""
    out = tmp_path_factory.mktemp("generated") / "sume"
    run = run_cli(["generate", SPECS / "sume.yaml", "-o", out])
    assert run.code == 0, run.stderr
    return out
