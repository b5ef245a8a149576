"""Make the repository root importable, so the runtime is tested as `jobgen.runtime`,
and run behaviour tests against both twins."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    """Run a behaviour test against both twins."""
    return str(request.param)
