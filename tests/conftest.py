"""Fixtures shared by every test package."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, settings

from jobgen.server import SelfCheck
from tests.ci.release import build_and_check
from tests.helpers import REAL_SPECS, TEST_SPECS, CommittedSdks, imported_sdk
from tests.real.conftest import RealSdks

# Every simulated server of the suite checks its own answers against the spec, strictly:
# an answer that breaks it fails the test that caused it (docs/serve.md#the-self-check).
os.environ.setdefault("JOBGEN_SERVE_SELF_CHECK", "strict")

# Tests assert behaviour, never time: Hypothesis's per-example deadline and its check that
# drawing inputs is quick both measure wall time, which a loaded machine (more pytest
# workers than cores, CI) stretches at random. Tests that set their own settings keep them.
settings.register_profile("jobgen", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("jobgen")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The real-spec tests skip when the published specs are absent: say so, once. And
    how many answers of the simulated servers (in this process) broke the spec."""
    checked = SelfCheck.totals["checked"]
    if checked:
        violated = SelfCheck.totals["violated"]
        terminalreporter.write_line(
            f"jobgen serve self-check: {violated} of {checked} answers broke the spec",
            red=bool(violated),
        )
        for kind, count in SelfCheck.kinds.most_common(20):
            terminalreporter.write_line(f"  {count:5d}  {kind}")
    if not REAL_SPECS.is_dir():
        terminalreporter.write_line(
            f"real-spec tests skipped: {REAL_SPECS} is missing", yellow=True, bold=True
        )
    elif not (REAL_SPECS / "azure").is_dir():
        terminalreporter.write_line(
            f"Azure corpus tests skipped: {REAL_SPECS / 'azure'} is missing", yellow=True, bold=True
        )


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``make test``: ``--dist loadgroup``) a module's tests run on one
    worker, so its module fixtures (a built wheel, a generated SDK) are made once; the
    real-spec tests share one worker, which generates each published spec's SDK once."""
    for item in items:
        if item.get_closest_marker("xdist_group"):
            continue  # placed by its module (modules sharing a session fixture)
        if item.get_closest_marker("exhaustive") and item.nodeid.startswith("tests/fuzz/"):
            group = item.nodeid  # the parts of a deletion sweep share nothing: any worker
        elif "real_sdks" not in getattr(item, "fixturenames", ()):
            group = item.nodeid.split("::")[0]
        else:
            group = "real"
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(scope="session")
def committed_sdks() -> Iterator[CommittedSdks]:
    """Every SDK of [tool.jobgen], imported from its committed folder in generated/; one
    import per session, shared by the waiter and end-to-end tests (two imports of a
    package on one worker would give two copies of its classes); unimported afterwards."""
    saved = {n: m for n, m in sys.modules.items() if n.split(".")[0].endswith("_sdk")}
    sdks = CommittedSdks()
    sdks.load()
    try:
        yield sdks
    finally:
        sdks.unload()
        sys.modules.update({n: m for n, m in saved.items() if sdks.ours(n)})


@pytest.fixture(scope="session")
def release(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """jobgen's sdist and wheel as a release builds them (the wheel from the sdist) and
    checks them (``twine check --strict``), once per session: the modules using them share
    the xdist group ``"dist"``, so one worker builds them."""
    return build_and_check(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="session")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One mypy cache for the session (per worker): the standard library, httpx, attrs and
    tenacity are analysed by the first mypy run, not by every one. Only the modules a run
    changes are checked again; a module with errors is never cached, so errors show every time."""
    return tmp_path_factory.mktemp("mypy-cache")


@pytest.fixture(scope="session")
def real_sdks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealSdks]:
    """The SDK of every real spec, generated and imported on first use, once per session."""
    sdks = RealSdks(tmp_path_factory.mktemp("real"))
    yield sdks
    sdks.close()


@pytest.fixture(scope="session")
def features(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The SDK of tests/specs/features-3.1.yaml: every schema feature and auth scheme."""
    with imported_sdk(
        TEST_SPECS / "features-3.1.yaml", tmp_path_factory.mktemp("sdk"), "features_sdk"
    ) as sdk:
        yield sdk


@pytest.fixture(scope="session")
def features30(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The SDK of tests/specs/features-3.0.json (OpenAPI 3.0: nullable, allOf refs)."""
    with imported_sdk(
        TEST_SPECS / "features-3.0.json", tmp_path_factory.mktemp("sdk"), "features30_sdk"
    ) as sdk:
        yield sdk


@pytest.fixture
def spec_dir(tmp_path: Path) -> Path:
    return tmp_path
