"""Answers true to the spec (W16), over real HTTP: an OCR spec written as a user would
(tests/server/specs/ocr.yaml) with pattern ids, a required Location, a bounded hint, an
error enum, formatted and bounded fields, and operations outside the job. Every body is
checked with jsonschema (the pure-Python implementation, not the one serve uses) against
the spec's own schemas; the generated SDK waits through it, sync and async."""

from __future__ import annotations

import asyncio
import json
import re
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

from jobgen.model.build import load_and_build
from jobgen.server import RunningServer, SelfCheckError, answers, run_server
from tests.helpers import imported_sdk, write

HERE = Path(__file__).resolve().parent
OCR = HERE / "specs" / "ocr.yaml"
KEY = "key-1"
DOCUMENT = {"document_url": "https://files.example/scan.pdf"}
ID = re.compile(r"^ocr_[a-z0-9]+$")


def _oracle(spec: Path, pointer: str) -> jsonschema.Draft202012Validator:
    """A jsonschema validator of the spec's schema at ``pointer`` (formats checked)."""
    document = yaml.safe_load(spec.read_text(encoding="utf-8"))
    registry: Registry[Any] = Registry().with_resource(
        "urn:spec", Resource.from_contents(document, default_specification=DRAFT202012)
    )
    return jsonschema.Draft202012Validator(
        {"$ref": f"urn:spec#{pointer}"},
        registry=registry,
        format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER,
    )


SCAN = _oracle(OCR, "/components/schemas/Scan")
ERROR = _oracle(OCR, "/components/schemas/Error")
TEXT = _oracle(
    OCR, "/paths/~1scans~1{scan_id}~1text/get/responses/200/content/application~1json/schema"
)
ENGINE = _oracle(
    OCR, "/paths/~1engines~1{engine}/get/responses/200/content/application~1json/schema"
)


def _valid(validator: jsonschema.Draft202012Validator, value: Any) -> None:
    problems = [f"{e.json_path}: {e.message}" for e in validator.iter_errors(value)]
    assert problems == [], value


@pytest.fixture(scope="module")
def ocr() -> Iterator[RunningServer]:
    with run_server(OCR, self_check="strict") as server:
        yield server


@pytest.fixture
def http(ocr: RunningServer) -> Iterator[httpx.Client]:
    ocr.reset()
    with httpx.Client(base_url=ocr.base_url, headers={"x-api-key": KEY}) as client:
        yield client


def test_a_pattern_id_is_issued_and_accepted_by_the_status_read(
    ocr: RunningServer, http: httpx.Client
) -> None:
    created = http.post("/scans", json=DOCUMENT)
    assert created.status_code == 202
    job_id = created.json()["id"]
    # The pattern's literal start and 16 hex digits.
    assert re.fullmatch(r"ocr_[0-9a-f]{16}", job_id) and ID.match(job_id)
    # The Location the 202 declares (required) names the job, and reading it works.
    assert created.headers["location"] == f"{ocr.base_url}/scans/{job_id}"
    read = http.get(httpx.URL(created.headers["location"]).path)
    assert read.status_code == 200, read.text
    assert read.json()["id"] == job_id
    assert re.fullmatch(r"req-[0-9a-f]{8}", read.headers["x-request-id"])
    assert [r.fault for r in ocr.requests(job_id)] == [None, None]


def test_made_up_values_satisfy_the_schema(ocr: RunningServer, http: httpx.Client) -> None:
    """Formats (email, uri, uuid, date-time), bounds, lengths, an enum, a hint minimum."""
    job_id = http.post("/scans", json=DOCUMENT).json()["id"]
    records = [http.get(f"/scans/{job_id}").json() for _ in range(3)]
    for record in records:
        _valid(SCAN, record)
    assert [r["status"] for r in records] == ["pending", "pending", "done"]
    assert records[0]["poll_after"] == 2 and records[-1]["poll_after"] is None
    # The spec's examples first, where they validate ("scan" is too short).
    assert (records[0]["label"], records[0]["pages"]) == ("invoice-2024", 3)
    text = http.get(f"/scans/{job_id}/text")
    assert text.status_code == 200
    _valid(TEXT, text.json())
    assert ocr.self_check.count == 0


def test_a_failed_jobs_error_code_is_one_the_enum_allows(
    ocr: RunningServer, http: httpx.Client
) -> None:
    job_id = ocr.create_job({"states": [], "final": "failed"}, credential=KEY)
    record = http.get(f"/scans/{job_id}").json()
    _valid(SCAN, record)
    assert record["error"] == {"code": "unreadable_document", "message": "the simulated job failed"}


