"""How jobs end, over the wire: success after N checks, failure, cancellation, results
that are late, and jobs without a result operation or a canceled state."""

from __future__ import annotations

import pytest

from jobgen.server.scenario import ScenarioError
from tests.e2e.support import E2E, EPSILON, FLOOR, gaps

FAILURE_MESSAGE = "the simulated job failed"


def test_success_after_n_checks_returns_the_typed_record(e2e: E2E) -> None:
    job_id = e2e.job({"states": e2e.api.stages(3)})
    events: list = []

    record = e2e.run(lambda jobs: jobs.wait_for_job(job_id, deadline=10, on_poll=events.append))

    assert str(record.id) == job_id
    assert e2e.state(record) == e2e.api.success
    reads = e2e.reads(job_id)
    assert [r.poll for r in reads] == [1, 2, 3, 4]
    assert e2e.polls(job_id) == reads
    assert all(gap >= FLOOR - EPSILON for gap in gaps(reads))
    assert [(e.attempt, e.state) for e in events] == [
        (1, e2e.api.pending),
        (2, e2e.api.pending),
        (3, e2e.api.pending),
        (4, e2e.api.success),
    ]
    assert events[-1].delay is None
    assert e2e.results(job_id) == []  # wait_for_job never fetches the result


def test_wait_for_result_fetches_once_after_success(e2e: E2E) -> None:
    api = e2e.api
    if not api.has_result:
        # Stripe's report runs embed the result in the record: no result waiter, and the
        # server refuses result delays for them.
        e2e.run(_assert_no_result_waiter)
        with pytest.raises(ScenarioError) as refused:
            e2e.job({"result_delay_polls": 1})
        assert refused.value.field == "result_delay_polls"
        return
    job_id = e2e.job({"states": api.stages(2)})

    result = e2e.run(lambda jobs: jobs.wait_for_result(job_id, deadline=10))

    assert type(result).__name__ == api.result_type
    if isinstance(result, str):
        assert job_id in result  # Salesforce's CSV rows name the job
    elif api.name == "sume":
        assert result.to_dict()["data"]["job_id"] == job_id
    (fetch,) = e2e.results(job_id)
    assert fetch.status == 200
    assert fetch.time > e2e.reads(job_id)[-1].time
    assert len(e2e.reads(job_id)) == 3


def _assert_no_result_waiter(jobs: object) -> None:
    assert not hasattr(jobs, "wait_for_result")
    assert hasattr(jobs, "wait_for_job")


def test_failure_returns_the_failed_record_and_wait_for_result_raises(e2e: E2E) -> None:
    api = e2e.api
    job_id = e2e.job({"states": api.stages(1), "final": "failure"})

    record = e2e.run(lambda jobs: jobs.wait_for_job(job_id, deadline=10))

    assert str(record.id) == job_id
    assert e2e.state(record) == api.failure
    assert FAILURE_MESSAGE in str(getattr(record, api.error_attr))
    if not api.has_result:
        return
    failed = e2e.job({"states": api.stages(1), "final": "failure"})

    with pytest.raises(e2e.sdk.JobFailed) as caught:
        e2e.run(lambda jobs: jobs.wait_for_result(failed, deadline=10))

    error = caught.value
    assert error.job_id == failed and failed in str(error)
    assert error.last_state == api.failure
    assert error.error == getattr(error.record, api.error_attr)  # the server's, typed
    assert FAILURE_MESSAGE in str(error.error) and FAILURE_MESSAGE in str(error)
    assert str(error.record.id) == failed and e2e.state(error.record) == api.failure
    assert e2e.results(failed) == []
    assert len(e2e.reads(failed)) == 2


def test_cancellation_returns_the_record_and_wait_for_result_raises(e2e: E2E) -> None:
    api = e2e.api
    if api.canceled is None:
        with pytest.raises(ScenarioError) as refused:
            e2e.job({"final": "canceled"})
        assert refused.value.field == "final"
        assert e2e.log() == []
        return
    job_id = e2e.job({"states": api.stages(1), "final": "canceled"})

    record = e2e.run(lambda jobs: jobs.wait_for_job(job_id, deadline=10))

    assert e2e.state(record) == api.canceled
    assert len(e2e.reads(job_id)) == 2
    canceled = e2e.job({"states": api.stages(1), "final": api.canceled})
    with pytest.raises(e2e.sdk.JobCanceled) as caught:
        e2e.run(lambda jobs: jobs.wait_for_result(canceled, deadline=10))
    assert caught.value.job_id == canceled and canceled in str(caught.value)
    assert caught.value.last_state == api.canceled
    assert e2e.results(canceled) == []


@pytest.mark.parametrize(
    "delay",
    [{"result_delay_polls": 3}, {"result_delay_seconds": 0.06}],
    ids=["polls", "seconds"],
)
def test_a_late_result_is_fetched_once_and_never_early(e2e: E2E, delay: dict) -> None:
    api = e2e.api
    if not api.has_result:
        with pytest.raises(ScenarioError) as refused:
            e2e.job(delay)
        assert refused.value.field == next(iter(delay))
        return
    if not api.has_ready_field:
        # Without a readiness field the state alone says when to fetch: right after
        # the first success read, exactly once.
        job_id = e2e.job({"states": api.stages(1)})
        e2e.run(lambda jobs: jobs.wait_for_result(job_id, deadline=10))
        (fetch,) = e2e.results(job_id)
        assert fetch.status == 200 and fetch.time > e2e.reads(job_id)[-1].time
        return
    job_id = e2e.job({"states": api.stages(1), **delay})
    events: list = []

    result = e2e.run(lambda jobs: jobs.wait_for_result(job_id, deadline=10, on_poll=events.append))

    assert result.to_dict()["data"]["job_id"] == job_id
    log = e2e.log(job_id)
    assert [r.status for r in log if r.operation == "result"] == [200]
    assert 409 not in [r.status for r in log]
    assert log[-1].operation == "result"  # fetched after the last read, never before
    reads = e2e.reads(job_id)
    ready = [e.raw_record["result_ready"] for e in events]
    assert ready[-1] is True and not any(ready[:-1])
    assert [e.state for e in events][1:] == [api.success] * (len(events) - 1)
    if "result_delay_polls" in delay:
        assert len(reads) == 1 + 3 + 1
    assert all(gap >= FLOOR - EPSILON for gap in gaps(reads))
