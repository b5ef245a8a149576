"""A client-wide cap on request rate, shared by every waiter of a client.

`RateLimiter` is a generic cell-rate algorithm (a token bucket that schedules instead of
refusing): each caller reserves the next free slot under a lock, then sleeps outside it
until that slot. Reservations never await while holding the lock, so one limiter is safe
across threads and across asyncio tasks alike, and it is deterministic under an injected
clock and sleep. In any window of `w` seconds at most `burst + rate * w` slots are given.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import Awaitable, Callable

__all__ = ["RateLimiter"]


class RateLimiter:
    """At most `rate` acquisitions per second, allowing bursts of `burst`.

    A `rate` of None or 0 means unlimited: acquiring never waits.
    """

    def __init__(
        self,
        rate: float | None,
        burst: int = 1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if rate is not None and not (rate >= 0 and math.isfinite(rate)):
            raise ValueError(f"rate must be a non-negative number, got {rate!r}")
        if burst < 1:
            raise ValueError(f"burst must be >= 1, got {burst!r}")
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._interval = 1.0 / rate if rate else 0.0
        self._tolerance = (burst - 1) * self._interval
        self._next: float | None = None  # theoretical arrival time of the next slot
        self._lock = threading.Lock()

    @property
    def unlimited(self) -> bool:
        """Whether this limiter never waits."""
        return self._interval == 0.0

    def reserve(self, max_wait: float | None = None) -> float | None:
        """Take the next slot and return the seconds to wait for it.

        When that wait would exceed `max_wait`, take nothing and return None.
        """
        if self.unlimited:
            return 0.0
        with self._lock:
            now = self._clock()
            slot = now if self._next is None else max(self._next, now)
            wait = max(0.0, slot - self._tolerance - now)
            if max_wait is not None and wait > max_wait:
                return None
            self._next = slot + self._interval
            return wait

    def acquire(
        self,
        sleep: Callable[[float], None] = time.sleep,
        *,
        timeout: float | None = None,
    ) -> bool:
        """Wait for a slot (thread-safe); False, without waiting, if it is beyond `timeout`."""
        wait = self.reserve(timeout)
        if wait is None:
            return False
        if wait > 0:
            sleep(wait)
        return True

    async def acquire_async(
        self,
        async_sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        *,
        timeout: float | None = None,
    ) -> bool:
        """Wait for a slot (asyncio-safe); False, without waiting, if beyond `timeout`."""
        wait = self.reserve(timeout)
        if wait is None:
            return False
        if wait > 0:
            await async_sleep(wait)
        return True

    def __repr__(self) -> str:
        return f"RateLimiter(rate={self.rate!r}, burst={self.burst!r})"
