"""A fleet-wide cap on status reads: `RedisRateLimiter`, a token bucket kept in Redis.

It turns the client-wide cap on status reads into a fleet-wide one: the client of every
worker shares it through `WaitConfig(status_limiter=...)`, and both of its steps (a place
in line, then a slot) are Lua scripts on Redis's clock. `redis` is the caller's
`redis.Redis`; nothing here imports the redis package.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["RedisRateLimiter"]

# GCRA on Redis's clock: take a slot if one is due now and return "0", else return
# the seconds until one is (a string: Lua numbers become integers on the way out).
_TAKE = """
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
local interval, tolerance = tonumber(ARGV[1]), tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local wait = tat - tolerance - now
if wait > 0 then return tostring(wait) end
local ttl = math.ceil((tat + interval - now) * 1000) + 1000
redis.call('SET', KEYS[1], string.format('%.6f', tat + interval), 'PX', ttl)
return '0'
"""

# A place in line (GCRA over the line's own key): the seconds to sleep before trying to
# take a slot, so that waiting callers wake one at a time rather than as a herd; "-1",
# and no place taken, when that is beyond ARGV[3] seconds (when it is not negative).
_QUEUE = """
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
local interval, tolerance, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local place = tonumber(redis.call('GET', KEYS[1]) or '0')
if place < now then place = now end
local wait = math.max(0, place - tolerance - now)
if limit >= 0 and wait > limit then return '-1' end
local ttl = math.ceil((place + interval - now) * 1000) + 1000
redis.call('SET', KEYS[1], string.format('%.6f', place + interval), 'PX', ttl)
return tostring(wait)
"""


class RedisRateLimiter:
    """At most `rate` acquisitions per second (bursts of `burst`) across every
    process that shares `key` on one Redis: a `StatusLimiter` for a fleet.

    `redis` is a `redis.Redis`. As `RateLimiter` does in one process, a caller first
    takes a place in line (`<key>:line`) and sleeps until then, so waiting callers
    wake one at a time; then it takes a slot (`key`), only when one is due. Both are
    atomic scripts on Redis's clock, so in any window of `w` seconds at most
    `burst + rate * w` slots are taken, however many workers ask.
    """

    def __init__(self, redis: Any, key: str, rate: float, burst: int = 1) -> None:
        if not rate > 0:
            raise ValueError(f"rate must be a positive number, got {rate!r}")
        if burst < 1:
            raise ValueError(f"burst must be >= 1, got {burst!r}")
        self.key, self.rate, self.burst = key, rate, burst
        self._interval = 1.0 / rate
        self._take_script = redis.register_script(_TAKE)
        self._queue_script = redis.register_script(_QUEUE)

    def _args(self) -> list[str]:
        return [repr(self._interval), repr((self.burst - 1) * self._interval)]

    def _queue(self, timeout: float | None) -> float:
        """A place in line: seconds to sleep first; -1 (no place) if beyond `timeout`."""
        limit = -1.0 if timeout is None else max(0.0, timeout)
        keys = [f"{self.key}:line"]
        return float(self._queue_script(keys=keys, args=[*self._args(), repr(limit)]))

    def _take(self) -> float:
        """Take a slot if one is due now (returns 0), else the seconds until one is."""
        return float(self._take_script(keys=[self.key], args=self._args()))

    def acquire(
        self,
        sleep: Callable[[float], None] = time.sleep,
        *,
        timeout: float | None = None,
    ) -> bool:
        """Wait for a slot; False, without taking one, if it is beyond `timeout`."""
        deadline = None if timeout is None else time.monotonic() + timeout
        wait = self._queue(timeout)
        if wait < 0:
            return False
        while True:
            if wait > 0:
                if deadline is not None and time.monotonic() + wait > deadline:
                    return False
                sleep(wait)
            wait = self._take()
            if wait == 0.0:
                return True

    async def acquire_async(
        self,
        async_sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        *,
        timeout: float | None = None,
    ) -> bool:
        """The asyncio twin of `acquire` (each Redis call runs in a thread)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        wait = await asyncio.to_thread(self._queue, timeout)
        if wait < 0:
            return False
        while True:
            if wait > 0:
                if deadline is not None and time.monotonic() + wait > deadline:
                    return False
                await async_sleep(wait)
            wait = await asyncio.to_thread(self._take)
            if wait == 0.0:
                return True

    def __repr__(self) -> str:
        return f"RedisRateLimiter(key={self.key!r}, rate={self.rate!r}, burst={self.burst!r})"
