"""Without the published specs the real-spec tests skip, and the summary says so."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import ROOT


def test_missing_real_specs_are_named_in_the_summary(tmp_path: Path) -> None:
    missing = tmp_path / "specs-real"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/real", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        env={**os.environ, "JOBGEN_REAL_SPECS": str(missing)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode in (0, 5), proc.stdout + proc.stderr  # 5: nothing collected
    lines = proc.stdout.splitlines()
    assert f"real-spec tests skipped: {missing} is missing" in lines, proc.stdout
