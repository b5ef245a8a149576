"""Every example spec's jobs through an oracle the project did not write: Stoplight Prism
(``prism proxy SPEC SERVE --errors``) between the committed SDK and ``jobgen serve``.

Each job is created and waited for through the generated SDK, ``Client`` and
``AsyncClient``: to success (``create_and_wait`` returns), to failure and, where the job
declares a cancel, to cancel (the handle's ``result()`` raises ``JobFailed`` /
``JobCanceled``). Prism checks every request before forwarding it and every answer of
the simulator: it must report nothing, in either direction (no ``sl-violations`` header,
no problem of its own, no violation or error in its log), and serve's own self-check
counts no violation either. One Prism process and one server per spec.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from types import ModuleType

import attrs
import pytest

from jobgen.config import load_targets
from jobgen.model import ir
from jobgen.model.build import load_and_build
from jobgen.pipeline import Target
from jobgen.server import RunningServer, run_server
from tests.helpers import ROOT
from tests.oracle.drive import Driver, Exchange, Mode, Run, cases
from tests.oracle.prism import Prism

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

TARGETS = load_targets(ROOT / "pyproject.toml")


@attrs.frozen
class Oracle:
    target: Target
    sdk: ir.Sdk
    package: ModuleType
    server: RunningServer
    prism: Prism


def _imported(target: Target) -> ModuleType:
    """The committed SDK of ``target``, from generated/ (a copy imported before is put
    aside and restored by the caller)."""
    assert target.package is not None
    module = importlib.import_module(target.package)
    assert module.__file__ is not None and module.__file__.startswith(str(ROOT / "generated"))
    importlib.import_module(f"{target.package}.models")
    return module


@pytest.fixture(scope="module", params=TARGETS, ids=[t.spec.stem for t in TARGETS])
def oracle(request: pytest.FixtureRequest) -> Iterator[Oracle]:
    target: Target = request.param
    package = target.package
    assert package is not None

    def ours(name: str) -> bool:
        return name == package or name.startswith(package + ".")

    saved = {name: module for name, module in sys.modules.items() if ours(name)}
    for name in saved:
        del sys.modules[name]
    sys.path.insert(0, str(target.output))
    sdk = load_and_build(target.spec, jobs_file=target.jobs)
    try:
        with (
            run_server(target.spec, target.jobs, self_check="log") as server,
            Prism(target.spec, server.base_url) as prism,
        ):
            yield Oracle(target, sdk, _imported(target), server, prism)
    finally:
        sys.path.remove(str(target.output))
        for name in [name for name in sys.modules if ours(name)]:
            del sys.modules[name]
        sys.modules.update(saved)


def _findings(run: Run) -> list[str]:
    """What went wrong in one wait, as Prism and the SDK saw it."""
    where = f"{run.case.name} {run.outcome} ({run.mode})"
    found = [f"{where}: {run.error}"] if run.error else []
    for exchange in run.exchanges:
        said = exchange.headers.get("sl-violations")
        if said:
            found.append(f"{where}: {exchange.method} {exchange.path} {exchange.status}: {said}")
        if exchange.headers.get("content-type", "").startswith("application/problem+json"):
            found.append(
                f"{where}: Prism answered {exchange.method} {exchange.path} "
                f"{exchange.status}: {exchange.body[:600]!r}"
            )
    return found


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_prism_reports_no_violation_on_every_job(oracle: Oracle, mode: Mode) -> None:
    driver = Driver(
        oracle.sdk, oracle.package, oracle.prism.base_url, headers=oracle.prism.forwarded
    )
    jobs = cases(oracle.sdk)
    assert jobs, f"{oracle.target.spec.name} declares no job the SDK creates"
    findings: list[str] = []
    runs = 0
    since = oracle.prism.mark()
    checked = oracle.server.self_check.checked
    for case in jobs:
        for outcome in case.outcomes(through_proxy=True):
            run = driver.run(case, outcome, mode)
            runs += 1
            findings += _findings(run)
            # Every wait went through Prism.
            assert run.exchanges, run
    findings += [f"Prism's log: {line}" for line in oracle.prism.problems(since)]
    findings += [f"self-check: {v}" for v in oracle.server.self_check.violations()]
    assert not findings, "\n".join(findings)
    assert oracle.server.self_check.checked > checked
    assert runs == sum(len(case.outcomes(through_proxy=True)) for case in jobs) >= len(jobs)


SUME = next(t for t in TARGETS if t.spec.stem == "sume")


@pytest.mark.parametrize("oracle", [SUME], ids=["sume"], indirect=True)
def test_prism_names_an_answer_that_breaks_the_spec(oracle: Oracle) -> None:
    """The oracle is not silent: a status record in a state Sume's enum does not list
    (the scenario's ``undocumented_state``) is named by Prism in its ``sl-violations``
    header and its log, and refused with 500. Serve's self-check does not count it: the
    scenario asked for that answer, a deliberate fault and no bug of the simulator."""
    driver = Driver(
        oracle.sdk, oracle.package, oracle.prism.base_url, headers=oracle.prism.forwarded
    )
    (case,) = cases(oracle.sdk)
    since = oracle.prism.mark()
    checked = oracle.server.self_check.count
    seen: list[Exchange] = []
    scenario = {"states": [{"state": "processing", "polls": 1}], "undocumented_state": "exploded"}
    with pytest.raises(oracle.package.errors.SDKError):
        driver.wait(case, scenario, seen)
    refused = [e for e in seen if e.headers.get("sl-violations")]
    assert refused and all(e.status == 500 for e in refused)
    named = json.loads(refused[0].headers["sl-violations"])
    assert ["response", "body", "data", "status"] in [v["location"] for v in named]
    logged = oracle.prism.problems(since)
    assert any("VIOLATIONS" in line for line in logged), oracle.prism.output()[since:]
    assert oracle.server.self_check.count == checked
