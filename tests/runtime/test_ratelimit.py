"""The client-wide status read limiter."""

from __future__ import annotations

import asyncio
import threading

import pytest

from generator.runtime.ratelimit import RateLimiter


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


def test_burst_then_rate() -> None:
    clock = Clock()
    limiter = RateLimiter(4, burst=3, clock=clock)
    waits = [limiter.reserve() for _ in range(6)]
    assert waits == [0.0, 0.0, 0.0, 0.25, 0.5, 0.75]


def test_idle_time_refills_without_banking_more_than_burst() -> None:
    clock = Clock()
    limiter = RateLimiter(1, burst=2, clock=clock)
    assert [limiter.reserve() for _ in range(2)] == [0.0, 0.0]
    clock.now = 100.0
    assert [limiter.reserve() for _ in range(3)] == [0.0, 0.0, 1.0]


def test_timeout_refuses_without_taking_a_slot() -> None:
    clock = Clock()
    limiter = RateLimiter(1, clock=clock)
    assert limiter.acquire(clock.sleep, timeout=0)
    assert not limiter.acquire(clock.sleep, timeout=0.5)
    assert limiter.acquire(clock.sleep, timeout=1.0)
    assert clock.slept == [1.0]


def test_threads_get_distinct_slots() -> None:
    limiter = RateLimiter(10, clock=lambda: 0.0)
    waits: list[float] = []
    lock = threading.Lock()

    def take() -> None:
        for _ in range(20):
            wait = limiter.reserve()
            with lock:
                waits.append(wait or 0.0)

    threads = [threading.Thread(target=take) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(waits) == pytest.approx([k / 10 for k in range(160)])


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
