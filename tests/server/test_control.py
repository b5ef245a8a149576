"""Control endpoints (/_jobgen/...), the request log, and custom header hints."""

from __future__ import annotations

import itertools
from pathlib import Path

import httpx
import pytest
import yaml

from jobgen.server import run_server
from tests.helpers import SPECS
from tests.server.conftest import Session


def test_control_creates_a_job_owned_by_the_sent_credential(sume: Session) -> None:
    made = sume.client.post("/_jobgen/jobs", json={"states": [], "final": "failed"})
    assert made.status_code == 201
    job_id = made.json()["id"]
    assert made.json()["job"] == "job"
    assert sume.state(sume.status(job_id)) == "failed"
    assert sume.status(job_id, **sume.api.other_auth).status_code == 401


def test_control_job_without_credentials_answers_any_credential(sume: Session) -> None:
    made = httpx.post(sume.server.base_url + "/_jobgen/jobs", content=b"")
    assert made.status_code == 201
    job_id = made.json()["id"]
    assert sume.status(job_id).status_code == 200
    assert sume.status(job_id, **sume.api.other_auth).status_code == 200


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        (b"{nope", "", "the body is not JSON"),
        (b"[1]", "", "the scenario must be a JSON object, not an array"),
        (b'{"final": "later"}', "final", "not a documented terminal state"),
        (b'{"states": [{"state": "queued", "polls": -1}]}', "states[0].polls", "between 1"),
        (
            b'{"status_errors": [{"at_poll": 1, "status": "503"}]}',
            "status_errors[0].status",
            "an integer",
        ),
        (b'{"bogus": 1}', "bogus", "unknown field"),
        (b"\xff\xfe", "", "not UTF-8"),
    ],
)
def test_bad_control_input_is_a_400_naming_the_field(
    sume: Session, body: bytes, field: str, message: str
) -> None:
    answer = sume.client.post("/_jobgen/jobs", content=body)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["field"] == field
    assert message in error["message"]
    assert sume.server.app.store.jobs == {}


def test_control_job_name(sume: Session) -> None:
    assert sume.client.post("/_jobgen/jobs?job_name=job").status_code == 201
    unknown = sume.client.post("/_jobgen/jobs?job_name=nope")
    assert unknown.status_code == 400 and unknown.json()["error"]["field"] == "job_name"


def test_control_routes_and_methods(sume: Session) -> None:
    assert sume.client.get("/_jobgen/jobs").status_code == 405
    assert sume.client.get("/_jobgen/nothing").status_code == 404
    assert sume.client.post("/_jobgen/requests").status_code == 405


def test_request_log_records_everything(sume: Session) -> None:
    fault = '{"status_errors": [{"at_poll": 1, "status": 503}]}'
    job_id = sume.id_of(sume.create(fault, **{"Idempotency-Key": "abc"}))
    sume.client.get(f"/v1/jobs/{job_id}", params={"expand": "x"})
    sume.status(job_id)
    sume.result(job_id)
    other = sume.id_of(sume.create())
    sume.status(other)
    sume.client.get("/_jobgen/requests")  # control requests are not logged

    log = sume.server.requests()
    assert [r.seq for r in log] == [1, 2, 3, 4, 5, 6]
    assert all(a.time <= b.time for a, b in itertools.pairwise(log))
    assert [(r.method, r.operation, r.status, r.poll, r.fault) for r in log] == [
        ("POST", "create", 202, None, None),
        ("GET", "status", 503, 1, "status_error"),
        ("GET", "status", 200, 2, None),
        ("GET", "result", 409, None, None),
        ("POST", "create", 202, None, None),
        ("GET", "status", 200, 1, None),
    ]
    assert log[0].idempotency_key == "abc" and log[4].idempotency_key is None
    assert log[1].path == f"/v1/jobs/{job_id}" and log[1].query == "expand=x"
    assert [r.seq for r in sume.server.requests(job_id)] == [1, 2, 3, 4]

    over_http = sume.client.get("/_jobgen/requests", params={"job": other}).json()["requests"]
    assert [entry["seq"] for entry in over_http] == [5, 6]
    assert over_http[1] == log[5].to_json()
    assert set(over_http[0]) == {
        "seq", "time", "method", "path", "query", "status", "operation",
        "job_name", "job_id", "poll", "idempotency_key", "fault", "replayed", "headers",
        "violations", "body",
    }  # fmt: skip


def test_reset_clears_jobs_and_log(sume: Session) -> None:
    job_id = sume.id_of(sume.create())
    assert sume.client.post("/_jobgen/reset").json() == {"reset": True}
    assert sume.server.requests() == []
    assert sume.status(job_id).status_code == 404


def test_custom_poll_header_from_a_side_file(tmp_path: Path) -> None:
    spec = yaml.safe_load((SPECS / "sume.yaml").read_text())
    jobs = {"jobs": spec["x-jobgen"]["jobs"]}
    jobs["jobs"]["job"]["poll"]["headers"].append(
        {"name": "x-poll-after-ms", "format": "milliseconds"}
    )
    side = tmp_path / "sume.jobs.yaml"
    side.write_text(yaml.safe_dump(jobs))
    with run_server(SPECS / "sume.yaml", jobs=side) as server:
        job_id = server.create_job({"poll_after_ms": 1500, "retry_after": 3})
        answer = httpx.get(f"{server.base_url}/v1/jobs/{job_id}", headers={"x-api-key": "k"})
        assert answer.headers["x-poll-after-ms"] == "1500"
        assert answer.headers["retry-after"] == "3"
