"""Job handles follow a job through the waiter's own interface: their polls see the
records and events a wait sees, and a job without carried values refuses any."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from jobgen.runtime.waiting.handle import AsyncJobHandle, JobHandle
from jobgen.runtime.waiting.waiter import AsyncJobWaiter, PollEvent, SyncJobWaiter

from .fakes import DEMO, FakeClock, job


class Typed(dict[str, Any]):
    """A record as the job's decoder makes it (a mapping, marked as decoded)."""


def _waiter(mode: str, states: list[str]) -> tuple[Any, Any]:
    """A waiter of the DEMO job over scripted states, and the handle class of its twin."""
    reads: list[str] = []

    def read(job_id: str, timeout: float) -> httpx.Response:
        reads.append(job_id)
        return job(states[min(len(reads), len(states)) - 1])

    async def aread(job_id: str, timeout: float) -> httpx.Response:
        return read(job_id, timeout)

    config = FakeClock().config()
    if mode == "sync":
        return SyncJobWaiter(DEMO, read_status=read, decode_record=Typed, config=config), JobHandle
    return AsyncJobWaiter(
        DEMO, read_status=aread, decode_record=Typed, config=config
    ), AsyncJobHandle


def _call(mode: str, outcome: Any) -> Any:
    return asyncio.run(outcome) if mode == "async" else outcome


def test_a_handles_polls_report_typed_records_as_a_wait_does(mode: str) -> None:
    events: list[PollEvent[Any]] = []
    waiter, cls = _waiter(mode, ["running", "succeeded"])
    handle = cls(waiter, "j1", on_poll=events.append)

    first = _call(mode, handle.poll())
    last = _call(mode, handle.poll())

    assert (first.done, first.state, last.done, last.outcome) == (False, "running", True, "success")
    assert isinstance(first.record, Typed) and isinstance(last.record, Typed)
    assert [(e.attempt, e.state) for e in events] == [(1, "running"), (2, "succeeded")]
    assert all(isinstance(e.record, Typed) for e in events)
    assert [e.raw_record for e in events] == [{"status": "running"}, {"status": "succeeded"}]


def test_a_job_that_carries_nothing_refuses_carried_values(mode: str) -> None:
    waiter, cls = _waiter(mode, ["running"])

    with pytest.raises(ValueError, match="unexpected carried value 'key': this job carries none"):
        cls(waiter, "j2", carried={"key": "k"})
    with pytest.raises(ValueError, match="unexpected carried value 'key'"):
        _call(mode, waiter.wait_for_job("j2", carried={"key": "k"}))
    assert cls(waiter, "j2", carried={}).carried == {}
