"""Delay policy: equal-jitter backoff, the choice of the next poll delay, the async sleep."""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["async_sleep", "backoff", "choose_delay"]


async def async_sleep(seconds: float) -> None:
    """`asyncio.sleep`, the default async sleep; asyncio loads on first use, not on import."""
    import asyncio

    await asyncio.sleep(seconds)


def backoff(
    attempt: int, *, first: float, cap: float, rng: Callable[[], float]
) -> float:
    """Equal-jitter exponential backoff for 0-based `attempt`.

    `raw = min(cap, first * 2 ** (attempt + 1))`, and the delay is
    `raw / 2 + rng() * raw / 2`: between `first` and `2 * first` for attempt 0,
    doubling up to `cap`, never below half of `raw`.
    """
    exponent = min(max(attempt, 0) + 1, 64)  # 2**64 * first dwarfs any cap
    raw = min(cap, first * 2.0**exponent)
    return raw / 2 + rng() * raw / 2


def choose_delay(
    hints: Sequence[tuple[float, str]],
    *,
    attempt: int,
    floor: float,
    first: float,
    cap: float,
    rng: Callable[[], float],
) -> tuple[float, str]:
    """The next poll delay and its source.

    `hints` are `(seconds, source)` pairs the server gave on this poll. With hints,
    the longest wins (the first of equals); without, `backoff(attempt)`. Either way
    the delay is at least `floor` (source `"floor"` when a floor above zero wins). A
    delay that would still be zero (a floor of 0 with `Retry-After: 0`, or a zero
    `first`) becomes `first`, or 1 second if that is 0 too, so a wait can never
    hot-loop: the SDK's own delay, so its source is `"backoff"`.
    """
    if hints:
        delay, source = hints[0]
        for seconds, kind in hints[1:]:
            if seconds > delay:
                delay, source = seconds, kind
    else:
        delay, source = backoff(attempt, first=first, cap=cap, rng=rng), "backoff"
    if delay < floor:
        delay, source = floor, "floor"
    if delay <= 0:
        delay, source = (first if first > 0 else 1.0), "backoff"
    return delay, source
