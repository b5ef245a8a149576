"""Clocks, sleeps and randomness of a client's requests, injectable for tests.

`Timing` is what the HTTP layer's retries read: a monotonic `clock` for time left, a
`wall_clock` (epoch seconds) for HTTP-dates, `sleep` / `async_sleep` between
attempts and `rng` for jitter. A test passes its own to pin an exact schedule. An SDK
with jobs passes its `WaitConfig`, which is a `Timing` with the waits' settings added.
"""

from __future__ import annotations

import random
import time
from collections.abc import Awaitable, Callable

import attrs

from .policy import async_sleep

__all__ = ["Timing"]


def _async_twin(sleep: Callable[[float], None]) -> Callable[[float], Awaitable[None]]:
    """`asyncio.sleep` (loaded on first use); or, once `sleep` is injected, `sleep`
    itself followed by one turn of the event loop, so that nothing async runs on the
    loop's real timers."""
    if sleep is time.sleep:
        return async_sleep

    async def injected(seconds: float) -> None:
        sleep(seconds)
        await async_sleep(0)

    return injected


@attrs.frozen(kw_only=True)
class Timing:
    """The clocks, sleeps and randomness a client uses.

    `clock` is monotonic and measures time left; `wall_clock` (epoch seconds) reads
    HTTP-dates. `sleep`, `async_sleep` and `rng` are injectable so a test can pin an
    exact schedule; an injected `sleep` paces the async client too, unless
    `async_sleep` is given.
    """

    clock: Callable[[], float] = time.monotonic
    wall_clock: Callable[[], float] = time.time
    sleep: Callable[[float], None] = time.sleep
    async_sleep: Callable[[float], Awaitable[None]] = attrs.field(
        default=attrs.Factory(lambda self: _async_twin(self.sleep), takes_self=True)
    )
    rng: Callable[[], float] = random.random
