"""Transport retries for single requests, built on tenacity.

One place decides what is retried and for how long, used by the waiter's status reads
and by the base client for idempotent requests and POSTs that carry an idempotency key:

- retried: `APIConnectionError` (timeouts included), raw `httpx.TransportError`,
  `APIStatusError` with a status `is_retryable_status` accepts (408, 429 and every
  status from 500 up: 529 "overloaded" and the 520-527 of proxies included), and an
  `SDKError` marked `transient` (the waits' `UnreadableStatus`: a 2xx status body that is not a
  record); anything else (400, 401, 403, 404, 409,
  422...) propagates at once; a response's `x-should-retry: true|false` overrides
  its status either way;
- the wait before a retry is the response's `Retry-After` (or `retry-after-ms`) when it
  has a readable one, else equal-jitter backoff from `policy.first` up to `policy.cap`;
- retrying stops at `policy.attempts` attempts, when the next sleep would pass
  `policy.budget` seconds since the first attempt, or when it would pass `time_left()`;
- when it stops, the last error propagates unchanged (tenacity's `reraise=True`), and
  an optional `RetryStats` tells why it stopped.

Clock, sleep and randomness are injected, so tests pin an exact schedule.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, ClassVar, TypeVar

import attrs
import httpx

from ..shared.errors import APIConnectionError, APIStatusError, SDKError
from ..shared.policy import async_sleep, backoff
from .retry_after import parse_retry_after

if TYPE_CHECKING:  # tenacity loads with the first retry, not on import
    import tenacity

__all__ = [
    "RetryPolicy",
    "RetryStats",
    "async_call_with_retries",
    "call_with_retries",
    "is_retryable",
    "is_retryable_status",
    "retry_after_of",
]

T = TypeVar("T")

logger = logging.getLogger(__name__)


def is_retryable_status(status: int) -> bool:
    """Whether an answer with this status is worth another try (W6): 408 Request
    Timeout, 429 Too Many Requests, and every status from 500 up, the server's own
    trouble (503, 504, 529 "overloaded", a proxy's 520-527, any it may invent).
    Other 4xx say the request itself is wrong: sending it again cannot help."""
    return status in (408, 429) or status >= 500


def _non_negative(_: object, attribute: attrs.Attribute[float], value: float) -> None:
    if not value >= 0:
        raise ValueError(f"{attribute.name} must be >= 0, got {value!r}")


def _positive_int(_: object, attribute: attrs.Attribute[int], value: int) -> None:
    if value < 1:
        raise ValueError(f"{attribute.name} must be >= 1, got {value!r}")


@attrs.frozen
class RetryPolicy:
    """How hard to retry one request.

    `attempts` counts every try, the first included (1 means never retry); `budget`
    bounds the seconds from the first try to the start of the last one; `first` and
    `cap` shape the backoff used when the server sends no `Retry-After`: retry n
    (0-based) waits `raw / 2 + rng() * raw / 2` with `raw = min(cap, first * 2**(n+1))`.
    """

    NO_RETRY: ClassVar[RetryPolicy]

    attempts: int = attrs.field(default=5, validator=_positive_int)
    budget: float = attrs.field(default=60.0, validator=_non_negative)
    first: float = attrs.field(default=0.25, validator=_non_negative)
    cap: float = attrs.field(default=8.0, validator=_non_negative)


RetryPolicy.NO_RETRY = RetryPolicy(attempts=1, budget=0.0)


@attrs.define
class RetryStats:
    """What happened during one retried call; filled in as it runs.

    `stop_reason` is None while retrying or when the call ended without exhausting
    the retries (success, or an error that is not retried); else `"attempts"`,
    `"budget"` or `"time_left"`.
    """

    attempts: int = 0
    stop_reason: str | None = None
    last_error: BaseException | None = None


def is_retryable(error: BaseException) -> bool:
    """Whether a failed request is worth retrying.

    A response's ``x-should-retry: true`` or ``false`` overrides the status.
    """
    if isinstance(error, APIStatusError):
        override = str(error.response.headers.get("x-should-retry", "")).strip().lower()
        if override in ("true", "false"):
            return override == "true"
        return is_retryable_status(error.status_code)
    if isinstance(error, SDKError):
        return error.transient or isinstance(error, APIConnectionError)
    return isinstance(error, httpx.TransportError)


def retry_after_of(error: BaseException, now: float) -> float | None:
    """Seconds the server asked to wait before retrying, from an error's response."""
    if not isinstance(error, APIStatusError):
        return None
    headers = error.response.headers
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            value = float(millis.strip())
        except ValueError:
            value = -1.0
        if 0 <= value < float("inf"):
            return value / 1000.0
    return parse_retry_after(headers.get("retry-after"), now)


@attrs.define
class _Strategy:
    """The stop, wait and retry callables over tenacity's `RetryCallState`.

    The wait for attempt n is planned once (it may draw a random number) and shared
    by `stop` and `wait`, whatever order a tenacity version calls them in.
    """

    policy: RetryPolicy
    clock: Callable[[], float]
    wall_clock: Callable[[], float]
    rng: Callable[[], float]
    time_left: Callable[[], float] | None
    stats: RetryStats
    started: float = 0.0
    planned: dict[int, float] = attrs.Factory(dict[int, float])

    def _error(self, state: tenacity.RetryCallState) -> BaseException | None:
        outcome = state.outcome
        if outcome is None or not outcome.failed:
            return None
        return outcome.exception()

    def retry(self, state: tenacity.RetryCallState) -> bool:
        error = self._error(state)
        self.stats.attempts = state.attempt_number
        self.stats.last_error = error
        return error is not None and is_retryable(error)

    def wait(self, state: tenacity.RetryCallState) -> float:
        number = state.attempt_number
        if number not in self.planned:
            error = self._error(state)
            hinted = None if error is None else retry_after_of(error, self.wall_clock())
            if hinted is None:
                policy = self.policy
                hinted = backoff(
                    number - 1, first=policy.first, cap=policy.cap, rng=self.rng
                )
            self.planned[number] = hinted
        return self.planned[number]

    def stop(self, state: tenacity.RetryCallState) -> bool:
        delay = self.wait(state)
        reason: str | None = None
        if state.attempt_number >= self.policy.attempts:
            reason = "attempts"
        elif self.time_left is not None and delay > self.time_left():
            reason = "time_left"
        elif self.clock() - self.started + delay > self.policy.budget:
            reason = "budget"
        self.stats.stop_reason = reason
        return reason is not None

    def settle(self, error: BaseException | None) -> None:
        """Record a first attempt that needed no retry (it succeeded, or cannot be retried)."""
        self.stats.attempts, self.stats.last_error = 1, error

    def first_is_final(self, error: BaseException) -> bool:
        """Whether a failed first attempt ends the call at once (no tenacity needed)."""
        self.settle(error)
        if not is_retryable(error):
            return True
        if self.policy.attempts <= 1:
            self.stats.stop_reason = "attempts"
        elif self.time_left is not None and self.time_left() <= 0:
            self.stats.stop_reason = "time_left"
        return self.stats.stop_reason is not None

    def before_sleep(self, state: tenacity.RetryCallState) -> None:
        logger.debug(
            "request failed (%s); retry %d in %.2fs",
            self.stats.last_error,
            state.attempt_number,
            self.planned.get(state.attempt_number, 0.0),
        )


def _strategy(
    policy: RetryPolicy,
    clock: Callable[[], float],
    wall_clock: Callable[[], float],
    rng: Callable[[], float],
    time_left: Callable[[], float] | None,
    stats: RetryStats | None,
    started: float,
) -> _Strategy:
    if stats is None:
        stats = RetryStats()
    else:
        stats.attempts, stats.stop_reason, stats.last_error = 0, None, None
    return _Strategy(policy, clock, wall_clock, rng, time_left, stats, started=started)


def _succeeded(stats: RetryStats | None) -> None:
    """Record a first attempt that succeeded."""
    if stats is not None:
        stats.attempts, stats.stop_reason, stats.last_error = 1, None, None


def call_with_retries(
    fn: Callable[[], T],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    rng: Callable[[], float] = random.random,
    wall_clock: Callable[[], float] = time.time,
    time_left: Callable[[], float] | None = None,
    stats: RetryStats | None = None,
    failed: tuple[Exception, float] | None = None,
) -> T:
    """Call `fn()` until it returns, retrying retryable errors within `policy`.

    `time_left`, when given, bounds every retry sleep: no retry is scheduled that
    would start after it runs out. The last error propagates when retries stop.
    `failed`: the caller made the first attempt, which raised this error after
    starting at that time of `clock`.
    """
    # Most calls succeed at once: only a failure pays for the strategy, and only a
    # retryable one for tenacity's machinery.
    if failed is None:
        started = clock()
        try:
            result = fn()
        except Exception as error:  # noqa: BLE001 - the strategy decides
            failed = (error, started)
        else:
            _succeeded(stats)
            return result
    first, started = failed
    strategy = _strategy(policy, clock, wall_clock, rng, time_left, stats, started)
    if strategy.first_is_final(first):
        raise first
    replayed = [first]

    def attempt() -> T:
        if replayed:
            raise replayed.pop()
        return fn()

    import tenacity

    retrying = tenacity.Retrying(
        sleep=sleep,
        stop=strategy.stop,
        wait=strategy.wait,
        retry=strategy.retry,
        before_sleep=strategy.before_sleep,
        reraise=True,
    )
    return retrying(attempt)


async def async_call_with_retries(
    fn: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], Awaitable[None]] = async_sleep,
    clock: Callable[[], float] = time.monotonic,
    rng: Callable[[], float] = random.random,
    wall_clock: Callable[[], float] = time.time,
    time_left: Callable[[], float] | None = None,
    stats: RetryStats | None = None,
    failed: tuple[Exception, float] | None = None,
) -> T:
    """The async twin of `call_with_retries`: same policy, same decisions."""
    if failed is None:
        started = clock()
        try:
            result = await fn()
        except Exception as error:  # noqa: BLE001 - the strategy decides
            failed = (error, started)
        else:
            _succeeded(stats)
            return result
    first, started = failed
    strategy = _strategy(policy, clock, wall_clock, rng, time_left, stats, started)
    if strategy.first_is_final(first):
        raise first
    replayed = [first]

    async def attempt() -> T:
        if replayed:
            raise replayed.pop()
        return await fn()

    import tenacity

    retrying = tenacity.AsyncRetrying(
        sleep=sleep,
        stop=strategy.stop,
        wait=strategy.wait,
        retry=strategy.retry,
        before_sleep=strategy.before_sleep,
        reraise=True,
    )
    outcome: T = await retrying(attempt)
    return outcome
