"""The ``jobgen-check`` pre-commit hook, run by pre-commit itself as users run it: a
``.pre-commit-config.yaml`` whose ``repo:`` is this repository and ``rev:`` its ``HEAD``
commit (what is committed is what is tested), in a project with a spec and its SDK."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.ci.repo import clean_env, commit, git, new_repo, sume, write_spec
from tests.helpers import ROOT, write

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pre-commit cache for the module: the hook's environment is installed once."""
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = new_repo(tmp_path / "project")
    rev = git(ROOT, "rev-parse", "HEAD").strip()
    write(
        repo / ".pre-commit-config.yaml",
        f"repos:\n  - repo: {ROOT}\n    rev: {rev}\n    hooks:\n      - id: jobgen-check\n",
    )
    commit(repo, "pre-commit")
    return repo


def pre_commit(repo: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
        env=clean_env(PRE_COMMIT_HOME=str(home)),
        timeout=600,
    )


def test_current_project_passes(project: Path, pre_commit_home: Path) -> None:
    done = pre_commit(project, pre_commit_home, "--all-files")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "jobgen generate --check" in done.stdout and "Passed" in done.stdout


def test_hand_edit_to_generated_code_fails(project: Path, pre_commit_home: Path) -> None:
    client = next((project / "generated" / "sume").rglob("_client.py"))
    client.write_text(client.read_text(encoding="utf-8") + "# edited by hand\n", "utf-8")
    git(project, "add", str(client))
    done = pre_commit(project, pre_commit_home)  # the staged files only, as on `git commit`
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Failed" in done.stdout
    assert "_client.py" in done.stdout  # the stale file is named


def test_spec_edit_without_regenerating_fails(project: Path, pre_commit_home: Path) -> None:
    spec = sume()
    spec["components"]["schemas"]["Job"]["properties"]["priority"] = {"type": "integer"}
    write_spec(project, spec)
    git(project, "add", "specs/sume.yaml")
    done = pre_commit(project, pre_commit_home)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "models/job.py" in done.stdout  # the stale file is named


def test_unrelated_edit_skips_the_hook(project: Path, pre_commit_home: Path) -> None:
    write(project / "notes.txt", "not a spec\n")
    git(project, "add", "notes.txt")
    done = pre_commit(project, pre_commit_home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Skipped" in done.stdout
