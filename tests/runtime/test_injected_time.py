"""W10 for the async twin: a wait given a fake `sleep` and `clock` never waits on the real
event loop's timers, even when `async_sleep` itself was not injected."""

from __future__ import annotations

from typing import Any

import httpx

from jobgen.runtime.waiting.waiter import AsyncJobWaiter, SyncJobWaiter, WaitConfig

from .fakes import DEMO, FakeClock, VirtualTimeLoop, job, run_virtual


def _steps() -> list[httpx.Response]:
    return [job("running"), job("running"), job("running"), job("succeeded")]


def test_an_injected_sleep_also_paces_async_waits() -> None:
    clock = FakeClock()
    steps = iter(_steps())

    async def read(job_id: str, timeout: float) -> httpx.Response:
        return next(steps)

    config = WaitConfig(clock=clock.monotonic, sleep=clock.sleep, rng=lambda: 0.5)
    waiter: Any = AsyncJobWaiter(
        DEMO, read_status=read, decode_record=lambda raw: raw, config=config
    )

    loop_time: list[float] = []

    async def timed(loop: VirtualTimeLoop) -> Any:
        record = await waiter.wait_for_job("job_1", deadline=60)
        loop_time.append(loop.time())
        return record

    assert run_virtual(timed)["status"] == "succeeded"
    assert clock.sleeps == [1.5, 3.0, 6.0]  # the same schedule, on the injected sleep
    assert loop_time == [0.0]  # and no real timer of the event loop


def test_sync_and_async_sleeps_stay_apart_when_both_are_injected() -> None:
    sync_clock, async_clock = FakeClock(), FakeClock()
    config = WaitConfig(
        clock=sync_clock.monotonic, sleep=sync_clock.sleep, async_sleep=async_clock.async_sleep
    )
    steps = iter(_steps())
    waiter = SyncJobWaiter(
        DEMO, read_status=lambda job_id, timeout: next(steps), decode_record=lambda raw: raw,
        config=config,
    )  # fmt: skip
    waiter.wait_for_job("job_1", deadline=60)
    assert len(sync_clock.sleeps) == 3 and async_clock.sleeps == []
    assert config.async_sleep == async_clock.async_sleep
