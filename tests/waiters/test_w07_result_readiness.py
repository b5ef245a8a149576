"""W7: the result is fetched once, only when the record says it is ready; a succeeded
job whose result is not ready yet keeps being polled."""

from __future__ import annotations

import pytest

from tests.waiters.support import AZURE, CSV, SALESFORCE, SUME, ScriptedAPI, answer


def test_sume_completed_but_not_ready_keeps_polling(twin) -> None:
    api = ScriptedAPI(SUME).script(
        "job_01",
        "processing",
        answer("completed", ready=False),
        answer("completed", ready=False),
        "completed",
    )
    s = twin.connect(api)

    result = s.run(lambda c: c.jobs.wait_for_result("job_01", deadline=600))

    assert result.data.job_id == "job_01"
    assert api.kinds == ["status"] * 4 + ["result"]
    assert api.violations == []  # never answered 409 "not completed"
    assert s.time.sleeps == [3.0, 6.0, 12.0]


def test_sume_result_is_requested_exactly_once_after_ready(twin) -> None:
    api = ScriptedAPI(SUME).script(
        "job_01", "queued", answer("completed", ready=False, hint=4), "completed", "completed"
    )
    s = twin.connect(api)

    s.run(lambda c: c.jobs.wait_for_result("job_01", deadline=600))

    results = api.of("result", "job_01")
    assert len(results) == 1
    # the third status answer is the first ready one; the result request follows it
    assert api.kinds == ["status", "status", "status", "result"]
    assert results[0].path == "/v1/jobs/job_01/result"
    assert api.violations == []


def test_sume_wait_for_job_does_not_wait_for_readiness(twin) -> None:
    api = ScriptedAPI(SUME).script("job_01", answer("completed", ready=False), "completed")
    s = twin.connect(api)

    job = s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    assert job.result_ready is False
    assert api.kinds == ["status"]


def test_sume_not_ready_until_the_deadline_times_out_without_fetching(twin) -> None:
    api = ScriptedAPI(SUME).script("job_01", answer("completed", ready=False, hint=5))
    s = twin.connect(api)

    with pytest.raises(s.errors.JobTimeout) as caught:
        s.run(lambda c: c.jobs.wait_for_result("job_01", deadline=12))

    assert caught.value.job_id == "job_01"
    assert caught.value.last_state == "completed"
    assert api.of("result") == []


def test_salesforce_csv_result_is_fetched_once(twin) -> None:
    job = SALESFORCE.make_id(1)
    api = ScriptedAPI(SALESFORCE).script(job, "UploadComplete", "InProgress", "JobComplete")
    s = twin.connect(api)

    text = s.run(lambda c: c.ingest.wait_for_result(job, deadline=600))

    assert text == CSV
    assert api.kinds == ["status", "status", "status", "result"]
    assert api.of("result")[0].path.endswith(f"/{job}/successfulResults")
    assert api.violations == []


def test_azure_result_is_the_succeeded_operation_nothing_is_fetched(twin) -> None:
    op = AZURE.make_id(4)
    api = ScriptedAPI(AZURE).script(op, "NotStarted", "Running", "Succeeded")
    s = twin.connect(api)

    record = s.run(lambda c: c.analysis.wait_for_result(op, deadline=600))

    assert record.status == "Succeeded"
    assert api.kinds == ["status", "status", "status"]
    assert api.of("status")[0].query == "api-version=2024-05-01"
