"""Non-blocking job handles over the wire: `poll()` reads once and returns the decision,
`resume_token` carries a handle to another client, `start()` creates and hands back."""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from tests.e2e.support import E2E, FLOOR, scenario_header


async def _value(outcome: Any) -> Any:
    return await outcome if inspect.isawaitable(outcome) else outcome


def _drive(e2e: E2E, scenario: Callable[[Any], Awaitable[Any]], **config: Any) -> Any:
    """Run `scenario(resource)`, whose SDK calls go through `_value`, sync or async."""
    if e2e.is_async:
        return e2e.run(scenario, **config)
    return e2e.run(lambda jobs: asyncio.run(scenario(jobs)), **config)


def test_poll_reads_the_status_once_per_call_and_returns_the_decision(e2e: E2E) -> None:
    job_id = e2e.job({"states": e2e.api.stages(2)})
    events: list[Any] = []

    async def scenario(jobs: Any) -> list[Any]:
        handle = jobs.handle(job_id, on_poll=events.append)
        decisions = []
        for count in range(1, 4):
            decisions.append(await _value(handle.poll()))
            assert len(e2e.reads(job_id)) == count  # one read per poll, no sleeping
        return decisions

    first, second, last = _drive(e2e, scenario)

    for decision in (first, second):
        assert not decision.done and decision.outcome is None
        assert decision.state == e2e.api.pending == e2e.state(decision.record)
        assert decision.delay >= FLOOR and decision.source in {"backoff", "floor", "hint"}
    assert last.done and last.outcome == "success" and last.delay is None
    assert last.state == e2e.api.success and str(last.record.id) == job_id
    assert [e.attempt for e in events] == [1, 2, 3]
    assert json.loads(last.resume_token)["attempt"] == 3
    assert e2e.results(job_id) == []


def test_a_resume_token_continues_the_handle_in_another_client(e2e: E2E) -> None:
    job_id = e2e.job({"states": e2e.api.stages(2)})

    async def begin(jobs: Any) -> str:
        handle = jobs.handle(job_id, deadline=60)
        decision = await _value(handle.poll())
        assert not decision.done and decision.resume_token == handle.resume_token
        return str(handle.resume_token)

    token = _drive(e2e, begin)
    events: list[Any] = []

    async def finish(jobs: Any) -> Any:
        handle = jobs.handle(resume=token, on_poll=events.append)
        assert handle.job_id == job_id
        while not (decision := await _value(handle.poll())).done:
            pass
        return decision

    decision = _drive(e2e, finish)

    assert decision.done and decision.state == e2e.api.success
    assert [e.attempt for e in events] == [2, 3]  # the schedule goes on from the token
    assert json.loads(token)["deadline_at"] is not None
    assert len(e2e.reads(job_id)) == 3


def test_a_handle_past_its_deadline_raises_job_timeout_without_a_request(e2e: E2E) -> None:
    job_id = e2e.job({"states": e2e.api.stages(5)})
    token = json.dumps({"v": 1, "job_id": job_id, "deadline_at": 1.0, "attempt": 2})

    with pytest.raises(e2e.sdk.JobTimeout) as caught:
        _drive(e2e, lambda jobs: _value(jobs.handle(resume=token).poll()))

    assert caught.value.job_id == job_id and json.loads(caught.value.resume_token)["attempt"] == 2
    assert e2e.polls(job_id) == []


def test_start_creates_one_job_and_result_fetches_it_once(e2e: E2E) -> None:
    api = e2e.api
    scenario = api.scenario(states=api.stages(1))
    body = e2e.body()

    async def run(jobs: Any) -> tuple[Any, Any, Any, bool]:
        handle = await _value(
            getattr(jobs, api.start)(
                body=body, extra_headers=scenario_header(scenario), deadline=60
            )
        )
        if not api.has_result:
            with pytest.raises(e2e.sdk.NoResultOperation):
                await _value(handle.result(deadline=10))
            return handle, await _value(handle.wait(deadline=10)), None, True
        first = await _value(handle.result(deadline=10))
        again = await _value(handle.result(deadline=10))
        return handle, first, again, await _value(handle.done())

    handle, first, again, done = _drive(e2e, run)

    (create,) = e2e.creates()
    assert handle.job_id == create.job_id and done
    if api.idempotency_header is not None:
        assert create.idempotency_key
    if api.has_result:
        assert type(first).__name__ == api.result_type and again is first
        assert len(e2e.results(handle.job_id)) == 1
    else:
        assert e2e.state(first) == api.success
    assert len(e2e.reads(handle.job_id)) == 2  # done() after the result reads nothing


def test_a_failed_job_is_done_and_its_result_raises_job_failed(e2e: E2E) -> None:
    api = e2e.api
    job_id = e2e.job({"states": api.stages(1), "final": "failure"})

    async def run(jobs: Any) -> tuple[Any, BaseException | None]:
        handle = jobs.handle(job_id)
        decisions = [await _value(handle.poll()), await _value(handle.poll())]
        assert await _value(handle.done())  # known: no third read
        error: BaseException | None = None
        if api.has_result:
            try:
                await _value(handle.result(deadline=10))
            except e2e.sdk.JobFailed as failed:
                error = failed
        return decisions, error

    (running, ended), error = _drive(e2e, run)

    assert not running.done
    assert ended.done and ended.outcome == "failure" and ended.state == api.failure
    assert len(e2e.reads(job_id)) == 2
    if api.has_result:
        assert error is not None and error.job_id == job_id
        assert e2e.results(job_id) == []