def test_a_scenario_chooses_the_error_from_what_the_spec_allows(
    ocr: RunningServer, http: httpx.Client
) -> None:
    error = {"code": "unsupported_language", "message": "no Klingon model"}
    job_id = ocr.create_job({"states": [], "final": "failed", "error": error}, credential=KEY)
    assert http.get(f"/scans/{job_id}").json()["error"] == error
    refused = http.post("/_jobgen/jobs", json={"final": "failed", "error": {"code": "job_failed"}})
    assert refused.status_code == 400
    assert refused.json()["error"]["field"] == "error.code"
    assert "unreadable_document" in refused.json()["error"]["message"]
    long = http.post("/_jobgen/jobs", json={"final": "failed", "error": {"message": "x" * 501}})
    assert long.status_code == 400 and long.json()["error"]["field"] == "error.message"


def test_error_bodies_follow_the_error_schema(http: httpx.Client) -> None:
    """Each code is the enum's member nearest the server's own (``not_found``...)."""
    answers = {
        404: http.get("/scans/ocr_unknown"),
        400: http.get("/scans/not-an-id"),
        401: http.get("/scans/ocr_unknown", headers={"x-api-key": ""}),  # default response
    }
    for status, answer in answers.items():
        assert answer.status_code == status
        _valid(ERROR, answer.json())
    codes = {status: answer.json()["code"] for status, answer in answers.items()}
    assert codes == {404: "not_found", 400: "invalid_request", 401: "unauthorized"}


def test_error_bodies_follow_the_spec_the_sdk_model_was_built_from(tmp_path: Path) -> None:
    """The server types its error answers from the spec its SDK model was read from, not
    from a second reading of the file: rewritten since, the file changes nothing."""
    spec = write(tmp_path / "ocr.yaml", OCR.read_text(encoding="utf-8"))
    sdk = load_and_build(spec)
    old = 'schema: {$ref: "#/components/schemas/Error"}'
    new = "schema: {type: object, properties: {error_code: {type: string}, msg: {type: string}}}"
    write(spec, spec.read_text(encoding="utf-8").replace(old, new))
    with run_server(sdk, self_check="strict") as server:
        answer = httpx.get(f"{server.base_url}/scans/ocr_unknown", headers={"x-api-key": KEY})
    assert answer.status_code == 404
    _valid(ERROR, answer.json())
    assert sorted(answer.json()) == ["code", "message"]  # nothing of the rewritten schema


def test_operations_outside_the_job_answer_from_examples_or_the_schema(
    http: httpx.Client, ocr: RunningServer
) -> None:
    languages = http.get("/languages")
    assert languages.status_code == 200
    assert languages.json() == {"languages": ["en", "de", "fr"]}  # the spec's example
    engine = http.get("/engines/accurate")
    assert engine.status_code == 200
    _valid(ENGINE, engine.json())
    # They are checked like any operation.
    assert http.get("/engines/turbo").status_code == 400
    assert http.get("/languages", headers={"x-api-key": ""}).status_code == 401
    assert http.delete("/languages").status_code == 404
    assert [r.operation for r in ocr.requests()][:2] == ["other", "other"]


@pytest.fixture(scope="module")
def ocr_sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    with imported_sdk(OCR, tmp_path_factory.mktemp("ocr"), "ocr_answers_sdk") as sdk:
        yield sdk


async def _no_sleep(seconds: float) -> None:
    await asyncio.sleep(0)


def _config(sdk: ModuleType) -> Any:
    return sdk.WaitConfig(sleep=lambda seconds: None, async_sleep=_no_sleep)


def test_the_generated_sdk_creates_and_waits_for_a_pattern_id_job(
    ocr_sdk: ModuleType, ocr: RunningServer
) -> None:
    body = ocr_sdk.models.CreateScanBody(document_url="https://files.example/a.pdf")
    with ocr_sdk.Client(base_url=ocr.base_url, api_key=KEY, wait_config=_config(ocr_sdk)) as client:
        text = client.scans.create_and_wait(body=body, deadline=30)
        assert ID.match(text.scan_id) and text.pages
        failed = ocr.create_job(
            {"states": [], "final": "failed", "error": {"code": "rate_limited"}}, credential=KEY
        )
        with pytest.raises(ocr_sdk.JobFailed) as caught:
            client.scans.wait_for_result(failed, deadline=30)
    assert caught.value.error.code == "rate_limited"
    assert ocr.self_check.count == 0


def test_the_async_generated_sdk_waits_the_same_way(
    ocr_sdk: ModuleType, ocr: RunningServer
) -> None:
    body = ocr_sdk.models.CreateScanBody(document_url="https://files.example/a.pdf")

    async def main() -> Any:
        async with ocr_sdk.AsyncClient(
            base_url=ocr.base_url, api_key=KEY, wait_config=_config(ocr_sdk)
        ) as client:
            return await client.scans.create_and_wait(body=body, deadline=30)

    text = asyncio.run(main())
    assert ID.match(text.scan_id)
    assert ocr.self_check.count == 0


# -- the self-check --------------------------------------------------------------------

