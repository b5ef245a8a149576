"""`create_and_wait` over the wire: a create whose answer is lost is retried with the same
idempotency key and makes one job; without an idempotency header it is never retried."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.support import E2E, scenario_header

FAULTS = {
    # The job is made, then the connection drops before the answer: only a replay by
    # idempotency key avoids a second job.
    "dropped-after-create": {"attempt": 1, "drop_connection": True, "after_create": True},
    "503-before-create": {"attempt": 1, "status": 503, "retry_after": 0},
}


def test_create_and_wait_creates_one_job_and_waits_for_it(e2e: E2E) -> None:
    api = e2e.api
    scenario = api.scenario(states=api.stages(2))
    if api.has_ready_field:
        scenario["result_delay_polls"] = 2
    body = e2e.body()

    outcome = e2e.run(
        lambda jobs: jobs.create_and_wait(
            body=body, deadline=10, extra_headers=scenario_header(scenario)
        )
    )

    (create,) = e2e.creates()
    job_id = create.job_id
    assert (create.method, create.status < 300, create.fault) == ("POST", True, None)
    if api.idempotency_header is None:
        assert create.idempotency_key is None
    else:
        assert create.idempotency_key  # one key, sent with the first attempt already
    if api.has_result:
        assert type(outcome).__name__ == api.result_type
        (fetch,) = e2e.results(job_id)
        assert fetch.status == 200 and fetch.seq == e2e.log()[-1].seq
    else:
        assert str(outcome.id) == job_id and e2e.state(outcome) == api.success
    reads = e2e.reads(job_id)
    assert len(reads) == 3 + (2 if api.has_ready_field else 0)
    assert reads[0].time > create.time


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_create_and_wait_with_a_failed_first_create(e2e: E2E, fault: str) -> None:
    api = e2e.api
    scenario = api.scenario(states=api.stages(1), create_errors=[FAULTS[fault]])
    body = e2e.body()

    def create_and_wait(jobs: Any) -> Any:
        return jobs.create_and_wait(body=body, deadline=10, extra_headers=scenario_header(scenario))

    if api.idempotency_header is None:
        _never_retried(e2e, create_and_wait, fault)
        return

    outcome = e2e.run(create_and_wait, rng=lambda: 0.0)

    (job_id,) = e2e.server.app.store.jobs  # exactly one job was created
    if api.has_result:
        assert type(outcome).__name__ == api.result_type
    else:
        assert str(outcome.id) == job_id and e2e.state(outcome) == api.success
    first, second = e2e.creates()
    assert first.idempotency_key is not None
    assert second.idempotency_key == first.idempotency_key
    if fault == "dropped-after-create":
        assert (first.status, first.fault, first.job_id) == (None, "drop_connection", job_id)
        assert (second.status < 300, second.replayed, second.job_id) == (True, True, job_id)
    else:
        assert (first.status, first.fault, first.job_id) == (503, "status_error", None)
        assert (second.status < 300, second.replayed, second.job_id) == (True, False, job_id)
    assert {r.job_id for r in e2e.log() if r.operation != "create"} == {job_id}
    assert len(e2e.reads(job_id)) == 2
    assert len(e2e.results(job_id)) == (1 if api.has_result else 0)


def _never_retried(e2e: E2E, create_and_wait: Any, fault: str) -> None:
    """A POST without an idempotency key is sent once: the failure is the caller's to see."""
    expected = (
        e2e.sdk.APIConnectionError
        if fault == "dropped-after-create"
        else e2e.sdk.InternalServerError
    )
    with pytest.raises(expected):
        e2e.run(create_and_wait, rng=lambda: 0.0)

    (create,) = e2e.log()
    assert create.operation == "create" and create.idempotency_key is None
    assert len(e2e.server.app.store.jobs) == (1 if fault == "dropped-after-create" else 0)
