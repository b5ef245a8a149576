"""Progress and stalls over the wire: the simulated job advances its declared progress
with every read, and a stuck job raises `JobStalled` (not `JobTimeout`), sync and async."""

from __future__ import annotations

import asyncio
import inspect
import json
from typing import Any

import pytest

from tests.e2e.support import E2E, own_error


def test_every_poll_event_carries_the_progress(e2e: E2E) -> None:
    job_id = e2e.job({"states": e2e.api.stages(3), **_step(e2e, 25)})
    events: list[Any] = []

    e2e.run(lambda jobs: jobs.wait_for_job(job_id, deadline=10, on_poll=events.append))

    progress = [event.progress for event in events]
    if e2e.api.has_progress:
        assert progress == [0.0, 25.0, 50.0, 100.0]
    else:
        assert progress == [None] * 4


def _step(e2e: E2E, percent: float) -> dict[str, Any]:
    return {"progress_per_read": percent} if e2e.api.has_progress else {}


def test_a_stuck_job_raises_job_stalled_with_a_resume_token(e2e: E2E) -> None:
    job_id = e2e.job({"states": e2e.api.stages(1), "final": "never", **_step(e2e, 0)})

    with pytest.raises(e2e.sdk.JobStalled) as caught:
        e2e.run(lambda jobs: jobs.wait_for_job(job_id, deadline=10, stall_after=0))

    error = caught.value
    assert not isinstance(error, e2e.sdk.JobTimeout)
    assert isinstance(error, own_error(e2e.sdk, e2e.sdk.JobStalled))
    assert type(error.record).__module__.startswith(f"{e2e.sdk.__name__}.models.")
    assert error.job_id == job_id and error.last_state == e2e.api.pending
    assert error.progress == (0.0 if e2e.api.has_progress else None)
    assert len(e2e.reads(job_id)) == 2  # the second unchanged read is the stall
    token = json.loads(error.resume_token)
    assert (token["job_id"], token["attempt"]) == (job_id, 2)
    with pytest.raises(e2e.sdk.JobStalled):  # resumed, it goes on from the token
        e2e.run(
            lambda jobs: jobs.wait_for_job(deadline=10, resume=error.resume_token, stall_after=0)
        )
    assert len(e2e.reads(job_id)) == 4


def test_advancing_progress_is_not_a_stall(e2e: E2E) -> None:
    if not e2e.api.has_progress:
        return
    job_id = e2e.job({"states": e2e.api.stages(4), "progress_per_read": 5})

    record = e2e.run(lambda jobs: jobs.wait_for_job(job_id, deadline=10, stall_after=0))

    assert e2e.state(record) == e2e.api.success


def test_a_handle_poll_raises_job_stalled(e2e: E2E) -> None:
    job_id = e2e.job({"states": e2e.api.stages(1), "final": "never", **_step(e2e, 0)})

    async def polls(jobs: Any) -> Any:
        handle = jobs.handle(job_id, stall_after=0)
        first = handle.poll()
        first = await first if inspect.isawaitable(first) else first
        assert not first.done
        second = handle.poll()
        return await second if inspect.isawaitable(second) else second

    with pytest.raises(e2e.sdk.JobStalled) as caught:
        if e2e.is_async:
            e2e.run(polls)
        else:
            e2e.run(lambda jobs: asyncio.run(polls(jobs)))

    assert caught.value.job_id == job_id
