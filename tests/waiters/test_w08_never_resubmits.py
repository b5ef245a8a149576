"""W8: a wait never resubmits, never cancels, and every error it raises names the job."""

from __future__ import annotations

import httpx
import pytest

from tests.waiters.support import (
    AZURE,
    SALESFORCE,
    STRIPE,
    SUME,
    Reply,
    ScriptedAPI,
    answer,
    http,
)

OP = AZURE.make_id(9)
SF = SALESFORCE.make_id(9)

SCENARIOS = {
    "timeout": (STRIPE, "frr_01", ["pending"], "wait_for_job", "ReportRunTimeout"),
    "unknown-state": (SUME, "job_01", ["queued", "paused"], "wait_for_job", "UnknownJobState"),
    "unavailable": (STRIPE, "frr_01", ["pending", http(503)], "wait_for_job", "StatusUnavailable"),
    "connection": (
        SUME,
        "job_01",
        [httpx.ConnectError("refused")],
        "wait_for_result",
        "StatusUnavailable",
    ),
    "401": (SUME, "job_01", [http(401)], "wait_for_result", "AuthenticationError"),
    "403": (AZURE, OP, ["Running", http(403)], "wait_for_job", "PermissionDeniedError"),
    "404": (AZURE, OP, [http(404)], "wait_for_result", "NotFoundError"),
    "failed": (SUME, "job_01", ["processing", "failed"], "wait_for_result", "SumeJobFailed"),
    "aborted": (SALESFORCE, SF, ["InProgress", "Aborted"], "wait_for_result", "IngestJobCanceled"),
    "sf-failed": (SALESFORCE, SF, ["Failed"], "wait_for_result", "IngestJobFailed"),
    "not-json": (
        SUME,
        "job_01",
        [Reply(text="<html>oops</html>")],
        "wait_for_job",
        "StatusUnavailable",
    ),
    "bad-record": (
        SUME,
        "job_01",
        [answer("completed", created_at="yesterday")],
        "wait_for_job",
        "RecordDecodeError",
    ),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_error_names_the_job_and_nothing_is_resubmitted(twin, name: str) -> None:
    flavour, job, steps, method, error_name = SCENARIOS[name]
    api = ScriptedAPI(flavour).script(job, *steps)
    s = twin.connect(api)
    wait = lambda c: getattr(getattr(c, flavour.resource), method)(job, deadline=10)

    with pytest.raises(s.errors.SDKError) as caught:
        s.run(wait)

    error = caught.value
    assert type(error).__name__ == error_name
    assert error.job_id == job
    assert job in str(error)
    assert api.requests, "no request was sent"
    assert {r.method for r in api.requests} == {"GET"}
    assert {r.kind for r in api.requests} <= {"status", "result"}
    assert {r.job_id for r in api.requests} == {job}
    assert api.jobs_created == []


def test_result_fetch_error_names_the_job(twin) -> None:
    api = ScriptedAPI(SUME).script("job_01", "completed").on_result("job_01", http(404))
    s = twin.connect(api)

    with pytest.raises(s.errors.NotFoundError) as caught:
        s.run(lambda c: c.jobs.wait_for_result("job_01", deadline=60))

    assert caught.value.job_id == "job_01"
    assert "job_01" in str(caught.value)
    assert [r.kind for r in api.requests] == ["status", "result"]


@pytest.mark.parametrize("terminal", ["Failed", "Aborted", "JobComplete"])
def test_salesforce_wait_never_closes_aborts_or_deletes(twin, terminal: str) -> None:
    api = ScriptedAPI(SALESFORCE).script(SF, "Open", "UploadComplete", "InProgress", terminal)
    s = twin.connect(api)

    s.run(lambda c: c.ingest.wait_for_job(SF, deadline=600))

    assert {r.method for r in api.requests} == {"GET"}
    assert api.violations == []


def test_timed_out_job_is_left_running(twin) -> None:
    api = ScriptedAPI(SUME).script("job_01", "processing")
    s = twin.connect(api)

    with pytest.raises(s.errors.JobTimeout) as caught:
        s.run(lambda c: c.jobs.wait_for_result("job_01", deadline=30))

    assert "not canceled" in str(caught.value)
    assert {r.method for r in api.requests} == {"GET"}
    assert api.of("result") == []
