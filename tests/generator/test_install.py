"""jobgen as users install it: a wheel in a clean virtual environment, run from anywhere.

The wheel is the one a release publishes: built from the sdist by ``python -m build`` (so
nothing else of this checkout can leak in) and checked by ``twine check --strict``; installed without the test or serve extras into a
fresh venv, and run from a directory outside the source tree. It must generate every
SDK of the example config byte for byte as committed in generated/.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

from jobgen.config import load_targets
from tests.helpers import ROOT, write

TARGETS = load_targets(ROOT / "pyproject.toml")

# The wheel is conftest's ``release``, shared with tests/ci/test_release.py.
pytestmark = pytest.mark.xdist_group("dist")


@attrs.frozen
class Installed:
    venv: Path
    project: Path  # a copy of specs/, generated/ and the config, outside the source tree

    def run(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        env["PATH"] = f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        return subprocess.run(
            [str(self.venv / "bin" / args[0]), *args[1:]],
            cwd=cwd or self.project,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )


def _pip(venv: Path, *args: str) -> None:
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", *args],
        check=True,
        capture_output=True,
        timeout=600,
    )


def copy_project(base: Path) -> Path:
    """The example config with its specs and committed SDKs, outside the source tree."""
    project = base / "project"
    project.mkdir()
    shutil.copy(ROOT / "pyproject.toml", project / "pyproject.toml")
    shutil.copytree(ROOT / "specs", project / "specs")
    shutil.copytree(ROOT / "generated", project / "generated")
    return project


@pytest.fixture(scope="module")
def installed(
    tmp_path_factory: pytest.TempPathFactory, release: tuple[Path, Path]
) -> Iterator[Installed]:
    base = tmp_path_factory.mktemp("install")
    _, wheel = release
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    _pip(venv, str(wheel))
    yield Installed(venv, copy_project(base))


@pytest.mark.slow
def test_the_wheel_generates_every_example_sdk_as_committed(
    installed: Installed, tmp_path: Path
) -> None:
    where = installed.run("python", "-c", "import jobgen; print(jobgen.__file__)")
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(installed.venv), where.stdout
    # The import package is jobgen: nothing named ``generator`` (a name an app may use for
    # its own module) is installed, and an app's own ``generator`` module is not shadowed.
    site = installed.run("python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))")
    assert not (Path(site.stdout.strip()) / "generator").exists()
    app = tmp_path / "app"
    app.mkdir()
    (app / "generator.py").write_text("WHO = 'the app'\n", encoding="utf-8")
    mine = installed.run(
        "python", "-c", "import generator, jobgen.cli; print(generator.WHO)", cwd=app
    )
    assert mine.stdout.strip() == "the app", mine.stdout + mine.stderr
    as_module = installed.run("python", "-m", "jobgen", "--version")
    assert as_module.returncode == 0 and "jobgen" in as_module.stdout, as_module.stderr

    ruff = installed.run("python", "-c", "import importlib.util as u; print(u.find_spec('ruff'))")
    assert ruff.stdout.strip() == "None", "the wheel's environment must not have ruff"

    for target in TARGETS:
        out = tmp_path / target.output.name
        args = ["generate", f"specs/{target.spec.name}", "-o", str(out)]
        if target.package:
            args += ["--package", target.package]
        proc = installed.run("jobgen", *args)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert _tree(out) == _tree(ROOT / target.output), target.output


@pytest.mark.slow
def test_the_installed_check_passes_from_a_subdirectory(installed: Installed) -> None:
    sub = installed.project / "specs" / "common"
    proc = installed.run(
        "jobgen", "generate", "--check", "--config", "../../pyproject.toml", cwd=sub
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("up to date") == len(TARGETS)


@pytest.mark.slow
def test_the_wheel_splits_run_together_names_with_its_own_word_counts(
    installed: Installed, tmp_path: Path
) -> None:
    """The word counts ship in the wheel (generator/model/ngrams); wordsegment, whose
    counts they are, is no dependency."""
    found = installed.run(
        "python", "-c", "import importlib.util as u; print(u.find_spec('wordsegment'))"
    )
    assert found.stdout.strip() == "None", "the wheel's environment must not have wordsegment"
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "Split", "version": "1.0"},
        "paths": {
            "/keys": {
                "post": {
                    "operationId": "CreateanAPIkeyforaserviceaccount",
                    "tags": ["ServiceAccounts"],
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    write(tmp_path / "split.json", json.dumps(spec))
    out = tmp_path / "out"
    proc = installed.run(
        "jobgen", "generate", str(tmp_path / "split.json"), "-o", str(out), "--package", "split_sdk"
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    code = "".join(p.read_text(encoding="utf-8") for p in out.rglob("*.py"))
    assert "def create_an_api_key(" in code


@pytest.mark.slow
def test_a_users_test_importing_the_server_type_checks_strictly(
    installed: Installed, tmp_path: Path
) -> None:
    """jobgen ships py.typed, and run_server takes its arguments as docs/serve.md shows."""
    user = write(
        tmp_path / "test_app.py",
        "from jobgen.server import run_server\n\n\n"
        "def test_jobs() -> None:\n"
        '    with run_server("specs/sume.yaml", "specs/sume.jobs.yaml") as server:\n'
        "        job_id: str = server.create_job(credential='key-1')\n"
        "        assert server.base_url.startswith('http://') and job_id\n"
        "    with run_server(\n"
        '        "specs/sume.yaml", webhook_url="http://127.0.0.1:9/hook", webhook_secret="s"\n'
        "    ):\n"
        "        pass\n",
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--python-executable",
            str(installed.venv / "bin" / "python"),
            str(user),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow
def test_serve_without_its_extra_says_how_to_install_it(installed: Installed) -> None:
    proc = installed.run("jobgen", "serve", "specs/sume.yaml")
    assert proc.returncode == 2
    assert "pip install 'jobgen[serve]'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_wheel_lists_every_package_of_the_source_tree() -> None:
    """setuptools is given an explicit package list (templates/ is mapped into it)."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(pyproject["tool"]["setuptools"]["packages"])
    # A package of modules, or of data only (generator/model/ngrams); caches are none.
    found = {
        ".".join(p.relative_to(ROOT).parts)
        for p in (ROOT / "generator").rglob("*")
        if p.is_dir()
        and not any(part.startswith((".", "__")) for part in p.relative_to(ROOT).parts)
        and any(f.is_file() for f in p.iterdir())
    } | {"generator"}
    # generator/ installs as jobgen (package-dir), templates/ as jobgen.templates.
    found = {"jobgen" + name.removeprefix("generator") for name in found}
    found |= {
        ".".join(("jobgen", *p.relative_to(ROOT).parts))
        for p in [ROOT / "templates", *(ROOT / "templates").rglob("*")]
        if p.is_dir() and any(p.glob("*.jinja"))
    }
    assert listed == found


def _tree(directory: Path) -> dict[str, bytes]:
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }
