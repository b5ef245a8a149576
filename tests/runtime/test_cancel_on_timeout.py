"""`WaitConfig.cancel_on_timeout`: off by default; when on, a timed-out wait sends the
declared cancel once, within what is left of its deadline and a second (W5, W8)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from jobgen.runtime.shared.errors import APIConnectionError, JobTimeout, NoCancelOperation
from jobgen.runtime.waiting.waiter import AsyncJobWaiter, SyncJobWaiter

from .fakes import DEMO, FakeClock, Script, job


def _wait(mode: str, cancel: Any, *, deadline: float = 10, **config: Any) -> JobTimeout:
    clock = FakeClock()
    read = Script([job("running")], clock)
    settings = clock.config(**config)
    with pytest.raises(JobTimeout) as caught:
        if mode == "sync":
            SyncJobWaiter(
                DEMO, read_status=read, decode_record=lambda r: r, config=settings, cancel=cancel
            ).wait_for_job("j", deadline=deadline)
        else:

            async def aread(job_id: str, timeout: float) -> Any:
                return read(job_id, timeout)

            async def acancel(job_id: str, timeout: float) -> object:
                return cancel(job_id, timeout) if cancel is not None else None

            waiter = AsyncJobWaiter(
                DEMO,
                read_status=aread,
                decode_record=lambda r: r,
                config=settings,
                cancel=acancel if cancel is not None else None,
            )
            asyncio.run(waiter.wait_for_job("j", deadline=deadline))
    return caught.value


def test_a_timeout_cancels_nothing_by_default(mode: str) -> None:
    sent: list[tuple[str, float]] = []
    error = _wait(mode, lambda job_id, timeout: sent.append((job_id, timeout)))
    assert sent == [] and not error.canceled and "was not canceled" in str(error)


def test_cancel_on_timeout_sends_one_cancel_within_a_second(mode: str) -> None:
    sent: list[tuple[str, float]] = []
    error = _wait(
        mode, lambda job_id, timeout: sent.append((job_id, timeout)), cancel_on_timeout=True
    )
    # The wait gives up at 4.5 s of 10 (the next 6 s sleep would pass it): a full second.
    assert sent == [("j", 1.0)]
    assert error.canceled and error.job_id == "j" and "cancel was requested" in str(error)


def test_a_failed_cancel_leaves_the_timeout_as_it_was(mode: str) -> None:
    def refuse(job_id: str, timeout: float) -> None:
        raise APIConnectionError("refused")

    error = _wait(mode, refuse, cancel_on_timeout=True)
    assert not error.canceled and error.job_id == "j"


def test_without_a_cancel_operation_the_option_does_nothing(mode: str) -> None:
    error = _wait(mode, None, cancel_on_timeout=True)
    assert not error.canceled


def test_cancel_without_an_operation_is_refused() -> None:
    clock = FakeClock()
    waiter = SyncJobWaiter(
        DEMO, read_status=Script([], clock), decode_record=lambda r: r, config=clock.config()
    )
    with pytest.raises(NoCancelOperation):
        waiter.cancel("j")
