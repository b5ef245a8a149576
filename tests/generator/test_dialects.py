"""Jobs imported from vendor dialects, as ``jobgen validate`` and the generated SDKs show
them: Speakeasy's ``x-speakeasy-polling`` and Google AIP-151 long-running operations
(docs/job-extension.md, "Imported declarations"); malformed dialect input is a problem
naming its file and pointer, input jobgen cannot express a warning and no job."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from jobgen.cli import main
from tests.helpers import SPECS, imported_sdk, write

POINTER = "#/paths/~1v1~1jobs~1{job_id}/get/x-speakeasy-polling"


def _speakeasy_spec(
    polling: Any, states: list[str] | None = None, create: bool = True, query: bool = False
) -> str:
    """A job API whose status operation declares ``polling`` as x-speakeasy-polling."""
    status: dict[str, Any] = {"type": "string"}
    if states is not None:
        status["enum"] = states
    job = {
        "type": "object",
        "required": ["id", "status"],
        "properties": {
            "id": {"type": "string"},
            "status": status,
            "error": {"type": ["string", "null"]},
            "done": {"type": "boolean"},
        },
    }
    answer = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Job"}}}}
    paths: dict[str, Any] = {
        "/v1/jobs/{job_id}": {
            "get": {
                "operationId": "getJob",
                "parameters": [
                    {"name": "job_id", "in": "path", "required": True, "schema": {"type": "string"}}
                ]
                + (
                    [
                        {
                            "name": "region",
                            "in": "query",
                            "required": True,
                            "schema": {"type": "string"},
                        }
                    ]
                    if query
                    else []
                ),
                "responses": {"200": {"description": "the job", **answer}},
                "x-speakeasy-polling": polling,
            }
        }
    }
    if create:
        paths["/v1/jobs"] = {
            "post": {
                "operationId": "createJob",
                "responses": {"201": {"description": "the job", **answer}},
            }
        }
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "Jobs", "version": "1"},
        "paths": paths,
        "components": {"schemas": {"Job": job}},
    }
    return yaml.safe_dump(spec, sort_keys=False)


STATES = ["queued", "running", "completed", "failed"]


def _entry(**fields: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": "WaitForCompleted",
        "failureCriteria": [
            {"condition": "$statusCode == 200"},
            {"condition": '$response.body#/status == "failed"'},
        ],
        "successCriteria": [
            {"condition": "$statusCode == 200"},
            {"condition": '$response.body#/status == "completed"'},
        ],
    }
    entry.update(fields)
    return {k: v for k, v in entry.items() if v is not None}


def _validate(capsys: pytest.CaptureFixture[str], spec: Path, *extra: str) -> tuple[int, str, str]:
    code = main(["validate", str(spec), *extra])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


# -- x-speakeasy-polling ------------------------------------------------------------


def test_validate_names_the_speakeasy_job_and_where_it_was_imported_from(
    capsys: pytest.CaptureFixture[str],
) -> None:
    spec = SPECS / "speakeasy_example.yaml"
    code, out, err = _validate(capsys, spec)
    assert code == 0, err
    assert "1 job" in out
    pointer = "#/paths/~1v1~1transcripts~1{transcript_id}/get/x-speakeasy-polling/0"
    assert f"  job transcript: imported from x-speakeasy-polling at {spec}{pointer}\n" in out
    assert "declares no jobs" not in err


def test_several_entries_on_one_operation_are_told_apart_by_their_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ready = _entry(
        name="WaitForReady",
        successCriteria=[
            {
                "context": "$response.body#/status",
                "condition": "^(completed|ready)$",
                "type": "regex",
            }
        ],
    )
    spec = write(
        tmp_path / "jobs.yaml",
        _speakeasy_spec([_entry(), ready], ["queued", "ready", "completed", "failed"]),
    )
    code, out, err = _validate(capsys, spec)
    assert code == 0, err
    assert f"  job job_completed: imported from x-speakeasy-polling at {spec}{POINTER}/0\n" in out
    assert f"  job job_ready: imported from x-speakeasy-polling at {spec}{POINTER}/1\n" in out


def test_a_state_neither_criteria_name_but_surely_terminal_is_classified_by_its_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = write(tmp_path / "jobs.yaml", _speakeasy_spec([_entry()], [*STATES, "canceled"]))
    code, out, err = _validate(capsys, spec)
    assert code == 0, err
    assert "1 job" in out
    assert (
        f"warning: {spec}{POINTER}/0: state 'canceled' meets neither criteria: read as"
        " canceled from its name" in err
    )


@pytest.mark.parametrize(
    ("polling", "where", "message"),
    [
        ({"name": "x"}, "", "must be a list of polling entries"),
        ([], "", "must be a list of polling entries"),
        (["WaitForCompleted"], "/0", "an x-speakeasy-polling entry is a mapping with a 'name'"),
        ([_entry(name=None)], "/0/name", "'name' is required"),
        ([_entry(successCriteria=None)], "/0/successCriteria", "'successCriteria' is required"),
        (
            [_entry(successCriteria=[{"condition": "$response.body#/status === done"}])],
            "/0/successCriteria/0/condition",
            "cannot read '$response.body#/status === done'",
        ),
        (
            [
                _entry(
                    successCriteria=[{"condition": "$response.body#/stat == completed"}],
                    failureCriteria=None,
                )
            ],
            "/0/successCriteria/0/condition",
            "the response body (Job) has no property 'stat' (it has: id, status, error, done)",
        ),
        (
            [_entry(successCriteria=[{"condition": "$response.body#/status == done"}])],
            "/0/successCriteria",
            "the success criteria accept no value of",
        ),
        (
            [
                _entry(
                    successCriteria=[
                        {"context": "$response.body#/status", "condition": "(", "type": "regex"}
                    ]
                )
            ],
            "/0/successCriteria/0/condition",
            "not a regular expression",
        ),
        (
            [_entry(failureCriteria=[{"condition": "$response.body#/status != queued"}])],
            "/0/failureCriteria",
            "completed meet both the success and the failure criteria",
        ),
        ([_entry(delaySeconds=-1)], "/0/delaySeconds", "must be a non-negative number"),
        ([_entry(limitCount="many")], "/0/limitCount", "must be a positive whole number"),
    ],
    ids=[
        "not-a-list",
        "empty",
        "entry-not-a-mapping",
        "no-name",
        "no-success",
        "unreadable-condition",
        "pointer-not-in-response",
        "no-value-accepted",
        "bad-regex",
        "both-criteria",
        "negative-delay",
        "bad-limit",
    ],
)
def test_a_malformed_speakeasy_declaration_is_a_problem_naming_its_pointer(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    polling: Any,
    where: str,
    message: str,
) -> None:
    spec = write(tmp_path / "jobs.yaml", _speakeasy_spec(polling, STATES))
    code, _, err = _validate(capsys, spec)
    assert code == 2
    assert f"error: {spec}{POINTER}{where}: {message}" in err


@pytest.mark.parametrize(
    ("polling", "states", "where", "message"),
    [
        (
            [{"name": "WaitForNotFound", "successCriteria": [{"condition": "$statusCode == 404"}]}],
            STATES,
            "/0/successCriteria/0",
            "a criterion on the HTTP status other than the success answer (200) of 'getJob'",
        ),
        (
            [_entry()],
            None,
            "/0/successCriteria/1",
            (
                "the state at /status has no enum, so the states that keep a wait going cannot be"
                " listed"
            ),
        ),
        (
            [
                _entry(
                    failureCriteria=[{"condition": '$response.body#/error == "boom"'}],
                )
            ],
            STATES,
            "/0",
            "the criteria test several fields (/error, /status), not one state",
        ),
    ],
    ids=["status-code-only", "no-enum", "two-fields"],
)
def test_a_speakeasy_entry_jobgen_cannot_express_is_a_warning_and_no_job(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    polling: Any,
    states: list[str] | None,
    where: str,
    message: str,
) -> None:
    spec = write(tmp_path / "jobs.yaml", _speakeasy_spec(polling, states))
    code, out, err = _validate(capsys, spec)
    assert code == 0, err
    assert f"warning: {spec}{POINTER}{where}: {message}" in err
    assert ": no job imported from it" in err
    assert "0 jobs" in out


def test_a_speakeasy_status_operation_needing_more_than_the_id_is_a_warning_and_no_job(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = write(tmp_path / "jobs.yaml", _speakeasy_spec([_entry()], STATES, query=True))
    code, out, err = _validate(capsys, spec)
    assert code == 0, err
    assert (
        f"warning: {spec}{POINTER}/0: 'getJob' needs more than the job id (one path parameter):"
        " no job imported from it" in err
    )
    assert "0 jobs" in out


def test_a_speakeasy_job_without_a_create_is_still_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = write(tmp_path / "jobs.yaml", _speakeasy_spec([_entry()], STATES, create=False))
    code, out, err = _validate(capsys, spec)
    assert code == 0, err
    assert "  job job: imported from x-speakeasy-polling" in out


def test_a_speakeasy_job_waiting_for_a_boolean_ends_when_it_is_true(tmp_path: Path) -> None:
    """``$response.body#/done == true``: the flag is the job's terminal field, and a done
    record with its error set failed."""
    flag = {
        "name": "WaitForDone",
        "successCriteria": [{"condition": "$response.body#/done == true"}],
    }
    spec = write(tmp_path / "jobs.yaml", _speakeasy_spec([flag], STATES))
    answers = iter(
        [
            {"id": "j1", "status": "running", "done": False},
            {"id": "j1", "status": "running"},
            {"id": "j1", "status": "completed", "done": True},
            {"id": "j2", "status": "running", "done": True, "error": "it broke"},
        ]
    )
    fake = _FakeTime()
    with imported_sdk(spec, tmp_path / "out", "flag_sdk") as sdk:
        config = sdk.WaitConfig(clock=fake.clock, sleep=fake.sleep)
        transport = httpx.MockTransport(lambda _: httpx.Response(200, json=next(answers)))
        with sdk.Client(
            base_url="https://api.example", wait_config=config, transport=transport
        ) as client:
            assert client.jobs.wait_for_result("j1").done is True
            assert len(fake.sleeps) == 2
            with pytest.raises(sdk.errors.JobFailed) as caught:
                client.jobs.wait_for_result("j2")
    assert caught.value.error == "it broke"


def test_an_unknown_key_of_an_entry_is_a_warning_and_the_job_is_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = write(tmp_path / "jobs.yaml", _speakeasy_spec([_entry(timeoutSeconds=5)], STATES))
    code, out, err = _validate(capsys, spec)
    assert code == 0, err
    assert f"warning: {spec}{POINTER}/0/timeoutSeconds: unknown key 'timeoutSeconds'" in err
    assert "  job job: imported from x-speakeasy-polling" in out


def _job(status: str, job_id: str = "j1") -> dict[str, Any]:
    return {"id": job_id, "status": status, "error": "it broke" if status == "failed" else None}


class _FakeTime:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_the_speakeasy_delay_and_interval_set_the_first_wait_and_the_floor(
    tmp_path: Path,
) -> None:
    """delaySeconds 2 is the backoff's first interval, intervalSeconds 3 the floor: with
    the jitter at its lowest the waits are 3 (the floor over 2), then 4 and 8 (backoff)."""
    spec = write(
        tmp_path / "jobs.yaml",
        _speakeasy_spec([_entry(delaySeconds=2, intervalSeconds=3, limitCount=5)], STATES),
    )
    answers = iter(["queued", "running", "running", "completed"])
    reads: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        reads.append(request.url.path)
        return httpx.Response(200, json=_job(next(answers)))

    fake = _FakeTime()
    with imported_sdk(spec, tmp_path / "out", "dialect_sdk") as sdk:
        config = sdk.WaitConfig(clock=fake.clock, sleep=fake.sleep, rng=lambda: 0.0)
        transport = httpx.MockTransport(handler)
        with sdk.Client(
            base_url="https://api.example", wait_config=config, transport=transport
        ) as client:
            events: list[Any] = []
            record = client.jobs.wait_for_job("j1", on_poll=events.append)
    assert record.status == "completed"
    assert reads == ["/v1/jobs/j1"] * 4
    assert fake.sleeps == [3.0, 4.0, 8.0]
    assert [e.source for e in events[:3]] == ["floor", "backoff", "backoff"]


def test_a_speakeasy_failure_raises_the_jobs_failed_error_with_its_error_field(
    tmp_path: Path,
) -> None:
    spec = write(tmp_path / "jobs.yaml", _speakeasy_spec([_entry()], STATES))

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=_job("failed"))

    fake = _FakeTime()
    with imported_sdk(spec, tmp_path / "out", "dialect_sdk") as sdk:
        config = sdk.WaitConfig(clock=fake.clock, sleep=fake.sleep)
        transport = httpx.MockTransport(handler)
        with (
            sdk.Client(
                base_url="https://api.example", wait_config=config, transport=transport
            ) as client,
            pytest.raises(sdk.errors.JobFailed) as caught,
        ):
            client.jobs.wait_for_result("j1")
    assert caught.value.error == "it broke"
    assert caught.value.record.status == "failed"


def test_a_side_file_job_of_the_same_name_overrides_the_imported_one_key_by_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = write(tmp_path / "jobs.yaml", _speakeasy_spec([_entry()], STATES))
    side = write(tmp_path / "jobs.side.yaml", "jobs:\n  job:\n    poll: {floor: 0.5}\n")
    code, out, err = _validate(capsys, spec, "--jobs", str(side))
    assert code == 0, err
    assert (
        f"  job job: declared at {side}#/jobs/job, over the job imported from"
        f" x-speakeasy-polling at {spec}{POINTER}/0\n" in out
    )


def test_a_side_file_job_naming_the_same_create_replaces_the_imported_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = write(tmp_path / "jobs.yaml", _speakeasy_spec([_entry()], STATES))
    side = write(
        tmp_path / "jobs.side.yaml",
        "jobs:\n  run:\n    create: createJob\n    status: getJob\n    id_from: /id\n"
        "    state: {field: /status, success: [completed], failure: [failed],"
        " pending: [queued, running]}\n",
    )
    code, out, err = _validate(capsys, spec, "--jobs", str(side))
    assert code == 0, err
    assert "1 job" in out
    assert "x-speakeasy-polling" not in out  # no job is imported: none is listed as such


# -- AIP-151 ------------------------------------------------------------------------

AIP = textwrap.dedent(
    """\
    openapi: 3.0.3
    info: {{title: Ops, version: v1}}
    paths:
      {create_path}:
        post:
          operationId: exportBooks
          tags: [operations]
          responses:
            "200":
              description: the operation
              content: {{application/json: {{schema: {{$ref: "#/components/schemas/Operation"}}}}}}
      {status_path}:
        get:
          operationId: getOperation
          tags: [operations]
          parameters:
            - {{name: {param}, in: path, required: true, schema: {{type: string}}}}
          responses:
            "200":
              description: the operation
              content: {{application/json: {{schema: {{$ref: "#/components/schemas/Operation"}}}}}}
    components:
      schemas:
        Operation:
          type: object
          properties:
            name: {{type: string}}
            done: {{type: boolean}}
            metadata: {{type: object}}
            error:
              type: object
              properties:
                code: {{type: integer}}
                message: {{type: string}}
            {response}: {{type: object}}
    """
)


def _aip(
    status_path: str = "/v1/operations/{operation}",
    param: str = "operation",
    response: str = "response",
) -> str:
    return AIP.format(
        create_path="/v1/books:export", status_path=status_path, param=param, response=response
    )


def test_validate_names_the_aip151_job_after_its_create(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = write(tmp_path / "ops.yaml", _aip())
    code, out, err = _validate(capsys, spec)
    assert code == 0, err
    at = f"{spec}#/paths/~1v1~1books:export/post/responses/200"
    assert f"  job export_books: imported from the AIP-151 Operation shape at {at}\n" in out


def test_the_example_aip151_spec_has_its_job(capsys: pytest.CaptureFixture[str]) -> None:
    spec = SPECS / "aip151_example.yaml"
    code, out, err = _validate(capsys, spec)
    assert code == 0, err
    assert "  job translate_document: imported from the AIP-151 Operation shape at" in out


def test_a_schema_without_the_operation_shape_imports_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = write(
        tmp_path / "ops.yaml",
        _aip(response="result").replace("metadata: {type: object}", "size: {type: integer}"),
    )
    code, out, err = _validate(capsys, spec)
    assert code == 0, err
    assert "0 jobs" in out and "declares no jobs" in err


def _operation(done: bool, job: str, **fields: Any) -> dict[str, Any]:
    return {"name": job, "done": done, "metadata": {}, **fields}


@pytest.mark.parametrize(
    ("status_path", "param", "name", "read_at"),
    [
        ("/v1/operations/{operation}", "operation", "operations/op-7", "/v1/operations/op-7"),
        ("/v1/{name}", "name", "op-7", "/v1/op-7"),
        ("/v1beta1/{name}", "name", "op-7", "/v1beta1/op-7"),
    ],
    ids=["collection-path", "whole-name", "whole-name-beta"],
)
def test_an_aip151_job_is_read_at_its_operations_name(
    tmp_path: Path, status_path: str, param: str, name: str, read_at: str
) -> None:
    """``{name=operations/*}`` as ``/v1/operations/{operation}``: the id is the last
    segment of the name; as ``/v1/{name}``: the whole name. Not done (or done left out,
    as proto3 JSON does with false) is pending; done without an error is a success."""
    spec = write(tmp_path / "ops.yaml", _aip(status_path, param))
    answers = iter(
        [
            _operation(False, name),
            {"name": name, "metadata": {}},
            _operation(True, name, response={"books": 3}),
        ]
    )
    reads: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            return httpx.Response(200, json=next(answers))
        reads.append(request.url.path)
        return httpx.Response(200, json=next(answers))

    fake = _FakeTime()
    with imported_sdk(spec, tmp_path / "out", "ops_sdk") as sdk:
        config = sdk.WaitConfig(clock=fake.clock, sleep=fake.sleep, rng=lambda: 0.0)
        transport = httpx.MockTransport(handler)
        with sdk.Client(
            base_url="https://ops.example", wait_config=config, transport=transport
        ) as client:
            record = client.operations.create_and_wait()
    assert record.done is True and record.response == {"books": 3}
    assert reads == [read_at, read_at]
    assert fake.sleeps == [1.0, 2.0]  # Google's client: first 1 s, growing


def test_an_aip151_operation_done_with_an_error_fails(tmp_path: Path) -> None:
    spec = write(tmp_path / "ops.yaml", _aip())
    error = {"code": 3, "message": "bad input"}

    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            return httpx.Response(200, json=_operation(False, "operations/9"))
        return httpx.Response(200, json=_operation(True, "operations/9", error=error))

    fake = _FakeTime()
    with imported_sdk(spec, tmp_path / "out", "ops_sdk") as sdk:
        config = sdk.WaitConfig(clock=fake.clock, sleep=fake.sleep)
        transport = httpx.MockTransport(handler)
        with (
            sdk.Client(
                base_url="https://ops.example", wait_config=config, transport=transport
            ) as client,
            pytest.raises(sdk.errors.ExportBooksFailed) as caught,
        ):
            client.operations.create_and_wait()
    assert caught.value.job_id == "9"
    assert caught.value.error.code == 3 and caught.value.error.message == "bad input"


# -- jobgen diff ---------------------------------------------------------------------


def test_diff_reports_a_speakeasy_job_whose_polling_went_as_breaking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = write(tmp_path / "old.yaml", _speakeasy_spec([_entry()], STATES))
    new_spec = yaml.safe_load(old.read_text(encoding="utf-8"))
    del new_spec["paths"]["/v1/jobs/{job_id}"]["get"]["x-speakeasy-polling"]
    new = write(tmp_path / "new.yaml", yaml.safe_dump(new_spec, sort_keys=False))
    assert main(["diff", str(old), str(new)]) == 1
    out = capsys.readouterr().out
    assert "job job and its waiters" in out
    assert "createJob is no longer long-running (x-speakeasy-polling)" in out


def test_diff_reports_the_new_states_of_an_imported_speakeasy_job(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A value the criteria leave is pending, unless its name surely ends the job; either
    breaks SDKs already deployed (they raise UnknownJobState on it)."""
    old = write(tmp_path / "old.yaml", _speakeasy_spec([_entry()], STATES))
    pending = write(tmp_path / "pending.yaml", _speakeasy_spec([_entry()], [*STATES, "paused"]))
    assert main(["diff", str(old), str(pending)]) == 1
    assert "job job: new pending state 'paused'" in capsys.readouterr().out
    ended = write(tmp_path / "ended.yaml", _speakeasy_spec([_entry()], [*STATES, "canceled"]))
    assert main(["diff", str(old), str(ended)]) == 1
    assert "job job: new terminal state 'canceled' (canceled)" in capsys.readouterr().out


# -- status rules on a JSON boolean ----------------------------------------------------

FLAGGED = """\
openapi: 3.0.3
info: {title: Flagged, version: "1"}
paths:
  /jobs/{job_id}:
    get:
      operationId: getJob
      tags: [jobs]
      parameters:
        - {name: job_id, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: the job
          content:
            application/json:
              schema:
                type: object
                properties:
                  status: {type: string, enum: [running, stopped]}
                  done: {type: boolean}
x-jobgen:
  jobs:
    job:
      status: getJob
      status_rules:
        - {path: /done, equals: true, state: finished}
      final_from: record
      state: {field: /status, success: [finished], failure: [stopped], pending: [running]}
"""


def test_a_status_rule_equal_to_true_matches_the_json_boolean_only(tmp_path: Path) -> None:
    spec = write(tmp_path / "flagged.yaml", FLAGGED)
    answers = iter(
        [
            {"status": "running", "done": False},
            {"status": "running", "done": "True"},  # text, not the boolean
            {"status": "running", "done": True},
        ]
    )
    fake = _FakeTime()
    with imported_sdk(spec, tmp_path / "out", "flagged_sdk") as sdk:
        config = sdk.WaitConfig(clock=fake.clock, sleep=fake.sleep)
        transport = httpx.MockTransport(lambda _: httpx.Response(200, json=next(answers)))
        states: list[Any] = []
        with sdk.Client(
            base_url="https://flagged.example", wait_config=config, transport=transport
        ) as client:
            client.jobs.wait_for_job("j1", on_poll=lambda e: states.append(e.state))
    assert states == ["running", "running", "finished"]
