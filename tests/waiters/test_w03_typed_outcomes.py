"""W3: wait_for_job returns the typed terminal record whatever the state;
wait_for_result returns the typed result or raises JobFailed / JobCanceled."""

from __future__ import annotations

import pytest

from tests.waiters.support import AZURE, CSV, SALESFORCE, STRIPE, SUME, ScriptedAPI, answer


@pytest.mark.parametrize("terminal", ["completed", "failed", "canceled"])
def test_sume_wait_for_job_returns_the_typed_record(twin, terminal: str) -> None:
    api = ScriptedAPI(SUME).script("job_01", "queued", "processing", terminal)
    s = twin.connect(api)

    job = s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    assert type(job) is s.models.Job
    assert job.id == "job_01"
    assert job.status == s.models.JobStatus(terminal)
    assert job.terminal is True


def test_sume_failed_record_carries_its_typed_error(twin) -> None:
    api = ScriptedAPI(SUME).script("job_01", "failed")
    s = twin.connect(api)

    job = s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    assert isinstance(job.error, s.models.JobError)
    assert job.error.code == "input_unreachable"


@pytest.mark.parametrize(
    ("flavour", "model", "terminal"),
    [
        (STRIPE, "ReportingReportRun", "failed"),
        (AZURE, "OperationStatus", "Canceled"),
        (SALESFORCE, "IngestJobInfoFull", "Aborted"),
    ],
    ids=["stripe-failed", "azure-canceled", "salesforce-aborted"],
)
def test_other_sdks_return_their_record_model(twin, flavour, model: str, terminal: str) -> None:
    job = flavour.make_id(3)
    api = ScriptedAPI(flavour).script(job, flavour.pending[0], terminal)
    s = twin.connect(api)

    record = s.run(lambda c: getattr(c, flavour.resource).wait_for_job(job, deadline=60))

    assert type(record) is getattr(s.models, model)


def test_sume_wait_for_result_returns_the_typed_result(twin) -> None:
    api = ScriptedAPI(SUME).script("job_01", "processing", "completed")
    s = twin.connect(api)

    result = s.run(lambda c: c.jobs.wait_for_result("job_01", deadline=60))

    assert type(result) is s.models.JobResultEnvelope
    assert result.data.job_id == "job_01"
    assert result.data.summary == "Short."


def test_azure_wait_for_result_returns_the_typed_result(twin) -> None:
    job = AZURE.make_id(1)
    analysis = {"modelVersion": "2024-05-01", "documents": [{"id": "d1"}]}
    api = ScriptedAPI(AZURE).script(job, "Running", answer("Succeeded", result=analysis))
    s = twin.connect(api)

    # final_from: operation-url: the succeeded operation is the result, typed.
    result = s.run(lambda c: c.analysis.wait_for_result(job, deadline=60))

    assert type(result) is s.models.OperationStatus
    assert type(result.result) is s.models.AnalysisResult
    assert result.result.documents[0].id == "d1"
    assert api.kinds == ["status", "status"]


def test_salesforce_wait_for_result_returns_the_csv_text(twin) -> None:
    job = SALESFORCE.make_id(1)
    api = ScriptedAPI(SALESFORCE).script(job, "InProgress", "JobComplete")
    s = twin.connect(api)

    assert s.run(lambda c: c.ingest.wait_for_result(job, deadline=60)) == CSV


def test_sume_failed_job_raises_job_failed_with_the_server_error(twin) -> None:
    error = {"code": "input_unreachable", "message": "https://x.test did not answer"}
    api = ScriptedAPI(SUME).script("job_01", "processing", answer("failed", error=error))
    s = twin.connect(api)

    with pytest.raises(s.errors.JobFailed) as caught:
        s.run(lambda c: c.jobs.wait_for_result("job_01", deadline=60))

    failed = caught.value
    assert type(failed) is s.errors.SumeJobFailed
    assert failed.job_id == "job_01"
    assert failed.error == s.models.JobError(code=error["code"], message=error["message"])
    assert failed.last_state == "failed"
    assert type(failed.record) is s.models.Job
    assert "job_01" in str(failed) and "did not answer" in str(failed)
    assert api.of("result") == []


def test_sume_canceled_job_raises_job_canceled(twin) -> None:
    api = ScriptedAPI(SUME).script("job_01", "queued", "canceled")
    s = twin.connect(api)

    with pytest.raises(s.errors.JobCanceled) as caught:
        s.run(lambda c: c.jobs.wait_for_result("job_01", deadline=60))

    assert type(caught.value) is s.errors.SumeJobCanceled
    assert caught.value.job_id == "job_01"
    assert caught.value.last_state == "canceled"
    assert not isinstance(caught.value, s.errors.JobFailed)
    assert api.of("result") == []


def test_azure_failed_job_carries_the_error_object(twin) -> None:
    job = AZURE.make_id(2)
    api = ScriptedAPI(AZURE).script(job, "Running", "Failed")
    s = twin.connect(api)

    with pytest.raises(s.errors.JobFailed) as caught:
        s.run(lambda c: c.analysis.wait_for_result(job, deadline=60))

    assert caught.value.job_id == job
    assert type(caught.value) is s.errors.AnalysisFailed
    assert caught.value.error == s.models.ErrorDetail(
        code="InvalidDocument", message="Document text is empty."
    )
    assert "Document text is empty." in str(caught.value)


def test_salesforce_failed_job_carries_the_error_message(twin) -> None:
    job = SALESFORCE.make_id(2)
    api = ScriptedAPI(SALESFORCE).script(job, "InProgress", "Failed")
    s = twin.connect(api)

    with pytest.raises(s.errors.JobFailed) as caught:
        s.run(lambda c: c.ingest.wait_for_result(job, deadline=60))

    assert caught.value.error == "InvalidBatch : Field name not found : Nmae"
    assert caught.value.job_id == job


def test_salesforce_aborted_job_raises_job_canceled(twin) -> None:
    job = SALESFORCE.make_id(3)
    api = ScriptedAPI(SALESFORCE).script(job, "Aborted")
    s = twin.connect(api)

    with pytest.raises(s.errors.JobCanceled) as caught:
        s.run(lambda c: c.ingest.wait_for_result(job, deadline=60))

    assert caught.value.job_id == job
