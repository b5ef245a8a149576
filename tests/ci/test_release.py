"""jobgen is releasable: the sdist and wheel build and pass ``twine check --strict``, carry one
version, and the release workflow builds them with the same check before publishing."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import jobgen
from tests.ci.release import ReleaseProblem, build_and_check, changelog_sections, version
from tests.helpers import ROOT

# The built distribution (conftest's ``release``) is shared with tests/generator/test_install.py.
pytestmark = pytest.mark.xdist_group("dist")

WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"


@pytest.mark.slow
def test_the_sdist_and_wheel_build_and_pass_twine_strict(release: tuple[Path, Path]) -> None:
    sdist, wheel = release
    assert sdist.name == f"jobgen-{jobgen.__version__}.tar.gz"
    assert wheel.name.startswith(f"jobgen-{jobgen.__version__}-py3-none-any")


def test_one_version_source() -> None:
    """pyproject.toml reads the version from jobgen.__version__; the CLI prints it."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dynamic = ["version"]' in pyproject
    assert 'version = { attr = "jobgen.__version__" }' in pyproject
    assert not re.search(r'^version = "', pyproject, re.MULTILINE)
    assert version() == jobgen.__version__
    printed = subprocess.run(
        [sys.executable, "-m", "jobgen", "--version"], capture_output=True, text=True, check=True
    )
    assert printed.stdout.strip() == f"jobgen {jobgen.__version__}"


def test_a_tag_that_is_not_the_version_is_refused_before_building(tmp_path: Path) -> None:
    with pytest.raises(ReleaseProblem, match=r"tag 'v0\.0\.0-bogus' is not v"):
        build_and_check(tmp_path, tag="v0.0.0-bogus")
    assert list(tmp_path.iterdir()) == []


def test_the_changelog_has_an_unreleased_section_and_the_current_version() -> None:
    sections = changelog_sections()
    assert sections[0] == "Unreleased"
    assert jobgen.__version__ in sections
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    unreleased = text.split("## [Unreleased]", 1)[1].split("\n## [", 1)[0]
    assert "### Breaking" in unreleased


def test_the_release_workflow_builds_with_the_checked_build_and_publishes_trusted() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert workflow[True]["push"]["tags"] == ["v*"]  # YAML 1.1 reads the key `on` as True
    build = workflow["jobs"]["build"]
    runs = "\n".join(step.get("run", "") for step in build["steps"])
    assert '-m tests.ci.release dist --tag "$GITHUB_REF_NAME"' in runs
    publish = workflow["jobs"]["publish"]
    assert publish["needs"] == "build"
    assert publish["permissions"] == {"id-token": "write"}
    (upload,) = [s for s in publish["steps"] if "pypi-publish" in s.get("uses", "")]
    assert "with" not in upload, "trusted publishing takes no password or token"
