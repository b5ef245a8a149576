"""Faults of the status endpoint over the wire: 429 with Retry-After, 5xx runs, dropped
connections, a run longer than the retry budget, malformed bodies, undocumented states."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.support import E2E, EPSILON, gaps

# A schedule without jitter, so two waits of the same timeline choose the same delays.
PINNED: dict[str, Any] = {"first": 0.01, "floor": 0.0, "cap": 0.08, "rng": lambda: 0.0}


def _events(e2e: E2E, job_id: str, **config: Any) -> list[Any]:
    events: list[Any] = []
    record = e2e.run(
        lambda jobs: jobs.wait_for_job(job_id, deadline=10, on_poll=events.append), **config
    )
    assert str(record.id) == job_id
    assert e2e.state(record) == e2e.api.success
    return events


def test_a_429_run_with_retry_after_is_waited_out(e2e: E2E) -> None:
    job_id = e2e.job(
        {
            "states": e2e.api.stages(2),
            "status_errors": [{"at_poll": 2, "status": 429, "count": 2, "retry_after": 0.05}],
        }
    )

    events = _events(e2e, job_id)

    polls = e2e.polls(job_id)
    assert [(p.poll, p.status) for p in polls] == [(1, 200), (2, 429), (3, 429), (4, 200), (5, 200)]
    # The status retry honours the 429's Retry-After before each new attempt.
    assert gaps(polls)[1] >= 0.05 - EPSILON and gaps(polls)[2] >= 0.05 - EPSILON
    assert [e.attempt for e in events] == [1, 2, 3]


def test_5xx_and_408_runs_mid_job_are_retried_and_the_wait_succeeds(e2e: E2E) -> None:
    statuses = {2: 408, 3: 500, 4: 502, 6: 503, 7: 504}
    errors = [{"at_poll": poll, "status": status} for poll, status in statuses.items()]
    job_id = e2e.job({"states": e2e.api.stages(2), "status_errors": errors})

    events = _events(e2e, job_id)

    polls = e2e.polls(job_id)
    assert [p.status for p in polls] == [200, 408, 500, 502, 200, 503, 504, 200]
    assert [p.fault for p in polls].count("status_error") == 5
    assert [e.attempt for e in events] == [1, 2, 3]
    assert [e.state for e in events] == [e2e.api.pending] * 2 + [e2e.api.success]


ERRORS = {
    400: "BadRequestError",
    403: "PermissionDeniedError",
    404: "NotFoundError",
    409: "ConflictError",
    422: "UnprocessableEntityError",
}


@pytest.mark.parametrize("status", sorted(ERRORS))
def test_another_4xx_ends_the_wait_at_once_naming_the_job(e2e: E2E, status: int) -> None:
    job_id = e2e.job(
        {"states": e2e.api.stages(3), "status_errors": [{"at_poll": 2, "status": status}]}
    )

    with pytest.raises(e2e.sdk.APIStatusError) as caught:
        e2e.run(lambda jobs: jobs.wait_for_job(job_id, deadline=10))

    error = caught.value
    assert type(error).__name__ == ERRORS[status] and error.status_code == status
    assert error.job_id == job_id and job_id in str(error)
    assert [p.status for p in e2e.polls(job_id)] == [200, status]  # never retried


def test_a_retry_after_beyond_the_deadline_on_a_429_times_out_at_once(e2e: E2E) -> None:
    job_id = e2e.job(
        {
            "states": e2e.api.stages(2),
            "status_errors": [{"at_poll": 2, "status": 429, "retry_after": 30}],
        }
    )

    with pytest.raises(e2e.sdk.JobTimeout) as caught:
        e2e.run(lambda jobs: jobs.wait_for_job(job_id, deadline=2))

    assert e2e.duration < 0.5  # not a 30 s sleep, and not StatusUnavailable
    assert caught.value.job_id == job_id
    assert caught.value.last_state == e2e.api.pending
    assert [p.status for p in e2e.polls(job_id)] == [200, 429]


def test_failed_reads_do_not_advance_the_backoff(e2e: E2E) -> None:
    stages = e2e.api.stages(3)
    clean = e2e.job({"states": stages})
    faulty = e2e.job(
        {
            "states": stages,
            "status_errors": [
                {"at_poll": 2, "status": 503, "count": 2, "retry_after": 0},
                {"at_poll": 6, "status": 429, "retry_after": 0},
            ],
            "drop_connection_at_polls": [5],
        }
    )

    expected = _events(e2e, clean, **PINNED)
    events = _events(e2e, faulty, **PINNED)

    def schedule(seen: list[Any]) -> list[tuple[Any, ...]]:
        return [(e.attempt, e.state, e.delay, e.source) for e in seen]

    assert schedule(events) == schedule(expected)
    assert [e.attempt for e in events] == [1, 2, 3, 4]
    polls = e2e.polls(faulty)
    assert [p.fault for p in polls] == [
        None,
        "status_error",
        "status_error",
        None,
        "drop_connection",
        "status_error",
        None,
        None,
    ]
    # After each read, the next request (fault or not) waited at least that read's delay.
    for event, read in zip(events, e2e.reads(faulty)):
        later = [p for p in polls if p.seq > read.seq]
        if event.delay is not None:
            assert later[0].time - read.time >= event.delay - EPSILON


def test_a_run_longer_than_the_retry_budget_says_the_endpoint_is_unavailable(e2e: E2E) -> None:
    job_id = e2e.job(
        {"states": e2e.api.stages(1), "status_errors": [{"at_poll": 1, "status": 503, "count": 9}]}
    )

    with pytest.raises(e2e.sdk.StatusUnavailable) as caught:
        e2e.run(lambda jobs: jobs.wait_for_job(job_id, deadline=10))

    error = caught.value
    assert error.job_id == job_id and job_id in str(error)
    assert "unavailable" in str(error) and "may still be running" in str(error)
    assert error.attempts == 5
    assert isinstance(error.last_error, e2e.sdk.InternalServerError)
    assert error.last_error.status_code == 503
    assert [p.status for p in e2e.polls(job_id)] == [503] * 5


def test_dropped_connections_are_retried(e2e: E2E) -> None:
    job_id = e2e.job({"states": e2e.api.stages(2), "drop_connection_at_polls": [1, 3, 4]})

    events = _events(e2e, job_id)

    polls = e2e.polls(job_id)
    assert [(p.status, p.fault) for p in polls] == [
        (None, "drop_connection"),
        (200, None),
        (None, "drop_connection"),
        (None, "drop_connection"),
        (200, None),
        (200, None),
    ]
    assert [e.attempt for e in events] == [1, 2, 3]


def test_a_malformed_status_body_is_retried_and_the_job_still_succeeds(e2e: E2E) -> None:
    # A 200 whose body is not a record (here truncated JSON) is a fault of the path to
    # the server, retried on the status-read budget like a 5xx (W6), not the job's end.
    job_id = e2e.job({"states": e2e.api.stages(2), "malformed_at_polls": [2, 3]})

    record = e2e.run(lambda jobs: jobs.wait_for_job(job_id, deadline=10))

    assert e2e.state(record) == e2e.api.success
    polls = [(p.poll, p.fault) for p in e2e.polls(job_id)]
    assert polls == [(1, None), (2, "malformed"), (3, "malformed"), (4, None), (5, None)]


def test_a_status_body_malformed_past_the_budget_is_status_unavailable(e2e: E2E) -> None:
    job_id = e2e.job({"states": e2e.api.stages(2), "malformed_at_polls": list(range(2, 9))})

    with pytest.raises(e2e.sdk.StatusUnavailable) as caught:
        e2e.run(lambda jobs: jobs.wait_for_job(job_id, deadline=10))

    error = caught.value
    assert error.job_id == job_id and job_id in str(error)
    assert isinstance(error.last_error, e2e.sdk.UnreadableStatus)
    assert "not JSON" in str(error.last_error)
    assert [p.fault for p in e2e.polls(job_id)] == [None] + ["malformed"] * 5
    assert e2e.results(job_id) == []


def test_an_undocumented_state_is_an_error_not_still_running(e2e: E2E) -> None:
    job_id = e2e.job({"states": e2e.api.stages(1), "undocumented_state": "Exploded"})
    call = "wait_for_result" if e2e.api.has_result else "wait_for_job"

    with pytest.raises(e2e.sdk.UnknownJobState) as caught:
        e2e.run(lambda jobs: getattr(jobs, call)(job_id, deadline=10))

    error = caught.value
    assert error.job_id == job_id and job_id in str(error)
    assert error.state == "Exploded" and "'Exploded'" in str(error)
    assert e2e.api.success in str(error)  # the documented states are listed
    assert isinstance(error.last_record, dict)
    assert len(e2e.polls(job_id)) == 2  # stopped at the first undocumented answer
    assert e2e.results(job_id) == []
