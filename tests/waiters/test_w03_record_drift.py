"""W3 and W15 under spec drift: a finished job whose record no longer matches the spec
is not lost. Tolerant decoding (the default) reads an optional field that does not match
as absent, reports each such field once (logging and the poll event) and returns the
typed record; a required field that does not match, like strict decoding (the opt-in of
contract tests) for any field, raises `RecordDecodeError` naming the job and the state it
reached and carrying the raw record; `WaitConfig(decoding="lenient")` keeps values that
match nowhere as received."""

from __future__ import annotations

import logging
import operator
from typing import Any

import pytest

from tests.waiters.support import SUME, Reply, ScriptedAPI, answer

# Each drift: the fields sent, the path named, the attribute.
REQUIRED = {
    "null-in-non-nullable": ({"created_at": None}, "$.data.created_at", "created_at"),
    "wrong-type": ({"result_ready": "yes"}, "$.data.result_ready", "result_ready"),
}
OPTIONAL = {
    "off-spec-enum": ({"mode": 42}, "$.data.mode", "mode"),
    "null-in-optional-enum": ({"mode": None}, "$.data.mode", "mode"),
    "string-where-map": ({"metadata": "none"}, "$.data.metadata", "metadata"),
    "null-in-nested-optional": (
        {"progress": {"percent": None, "stage": "reading"}},
        "$.data.progress.percent",
        "progress.percent",
    ),
    # A required field of an optional object fails the object, which reads as absent.
    "null-in-nested-required": (
        {"error": {"code": None, "message": "m"}},
        "$.data.error.code",
        "error",
    ),
}
DRIFTS = {**REQUIRED, **OPTIONAL}
CASES = [(d, "strict") for d in DRIFTS] + [(d, "tolerant") for d in REQUIRED]


@pytest.mark.parametrize(("drift", "mode"), CASES)
def test_a_drifted_terminal_record_that_cannot_be_typed_names_the_job_and_keeps_it(
    twin, drift: str, mode: str
) -> None:
    fields, path, _ = DRIFTS[drift]
    api = ScriptedAPI(SUME).script("job_01", "processing", answer("completed", **fields))
    s = twin.connect(api, wait={"decoding": mode})

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


@pytest.mark.parametrize("drift", list(OPTIONAL))
def test_tolerant_decoding_reads_an_optional_field_off_the_spec_as_absent(
    twin, drift: str, caplog: pytest.LogCaptureFixture
) -> None:
    fields, path, attribute = OPTIONAL[drift]
    api = ScriptedAPI(SUME).script(
        "job_01",
        answer("processing", **fields),
        answer("processing", **fields),
        answer("completed", **fields),
    )
    events: list[Any] = []
    s = twin.connect(api, wait={"on_poll": events.append})
    caplog.set_level(logging.WARNING)

    record = s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    assert isinstance(record, s.models.Job)
    # Absent: the field's declared type holds.
    assert operator.attrgetter(attribute)(record) is s.sdk.UNSET
    assert record.id == "job_01" and record.status == s.models.JobStatus.COMPLETED
    # Reported once for the wait, on the first poll event and in one log line.
    drifts = [event.drift for event in events]
    assert [d.path for d in drifts[0]] == [path] and all(d == () for d in drifts[1:])
    assert drifts[0][0].read_as == "absent"
    logged = [m for m in caplog.messages if path in m]
    assert len(logged) == 1 and "job_01" in logged[0] and "beside the spec" in logged[0]


def test_a_failed_job_with_a_drifted_record_is_still_job_failed(twin) -> None:
    api = ScriptedAPI(SUME).script("job_01", answer("failed", created_at=None))
    s = twin.connect(api)

    with pytest.raises(s.errors.JobFailed) as caught:
        s.run(lambda c: c.jobs.wait_for_result("job_01", deadline=60))

    assert caught.value.job_id == "job_01" and caught.value.last_state == "failed"
    # The record stays reachable: decoded leniently, the off-spec value kept as received.
    assert caught.value.record.id == "job_01" and caught.value.record.created_at is None
    assert caught.value.last_record == api.last_record["job_01"]["data"]


def test_lenient_decoding_keeps_a_value_that_matches_nowhere(twin) -> None:
    api = ScriptedAPI(SUME).script("job_01", answer("completed", result_ready="yes", mode=42))
    s = twin.connect(api, wait={"decoding": "lenient"})

    record = s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    assert record.result_ready == "yes"  # required: kept as received
    assert record.mode is s.sdk.UNSET  # optional: absent, as tolerant reads it


def test_the_decoding_mode_applies_to_the_result(twin) -> None:
    usage = {"job_id": "job_01", "summary": "ok", "usage": "n/a"}
    drifted = Reply(body={"data": usage})
    summary_null = Reply(body={"data": {"job_id": "job_01", "summary": None}})

    def api(reply: Reply) -> ScriptedAPI:
        return ScriptedAPI(SUME).script("job_01", "completed").on_result("job_01", reply)

    tolerant = twin.connect(api(drifted))
    result = tolerant.run(lambda c: c.jobs.wait_for_result("job_01", deadline=60))
    assert result.data.summary == "ok" and result.data.usage is tolerant.sdk.UNSET

    strict = twin.connect(api(drifted), wait={"decoding": "strict"})
    with pytest.raises(strict.errors.DecodeError) as caught:
        strict.run(lambda c: c.jobs.wait_for_result("job_01", deadline=60))
    assert caught.value.job_id == "job_01" and caught.value.path == "$.data.usage"

    lenient = twin.connect(api(summary_null), wait={"decoding": "lenient"})
    result = lenient.run(lambda c: c.jobs.wait_for_result("job_01", deadline=60))
    assert result.data.job_id == "job_01" and result.data.summary is None


def test_decoding_is_tolerant_strict_or_lenient(twin) -> None:
    sdk = twin.sdk(SUME)
    assert sdk.WaitConfig().decoding == "tolerant"
    with pytest.raises(ValueError, match="decoding"):
        sdk.WaitConfig(decoding="loose")
