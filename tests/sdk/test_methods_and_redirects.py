"""Operations the generator used to treat silently or not at all: a QUERY-method operation
(left out with a warning naming it), an operation-URL job whose status operation has
several path parameters and no ``id_parameter`` (none is needed), and an operation that
declares a 3xx beside its success (a typed ``Redirect`` return); the SDKs over real HTTP."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from jobgen.cli import main
from tests.helpers import imported_sdk, write
from tests.loopback import Seen, loopback

QUERY_SPEC = """
openapi: 3.1.0
info: {title: Search, version: "1.0.0"}
paths:
  /things:
    get:
      operationId: listThings
      responses: {"204": {description: Done.}}
    query:
      operationId: searchThings
      responses: {"204": {description: Done.}}
"""


def test_a_query_operation_is_left_out_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = write(tmp_path / "search.yaml", QUERY_SPEC)
    assert main(["generate", str(spec), "-o", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert (
        f"warning: {spec}#/paths/~1things/query: the QUERY method is not supported; "
        "the operation is left out"
    ) in err
    code = (tmp_path / "out" / "search" / "resources" / "things.py").read_text()
    assert "def list(" in code and "search_things" not in code


OPERATION_URL_SPEC = """
openapi: 3.0.3
info: {title: Analyze, version: "2024-11-30"}
servers: [{url: "https://analyze.example"}]
paths:
  /models/{modelId}:analyze:
    post:
      operationId: analyze
      tags: [analysis]
      parameters:
        - {name: modelId, in: path, required: true, schema: {type: string}}
        - {name: api-version, in: query, required: true, schema: {type: string}}
      responses:
        "202":
          description: Accepted.
          headers:
            Operation-Location: {required: true, schema: {type: string}}
  /models/{modelId}/analyzeResults/{resultId}:
    get:
      operationId: getAnalyzeResult
      tags: [analysis]
      parameters:
        - {name: modelId, in: path, required: true, schema: {type: string}}
        - {name: resultId, in: path, required: true, schema: {type: string}}
        - {name: api-version, in: query, required: true, schema: {type: string}}
      responses:
        "200":
          description: The operation.
          content:
            application/json:
              schema:
                type: object
                required: [status]
                properties:
                  status: {type: string, enum: [notStarted, running, succeeded, failed]}
x-jobgen:
  jobs:
    analysis:
      create: analyze
      status: getAnalyzeResult
      operation_url: Operation-Location
      final_from: operation-url
      state:
        field: /status
        success: [succeeded]
        failure: [failed]
        pending: [notStarted, running]
"""


def test_an_operation_url_job_needs_no_id_parameter(tmp_path: Path) -> None:
    spec = write(tmp_path / "analyze.yaml", OPERATION_URL_SPEC)
    states = iter(["running", "succeeded"])

    def answer(seen: Seen) -> tuple[int, dict[str, str], bytes]:
        if seen.method == "POST":
            location = (
                f"http://{seen.header('Host')}/models/m1/analyzeResults/r1?api-version=2024-11-30"
            )
            return 202, {"Operation-Location": location}, b""
        return (
            200,
            {"Content-Type": "application/json"},
            json.dumps({"status": next(states)}).encode(),
        )

    with (
        imported_sdk(spec, tmp_path / "out", "analyze_sdk") as sdk,
        loopback(answer) as (url, seen),
        sdk.Client(
            base_url=url, wait_config=sdk.WaitConfig(sleep=lambda s: None, rng=lambda: 0.5)
        ) as client,
    ):
        record = client.analysis.create_and_wait("m1")
    assert record.status == "succeeded"
    assert [(s.method, s.path, s.query) for s in seen] == [
        ("POST", "/models/m1:analyze", {"api-version": ["2024-11-30"]}),
        ("GET", "/models/m1/analyzeResults/r1", {"api-version": ["2024-11-30"]}),
        ("GET", "/models/m1/analyzeResults/r1", {"api-version": ["2024-11-30"]}),
    ]


REDIRECT_SPEC = """
openapi: 3.0.3
info: {title: Reports, version: "1.0.0"}
servers: [{url: "https://reports.example"}]
paths:
  /reports/{id}:
    get:
      operationId: getReport
      tags: [reports]
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: The report.
          content:
            application/json:
              schema:
                type: object
                required: [id]
                properties: {id: {type: string}}
        "302":
          description: The report lives elsewhere.
          headers:
            Location: {schema: {type: string}}
  /exports:
    post:
      operationId: export
      tags: [reports]
      responses:
        "204": {description: Exported at once.}
        "303": {description: See the export.}
"""


def _reports(seen: Seen) -> tuple[int, dict[str, str], bytes]:
    if seen.path == "/reports/here":
        return 200, {"Content-Type": "application/json"}, b'{"id": "here"}'
    if seen.path == "/reports/moved":
        return 302, {"Location": "/reports/here"}, b""
    return 303, {"Location": "https://elsewhere.example/exports/7"}, b""


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("reports")
    spec = write(root / "reports.yaml", REDIRECT_SPEC)
    with imported_sdk(spec, root / "out", "reports_sdk") as sdk:
        yield sdk


def test_a_declared_3xx_beside_a_success_is_returned_typed(reports: ModuleType) -> None:
    with loopback(_reports) as (url, seen), reports.Client(base_url=url) as client:
        here = client.reports.get("here")
        moved = client.reports.get("moved")
        exported = client.reports.export()
    assert here.id == "here"
    assert isinstance(moved, reports.Redirect)
    assert (moved.status_code, moved.location) == (302, f"{url}/reports/here")
    assert isinstance(exported, reports.Redirect)
    assert (exported.status_code, exported.location) == (303, "https://elsewhere.example/exports/7")
    # Returned, not followed: the moved report was asked for once, nothing more.
    assert [s.path for s in seen] == ["/reports/here", "/reports/moved", "/exports"]


def test_async_returns_the_redirect_too(reports: ModuleType) -> None:
    async def main_async(url: str) -> object:
        async with reports.AsyncClient(base_url=url) as client:
            return await client.reports.get("moved")

    with loopback(_reports) as (url, _):
        moved = asyncio.run(main_async(url))
    assert isinstance(moved, reports.Redirect) and moved.status_code == 302


USER_CODE = """
from __future__ import annotations

from reports_sdk import Client, Redirect


def where(client: Client) -> str:
    report = client.reports.get("x")
    if isinstance(report, Redirect):
        return report.location
    return report.id
"""


@pytest.mark.slow
def test_code_narrowing_the_redirect_passes_mypy_strict(
    reports: ModuleType, tmp_path: Path, mypy_cache: Path
) -> None:
    assert reports.__file__ is not None
    package_dir = Path(reports.__file__).parent.parent
    write(tmp_path / "user_code.py", USER_CODE)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--cache-dir",
            str(mypy_cache),
            "user_code.py",
            str(package_dir / "reports_sdk"),
        ],
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(package_dir)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
