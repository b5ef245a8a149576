"""W3 under spec drift: a finished job whose record no longer matches the spec is not
lost. Strict decoding (the default) raises `RecordDecodeError` naming the job and the
state it reached and carrying the raw record; `WaitConfig(decoding="lenient")` returns
the record with the off-spec values kept as received."""

from __future__ import annotations

import pytest

from tests.waiters.support import SUME, Reply, ScriptedAPI, answer

DRIFTS = {
    "null-in-non-nullable": ({"created_at": None}, "$.data.created_at", "created_at", None),
    "off-spec-enum": ({"mode": 42}, "$.data.mode", "mode", 42),
    "wrong-type": ({"result_ready": "yes"}, "$.data.result_ready", "result_ready", "yes"),
}


@pytest.mark.parametrize("drift", list(DRIFTS))
def test_a_drifted_terminal_record_names_the_job_state_and_keeps_the_record(
    twin, drift: str
) -> None:
    fields, path, _, _ = DRIFTS[drift]
    api = ScriptedAPI(SUME).script("job_01", "processing", answer("completed", **fields))
    s = twin.connect(api)

    with pytest.raises(s.errors.RecordDecodeError) as caught:
        s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    error = caught.value
    assert isinstance(error, s.errors.DecodeError)
    assert error.job_id == "job_01"
    assert error.state == "completed" and error.outcome == "success"
    assert error.record == api.last_record["job_01"]["data"]
    assert error.path == path
    assert "job_01" in str(error) and "completed" in str(error) and path in str(error)
    assert len(api.requests) == 2  # the wait ended on the terminal record, no more reads


@pytest.mark.parametrize("drift", list(DRIFTS))
def test_lenient_decoding_returns_the_record_with_off_spec_values_kept(twin, drift: str) -> None:
    fields, _, attribute, kept = DRIFTS[drift]
    api = ScriptedAPI(SUME).script("job_01", "processing", answer("completed", **fields))
    s = twin.connect(api, wait={"decoding": "lenient"})

    record = s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    assert isinstance(record, s.models.Job)
    assert getattr(record, attribute) == kept
    assert record.id == "job_01" and record.status == s.models.JobStatus.COMPLETED
    assert record.status.is_known


def test_a_failed_job_with_a_drifted_record_is_still_job_failed(twin) -> None:
    api = ScriptedAPI(SUME).script("job_01", answer("failed", created_at=None))
    s = twin.connect(api)

    with pytest.raises(s.errors.JobFailed) as caught:
        s.run(lambda c: c.jobs.wait_for_result("job_01", deadline=60))

    assert caught.value.job_id == "job_01" and caught.value.last_state == "failed"
    # The record stays typed: decoded leniently, the off-spec value kept as received.
    assert caught.value.record.id == "job_01" and caught.value.record.created_at is None
    assert caught.value.last_record == api.last_record["job_01"]["data"]


def test_lenient_decoding_applies_to_the_result(twin) -> None:
    drifted = Reply(body={"data": {"job_id": "job_01", "summary": None}})

    def api() -> ScriptedAPI:
        return ScriptedAPI(SUME).script("job_01", "completed").on_result("job_01", drifted)

    lenient = twin.connect(api(), wait={"decoding": "lenient"})
    result = lenient.run(lambda c: c.jobs.wait_for_result("job_01", deadline=60))
    assert result.data.job_id == "job_01" and result.data.summary is None

    strict = twin.connect(api())
    with pytest.raises(strict.errors.DecodeError) as caught:
        strict.run(lambda c: c.jobs.wait_for_result("job_01", deadline=60))
    assert caught.value.job_id == "job_01" and caught.value.path == "$.data.summary"


def test_decoding_must_be_strict_or_lenient(twin) -> None:
    sdk = twin.sdk(SUME)
    assert sdk.WaitConfig().decoding == "strict"
    with pytest.raises(ValueError, match="decoding"):
        sdk.WaitConfig(decoding="loose")
