"""The client-wide status read limiter."""

from __future__ import annotations

import asyncio
import itertools
import threading

import pytest

from jobgen.runtime.waiting.ratelimit import RateLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


@pytest.mark.parametrize("rate", [None, 0])
def test_unlimited(rate: float | None) -> None:
    clock = Clock()
    limiter = RateLimiter(rate, clock=clock)
    assert all(limiter.acquire(clock.sleep) for _ in range(100))
    assert clock.slept == [] and limiter.unlimited


def test_spaces_acquisitions() -> None:
    clock = Clock()
    limiter = RateLimiter(2, clock=clock)
    times = []
    for _ in range(5):
        limiter.acquire(clock.sleep)
        times.append(clock.now)
    assert times == [0.0, 0.5, 1.0, 1.5, 2.0]


def taken_at(limiter: RateLimiter, clock: Clock, count: int) -> list[float]:
    times = []
    for _ in range(count):
        assert limiter.acquire(clock.sleep)
        times.append(clock.now)
    return times


def test_burst_then_rate() -> None:
    clock = Clock()
    limiter = RateLimiter(4, burst=3, clock=clock)
    assert taken_at(limiter, clock, 6) == [0.0, 0.0, 0.0, 0.25, 0.5, 0.75]


def test_idle_time_refills_without_banking_more_than_burst() -> None:
    clock = Clock()
    limiter = RateLimiter(1, burst=2, clock=clock)
    assert taken_at(limiter, clock, 2) == [0.0, 0.0]
    clock.now = 100.0
    assert taken_at(limiter, clock, 3) == [100.0, 100.0, 101.0]


def test_waiters_that_wake_late_together_cannot_burst() -> None:
    """A busy event loop wakes every sleeper at once; each still needs its own slot."""
    clock = Clock()
    limiter = RateLimiter(1, clock=clock)
    woken: set[object] = set()
    taken: list[float] = []

    async def late_sleep(seconds: float) -> None:
        task = asyncio.current_task()
        await asyncio.sleep(0)
        if task not in woken:  # the first wake of every task comes late, at t=5
            woken.add(task)
            clock.now = max(clock.now, 5.0)
        else:
            clock.now += seconds

    async def one() -> None:
        assert await limiter.acquire_async(late_sleep)
        taken.append(clock.now)

    async def main() -> None:
        await asyncio.gather(*(one() for _ in range(4)))

    asyncio.run(main())
    assert taken[0] == 0.0 and len(taken) == 4
    assert all(b - a >= 1.0 for a, b in itertools.pairwise(taken)), taken


def test_timeout_refuses_without_taking_a_slot() -> None:
    clock = Clock()
    limiter = RateLimiter(1, clock=clock)
    assert limiter.acquire(clock.sleep, timeout=0)
    assert not limiter.acquire(clock.sleep, timeout=0.5)
    assert limiter.acquire(clock.sleep, timeout=1.0)
    assert clock.slept == [1.0]


def test_threads_share_one_limit() -> None:
    clock = Clock()
    guard = threading.Lock()

    def sleep(seconds: float) -> None:
        with guard:
            clock.now += seconds

    limiter = RateLimiter(10, clock=clock)
    takes: list[int] = []

    def take() -> None:
        for _ in range(20):
            assert limiter.acquire(sleep)
            with guard:
                takes.append(1)

    threads = [threading.Thread(target=take) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # 160 slots at 10 per second: the shared clock had to advance at least 15.9 s.
    assert len(takes) == 160
    assert clock.now >= 15.9 - 1e-9


def test_async_acquire() -> None:
    clock = Clock()
    limiter = RateLimiter(5, clock=clock)

    async def sleep(seconds: float) -> None:
        clock.sleep(seconds)

    async def main() -> list[bool]:
        return [await limiter.acquire_async(sleep, timeout=0.3) for _ in range(3)]

    assert asyncio.run(main()) == [True, True, True]
    assert clock.slept == pytest.approx([0.2, 0.2])


@pytest.mark.parametrize(("rate", "burst"), [(-1, 1), (float("inf"), 1), (1, 0)])
def test_rejects_bad_arguments(rate: float, burst: int) -> None:
    with pytest.raises(ValueError):
        RateLimiter(rate, burst)
