"""The config ([tool.jobgen] in pyproject.toml or jobgen.toml), the SDK's own version, and
the package name: every bad value is exit 2 with file#pointer, and nothing is written."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from jobgen import pipeline
from jobgen.cli import main
from jobgen.problems import SpecError
from tests.helpers import SPECS, write

SDK = '[[{prefix}sdk]]\nspec = "sume.yaml"\noutput = "out"\npackage = "sume_sdk"\n{extra}'


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copy(SPECS / "sume.yaml", tmp_path / "sume.yaml")
    return tmp_path


def version_of(out: Path) -> str:
    line = next(
        line
        for line in (out / "pyproject.toml").read_text().splitlines()
        if line.startswith("version")
    )
    return line.split('"')[1]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("jobgen.toml", SDK.format(prefix="", extra="")),
        ("jobgen.toml", "[tool.jobgen]\n" + SDK.format(prefix="tool.jobgen.", extra="")),
        ("pyproject.toml", "[project]\nname = 'x'\n" + SDK.format(prefix="tool.jobgen.", extra="")),
    ],
    ids=["jobgen.toml [[sdk]]", "jobgen.toml [tool.jobgen]", "pyproject.toml [tool.jobgen]"],
)
def test_every_documented_config_form_works(project: Path, name: str, text: str) -> None:
    config = write(project / name, text)
    assert main(["generate", "--config", str(config)]) == 0
    assert (project / "out" / "sume_sdk" / "__init__.py").is_file()
    assert main(["generate", "--config", str(config), "--check"]) == 0


def test_both_forms_in_one_jobgen_toml_is_an_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write(
        project / "jobgen.toml",
        SDK.format(prefix="", extra="")
        + "\n[tool.jobgen]\n"
        + SDK.format(prefix="tool.jobgen.", extra=""),
    )
    assert main(["generate", "--config", str(config)]) == 2
    assert f"{config}#/sdk: list the SDKs either in [tool.jobgen]" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "version"),
    [("", "1.0.0"), ('version_from = "spec"\n', "1.0.0"), ('version = "1.2.0rc1"\n', "1.2.0rc1")],
)
def test_the_sdk_version_comes_from_the_config_or_the_spec(
    project: Path, extra: str, version: str
) -> None:
    config = write(project / "jobgen.toml", SDK.format(prefix="", extra=extra))
    assert main(["generate", "--config", str(config)]) == 0
    assert version_of(project / "out") == version
    assert (
        f'__version__ = "{version}"' in (project / "out" / "sume_sdk" / "_version.py").read_text()
    )


def test_the_sdk_version_on_the_command_line(project: Path) -> None:
    out = project / "cli"
    spec = str(project / "sume.yaml")
    assert main(["generate", spec, "-o", str(out), "--sdk-version", "2.0.1"]) == 0
    assert version_of(out) == "2.0.1"
    assert main(["generate", spec, "-o", str(out), "--sdk-version", "2.0.1", "--check"]) == 0
    assert main(["generate", spec, "-o", str(out), "--check"]) == 1, "the version is an input"


def test_every_bad_option_is_reported_with_its_pointer(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write(
        project / "pyproject.toml",
        "[tool.jobgen]\nsdks = 1\n"
        '[[tool.jobgen.sdk]]\nspec = "sume.yaml"\noutput = "a"\npackage = 5\njobs = []\n'
        '[[tool.jobgen.sdk]]\nspec = "sume.yaml"\noutput = "b"\npackage = "typing"\n'
        'version = "one"\n'
        '[[tool.jobgen.sdk]]\nspec = "sume.yaml"\noutput = "c"\nversion = "1.0"\n'
        'version_from = "git"\nversion_check = "sometimes"\n',
    )
    assert main(["generate", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    at = f"{config}#/tool/jobgen"
    for expected in (
        f"{at}/sdks: unknown key 'sdks'",
        f"{at}/sdk/0/package: must be a string, not a number",
        f"{at}/sdk/0/jobs: must be a string, not an array",
        f"{at}/sdk/1/package: 'typing' would shadow the standard library",
        f"{at}/sdk/1/version: 'one' is not a valid version",
        f"{at}/sdk/2/version_from: must be one of: spec",
        f"{at}/sdk/2/version_from: give either 'version' or 'version_from', not both",
        f"{at}/sdk/2/version_check: must be one of: fail, warn",
        "8 problems; nothing was written",
    ):
        assert expected in err
    assert not any((project / d).exists() for d in "abc")


@pytest.mark.parametrize(
    ("package", "reason"),
    [
        ("../src/mylib", "is not a valid package name"),
        ("/tmp/x", "is not a valid package name"),
        ("a;b", "is not a valid package name"),
        ("a.b", "is not a valid package name"),
        ("", "is not a valid package name"),
        ("class", "is a Python keyword"),
        ("typing", "would shadow the standard library module 'typing'"),
        ("json", "would shadow the standard library module 'json'"),
        ("attrs", "which the generated SDK imports"),
        ("httpx", "which the generated SDK imports"),
        ("typing_extensions", "which the generated SDK imports"),
    ],
)
def test_a_bad_package_name_is_exit_2_and_writes_nothing(
    project: Path, package: str, reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = write(project / "src" / "mylib" / "__init__.py", "# hand-written\n")
    out = project / "out"
    assert main(["generate", str(project / "sume.yaml"), "-o", str(out), "--package", package]) == 2
    err = capsys.readouterr().err
    assert f"jobgen: --package: {package!r}" in err and reason in err
    assert "Traceback" not in err
    assert not out.exists() and mine.read_text() == "# hand-written\n"
    assert sorted(p.name for p in (project / "src").rglob("*")) == ["__init__.py", "mylib"]


def test_a_package_name_derived_from_the_title_is_checked_too(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = project / "sume.yaml"
    spec.write_text(spec.read_text().replace("title: Sume API", "title: Email", 1))
    assert "title: Email" in spec.read_text()
    assert main(["generate", str(spec), "-o", str(project / "out")]) == 2
    err = capsys.readouterr().err
    assert f"{spec}#/info/title: 'email' would shadow the standard library" in err
    assert "--package" in err
    assert main(["generate", str(spec), "-o", str(project / "out"), "--package", "email_sdk"]) == 0
    assert main(["validate", str(spec)]) == 0, "the name matters only when generating"


def test_spec_options_are_refused_with_a_config(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write(project / "jobgen.toml", SDK.format(prefix="", extra=""))
    assert main(["generate", "--config", str(config), "--package", "x_sdk"]) == 2
    assert "--package applies to `jobgen generate SPEC`" in capsys.readouterr().err


THREE_SDKS = "".join(
    SDK.format(prefix="", extra="").replace('"out"', f'"{out}"').replace("sume.yaml", spec)
    for out, spec in (("one", "sume.yaml"), ("two", "second.yaml"), ("three", "third.yaml"))
)


def _three_specs(project: Path) -> Path:
    text = (project / "sume.yaml").read_text()
    write(project / "second.yaml", text.replace("title: Sume API", "title: Second API", 1))
    write(project / "third.yaml", text.replace("title: Sume API", "title: Third API", 1))
    return write(project / "jobgen.toml", THREE_SDKS)


def test_several_sdks_render_in_worker_processes_as_one_would_alone(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _three_specs(project)
    pids = project / "pids"
    render = pipeline._render

    def recording(target: pipeline.Target) -> object:
        with pids.open("a") as log:
            log.write(f"{os.getpid()}\n")
        return render(target)

    monkeypatch.setattr(pipeline, "_render", recording)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert main(["generate", "--config", str(config)]) == 0
    workers = set(pids.read_text().split())
    assert len(workers) == 2 and str(os.getpid()) not in workers
    alone = project / "alone"
    assert (
        main(["generate", str(project / "third.yaml"), "-o", str(alone), "--package", "sume_sdk"])
        == 0
    )
    written = {p.relative_to(alone): p.read_bytes() for p in alone.rglob("*") if p.is_file()}
    three = project / "three"
    assert written == {
        p.relative_to(three): p.read_bytes() for p in three.rglob("*") if p.is_file()
    }
    assert main(["generate", "--config", str(config), "--check"]) == 0


def test_bad_input_in_any_of_several_sdks_writes_none_and_names_each_problem(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _three_specs(project)
    for name in ("second.yaml", "third.yaml"):
        spec = project / name
        spec.write_text(spec.read_text().replace("openapi: 3.1.0", "openapi: 9.9.9", 1))
    assert main(["generate", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    second, third = (
        err.index(f"{project / 'second.yaml'}#/openapi"),
        err.index(f"{project / 'third.yaml'}#/openapi"),
    )
    assert second < third
    assert err.rstrip().endswith("2 problems; nothing was written")
    assert not any((project / out).exists() for out in ("one", "two", "three"))


def test_render_all_renders_each_target_in_memory_as_render_does(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _three_specs(project)
    targets = [
        pipeline.Target(spec=project / name, output=project / out, package="sume_sdk")
        for name, out in (("sume.yaml", "one"), ("third.yaml", "three"))
    ]
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    rendered = pipeline.render_all(targets)
    assert rendered == [pipeline.render(target) for target in targets]
    assert rendered[0] != rendered[1]
    assert not any((project / out).exists() for out in ("one", "three")), "nothing written"
    spec = project / "third.yaml"
    spec.write_text(spec.read_text().replace("openapi: 3.1.0", "openapi: 9.9.9", 1))
    with pytest.raises(SpecError) as caught:
        pipeline.render_all(targets)
    assert [p.location.file for p in caught.value.problems] == [str(spec)]


def test_two_sdks_with_one_output_are_refused(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = SDK.format(prefix="", extra="") + SDK.format(prefix="", extra="").replace(
        'output = "out"', 'output = "./out/"'
    )
    config = write(project / "jobgen.toml", text)
    assert main(["generate", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "#/sdk/1/output: " in err and "is also the output of sdk entry 0" in err, err
    assert "each SDK needs a folder of its own" in err and "Traceback" not in err
    assert not (project / "out").exists()


def test_validate_without_a_spec_checks_the_config_and_each_spec_it_names_in_one_run(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    spec = project / "sume.yaml"
    spec.write_text(spec.read_text().replace("operationId: getJob\n", "operationId: getJb\n", 1))
    write(project / "pyproject.toml", SDK.format(prefix="tool.jobgen.", extra='kep = ["x"]\n'))
    assert main(["validate"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert (
        err[0]
        == "error: pyproject.toml#/tool/jobgen/sdk/0/kep: unknown key 'kep' (did you mean 'keep'?)"
    )
    assert any(line.startswith("error: sume.yaml#/x-jobgen/jobs/job/status: ") for line in err)
    assert err[-1].endswith(" problems") and int(err[-1].split()[0]) >= 2
    assert main(["generate"]) == 2, "generate reports the same problems"
    assert capsys.readouterr().err.splitlines()[:-1] == err[:-1]

    write(project / "pyproject.toml", SDK.format(prefix="tool.jobgen.", extra=""))
    spec.write_text((SPECS / "sume.yaml").read_text())
    assert main(["validate"]) == 0
    assert capsys.readouterr().out.startswith("sume.yaml: valid (")
    assert main(["validate", "sume.yaml", "--config", "pyproject.toml"]) == 2
    assert main(["validate", "--jobs", "x.jobs.yaml"]) == 2
    assert "jobgen: --jobs applies to `jobgen validate SPEC`" in capsys.readouterr().err
