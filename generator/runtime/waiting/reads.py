"""The status reads of a waiter's waits: `StatusReads` and `AsyncStatusReads`.

A wait reads its job's status once per poll: the read is prepared on the wait's first
poll (`PrepareStatus`, or a `ReadStatus` given the job and its carried values), each
request waits its turn at the client's status limiter and is bounded by the time left,
a status rule may turn an error status into the job's answer, and a failed read is
retried apart from the job's schedule (W6) on the status read's own budget.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable
from typing import Any, Protocol, TypeVar

import httpx

from ..http.retry import RetryStats, async_call_with_retries, call_with_retries
from ..shared.errors import APIStatusError
from .core import WaitCore
from .ratelimit import StatusLimiter
from .records import Poll
from .spec import WaitConfig

__all__ = [
    "AsyncReadOnce",
    "AsyncReadStatus",
    "AsyncStatusReads",
    "PrepareStatus",
    "ReadOnce",
    "ReadStatus",
    "StatusReads",
]

T_co = TypeVar("T_co", covariant=True)


class ReadStatus(Protocol):
    """Reads the job's status once; raises `errors` exceptions for failures.

    `carried` are the job's carried values (see `carry`), as keyword arguments."""

    def __call__(
        self, job_id: str, timeout: float, **carried: object
    ) -> httpx.Response: ...


class AsyncReadStatus(Protocol):
    """The async twin of `ReadStatus`."""

    def __call__(
        self, job_id: str, timeout: float, **carried: object
    ) -> Awaitable[httpx.Response]: ...


class ReadOnce(Protocol):
    """One wait's status read, sent once per call, within `timeout` seconds."""

    def __call__(self, timeout: float) -> httpx.Response: ...


class AsyncReadOnce(Protocol):
    """The async twin of `ReadOnce`."""

    def __call__(self, timeout: float) -> Awaitable[httpx.Response]: ...


class PrepareStatus(Protocol[T_co]):
    """Prepares a wait's status read once (job id or URL, carried values): what
    does not change between its polls is built here, not on every read."""

    def __call__(self, job_id: str, **carried: object) -> T_co: ...


class _Reads:
    """What both twins share: how a wait's read is prepared; no I/O."""

    def __init__(
        self,
        read_status: object,
        prepare_status: object,
        config: WaitConfig,
        limiter: StatusLimiter | None,
    ) -> None:
        if (read_status is None) == (prepare_status is None):
            raise TypeError("give exactly one of read_status and prepare_status")
        self._read_status: Any = read_status
        self._prepare_status: Any = prepare_status
        self.config = config
        self.limiter = limiter

    def _read_once(self, core: WaitCore) -> Any:
        """The status read of `core`'s wait, prepared on its first poll."""
        prepare = self._prepare_status
        if prepare is not None:
            read_once = prepare(core.target, **core.carried)
        else:
            read_once = functools.partial(
                self._read_status, core.target, **core.carried
            )
        core.read_once = read_once
        return read_once


class StatusReads(_Reads):
    """The status reads of a `SyncJobWaiter`'s waits."""

    def read(self, core: WaitCore) -> Poll:
        """One status read, retried apart from the job's schedule (W6); the retry
        machinery starts only once the first attempt, made here, has failed."""
        config = self.config
        started = config.clock()
        try:
            return self._attempt(core)
        except Exception as error:  # noqa: BLE001 - the retries decide
            failed = (error, started)
        stats = RetryStats()
        try:
            return call_with_retries(
                functools.partial(self._attempt, core),
                config.status_retry,
                sleep=config.sleep,
                clock=config.clock,
                rng=config.rng,
                wall_clock=config.wall_clock,
                time_left=core.time_left,
                stats=stats,
                failed=failed,
            )
        except Exception as error:  # noqa: BLE001 - read_failed re-raises or maps it
            core.read_failed(error, stats)

    def _attempt(self, core: WaitCore) -> Poll:
        read_once: ReadOnce = core.read_once or self._read_once(core)
        core.before_read()
        limiter = self.limiter
        if limiter is not None and not limiter.acquire(
            self.config.sleep, timeout=core.time_left()
        ):
            raise core.timeout_error()
        try:
            response = read_once(core.request_timeout())
        except APIStatusError as error:
            response = core.ruled(error)
        return core.read(response)


class AsyncStatusReads(_Reads):
    """The status reads of an `AsyncJobWaiter`'s waits."""

    async def read(self, core: WaitCore) -> Poll:
        """The async twin of `StatusReads.read`."""
        config = self.config
        started = config.clock()
        try:
            return await self._attempt(core)
        except Exception as error:  # noqa: BLE001 - the retries decide
            failed = (error, started)
        stats = RetryStats()
        try:
            return await async_call_with_retries(
                functools.partial(self._attempt, core),
                config.status_retry,
                sleep=config.async_sleep,
                clock=config.clock,
                rng=config.rng,
                wall_clock=config.wall_clock,
                time_left=core.time_left,
                stats=stats,
                failed=failed,
            )
        except Exception as error:  # noqa: BLE001 - read_failed re-raises or maps it
            core.read_failed(error, stats)

    async def _attempt(self, core: WaitCore) -> Poll:
        read_once: AsyncReadOnce = core.read_once or self._read_once(core)
        core.before_read()
        limiter = self.limiter
        if limiter is not None and not await limiter.acquire_async(
            self.config.async_sleep, timeout=core.time_left()
        ):
            raise core.timeout_error()
        try:
            response = await read_once(core.request_timeout())
        except APIStatusError as error:
            response = core.ruled(error)
        return core.read(response)
