"""A throwaway git repository holding a spec, a jobgen config and the generated SDK."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from tests.helpers import SPECS, write

CONFIG = """\
[[tool.jobgen.sdk]]
spec = "specs/sume.yaml"
output = "generated/sume"
package = "sume_sdk"
"""


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=True, env=clean_env()
    )
    return done.stdout


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without a CI's own variables, so a test decides them."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GIT_"))}
    env.update(
        GIT_AUTHOR_NAME="Test",
        GIT_AUTHOR_EMAIL="test@example.com",
        GIT_COMMITTER_NAME="Test",
        GIT_COMMITTER_EMAIL="test@example.com",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
    )
    env.update(extra)
    return env


def sume() -> dict[str, Any]:
    result: dict[str, Any] = yaml.safe_load((SPECS / "sume.yaml").read_text(encoding="utf-8"))
    return result


def write_spec(repo: Path, spec: dict[str, Any], name: str = "sume.yaml") -> None:
    write(repo / "specs" / name, yaml.safe_dump(spec, sort_keys=False))


def jobgen(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jobgen", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
        env=clean_env(),
    )


def generate(repo: Path) -> None:
    done = jobgen(repo, "generate")
    assert done.returncode == 0, done.stderr


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def new_repo(path: Path, config: str = CONFIG) -> Path:
    """A repository whose first commit holds the Sume spec and its generated SDK."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    write(path / "pyproject.toml", config)
    write_spec(path, sume())
    generate(path)
    commit(path, "Sume API and its SDK")
    return path
