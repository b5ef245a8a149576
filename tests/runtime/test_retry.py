"""Transport retries: what is retried, how long it waits, when it stops."""

from __future__ import annotations

import asyncio
from email.utils import formatdate
from typing import Any

import httpx
import pytest

from jobgen.runtime.http.retry import (
    RetryPolicy,
    RetryStats,
    async_call_with_retries,
    call_with_retries,
    is_retryable,
)
from jobgen.runtime.http.statuses import status_error_for
from jobgen.runtime.shared.errors import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
)

from .fakes import REQUEST, WALL_START, FakeClock


def failure(code: int, headers: dict[str, str] | None = None) -> APIStatusError:
    return status_error_for(
        httpx.Response(code, json={"error": code}, headers=headers, request=REQUEST)
    )


class Flaky:
    """Raises the scripted errors in turn, then returns "ok"."""

    def __init__(self, *errors: BaseException) -> None:
        self.errors = list(errors)
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "ok"


def call(mode: str, fn: Flaky, policy: RetryPolicy, clock: FakeClock, **kwargs: Any) -> Any:
    common = {"clock": clock.monotonic, "rng": lambda: 0.5, "wall_clock": clock.wall}
    if mode == "sync":
        return call_with_retries(fn, policy, sleep=clock.sleep, **common, **kwargs)

    async def afn() -> str:
        return fn()

    return asyncio.run(
        async_call_with_retries(afn, policy, sleep=clock.async_sleep, **common, **kwargs)
    )


@pytest.mark.parametrize("code", [408, 429, 500, 501, 502, 503, 504, *range(520, 530), 599])
def test_retries_retryable_statuses(mode: str, code: int) -> None:
    clock = FakeClock()
    fn = Flaky(failure(code), failure(code))
    assert call(mode, fn, RetryPolicy(), clock) == "ok"
    assert fn.calls == 3 and clock.sleeps == [0.375, 0.75]


@pytest.mark.parametrize(
    "error",
    [
        APIConnectionError(request=REQUEST),
        APITimeoutError(request=REQUEST),
        httpx.ConnectError("refused", request=REQUEST),
    ],
)
def test_retries_connection_errors(mode: str, error: BaseException) -> None:
    clock = FakeClock()
    fn = Flaky(error)
    assert call(mode, fn, RetryPolicy(), clock) == "ok" and fn.calls == 2


@pytest.mark.parametrize("code", [400, 401, 403, 404, 409, 410, 422, 499])
def test_other_statuses_propagate_at_once(mode: str, code: int) -> None:
    clock = FakeClock()
    error = failure(code)
    fn = Flaky(error)
    stats = RetryStats()
    with pytest.raises(APIStatusError) as info:
        call(mode, fn, RetryPolicy(), clock, stats=stats)
    assert info.value is error and fn.calls == 1 and clock.sleeps == []
    assert stats.stop_reason is None


def test_programming_errors_are_not_retried(mode: str) -> None:
    fn = Flaky(KeyError("oops"))
    with pytest.raises(KeyError):
        call(mode, fn, RetryPolicy(), FakeClock())
    assert fn.calls == 1


@pytest.mark.parametrize(
    ("headers", "wait"),
    [
        ({"Retry-After": "3"}, 3.0),
        ({"Retry-After": formatdate(WALL_START + 4, usegmt=True)}, 4.0),
        ({"Retry-After": "0"}, 0.0),
        ({"Retry-After": "garbage"}, 0.375),
        ({"retry-after-ms": "1500", "Retry-After": "9"}, 1.5),
    ],
)
def test_honours_retry_after(mode: str, headers: dict[str, str], wait: float) -> None:
    clock = FakeClock()
    fn = Flaky(failure(429, headers))
    assert call(mode, fn, RetryPolicy(), clock) == "ok"
    assert clock.sleeps == [wait]


def test_stops_at_attempts_with_the_last_error(mode: str) -> None:
    clock = FakeClock()
    errors = [failure(503) for _ in range(5)]
    fn = Flaky(*errors)
    stats = RetryStats()
    with pytest.raises(APIStatusError) as info:
        call(mode, fn, RetryPolicy(attempts=3), clock, stats=stats)
    assert info.value is errors[2] and fn.calls == 3
    assert stats.stop_reason == "attempts" and stats.attempts == 3
    assert stats.last_error is errors[2]


def test_stops_at_budget(mode: str) -> None:
    clock = FakeClock()
    fn = Flaky(*[failure(503, {"Retry-After": "4"}) for _ in range(5)])
    stats = RetryStats()
    with pytest.raises(APIStatusError):
        call(mode, fn, RetryPolicy(attempts=10, budget=10.0), clock, stats=stats)
    assert clock.sleeps == [4.0, 4.0] and fn.calls == 3 and stats.stop_reason == "budget"


def test_never_sleeps_past_time_left(mode: str) -> None:
    clock = FakeClock()
    end = clock.now + 5.0
    fn = Flaky(*[failure(503, {"Retry-After": "2"}) for _ in range(5)])
    stats = RetryStats()
    with pytest.raises(APIStatusError):
        call(mode, fn, RetryPolicy(attempts=10), clock, stats=stats,
             time_left=lambda: end - clock.now)  # fmt: skip
    assert clock.sleeps == [2.0, 2.0] and stats.stop_reason == "time_left"


def test_no_retry_policy(mode: str) -> None:
    fn = Flaky(failure(503))
    stats = RetryStats()
    with pytest.raises(APIStatusError):
        call(mode, fn, RetryPolicy.NO_RETRY, FakeClock(), stats=stats)
    assert fn.calls == 1 and stats.stop_reason == "attempts"


def test_async_accepts_a_lambda_returning_a_coroutine() -> None:
    async def fetch() -> int:
        return 7

    assert asyncio.run(async_call_with_retries(lambda: fetch(), RetryPolicy())) == 7


def test_is_retryable() -> None:
    assert is_retryable(failure(503)) and is_retryable(APITimeoutError())
    assert not is_retryable(failure(401)) and not is_retryable(ValueError())


@pytest.mark.parametrize("kwargs", [{"attempts": 0}, {"budget": -1.0}, {"cap": -1.0}])
def test_policy_validation(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        RetryPolicy(**kwargs)
