"""Cancel over the wire: the declared cancel operation, on the resource and the handle,
and `WaitConfig.cancel_on_timeout` (off by default); jobs without one refuse."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from tests.e2e.support import E2E


async def _value(outcome: Any) -> Any:
    return await outcome if inspect.isawaitable(outcome) else outcome


def _drive(e2e: E2E, scenario: Callable[[Any], Awaitable[Any]], **config: Any) -> Any:
    if e2e.is_async:
        return e2e.run(scenario, **config)
    return e2e.run(lambda jobs: asyncio.run(scenario(jobs)), **config)


def test_a_handle_cancels_its_job_which_then_reports_canceled(e2e: E2E) -> None:
    api = e2e.api
    job_id = e2e.job({"states": api.stages(1), "final": "never"})

    async def run(jobs: Any) -> tuple[Any, Any, BaseException | None]:
        handle = jobs.handle(job_id)
        running = await _value(handle.poll())
        if api.cancel is None:
            with pytest.raises(e2e.sdk.NoCancelOperation):
                await _value(handle.cancel())
            return running, None, None
        await _value(handle.cancel())
        ended = await _value(handle.poll())
        failure: BaseException | None = None
        if api.has_result:
            try:
                await _value(handle.result(deadline=10))
            except e2e.sdk.JobCanceled as error:
                failure = error
        return running, ended, failure

    running, ended, failure = _drive(e2e, run)

    assert not running.done and running.state == api.pending
    if api.cancel is None:
        assert e2e.cancels(job_id) == []
        assert [r.operation for r in e2e.log(job_id)] == ["status"]
        return
    (cancel,) = e2e.cancels(job_id)
    assert cancel.method == "POST" and cancel.status == 202
    assert ended.done and ended.outcome == "canceled" and ended.state == api.canceled
    assert isinstance(failure, e2e.sdk.JobCanceled) and failure.job_id == job_id
    assert e2e.results(job_id) == []


def test_the_resource_cancels_a_job_and_a_finished_job_is_refused(e2e: E2E) -> None:
    api = e2e.api
    if api.cancel is None:
        return
    running = e2e.job({"states": api.stages(1), "final": "never"})
    finished = e2e.job({"states": []})

    async def run(jobs: Any) -> tuple[Any, BaseException]:
        cancel = getattr(jobs, api.cancel)
        envelope = await _value(cancel(running))
        with pytest.raises(e2e.sdk.ConflictError) as refused:
            await _value(cancel(finished))
        return envelope, refused.value

    envelope, refused = _drive(e2e, run)

    assert e2e.state(envelope.data) == api.canceled and str(envelope.data.id) == running
    assert refused.status_code == 409
    record = e2e.run(lambda jobs: jobs.wait_for_job(finished, deadline=10))
    assert e2e.state(record) == api.success  # a refused cancel leaves the job as it was


@pytest.mark.parametrize("cancel_on_timeout", [False, True])
def test_a_timed_out_wait_cancels_only_when_asked(e2e: E2E, cancel_on_timeout: bool) -> None:
    api = e2e.api
    job_id = e2e.job({"states": api.stages(1), "final": "never"})
    config: dict[str, Any] = {"cancel_on_timeout": True} if cancel_on_timeout else {}

    with pytest.raises(e2e.sdk.JobTimeout) as caught:
        e2e.run(lambda jobs: jobs.wait_for_job(job_id, deadline=0.2), **config)

    error = caught.value
    sent = cancel_on_timeout and api.cancel is not None
    assert error.job_id == job_id and error.canceled is sent
    assert len(e2e.cancels(job_id)) == (1 if sent else 0)
    assert ("cancel was requested" in str(error)) is sent
    assert ("was not canceled" in str(error)) is not sent
    assert error.resume_token
    if sent:
        record = e2e.run(lambda jobs: jobs.wait_for_job(job_id, deadline=10))
        assert e2e.state(record) == api.canceled
