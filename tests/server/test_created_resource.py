"""A create that answers the resource it creates beside an operation monitor
(tests/server/specs/reports.yaml, App Configuration's snapshot shape), over real HTTP in
strict self-check mode: the monitor carries the job's states, the report's own status
reports the job's phase from its own enum, and the report read at the create's URL is the
job's result (one report, not a page of records, though it has one array and a ``Link``
header). Bodies are checked with jsonschema (not the validator serve uses) against the
spec's own schemas; the generated SDK waits through it, sync and async, and returns the
report though its job (with the monitor, tagged ``operations``) and the report's read
(tagged ``reports``) are in two modules that both define a ``get``."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import jsonschema
import pytest
import yaml
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from jobgen.pipeline import Target, generate
from jobgen.server import SCENARIO_HEADER, RunningServer, run_server
from tests.helpers import imported_sdk, own_modules, pyright_strict

SPEC = Path(__file__).resolve().parent / "specs" / "reports.yaml"
KEY = "key-1"
REPORT_BODY = {"sections": [{"title": "Q3"}], "retention_seconds": 7200}


def _oracle(pointer: str) -> jsonschema.Draft202012Validator:
    document = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    registry: Registry[Any] = Registry().with_resource(
        "urn:spec", Resource.from_contents(document, default_specification=DRAFT202012)
    )
    return jsonschema.Draft202012Validator(
        {"$ref": f"urn:spec#{pointer}"},
        registry=registry,
        format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER,
    )


REPORT = _oracle("/components/schemas/Report")
OPERATION = _oracle("/components/schemas/Operation")


def _valid(validator: jsonschema.Draft202012Validator, value: Any) -> None:
    problems = [f"{e.json_path}: {e.message}" for e in validator.iter_errors(value)]
    assert problems == [], value


def _scenario(states: list[str], final: str) -> dict[str, str]:
    stages = [{"state": state, "polls": 1} for state in states]
    return {SCENARIO_HEADER: json.dumps({"states": stages, "final": final})}


@pytest.fixture(scope="module")
def reports() -> Iterator[RunningServer]:
    with run_server(SPEC, self_check="strict") as server:
        yield server


@pytest.fixture
def http(reports: RunningServer) -> Iterator[httpx.Client]:
    reports.reset()
    with httpx.Client(base_url=reports.base_url, headers={"x-api-key": KEY}) as client:
        yield client


def test_the_report_is_building_while_its_monitor_runs_and_ready_once_it_succeeds(
    reports: RunningServer, http: httpx.Client
) -> None:
    created = http.put("/reports/q3", json=REPORT_BODY, headers=_scenario(["Running"], "Succeeded"))
    assert created.status_code == 201, created.text
    _valid(REPORT, created.json())
    assert created.json()["status"] == "building"
    # The report the PUT's path names, as the request described it.
    assert created.json()["name"] == "q3"
    assert created.json()["sections"] == REPORT_BODY["sections"]
    assert created.json()["retention_seconds"] == REPORT_BODY["retention_seconds"]

    monitor = created.headers["operation-location"]
    reads = [http.get(monitor).json() for _ in range(2)]
    for read in reads:
        _valid(OPERATION, read)
    assert [r["status"] for r in reads] == ["Running", "Succeeded"]

    report = http.get("/reports/q3")
    assert report.status_code == 200, report.text
    _valid(REPORT, report.json())
    assert report.json()["status"] == "ready"
    assert report.json()["name"] == "q3"
    assert report.json()["sections"] == REPORT_BODY["sections"]
    assert report.json()["retention_seconds"] == REPORT_BODY["retention_seconds"]
    assert reports.self_check.count == 0


def test_a_job_failed_at_once_answers_a_failed_report(
    reports: RunningServer, http: httpx.Client
) -> None:
    created = http.put("/reports/q4", json=REPORT_BODY, headers=_scenario([], "Failed"))
    assert created.status_code == 201
    _valid(REPORT, created.json())
    assert created.json()["status"] == "failed"
    operation = http.get(created.headers["operation-location"]).json()
    _valid(OPERATION, operation)
    assert operation["status"] == "Failed"
    assert reports.self_check.count == 0


@pytest.fixture(scope="module")
def reports_sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    with imported_sdk(SPEC, tmp_path_factory.mktemp("reports"), "reports_sdk") as package:
        yield package


async def _no_sleep(seconds: float) -> None:
    await asyncio.sleep(0)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_generated_sdk_returns_the_ready_report(
    reports: RunningServer, reports_sdk: ModuleType, mode: str
) -> None:
    reports.reset()
    sdk = reports_sdk
    options: dict[str, Any] = {
        "base_url": reports.base_url,
        "api_key": KEY,
        "headers": _scenario(["Running"], "Succeeded"),
        "wait_config": sdk.WaitConfig(sleep=lambda seconds: None, async_sleep=_no_sleep),
    }
    body = sdk.models.Report(name="q3", sections=[sdk.models.Section(title="Q3")])
    if mode == "sync":
        with sdk.Client(**options) as client:
            report = client.operations.create_and_wait("q3", body=body, deadline=30)
    else:

        async def main() -> Any:
            async with sdk.AsyncClient(**options) as client:
                return await client.operations.create_and_wait("q3", body=body, deadline=30)

        report = asyncio.run(main())
    assert isinstance(report, sdk.models.Report)
    assert report.status == sdk.models.ReportStatus.READY
    assert (report.name, [s.title for s in report.sections]) == ("q3", ["Q3"])
    assert [(r.method, r.path) for r in reports.requests()] == [
        ("PUT", "/reports/q3"),
        ("GET", f"/operations/{reports.requests()[0].job_id}"),
        ("GET", f"/operations/{reports.requests()[0].job_id}"),
        ("GET", "/reports/q3"),
    ]
    # Decoded as the spec's Report, from the body serve sent (read again, raw).
    raw = httpx.get(reports.base_url + "/reports/q3", headers={"x-api-key": KEY}).json()
    _valid(REPORT, raw)
    assert (report.name, [s.title for s in report.sections]) == (
        raw["name"],
        [s["title"] for s in raw["sections"]],
    )
    assert reports.self_check.count == 0


@pytest.mark.slow
def test_the_sdk_of_two_modules_defining_a_get_passes_mypy_and_pyright_strict(
    tmp_path: Path, mypy_cache: Path
) -> None:
    """The job's module imports the report module's ``_get_response`` under its own name
    beside its own ``_get_response``: neither checker sees a name defined twice."""
    generate(Target(spec=SPEC, output=tmp_path / "sdk", package="reports_sdk"))
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(mypy_cache), "reports_sdk"],
        cwd=tmp_path / "sdk",
        capture_output=True,
        text=True,
        check=False,
    )
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr
    # What the templates wrote; the runtime, the same in every SDK, is checked whole by
    # tests/test_generated_sdks.py.
    own = own_modules(tmp_path / "sdk" / "reports_sdk")
    problems, analysed = pyright_strict(own, tmp_path)
    assert analysed == len(own) > 5
    assert problems == [], "\n".join(problems)
