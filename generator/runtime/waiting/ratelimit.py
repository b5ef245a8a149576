"""A client-wide cap on request rate, shared by every waiter of a client.

`RateLimiter` is a generic cell-rate algorithm (a token bucket) in two steps. A caller
first queues: it reserves a distinct place in line and sleeps until then, so callers wake
one at a time instead of as a herd. Then it takes a slot, under a lock, only when one is
due *now* (otherwise it sleeps until one should be and tries again). Slots are counted when
requests are really about to be sent, so callers that wake late all at once (a busy event
loop) cannot send in a burst. Nothing awaits while holding the lock, so one limiter is safe across threads and
asyncio tasks alike, and it is deterministic under an injected clock and sleep. In any
window of `w` seconds at most `burst + rate * w` slots are taken.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

from ..shared.policy import async_sleep

__all__ = ["RateLimiter", "StatusLimiter"]


class StatusLimiter(Protocol):
    """What the waiters need of a cap on status reads: `RateLimiter` in one process,
    or one shared by many (`fleet.limit.RedisRateLimiter`), set as `WaitConfig.status_limiter`.

    `acquire` waits for a slot and returns True, or returns False, without taking
    one, when the slot is beyond `timeout` seconds from now.
    """

    def acquire(
        self,
        sleep: Callable[[float], None] = ...,
        *,
        timeout: float | None = None,
    ) -> bool: ...

    async def acquire_async(
        self,
        async_sleep: Callable[[float], Awaitable[None]] = ...,
        *,
        timeout: float | None = None,
    ) -> bool: ...


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
        self._line: float | None = None  # where the next caller queues
        self._lock = threading.Lock()

    @property
    def unlimited(self) -> bool:
        """Whether this limiter never waits."""
        return self._interval == 0.0

    def _queue(self, deadline: float | None) -> float | None:
        """A distinct place in line: the seconds to sleep before trying to take a slot.

        None, and no place taken, when that sleep would pass `deadline`.
        """
        with self._lock:
            now = self._clock()
            place = now if self._line is None else max(self._line, now)
            wait = max(0.0, place - self._tolerance - now)
            if deadline is not None and now + wait > deadline:
                return None
            self._line = place + self._interval
            return wait

    def _take(self) -> float:
        """Take a slot if one is due now (returns 0), else the seconds until one is."""
        with self._lock:
            now = self._clock()
            slot = now if self._next is None else max(self._next, now)
            wait = slot - self._tolerance - now
            if wait > 0:
                return wait
            self._next = slot + self._interval
            return 0.0

    def _deadline(self, timeout: float | None) -> float | None:
        return None if timeout is None else self._clock() + timeout

    def _too_late(self, wait: float, deadline: float | None) -> bool:
        return deadline is not None and self._clock() + wait > deadline

    def acquire(
        self,
        sleep: Callable[[float], None] = time.sleep,
        *,
        timeout: float | None = None,
    ) -> bool:
        """Wait for a slot (thread-safe); False, without waiting, if it is beyond `timeout`."""
        if self.unlimited:
            return True
        deadline = self._deadline(timeout)
        wait = self._queue(deadline)
        if wait is None:
            return False
        while True:
            if wait > 0:
                if self._too_late(wait, deadline):
                    return False
                sleep(wait)
            wait = self._take()
            if wait == 0.0:
                return True

    async def acquire_async(
        self,
        async_sleep: Callable[[float], Awaitable[None]] = async_sleep,
        *,
        timeout: float | None = None,
    ) -> bool:
        """Wait for a slot (asyncio-safe); False, without waiting, if beyond `timeout`."""
        if self.unlimited:
            return True
        deadline = self._deadline(timeout)
        wait = self._queue(deadline)
        if wait is None:
            return False
        while True:
            if wait > 0:
                if self._too_late(wait, deadline):
                    return False
                await async_sleep(wait)
            wait = self._take()
            if wait == 0.0:
                return True

    def __repr__(self) -> str:
        return f"RateLimiter(rate={self.rate!r}, burst={self.burst!r})"
