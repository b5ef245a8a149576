"""The project's own code stays lint-clean, formatted and type-checked (mypy --strict)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

PATHS = ["generator", "tests", "bench"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_check() -> None:
    proc = run("ruff", "check", "--no-cache", *PATHS)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format() -> None:
    proc = run("ruff", "format", "--check", "--no-cache", *PATHS)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow
def test_mypy_strict_on_the_generator(mypy_cache: Path) -> None:
    proc = run("mypy", "--cache-dir", str(mypy_cache), "generator")
    assert proc.returncode == 0, proc.stdout + proc.stderr
