"""Sume's event stream against `jobgen serve` over real HTTP, sync and async: the SDK's
typed event iterator follows a job's state changes to its terminal event."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.support import E2E, KEY, OTHER_KEY

pytestmark = pytest.mark.parametrize("spec_name", ["sume"])


def _follow(e2e: E2E, job_id: str, *, key: str = KEY, cancel_after: str | None = None) -> Any:
    """Every event of the job's stream; ``cancel_after``: cancel the job once an event
    in that state has arrived (the stream stays open meanwhile)."""

    async def follow_async(jobs: Any) -> list[Any]:
        events = []
        async for event in jobs.stream_events(job_id):
            events.append(event)
            if event.data.status.value == cancel_after:
                await jobs.cancel(job_id)
        return events

    def follow_sync(jobs: Any) -> list[Any]:
        events = []
        for event in jobs.stream_events(job_id):
            events.append(event)
            if event.data.status.value == cancel_after:
                jobs.cancel(job_id)
        return events

    return e2e.run(follow_async if e2e.is_async else follow_sync, key=key)


def _states(events: list[Any]) -> list[tuple[str, str | None, str]]:
    return [(e.event, e.id, e.data.status.value) for e in events]


def test_the_stream_sends_each_state_change_then_ends_at_the_terminal_one(e2e: E2E) -> None:
    stages = [{"state": "queued", "polls": 1}, {"state": "processing", "polls": 3}]
    job_id = e2e.job({"states": stages, "progress_per_read": 10})

    events = _follow(e2e, job_id)

    assert _states(events) == [
        ("state", "1", "queued"),
        ("state", "2", "processing"),
        ("state", "3", "completed"),
    ]
    job = e2e.sdk.models.Job
    assert all(isinstance(e.data, job) and e.data.id == job_id for e in events)
    last = events[-1].data
    assert last.terminal and last.result_ready and last.progress.percent == 100
    assert not events[0].data.terminal and events[0].data.progress.percent < 100
    (request,) = e2e.log(job_id)
    assert (request.operation, request.method, request.status) == ("events", "GET", 200)


def test_a_failed_job_ends_the_stream_with_its_typed_error(e2e: E2E) -> None:
    job_id = e2e.job({"states": [{"state": "processing", "polls": 2}], "final": "failed"})

    events = _follow(e2e, job_id)

    assert _states(events) == [("state", "1", "processing"), ("state", "2", "failed")]
    error = events[-1].data.error
    assert isinstance(error, e2e.sdk.models.JobError) and error.code
    assert events[-1].data.terminal and not events[-1].data.result_ready


def test_a_cancel_while_streaming_is_the_streams_last_event(e2e: E2E) -> None:
    job_id = e2e.job({"states": [{"state": "processing", "polls": 1}], "final": "never"})

    events = _follow(e2e, job_id, cancel_after="processing")

    assert _states(events) == [("state", "1", "processing"), ("state", "2", "canceled")]
    assert events[-1].data.terminal
    assert [r.operation for r in e2e.log(job_id)] == ["events", "cancel"]


def test_a_job_of_another_key_or_no_job_raises_before_any_event(e2e: E2E) -> None:
    job_id = e2e.job()

    with pytest.raises(e2e.sdk.AuthenticationError):
        _follow(e2e, job_id, key=OTHER_KEY)
    with pytest.raises(e2e.sdk.NotFoundError):
        _follow(e2e, "job_missing")
