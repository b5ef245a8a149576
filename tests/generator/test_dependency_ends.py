"""jobgen installs beside an application's own packages: what users install is declared as
ranges, and the generator works at both ends of them.

Each end gets its own clean virtual environment holding the wheel with its ``serve`` and
``progress`` extras: ``lowest`` with every dependency at the lower bound it declares,
``newest`` with the newest release each range admits. In both, every example SDK generates
byte for byte as committed, and a job runs end to end: ``run_server`` serves the Sume spec
over HTTP and the committed Sume SDK creates a job and waits for its result.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from jobgen.config import load_targets
from tests.generator.test_install import copy_project
from tests.helpers import ROOT

# The wheel is conftest's ``release``, shared with tests/ci/test_release.py.
pytestmark = pytest.mark.xdist_group("dist")

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
USER_EXTRAS = ("serve", "progress")


def user_requirements() -> list[Requirement]:
    """What ``pip install 'jobgen[serve,progress]'`` asks for."""
    lines = list(PROJECT["dependencies"])
    for extra in USER_EXTRAS:
        lines += PROJECT["optional-dependencies"][extra]
    return [Requirement(line) for line in lines]


def test_what_users_install_is_ranges_not_pins() -> None:
    for requirement in user_requirements():
        operators = {s.operator for s in requirement.specifier}
        assert operators & {"==", "===", "~="} == set(), requirement
        assert ">=" in operators, f"{requirement} has no lower bound to test"


def test_the_project_environment_is_pinned_within_the_ranges() -> None:
    """.ci/constraints.txt, the exact versions of the project's own CI, admits jobgen's
    ranges: the pinned environment is one that users could have."""
    pins = {}
    for line in (ROOT / ".ci" / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[name.lower().replace("_", "-")] = Version(version)
    for requirement in user_requirements():
        name = requirement.name.lower().replace("_", "-")
        assert name in pins, f"{name} is not pinned in .ci/constraints.txt"
        assert pins[name] in requirement.specifier, f"{name}=={pins[name]} outside {requirement}"


RUN_A_JOB = """
import sys
from pathlib import Path

sys.path.insert(0, str(Path("generated/sume").resolve()))
from jobgen.server import run_server
from sume_sdk import Client
from sume_sdk.models import CreateJobRequest, TextInput

with run_server("specs/sume.yaml") as server:
    with Client(base_url=server.base_url, api_key="key-1") as client:
        body = CreateJobRequest(input=TextInput(type="text", text="hello"))
        job = client.jobs.create(body=body)
        result = client.jobs.wait_for_result(job.data.id, deadline=60)
        print("result for", result.data.job_id)
"""


@pytest.mark.exhaustive
@pytest.mark.parametrize("end", ["lowest", "newest"])
def test_the_generator_works_at_each_end_of_its_ranges(
    end: str, tmp_path: Path, release: tuple[Path, Path]
) -> None:
    _, wheel = release
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    install = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    lowest = {
        r.name.lower(): next(Version(s.version) for s in r.specifier if s.operator == ">=")
        for r in user_requirements()
    }
    if end == "lowest":
        constraints = tmp_path / "lowest.txt"
        constraints.write_text(
            "".join(f"{name}=={version}\n" for name, version in lowest.items()), encoding="utf-8"
        )
        install += ["-c", str(constraints)]
    else:
        install += ["--upgrade", "--upgrade-strategy", "eager"]
    extras = ",".join(USER_EXTRAS)
    done = subprocess.run(
        [*install, f"jobgen[{extras}] @ {wheel.as_uri()}"],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    freeze = subprocess.run(
        [str(python), "-m", "pip", "freeze"], capture_output=True, text=True, check=True
    ).stdout
    installed = {
        name.lower().replace("_", "-"): Version(version)
        for name, _, version in (line.partition("==") for line in freeze.splitlines())
        if version
    }
    for name, bound in lowest.items():
        if end == "lowest":
            assert installed[name] == bound, freeze
        else:
            assert installed[name] >= bound, freeze

    project = copy_project(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    check = subprocess.run(
        [str(venv / "bin" / "jobgen"), "generate", "--check"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.count("up to date") == len(load_targets(ROOT / "pyproject.toml"))

    job = subprocess.run(
        [str(python), "-c", RUN_A_JOB],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert job.returncode == 0, job.stdout + job.stderr
    assert job.stdout.startswith("result for job_"), job.stdout