IMPOSSIBLE = {
    "openapi": "3.1.0",
    "info": {"title": "Impossible", "version": "1"},
    "security": [{"key": []}],
    "paths": {
        "/jobs": {
            "post": {
                "operationId": "createJob",
                "responses": {"202": {"$ref": "#/components/responses/Job"}},
            }
        },
        "/jobs/{job_id}": {
            "get": {
                "operationId": "getJob",
                "parameters": [
                    {"name": "job_id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {"200": {"$ref": "#/components/responses/Job"}},
            }
        },
    },
    "components": {
        "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}},
        "responses": {
            "Job": {
                "description": "A job; its quota field admits no value at all.",
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "required": ["id", "state", "quota"],
                            "properties": {
                                "id": {"type": "string"},
                                "state": {"type": "string", "enum": ["running", "done"]},
                                "quota": {"type": "integer", "minimum": 5, "maximum": 1},
                            },
                        }
                    }
                },
            }
        },
    },
    "x-jobgen": {
        "jobs": {
            "job": {
                "create": "createJob",
                "status": "getJob",
                "id_from": "/id",
                "state": {"field": "/state", "success": ["done"], "pending": ["running"]},
            }
        }
    },
}


@pytest.fixture(scope="module")
def impossible(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(tmp_path_factory.mktemp("impossible") / "spec.json", json.dumps(IMPOSSIBLE))


def test_an_answer_breaking_the_spec_is_logged_and_counted(
    impossible: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        run_server(impossible, self_check="log") as server,
        httpx.Client(base_url=server.base_url, headers={"x-key": "k"}) as http,
    ):
        created = http.post("/jobs")
        assert created.status_code == 202  # sent as it is
        seen = http.get("/_jobgen/self-check").json()
        other = http.get("/_jobgen/self-check", headers={"x-key": "other"}).json()
    assert server.self_check.count == 1 and server.self_check.checked == 1
    (violation,) = server.self_check.violations()
    assert (violation.method, violation.path, violation.status) == ("POST", "/jobs", 202)
    (problem,) = violation.problems
    assert problem.startswith("/body/quota: ") and "minimum of 5" in problem
    assert seen["violations"] == 1 and seen["mode"] == "log"
    assert seen["yours"] == [violation.to_json()] and other["yours"] == []
    assert "/body/quota" in caplog.text


def test_the_newest_violations_are_kept_and_all_counted(
    impossible: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server keeps its newest 1,000 violations (here 3, to stay quick) and counts all."""
    assert answers.KEPT_VIOLATIONS == 1000
    monkeypatch.setattr(answers, "KEPT_VIOLATIONS", 3)
    with (
        run_server(impossible, self_check="log") as server,
        httpx.Client(base_url=server.base_url, headers={"x-key": "k"}) as http,
    ):
        for _ in range(5):
            http.post("/jobs")
    assert server.self_check.count == 5
    kept = server.self_check.violations()
    assert len(kept) == 3


def test_a_strict_server_answers_500_and_raises_on_leaving(impossible: Path) -> None:
    server = run_server(impossible, self_check="strict")
    with pytest.raises(SelfCheckError, match="/body/quota"), server:
        with httpx.Client(base_url=server.base_url, headers={"x-key": "k"}) as http:
            answer = http.post("/jobs")
        assert answer.status_code == 500
        assert "/body/quota" in answer.json()["error"]["message"]
        assert [r.status for r in server.requests()] == [500]


def test_the_environment_chooses_the_mode(
    impossible: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JOBGEN_SERVE_SELF_CHECK", "log")
    with run_server(impossible) as server:
        assert server.self_check.mode == "log"
    monkeypatch.setenv("JOBGEN_SERVE_SELF_CHECK", "loud")
    with pytest.raises(ValueError, match="log or strict"):
        run_server(impossible)


def test_deliberate_faults_are_not_checked(ocr: RunningServer, http: httpx.Client) -> None:
    """Faults the scenario asks for, and the values it sets off the spec, are by design."""
    before = ocr.self_check.checked
    job_id = ocr.create_job(
        {
            "states": [{"state": "pending", "polls": 3}],
            "undocumented_state": "exploded",
            "status_errors": [{"at_poll": 1, "status": 503}],
            "malformed_at_polls": [2],
            "drop_connection_at_polls": [3],
            "hint": 0,
            "retry_after": "raw:soon",
        },
        credential=KEY,
    )
    answers = []
    for _ in range(7):
        try:
            answers.append(http.get(f"/scans/{job_id}").status_code)
        except httpx.RemoteProtocolError:
            answers.append(None)
    assert answers == [503, 200, None, 200, 200, 200, 200]
    running = http.get(f"/scans/{job_id}")
    assert running.json()["poll_after"] == 0 and running.headers["retry-after"] == "soon"
    assert running.json()["status"] == "exploded"
    bad_scenario = http.post("/scans", json=DOCUMENT, headers={"x-jobgen-scenario": "{"})
    assert bad_scenario.status_code == 400 and "error" in bad_scenario.json()
    assert ocr.self_check.count == 0
    # The fault answers (and the control plane's) were not checked; the others were,
    # apart from what the scenario set.
    assert ocr.self_check.checked - before == 5
