"""The generator writes formatted code itself: ruff, run as a check only, finds nothing.

Every spec in specs/ and tests/specs/, and every real published spec in
shared/specs-real (with its job side file), is rendered (the render stage's output,
which ``generate`` writes as it is) and checked with the settings SDKs are held to: ``ruff format --check``
(line length 88, Python 3.9; README code blocks included) and ``ruff check --select
I,F401,RUF022`` (import order, no unused import, sorted ``__all__``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from jobgen.model.build import load_and_build
from jobgen.pipeline import Target, generate
from jobgen.render.render import render_sdk
from tests.helpers import REAL_SPECS, SPECS, TEST_SPECS
from tests.real.conftest import RealSdks
from tests.real.realspecs import SPECS as REAL

RUFF = ("--isolated", "--target-version", "py39", "--no-cache")


def _render(target: Target) -> dict[str, str]:
    sdk = load_and_build(target.spec, package=target.package, jobs_file=target.jobs)
    return render_sdk(sdk, target.spec.name)


def _write(files: dict[str, str], root: Path) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _assert_ruff_finds_nothing(root: Path) -> None:
    for command in (
        ["format", "--check", *RUFF, "."],
        ["check", "--select", "I,F401,RUF022", *RUFF, "."],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "ruff", *command],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, f"ruff {command[0]}:\n{proc.stdout[-6000:]}{proc.stderr}"


def _example_targets(out: Path) -> list[Target]:
    specs = sorted(SPECS.glob("*.yaml")) + sorted(
        p for p in TEST_SPECS.iterdir() if p.suffix in (".yaml", ".json")
    )
    assert len(specs) >= 6
    return [
        Target(
            spec=spec,
            output=out / spec.stem,
            package=spec.stem.replace("-", "_").replace(".", "_") + "_sdk",
        )
        for spec in specs
    ]


def test_example_sdks_are_already_formatted(tmp_path: Path) -> None:
    for target in _example_targets(tmp_path):
        _write(_render(target), target.output)
    _assert_ruff_finds_nothing(tmp_path)


def test_generation_runs_no_subprocess(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No formatter (nor anything else) is run: ruff need not be installed."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"generation started a process: {args!r:.200}")

    monkeypatch.setattr(subprocess, "run", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)
    target = _example_targets(tmp_path)[0]
    generate(target)
    assert (target.output / "pyproject.toml").is_file()


@pytest.mark.slow
def test_real_spec_sdks_are_already_formatted(real_sdks: RealSdks) -> None:
    """The SDKs the real-spec tests generate (``generate`` writes the rendered files as they are)."""
    if not REAL_SPECS.is_dir():
        pytest.skip(f"the real specs are not at {REAL_SPECS}")
    roots = {real_sdks.get(spec).root for spec in REAL}
    assert len(roots) == len(REAL) and len({root.parent for root in roots}) == 1
    _assert_ruff_finds_nothing(roots.pop().parent)
