"""The README's main command: the live demo runs end to end over real HTTP."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.helpers import ROOT


@pytest.mark.slow
def test_demo_waits_for_real_jobs_and_stops() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "generator.demo"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    assert re.search(r"Generated sume_demo_sdk from specs/sume.yaml: \d+ files", out)
    assert "listening on http://127.0.0.1:" in out
    assert "waits: 2.0 s (floor), 2.0 s (floor), 2.0 s (floor)" in out
    assert "waits: 3.0 s (retry-after), 3.0 s (retry-after)" in out
    assert "raised JobFailed: job job_" in out
    assert out.count("-> 503") == 3
    assert "raised JobTimeout: job job_" in out and "resume token: {" in out
    assert out.count("returned JobResultEnvelope") == 2 + 1
    assert "the server has stopped" in out
    assert "Traceback" not in proc.stderr
