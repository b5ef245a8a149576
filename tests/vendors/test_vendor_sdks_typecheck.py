"""The SDKs of the vendor specs (a result named by the terminal record, the terminal
record as the result, a cancel without a canceled state, constants,
array elements and shared credential headers), and those of the published Azure
specs with jobs imported from their long-running operations (no side file), are ruff-,
mypy --strict and pyright --strict clean, as every generated SDK must be."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from jobgen.pipeline import Target, generate
from tests.helpers import pyright_strict
from tests.vendors.server import SPECS
from tests.vendors.test_azure_final_states import AZURE
from tests.vendors.test_azure_final_states import SPECS as AZURE_SPECS

VENDORS = ["anthropic_batches", "openai_batches", "replicate_predictions", "voiceover"]


@pytest.mark.slow
@pytest.mark.parametrize("name", VENDORS)
def test_the_vendor_sdk_passes_ruff_and_mypy_strict(
    name: str, tmp_path: Path, mypy_cache: Path
) -> None:
    package = f"{name}_sdk"
    out = tmp_path / package
    jobs = SPECS / f"{name}.jobs.yaml"
    generate(Target(spec=SPECS / f"{name}.yaml", output=out, package=package, jobs=jobs))
    _check(out, package, mypy_cache)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(AZURE_SPECS))
def test_the_azure_sdk_with_imported_jobs_passes_ruff_and_mypy_strict(
    name: str, tmp_path: Path, mypy_cache: Path
) -> None:
    package = f"azure_{name}_sdk"
    out = tmp_path / package
    generate(Target(spec=AZURE / AZURE_SPECS[name], output=out, package=package, ref_root=AZURE))
    _check(out, package, mypy_cache)


def _check(out: Path, package: str, mypy_cache: Path) -> None:
    for command in (
        ["ruff", "check", "--isolated", "--target-version", "py39", "--no-cache", package],
        ["mypy", "--strict", "--cache-dir", str(mypy_cache), "--python-version", "3.10", package],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", *command], cwd=out, capture_output=True, text=True, check=False
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr


def _generate_all(base: Path) -> list[Path]:
    """The vendor and Azure SDKs, generated in ``base``: their packages."""
    packages = []
    for name in VENDORS:
        package = f"{name}_sdk"
        jobs = SPECS / f"{name}.jobs.yaml"
        generate(
            Target(spec=SPECS / f"{name}.yaml", output=base / package, package=package, jobs=jobs)
        )
        packages.append(base / package / package)
    for name in sorted(AZURE_SPECS):
        package = f"azure_{name}_sdk"
        out = base / package
        generate(
            Target(spec=AZURE / AZURE_SPECS[name], output=out, package=package, ref_root=AZURE)
        )
        packages.append(out / package)
    return packages


@pytest.mark.slow
@pytest.mark.exhaustive
def test_the_vendor_and_azure_sdks_pass_pyright_strict_whole(tmp_path: Path) -> None:
    """All of them, whole, in one pyright run at the SDKs' Python floor (3.9). The fast
    suite runs pyright over the committed SDKs of generated/ (the same templates and the
    whole runtime, tests/test_generated_sdks.py) and mypy --strict over these."""
    packages = _generate_all(tmp_path)
    problems, analysed = pyright_strict(packages, tmp_path)
    assert analysed >= 20 * len(packages)
    assert problems == [], "\n".join(problems)
