"""Many jobs at once (W12) and cancellation safety (W11)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import httpx
import pytest

from jobgen.runtime.shared.errors import JobTimeout, NotFoundError
from jobgen.runtime.waiting.ratelimit import RateLimiter
from jobgen.runtime.waiting.waiter import AsyncJobWaiter, JobOutcome, SyncJobWaiter, WaitConfig

from .fakes import DEMO, FakeClock, Harness, VirtualTimeLoop, job, response, run, run_virtual


class Jobs:
    """A status endpoint for many jobs: job `n<k>` runs for k polls then succeeds;
    `missing` answers 404. Tracks how many jobs are being waited for at once."""

    def __init__(self, clock: Any) -> None:
        self.clock = clock
        self.lock = threading.Lock()
        self.polls: dict[str, int] = {}
        self.reads: list[float] = []
        self.active: set[str] = set()
        self.max_active = 0

    def __call__(self, job_id: str, timeout: float) -> httpx.Response:
        with self.lock:
            self.reads.append(self.clock())
            if job_id == "missing":
                return response(404, {"error": "not found"})
            count = self.polls[job_id] = self.polls.get(job_id, 0) + 1
            self.active.add(job_id)
            self.max_active = max(self.max_active, len(self.active))
            if count > int(job_id[1:]):
                self.active.discard(job_id)
                return job("succeeded", id=job_id)
            return job("running", id=job_id)


def max_in_window(times: list[float], window: float) -> int:
    times = sorted(times)
    return max(sum(1 for u in times if t <= u < t + window - 1e-9) for t in times)


def test_wait_for_jobs_yields_every_outcome(mode: str) -> None:
    clock = FakeClock()
    endpoint = Jobs(clock.monotonic)
    h = Harness(mode, DEMO, endpoint, clock.config())
    ids = ["n0", "n3", "missing", "n1", "n2"]
    outcomes = h.wait_for_jobs(ids, concurrency=2)
    assert sorted(o.job_id for o in outcomes) == sorted(ids)
    by_id = {o.job_id: o for o in outcomes}
    assert isinstance(by_id["missing"].error, NotFoundError)
    assert by_id["missing"].error.job_id == "missing" and not by_id["missing"].ok
    for job_id in ("n0", "n1", "n2", "n3"):
        assert by_id[job_id].ok and by_id[job_id].record == {"status": "succeeded", "id": job_id}
    assert endpoint.max_active <= 2


def test_wait_for_jobs_shares_one_deadline(mode: str) -> None:
    clock = FakeClock()
    h = Harness(mode, DEMO, lambda job_id, timeout: job("running"), clock.config())
    outcomes = h.wait_for_jobs(["a", "b"], concurrency=1, deadline=10)
    assert all(isinstance(o.error, JobTimeout) for o in outcomes)
    assert {o.error.job_id for o in outcomes if o.error} == {"a", "b"}


def test_wait_for_jobs_argument_checks(mode: str) -> None:
    clock = FakeClock()
    h = Harness(mode, DEMO, lambda job_id, timeout: job("running"), clock.config())
    with pytest.raises(ValueError, match="concurrency"):
        h.waiter.wait_for_jobs(["a"], concurrency=0)


def test_async_concurrency_and_rate_limit_in_virtual_time() -> None:
    async def main(loop: VirtualTimeLoop) -> tuple[list[JobOutcome[Any]], Jobs]:
        endpoint = Jobs(loop.time)

        async def read(job_id: str, timeout: float) -> httpx.Response:
            return endpoint(job_id, timeout)

        config = WaitConfig(
            clock=loop.time, async_sleep=asyncio.sleep, rng=lambda: 0.5,
            max_status_reads_per_second=4,
        )  # fmt: skip
        waiter: AsyncJobWaiter[Any, Any] = AsyncJobWaiter(
            DEMO, read_status=read, decode_record=lambda raw: raw, config=config
        )
        ids = ["n0", "n3", "n1", "n2", "n4"]
        outcomes = [o async for o in waiter.wait_for_jobs(ids, concurrency=3)]
        return outcomes, endpoint

    outcomes, endpoint = run_virtual(main)
    assert len(outcomes) == 5 and all(o.ok for o in outcomes)
    assert endpoint.max_active <= 3
    # 4 reads per second, burst 1: slots 0.25 s apart, at most 4 in any 1 s window
    assert max_in_window(endpoint.reads, 1.0) <= 4
    gaps = [b - a for a, b in zip(sorted(endpoint.reads), sorted(endpoint.reads)[1:])]
    assert min(gaps) >= 0.25 - 1e-9


def test_async_herd_shares_a_client_wide_limiter() -> None:
    async def main(loop: VirtualTimeLoop) -> list[float]:
        reads: list[float] = []

        async def read(job_id: str, timeout: float) -> httpx.Response:
            reads.append(loop.time())
            return job("running", headers={"Retry-After": "0.1"})

        limiter = RateLimiter(10, burst=2, clock=loop.time)
        config = WaitConfig(clock=loop.time, async_sleep=asyncio.sleep, rng=lambda: 0.5)
        waiters = [
            AsyncJobWaiter(DEMO, read_status=read, decode_record=lambda r: r, config=config,
                           limiter=limiter)
            for _ in range(3)
        ]  # fmt: skip
        tasks = [
            asyncio.ensure_future(w.wait_for_job(f"j{i}", deadline=3))
            for i, w in enumerate(waiters)
        ]
        results = await asyncio.gather(*tasks, return_exceptions=True)
        assert all(isinstance(r, JobTimeout) for r in results)
        return reads

    reads = run_virtual(main)
    assert len(reads) > 20  # the herd kept polling...
    assert max_in_window(reads, 1.0) <= 10 + 2  # ...within 10/s across all waiters


def test_sync_rate_limit_across_threads() -> None:
    lock = threading.Lock()
    now = [0.0]

    def clock() -> float:
        with lock:
            return now[0]

    def sleep(seconds: float) -> None:
        with lock:
            now[0] += seconds

    endpoint = Jobs(clock)
    config = WaitConfig(clock=clock, sleep=sleep, rng=lambda: 0.5, max_status_reads_per_second=5)
    waiter: SyncJobWaiter[Any, Any] = SyncJobWaiter(
        DEMO, read_status=endpoint, decode_record=lambda raw: raw, config=config
    )
    outcomes = list(waiter.wait_for_jobs([f"n{k}" for k in range(8)], concurrency=4))
    assert len(outcomes) == 8 and all(o.ok for o in outcomes)
    assert endpoint.max_active <= 4
    assert max_in_window(endpoint.reads, 1.0) <= 5


def test_sync_wait_for_jobs_closed_early_stops_its_threads() -> None:
    clock = FakeClock()

    def read(job_id: str, timeout: float) -> httpx.Response:
        return job("succeeded" if job_id == "fast" else "running")

    def sleep(seconds: float) -> None:
        clock.now += seconds

    config = clock.config(sleep=sleep)
    waiter: SyncJobWaiter[Any, Any] = SyncJobWaiter(
        DEMO, read_status=read, decode_record=lambda raw: raw, config=config
    )
    outcomes = waiter.wait_for_jobs(["fast", "slow1", "slow2"], concurrency=3, deadline=1e9)
    first = next(iter(outcomes))
    assert first.job_id == "fast"
    outcomes.close()  # type: ignore[attr-defined]
    for thread in threading.enumerate():
        if thread.name.startswith("job-waiter"):
            thread.join(timeout=5)
            assert not thread.is_alive()


# -- cancellation (W11) ----------------------------------------------------------------


async def running(job_id: str, timeout: float) -> httpx.Response:
    return job("running")


def never_finishing(gate: asyncio.Event, read: Any = running) -> Any:

    async def sleep(seconds: float) -> None:
        await gate.wait()  # suspended until cancelled

    config = WaitConfig(async_sleep=sleep, rng=lambda: 0.5)
    return AsyncJobWaiter(DEMO, read_status=read, decode_record=lambda r: r, config=config)


def test_cancelling_an_async_wait_leaves_no_task() -> None:
    async def main() -> None:
        waiter = never_finishing(asyncio.Event())
        task = asyncio.ensure_future(waiter.wait_for_job("j"))
        for _ in range(5):
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert asyncio.all_tasks() == {asyncio.current_task()}

    run(main())


def test_cancelling_wait_for_jobs_cancels_every_wait() -> None:
    async def main() -> None:
        waiter = never_finishing(asyncio.Event())

        async def consume() -> None:
            async for _ in waiter.wait_for_jobs([f"j{k}" for k in range(5)], concurrency=3):
                pass

        task = asyncio.ensure_future(consume())
        for _ in range(5):
            await asyncio.sleep(0)
        assert len(asyncio.all_tasks()) == 1 + 1 + 3  # main, consumer, 3 waits
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert asyncio.all_tasks() == {asyncio.current_task()}

    run(main())


def test_breaking_out_of_wait_for_jobs_cancels_the_rest() -> None:
    async def main() -> None:
        async def read(job_id: str, timeout: float) -> httpx.Response:
            return job("succeeded" if job_id == "fast" else "running")

        base = never_finishing(asyncio.Event(), read)
        async with base.wait_for_jobs(["fast", "slow1", "slow2"]) as outcomes:
            async for outcome in outcomes:
                assert outcome.job_id == "fast"
                break
        assert asyncio.all_tasks() == {asyncio.current_task()}

    run(main())
