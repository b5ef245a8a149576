"""Each committed SDK installs and works in a clean environment on every CPython 3.9-3.13.

The environment gets only what the SDK's own pyproject.toml asks for (httpx, attrs,
tenacity), installed by pip from the generated package; then every module is imported
and real calls are answered over httpx.MockTransport, sync and async.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from jobgen.config import load_targets
from jobgen.model import ir
from jobgen.model.build import load_and_build
from jobgen.server.samples import Sampler
from tests.helpers import ROOT

VERSIONS = ("3.9", "3.10", "3.11", "3.12", "3.13")
ENVS = ROOT / ".venv-sdk"


def interpreter(version: str) -> str:
    """A real CPython ``version``: pyenv's build if there is one, else one on PATH."""
    candidates = sorted(Path.home().glob(f".pyenv/versions/{version}.*/bin/python{version}"))
    if candidates:
        return str(candidates[-1])
    found = shutil.which(f"python{version}")
    if found and "/shims/" not in found:
        return found
    pytest.fail(f"CPython {version} is not installed; the SDKs must be checked on it")


def plan() -> list[dict[str, object]]:
    sdks = []
    for target in load_targets(ROOT / "pyproject.toml"):
        sdk = load_and_build(ROOT / target.spec, package=target.package)
        sampler = Sampler(sdk.schemas, timestamp="2026-11-29T08:00:00Z")
        calls = []
        for resource in sdk.resources:
            for op in resource.operations:
                needs_more = (
                    op.body is not None
                    and op.body.required
                    or any(
                        p.required and not p.has_default and p.location != "path"
                        for p in op.parameters
                    )
                )
                if op.response.kind != "json" or op.response.type is None or needs_more:
                    continue
                calls.append(
                    {
                        "resource": resource.attr,
                        "method": op.name,
                        "args": ["x"] * len(op.path_parameters),
                        "response": sampler.sample(op.response.type, force=True),
                    }
                )
        assert calls, f"{target.spec}: nothing to call"
        auth: dict[str, str] = {}
        for scheme in sdk.auths:
            if isinstance(scheme, ir.BasicAuth):
                auth |= {scheme.username_param: "user", scheme.password_param: "secret"}
            else:
                auth[scheme.param] = "test-key"
        sdks.append(
            {
                "package": sdk.package,
                "dir": str(ROOT / target.output),
                "calls": calls,
                "auth": auth,
            }
        )
    return sdks


def lowest_versions(pyproject: Path) -> list[str]:
    """``name==X`` for every ``name>=X`` a generated SDK's dependencies declare."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    pins = []
    for line in project["dependencies"]:
        requirement = Requirement(line)
        (lower,) = (s.version for s in requirement.specifier if s.operator == ">=")
        pins.append(f"{requirement.name}=={lower}")
    return pins


@pytest.mark.exhaustive
@pytest.mark.parametrize("version", VERSIONS)
def test_sdks_work_in_a_clean_environment(version: str, tmp_path: Path) -> None:
    """The newest httpx, attrs and tenacity each Python gets within the SDKs' ranges."""
    check_sdks(ENVS / version, version, tmp_path)


@pytest.mark.exhaustive
def test_sdks_work_with_the_lowest_versions_they_allow(tmp_path: Path) -> None:
    """The other end of every range: each dependency at its lower bound, on CPython 3.9."""
    lowest = lowest_versions(ROOT / "generated" / "sume" / "pyproject.toml")
    assert {pin.split("==")[0] for pin in lowest} == {"attrs", "httpx", "tenacity"}
    constraints = tmp_path / "lowest.txt"
    constraints.write_text("\n".join(lowest) + "\n", encoding="utf-8")
    freeze = check_sdks(ENVS / "3.9-lowest", "3.9", tmp_path, constraints=constraints)
    installed = {
        name.lower(): Version(version)
        for name, _, version in (line.partition("==") for line in freeze.splitlines())
        if version
    }
    for pin in lowest:
        name, _, version = pin.partition("==")
        assert installed[name] == Version(version), freeze


def check_sdks(env: Path, version: str, tmp_path: Path, constraints: Path | None = None) -> str:
    """Install every committed SDK into ``env`` and run the smoke calls; pip's freeze."""
    python = env / "bin" / "python"
    if not python.exists():
        subprocess.run([interpreter(version), "-m", "venv", str(env)], check=True)
    sdks = plan()
    dirs = []
    for sdk in sdks:  # build from copies: pip leaves build/ and egg-info behind
        copy = tmp_path / "src" / Path(str(sdk["dir"])).name
        shutil.copytree(str(sdk["dir"]), copy)
        dirs.append(str(copy))
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--force-reinstall",
            *(["-c", str(constraints)] if constraints else []),
            *dirs,
        ],
        check=True,
        capture_output=True,
    )
    frozen = subprocess.run(
        [str(python), "-m", "pip", "freeze"], capture_output=True, text=True, check=True
    ).stdout
    third_party = {
        line.split("==")[0].lower().replace("_", "-")
        for line in frozen.splitlines()
        if "==" in line
    }
    packages = {str(s["package"]).replace("_", "-") for s in sdks}
    # httpx, attrs, tenacity and what httpx itself needs: nothing else.
    allowed = {
        "httpx",
        "httpcore",
        "h11",
        "anyio",
        "idna",
        "certifi",
        "sniffio",
        "exceptiongroup",
        "typing-extensions",
    }
    assert third_party - packages <= allowed | {"attrs", "tenacity"}
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(sdks))
    proc = subprocess.run(
        [str(python), str(ROOT / "tests" / "sdk_smoke.py"), str(plan_file)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count(": ok (") == len(sdks)
    return frozen
