"""Application code written the natural way against the committed Sume SDK (and the
keyed DeepL-style one) type-checks under mypy --strict and pyright --strict, with no cast
and no ignore comment; the mistakes in ``mistakes/`` are caught by both."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

HERE = Path(__file__).resolve().parent
SDK = ROOT / "generated" / "sume"
KEYED_SDK = ROOT / "generated" / "deepl_documents"
APPS = sorted(p for p in HERE.glob("*.py") if not p.name.startswith(("test_", "__")))
MISTAKES = HERE / "mistakes" / "mistakes.py"
PYRIGHT = Path(sys.executable).with_name("pyright")


@pytest.fixture(scope="module")
def jobgen_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder where ``jobgen`` is the checkout's generator/, as an installed wheel has it.

    The development install maps the package with an import hook, which type checkers do not
    run; the applications import ``jobgen.server`` as a user's tests would."""
    folder = tmp_path_factory.mktemp("jobgen-path")
    (folder / "jobgen").symlink_to(ROOT / "generator", target_is_directory=True)
    return folder


def _mypy(*files: Path, cache: Path, jobgen: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), *map(str, files)],
        cwd=ROOT,
        env={**os.environ, "MYPYPATH": os.pathsep.join([str(SDK), str(KEYED_SDK), str(jobgen)])},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _pyright(project: Path, jobgen: Path) -> subprocess.CompletedProcess[str]:
    """pyright with ``project``'s own pyrightconfig.json, its paths made absolute and the
    folder holding ``jobgen`` added to its extraPaths."""
    config = json.loads((project / "pyrightconfig.json").read_text(encoding="utf-8"))
    # pyright reads include and exclude relative to the configuration file only.
    for key, default in (("include", ["."]), ("exclude", [])):
        config[key] = [os.path.relpath(project / p, jobgen) for p in config.get(key, default)]
    config["extraPaths"] = [str(project / p) for p in config.get("extraPaths", [])] + [str(jobgen)]
    written = jobgen / f"pyrightconfig-{project.name}.json"
    written.write_text(json.dumps(config), encoding="utf-8")
    return subprocess.run(
        [str(PYRIGHT), "--outputjson", "--pythonpath", sys.executable, "--project", str(written)],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _marked_lines(path: Path) -> set[int]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return {n for n, line in enumerate(lines, 1) if "# error" in line}


def test_the_applications_cover_each_use() -> None:
    names = {p.stem for p in APPS}
    assert {"sync_app", "async_app", "hooks_app", "errors_app", "optional_fields"} <= names
    assert "enum_literals" in names
    assert "keyed_app" in names and "webhook_app" in names
    assert "pytest_app" in names and "fastapi_app" in names


def test_the_pytest_app_passes(tmp_path: Path) -> None:
    """The pytest suite among the applications passes against the simulated Sume API."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            str(HERE / "pytest_app.py"),
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(SDK), str(ROOT)])},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("3 passed"), proc.stdout


def test_the_applications_are_checked_strictly_as_written() -> None:
    """Strict everywhere, and nothing silenced: no cast, no ignore comment."""
    for config in (HERE / "pyrightconfig.json", MISTAKES.parent / "pyrightconfig.json"):
        assert json.loads(config.read_text(encoding="utf-8"))["typeCheckingMode"] == "strict"
    for app in [*APPS, MISTAKES, *HERE.glob("opurl/*.py")]:
        text = app.read_text(encoding="utf-8")
        for silencer in ("cast(", "type: ignore", "pyright: ignore"):
            assert silencer not in text, f"{app.name}: {silencer}"


@pytest.mark.slow
def test_applications_pass_mypy_strict(mypy_cache: Path, jobgen_path: Path) -> None:
    proc = _mypy(*APPS, cache=mypy_cache, jobgen=jobgen_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow
def test_applications_pass_pyright_strict(jobgen_path: Path) -> None:
    proc = _pyright(HERE, jobgen_path)
    report = json.loads(proc.stdout)
    assert report["summary"]["errorCount"] == 0, proc.stdout
    assert report["summary"]["filesAnalyzed"] >= len(APPS), proc.stdout
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
def test_mistakes_are_caught_by_mypy(mypy_cache: Path, jobgen_path: Path) -> None:
    proc = _mypy(MISTAKES, cache=mypy_cache, jobgen=jobgen_path)
    found = {int(n) for n in re.findall(r"mistakes\.py:(\d+): error", proc.stdout)}
    assert found == _marked_lines(MISTAKES), proc.stdout


@pytest.mark.slow
def test_mistakes_are_caught_by_pyright(jobgen_path: Path) -> None:
    proc = _pyright(MISTAKES.parent, jobgen_path)
    diagnostics = json.loads(proc.stdout)["generalDiagnostics"]
    found = {d["range"]["start"]["line"] + 1 for d in diagnostics if d["severity"] == "error"}
    assert found == _marked_lines(MISTAKES), proc.stdout


def test_enum_values_at_construction() -> None:
    """A documented value as a plain string becomes its member; an undocumented one is
    refused at once, naming the documented values; a member built on purpose is sent."""
    sys.path.insert(0, str(SDK))
    try:
        from sume_sdk.models import CreateJobRequest, CreateJobRequestMode, TextInput

        text = TextInput(type="text", text="hi")
        request = CreateJobRequest(input=text, mode="webhook")  # type: ignore[arg-type]
        assert request.mode is CreateJobRequestMode.WEBHOOK
        with pytest.raises(ValueError, match=r"'bogus' is not a documented .*'polling'"):
            CreateJobRequest(input=text, mode="bogus")  # type: ignore[arg-type]
        newer = CreateJobRequest(input=text, mode=CreateJobRequestMode("batch"))
        assert newer.to_dict()["mode"] == "batch"
        assert CreateJobRequest.from_dict({"input": text.to_dict(), "mode": "later"}).mode == (
            "later"
        )
    finally:
        sys.path.remove(str(SDK))
        for name in [n for n in sys.modules if n.split(".")[0] == "sume_sdk"]:
            del sys.modules[name]


@pytest.mark.slow
def test_an_operation_url_application_passes_mypy_strict(mypy_cache: Path) -> None:
    sdks = [ROOT / "generated" / name for name in ("async_request_reply", "azure_operations")]
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--cache-dir",
            str(mypy_cache),
            str(HERE / "opurl" / "operation_url_app.py"),
        ],
        cwd=ROOT,
        env={**os.environ, "MYPYPATH": os.pathsep.join(map(str, sdks))},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_optional_field_idiom_keeps_0_and_reads_absent_and_null_as_the_default() -> None:
    """The SDK README's idiom, as the application writes it, run on real records."""
    script = (
        "import json, optional_fields as app\n"
        "from sume_sdk.models import Job\n"
        "base = {'id': 'job_1', 'status': 'processing', 'terminal': False,"
        " 'result_ready': False, 'mode': 'polling',"
        " 'created_at': '2026-01-01T00:00:00Z', 'updated_at': '2026-01-01T00:00:00Z'}\n"
        "out = []\n"
        "for extra in ({'next_poll_after_seconds': 0}, {'next_poll_after_seconds': None}, {},"
        " {'next_poll_after_seconds': 2.5}):\n"
        "    record = Job.from_dict({**base, **extra})\n"
        "    out.append([app.eta(record, 7.0), app.eta_of_field(record, 7.0)])\n"
        "print(json.dumps(out))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(SDK), str(HERE)])},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [[0.0, 0.0], [7.0, 7.0], [7.0, 7.0], [2.5, 2.5]]
    readme = (SDK / "README.md").read_text(encoding="utf-8")
    idiom = "default if record.field is None or isinstance(record.field, Unset) else record.field"
    assert idiom in readme
    assert "value = record.field or default" not in readme
