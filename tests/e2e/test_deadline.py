"""Deadlines, resume tokens, credentials and cancellation over the wire."""

from __future__ import annotations

import asyncio
import json
import time
from types import ModuleType
from typing import Any

import pytest

from jobgen.server import RunningServer
from tests.e2e.support import APIS, BY_ID, E2E, KEY, OTHER_KEY, own_error

DEADLINE = 0.2
#: Room for the last request in flight and the client's own bookkeeping.
TOLERANCE = 0.1
#: Between the waiter's last look at the clock and its transport taking the request.
SLACK = 0.05


def test_a_job_that_never_finishes_times_out_within_the_deadline(e2e: E2E) -> None:
    job_id = e2e.job({"states": e2e.api.stages(1), "final": "never"})

    with pytest.raises(e2e.sdk.JobTimeout) as caught:
        e2e.run(lambda jobs: jobs.wait_for_job(job_id, deadline=DEADLINE))

    assert e2e.duration <= DEADLINE + TOLERANCE
    error = caught.value
    assert error.job_id == job_id and job_id in str(error)
    assert error.last_state == e2e.api.pending
    assert isinstance(error, own_error(e2e.sdk, e2e.sdk.JobTimeout))
    # Tracebacks name it where users import it from, not the private runtime.
    assert type(error).__module__ == e2e.sdk.JobTimeout.__module__ == f"{e2e.sdk.__name__}.errors"
    assert type(error.record).__module__.startswith(f"{e2e.sdk.__name__}.models.")
    assert error.elapsed <= DEADLINE + TOLERANCE and error.deadline == DEADLINE
    # A request the deadline cut short may reach the server's log a little later.
    time.sleep(max(0.0, DEADLINE - error.elapsed) + 0.03)
    reads = e2e.reads(job_id)
    assert len(reads) >= 5  # it kept polling on the fast schedule until the end
    # No request started past the deadline, by the client's clock at its transport (the
    # server's log can lag behind on a loaded machine, and a read the deadline cut short
    # may never reach it).
    sent = [at for at, method, _ in e2e.sent if method == "GET"]
    assert len(sent) >= len(reads)
    assert max(sent) <= e2e.started + DEADLINE + SLACK
    token = json.loads(error.resume_token)
    assert token["job_id"] == job_id
    assert len(reads) - 1 <= token["attempt"] <= len(reads)
    assert KEY not in error.resume_token

    # Resuming in a fresh client continues the schedule (the attempt count goes on)
    # with a deadline of its own; the job still never finishes, so it times out again.
    events: list[Any] = []
    with pytest.raises(e2e.sdk.JobTimeout) as again:
        e2e.run(
            lambda jobs: jobs.wait_for_job(
                resume=error.resume_token, deadline=DEADLINE, on_poll=events.append
            )
        )
    assert again.value.job_id == job_id
    assert events and events[0].attempt == token["attempt"] + 1
    assert e2e.duration <= DEADLINE + TOLERANCE


def test_a_resume_token_continues_the_wait_in_a_fresh_client(e2e: E2E) -> None:
    # A Retry-After beyond the time left ends the first wait at once (W5); the job
    # finishes 0.15 s after it was created, and a fresh client resumes with the token.
    job_id = e2e.job({"states": [{"state": e2e.api.pending, "seconds": 0.15}], "retry_after": 2})

    with pytest.raises(e2e.sdk.JobTimeout) as caught:
        e2e.run(lambda jobs: jobs.wait_for_job(job_id, deadline=1))

    assert e2e.duration < 0.15
    assert len(e2e.polls(job_id)) == 1
    token = caught.value.resume_token
    time.sleep(0.2)
    events: list[Any] = []

    record = e2e.run(lambda jobs: jobs.wait_for_job(resume=token, on_poll=events.append))

    assert str(record.id) == job_id
    assert e2e.state(record) == e2e.api.success
    assert [e.attempt for e in events] == [2]  # it counts on from the first wait
    assert [(p.poll, p.status) for p in e2e.polls(job_id)] == [(1, 200), (2, 200)]
    assert e2e.creates() == []


def test_another_key_is_an_authentication_error_naming_the_job(e2e: E2E) -> None:
    job_id = e2e.job({"states": e2e.api.stages(1)}, key=KEY)
    call = "wait_for_result" if e2e.api.has_result else "wait_for_job"

    with pytest.raises(e2e.sdk.AuthenticationError) as caught:
        e2e.run(lambda jobs: getattr(jobs, call)(job_id, deadline=10), key=OTHER_KEY)

    error = caught.value
    assert error.job_id == job_id and job_id in str(error)
    assert error.status_code == 401
    assert "key" in str(error)  # says which credential to check
    assert OTHER_KEY not in str(error) and OTHER_KEY not in repr(error)
    (poll,) = e2e.log(job_id)
    assert (poll.operation, poll.status, poll.fault) == ("status", 401, "wrong_credentials")


@pytest.mark.parametrize("spec_name", BY_ID)
def test_cancelling_an_async_wait_stops_polling(
    spec_name: str,
    e2e_sdks: dict[str, ModuleType],
    e2e_servers: dict[str, RunningServer],
) -> None:
    server = e2e_servers[spec_name]
    server.reset()
    e2e = E2E(APIS[spec_name], e2e_sdks[spec_name], server, "async")
    job_id = e2e.job({"states": e2e.api.stages(1), "final": "never"})

    async def cancel_after(seconds: float, jobs: Any) -> None:
        task = asyncio.ensure_future(jobs.wait_for_job(job_id, deadline=10))
        await asyncio.sleep(seconds)
        before = len(e2e.polls(job_id))
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.sleep(0.05)  # a request already on the wire may still land
        seen = len(e2e.polls(job_id))
        assert seen <= before + 1
        await asyncio.sleep(0.1)
        assert len(e2e.polls(job_id)) == seen  # nothing keeps polling behind our back

    e2e.run(lambda jobs: cancel_after(0.1, jobs))

    assert len(e2e.polls(job_id)) >= 2
