"""A job's status read follows no redirect, over real HTTP.

The status operation of this spec (``GET /reports/{report_id}``) declares only its 200;
the job's ``status_rules`` say that a 303 See Other means ``done``, its ``Location``
naming the export (``final_from: location``). `jobgen serve` answers the finished job's
status read with that 303. The wait must end with the rule's state and fetch the export
once, at the ``Location``, never follow the 303 and read the export as a status record.
An SDK whose job has no such rule gets a clear error naming the status and the
``Location``. The status operation called as a plain operation still follows a 302.
Sync and async.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import yaml

from jobgen.server import RunningServer, run_server
from tests.e2e.support import FAST, KEY
from tests.helpers import imported_sdk, write

ID = {"name": "report_id", "in": "path", "required": True, "schema": {"type": "string"}}


def _ok(description: str, schema: str, status: str = "200") -> dict[str, Any]:
    content = {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}
    return {status: {"description": description, "content": content}}


def spec(*, rule: bool) -> dict[str, Any]:
    """The reports API; with ``rule``, its job reads a 303 as ``done`` and takes the
    result from its ``Location``, else ``done`` is a state of the record like any other."""
    states = ["queued", "running", "failed"] + ([] if rule else ["done"])
    job: dict[str, Any] = {
        "create": "createReport",
        "status": "getReport",
        "result": "getExport",
        "id_from": "/id",
        "state": {
            "field": "/status",
            "success": ["done"],
            "failure": ["failed"],
            "pending": ["queued", "running"],
        },
    }
    if rule:
        job["status_rules"] = [{"status": 303, "state": "done"}]
        job["final_from"] = "location"
    return {
        "openapi": "3.0.3",
        "info": {"title": "Reports", "version": "1.0.0"},
        "servers": [{"url": "https://reports.example/v1"}],
        "security": [{"key": []}],
        "paths": {
            "/reports": {
                "post": {
                    "operationId": "createReport",
                    "tags": ["reports"],
                    "responses": _ok("Accepted.", "Report", "202"),
                }
            },
            "/reports/{report_id}": {
                "get": {
                    "operationId": "getReport",
                    "tags": ["reports"],
                    "parameters": [ID],
                    "responses": _ok("The report's status (no 303 declared).", "Report"),
                }
            },
            "/reports/{report_id}/export": {
                "get": {
                    "operationId": "getExport",
                    "tags": ["reports"],
                    "parameters": [ID],
                    "responses": _ok("The finished export.", "Export"),
                }
            },
        },
        "components": {
            "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}},
            "schemas": {
                "Report": {
                    "type": "object",
                    "required": ["id", "status"],
                    "properties": {
                        "id": {"type": "string"},
                        "status": {"type": "string", "enum": states},
                    },
                },
                "Export": {
                    "type": "object",
                    "required": ["id", "rows"],
                    "properties": {"id": {"type": "string"}, "rows": {"type": "integer"}},
                },
            },
        },
        "x-jobgen": {"jobs": {"report": job}},
    }


@pytest.fixture(scope="module")
def specs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("status_redirects")
    return {
        name: write(root / f"{name}.yaml", yaml.safe_dump(spec(rule=name == "ruled")))
        for name in ("ruled", "unruled")
    }


@pytest.fixture(scope="module")
def ruled(specs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    out = tmp_path_factory.mktemp("ruled")
    with imported_sdk(specs["ruled"], out, "ruled_reports_sdk") as sdk:
        yield sdk


@pytest.fixture(scope="module")
def unruled(
    specs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ModuleType]:
    out = tmp_path_factory.mktemp("unruled")
    with imported_sdk(specs["unruled"], out, "unruled_reports_sdk") as sdk:
        yield sdk


@pytest.fixture(scope="module")
def server(specs: dict[str, Path]) -> Iterator[RunningServer]:
    """The API whose finished reports answer their status read with 303 See Other."""
    with run_server(specs["ruled"]) as running:
        yield running


def run(sdk: ModuleType, server: RunningServer, mode: str, call: Callable[[Any], Any]) -> Any:
    """`call(client.reports)` on a fresh `Client` or `AsyncClient` of ``sdk``."""
    options: dict[str, Any] = {
        "api_key": KEY,
        "base_url": server.base_url,
        "wait_config": sdk.WaitConfig(**FAST),
    }
    if mode == "sync":
        with sdk.Client(**options) as client:
            return call(client.reports)

    async def main() -> Any:
        async with sdk.AsyncClient(**options) as client:
            outcome = call(client.reports)
            return await outcome if inspect.isawaitable(outcome) else outcome

    return asyncio.run(main())


def finished_job(server: RunningServer) -> str:
    """A report that runs for one status read, then is done (a 303 to its export)."""
    server.reset()
    return server.create_job({"states": [{"state": "running", "polls": 1}]}, credential=KEY)


def requests(server: RunningServer, job_id: str) -> list[tuple[str | None, int | None, str]]:
    """The job's requests as the server answered them: operation, status, path."""
    return [(r.operation, r.status, r.path) for r in server.requests(job_id)]


