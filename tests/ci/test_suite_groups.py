"""``make test`` runs the suite with ``--dist loadgroup``: a module's tests share one worker,
so its module fixtures (a built wheel, a swept corpus, generated SDKs) are made once."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.helpers import ROOT

MODULE = "tests/generator/test_wording.py"


@pytest.mark.exhaustive  # a check of the suite's own speed, not of jobgen
def test_the_groups_reach_pytest_xdist_under_loadgroup() -> None:
    """The groups of tests/conftest.py reach pytest-xdist, which shows each as the
    ``@group`` of a node id. When they are lost (pytest 9.2 with pytest-xdist 3.8:
    pytest-dev/pytest-xdist#1386; or a hook that adds them after xdist has read them)
    every test is scheduled alone, nothing fails and the suite just takes longer."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "1", "--dist", "loadgroup", "-v"]
        + ["-p", "no:cacheprovider", MODULE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    ran = re.findall(r"^\[gw\d+\] .*PASSED (\S+?)::\S+?(@\S+)?\s*$", proc.stdout, re.MULTILINE)
    assert len(ran) >= 5, proc.stdout[-2000:]
    lost = [test for test, group in ran if group != f"@{test}"]
    assert not lost, f"--dist loadgroup lost the groups (pytest {pytest.__version__})"
