"""action.yml: a composite action whose inputs reach ``python -m jobgen.ci``.

The report step is run here as the runner runs it (bash, the step's environment with the
inputs filled in, ``RUNNER_TEMP`` holding the action's virtual environment) on a git
repository with two commits.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from tests.ci.repo import clean_env, commit, generate, new_repo, sume, write_spec
from tests.helpers import ROOT

ACTION: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
REPORT_STEP = "Stale check and breaking-change report"


def test_action_is_composite_and_installs_its_own_checkout() -> None:
    assert ACTION["runs"]["using"] == "composite"
    install = next(s for s in ACTION["runs"]["steps"] if s.get("name", "").startswith("Install"))
    assert 'pip install --quiet "$GITHUB_ACTION_PATH"' in install["run"]
    used = set(re.findall(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", (ROOT / "action.yml").read_text()))
    assert used == set(ACTION["inputs"])


def run_report_step(repo: Path, tmp_path: Path, **inputs: str) -> tuple[int, str]:
    step = next(s for s in ACTION["runs"]["steps"] if s.get("name") == REPORT_STEP)
    values = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    values.update({k.replace("_", "-"): v for k, v in inputs.items()})

    def fill(text: str) -> str:
        return re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", lambda m: values[m.group(1)], text)

    runner_temp = tmp_path / "runner-temp"
    python = runner_temp / "jobgen-venv" / "bin" / "python"
    python.parent.mkdir(parents=True, exist_ok=True)
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    python.chmod(0o755)
    summary = tmp_path / "step-summary.md"
    summary.unlink(missing_ok=True)
    env = clean_env(RUNNER_TEMP=str(runner_temp), GITHUB_STEP_SUMMARY=str(summary))
    env.update({key: fill(str(value)) for key, value in step["env"].items()})
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        cwd=repo / fill(step["working-directory"]),
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, summary.read_text(encoding="utf-8") if summary.exists() else ""


def test_report_step_fails_on_a_breaking_change_unless_allowed(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    spec = sume()
    del spec["components"]["schemas"]["Job"]["properties"]["mode"]
    write_spec(repo, spec)
    generate(repo)
    commit(repo, "Drop Job.mode")
    status, summary = run_report_step(repo, tmp_path, base="HEAD~1")
    assert status == 1
    assert "schema Job.mode: field mode was removed from Job [field.removed]" in summary
    status, _ = run_report_step(repo, tmp_path, base="HEAD~1", allow_breaking="true")
    assert status == 0
    status, summary = run_report_step(repo, tmp_path, config="pyproject.toml")
    assert status == 0
    assert "No base revision: stale check only." in summary
