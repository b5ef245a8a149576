"""Time for the SDK under test of a server that runs ``time_scale`` times faster.

The server shrinks a job's durations, never its hints (they stay as the spec allows). So
the SDK is told the scale instead: its monotonic clock runs ``scale`` times faster and
its sleeps are ``scale`` times shorter, and the whole schedule (hints, floor, backoff,
deadlines) keeps its production values and shape, in a fraction of the real time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import attrs

__all__ = ["ScaledTime"]


@attrs.frozen
class ScaledTime:
    """A clock and sleeps ``scale`` times faster than real ones, for a generated SDK's
    ``WaitConfig(clock=..., sleep=..., async_sleep=...)`` (or ``**time.wait_config()``)."""

    scale: float = attrs.field()
    real_clock: Callable[[], float] = time.monotonic
    real_sleep: Callable[[float], None] = time.sleep
    _start: float = attrs.field(init=False)

    @scale.validator
    def _positive(self, _: object, value: float) -> None:
        if not value > 0:
            raise ValueError(f"scale must be above 0, not {value!r}")

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_start", self.real_clock())

    def clock(self) -> float:
        """Seconds as the SDK counts them: real seconds since the start, times ``scale``."""
        return self._start + (self.real_clock() - self._start) * self.scale

    def sleep(self, seconds: float) -> None:
        self.real_sleep(seconds / self.scale)

    async def async_sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds / self.scale)

    def wait_config(self) -> dict[str, Any]:
        """The keyword arguments of a generated SDK's ``WaitConfig`` that scale its time."""
        return {"clock": self.clock, "sleep": self.sleep, "async_sleep": self.async_sleep}
