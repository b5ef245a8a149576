"""The README's main command: the live demo runs end to end over real HTTP, and prints
what the README shows (job ids, the port and timings aside)."""

from __future__ import annotations

import functools
import importlib
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from jobgen.demo import Progress
from tests.helpers import ROOT

_VARYING = (
    (re.compile(r"job_[0-9a-f]{16}"), "job_ID"),
    (re.compile(r"127\.0\.0\.1:[0-9]+"), "127.0.0.1:PORT"),
    (re.compile(r"\bin [0-9]+\.[0-9]+ s\b"), "in T s"),
    (re.compile(r"\bafter [0-9]+\.[0-9]+s\b"), "after Ts"),
    (re.compile(r'"deadline_at":[0-9.]+'), '"deadline_at":T'),
    (re.compile(r'"due_at":[0-9.]+'), '"due_at":T'),
)


def normalised(text: str) -> str:
    for pattern, replacement in _VARYING:
        text = pattern.sub(replacement, text)
    return text


def readme_demo() -> str:
    """The output shown under ``$ make demo`` in the README."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"```console\n\$ make demo\n(.*?)```", readme, re.DOTALL)
    assert match, "the README shows the demo's output"
    return match.group(1)


@pytest.mark.slow
def test_demo_waits_for_real_jobs_and_stops() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "jobgen.demo"],
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
    assert normalised(readme_demo()) == normalised(out), "README.md shows the current demo"


class _Stream(io.StringIO):
    """Captured output that says whether it is a terminal."""

    def __init__(self, terminal: bool) -> None:
        super().__init__()
        self.terminal = terminal

    def isatty(self) -> bool:
        return self.terminal


def _events(sdk: ModuleType) -> list[Any]:
    event = functools.partial(sdk.PollEvent, job_id="job_1", elapsed=0.0, record=None)
    return [
        event(attempt=1, state="processing", delay=2.0, source="floor", progress=40.0),
        event(attempt=2, state="completed", delay=None, source=None, progress=100.0),
    ]


@pytest.mark.parametrize("terminal", [True, False])
def test_the_demo_shows_a_progress_bar_on_a_terminal_only(terminal: bool) -> None:
    """On a terminal the demo's waits run under the SDK's ProgressDisplay (rich); piped,
    nothing but the plain lines the README shows."""
    sys.path.insert(0, str(ROOT / "generated" / "sume"))
    try:
        sdk = importlib.import_module("sume_sdk")
        out = _Stream(terminal)
        progress = Progress(out, sdk)
        for event in _events(sdk):
            progress(event)
        shown = out.getvalue()
        progress.clear()
    finally:
        sys.path.remove(str(ROOT / "generated" / "sume"))
        for name in [n for n in sys.modules if n.split(".")[0] == "sume_sdk"]:
            del sys.modules[name]
    assert (type(progress.display).__name__ == "ProgressDisplay") is terminal
    assert ("40%" in shown and "processing" in shown and "━" in shown) is terminal
    assert ("next check in 2.0s (floor)" in shown) is terminal
    if not terminal:
        assert out.getvalue() == ""


def test_make_demo_on_a_fresh_clone_installs_only_what_the_demo_runs(tmp_path: Path) -> None:
    """``make demo`` installs jobgen with its server and live display, not the test
    toolchain (mypy, pyright, celery, ...) that ``make test`` needs."""
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / ".ci").mkdir()
    shutil.copy(ROOT / ".ci" / "constraints.txt", tmp_path / ".ci" / "constraints.txt")
    # As typed in a shell: not inside the make of `make test` (whose MAKEFLAGS and
    # MAKELEVEL would make this one print the folders it enters).
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    planned = subprocess.run(
        ["make", "--no-print-directory", "-n", "demo"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    installs = [line for line in planned.splitlines() if "pip install" in line and "-e" in line]
    assert installs == [
        ".venv/bin/python -m pip install --quiet -c .ci/constraints.txt -e '.[serve,progress]'"
    ]
    assert "python -m jobgen.demo" in planned.splitlines()[-1]