def test_a_ruled_303_ends_the_wait_with_the_rules_state(
    ruled: ModuleType, server: RunningServer, mode: str
) -> None:
    job_id = finished_job(server)
    events: list[Any] = []

    run(ruled, server, mode, lambda reports: reports.wait_for_job(job_id, on_poll=events.append))

    assert [event.state for event in events] == ["running", "done"]
    # The 303 is the answer: its Location is not read as a status record.
    assert requests(server, job_id) == [
        ("status", 200, f"/reports/{job_id}"),
        ("status", 303, f"/reports/{job_id}"),
    ]


def test_the_result_is_fetched_once_at_the_303s_location(
    ruled: ModuleType, server: RunningServer, mode: str
) -> None:
    job_id = finished_job(server)

    result = run(ruled, server, mode, lambda reports: reports.wait_for_result(job_id))

    assert isinstance(result, ruled.models.Export)
    assert requests(server, job_id) == [
        ("status", 200, f"/reports/{job_id}"),
        ("status", 303, f"/reports/{job_id}"),
        ("result", 200, f"/reports/{job_id}/export"),
    ]


def test_an_unruled_303_is_an_error_naming_the_status_and_the_location(
    unruled: ModuleType, server: RunningServer, mode: str
) -> None:
    job_id = finished_job(server)

    with pytest.raises(unruled.errors.APIStatusError) as caught:
        run(unruled, server, mode, lambda reports: reports.wait_for_job(job_id))

    error = caught.value
    assert error.status_code == 303 and error.job_id == job_id
    assert "HTTP 303 See Other" in str(error)
    assert f"Location: {server.base_url}/reports/{job_id}/export" in str(error)
    assert job_id in str(error)
    assert requests(server, job_id) == [
        ("status", 200, f"/reports/{job_id}"),
        ("status", 303, f"/reports/{job_id}"),
    ]


def test_the_status_operation_called_plainly_still_follows_a_302(
    ruled: ModuleType, mode: str
) -> None:
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        if request.url.path == "/v1/reports/r1":
            return httpx.Response(302, headers={"Location": "/v1/reports/r1/moved"})
        return httpx.Response(200, json={"id": "r1", "status": "running"})

    transport = httpx.MockTransport(answer)
    if mode == "sync":
        with ruled.Client(api_key=KEY, transport=transport) as client:
            report = client.reports.get("r1")
    else:

        async def main() -> Any:
            async with ruled.AsyncClient(api_key=KEY, transport=transport) as client:
                return await client.reports.get("r1")

        report = asyncio.run(main())

    assert report == ruled.models.Report(id="r1", status=ruled.models.ReportStatus.RUNNING)
    assert seen == ["/v1/reports/r1", "/v1/reports/r1/moved"]
