"""Waiting for jobs: `SyncJobWaiter` and `AsyncJobWaiter`.

Both twins drive the same sans-I/O `WaitCore` (see `waitcore`): their loops only read
the status (through `retry`, bounded by the time left) and sleep. They never resubmit
or cancel a job, and every error they raise names the job: waiter errors carry
`job_id`; a terminal record off the spec raises `RecordDecodeError` (with the raw
record); any other `SDKError` from the status read (401, 404...) or from decoding
the result propagates as it is, with its `job_id` attribute set, which its message
then shows. Each request is bounded as a whole by the time left (see `bounded`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import logging
import threading
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable, Iterator
from typing import Any, Generic, TypeVar

import httpx

from .errors import JobTimeout, SDKError, attach_job_id
from .ratelimit import StatusLimiter
from .retry import RetryStats, async_call_with_retries, call_with_retries
from .waitbase import (
    AsyncReadStatus,
    BaseJobWaiter,
    ReadStatus,
    check_wait_args,
)
from .waitcore import Finished, Poll, WaitCore, ensure_success, wait_span
from .waitspec import HeaderHint, JobOutcome, JobSpec, PollEvent, WaitConfig

__all__ = [
    "AsyncJobOutcomes",
    "AsyncJobWaiter",
    "AsyncReadStatus",
    "HeaderHint",
    "JobOutcome",
    "JobSpec",
    "PollEvent",
    "ReadStatus",
    "SyncJobWaiter",
    "WaitConfig",
]

logger = logging.getLogger(__name__)

RecordT = TypeVar("RecordT")
ResultT = TypeVar("ResultT")


class SyncJobWaiter(BaseJobWaiter[RecordT, ResultT]):
    """Waits for jobs of one type, blocking the calling thread."""

    def __init__(
        self,
        spec: JobSpec,
        *,
        read_status: ReadStatus,
        decode_record: Callable[[Any], RecordT],
        fetch_result: Callable[[str, float], ResultT] | None = None,
        config: WaitConfig | None = None,
        limiter: StatusLimiter | None = None,
        cancel: Callable[[str, float], object] | None = None,
    ) -> None:
        super().__init__(
            spec,
            decode_record,
            config,
            limiter,
            fetch_result is not None,
            has_cancel=cancel is not None,
        )
        self._read_status = read_status
        self._fetch_result = fetch_result
        self._cancel = cancel

    def wait_for_job(
        self,
        job_id: str | None = None,
        *,
        deadline: float = 600.0,
        on_poll: Callable[[PollEvent[RecordT]], None] | None = None,
        resume: str | None = None,
        stall_after: float | None = None,
    ) -> RecordT:
        """Poll until the job is terminal and return its record, whatever the state.

        `resume` continues a wait from a `JobTimeout.resume_token`: the job id, the
        time left before the original deadline and the attempt count come from the
        token, and `deadline` is ignored (a token whose deadline has passed raises
        `JobTimeout` at once, without a request). `stall_after` overrides the job's.
        """
        check_wait_args(deadline)
        core = self._core(job_id, deadline, on_poll, resume, stall_after=stall_after)
        return self._decode(core, self._run(core))

    def wait_for_result(
        self,
        job_id: str,
        *,
        deadline: float = 600.0,
        on_poll: Callable[[PollEvent[RecordT]], None] | None = None,
        stall_after: float | None = None,
    ) -> ResultT:
        """Poll until the job succeeds with its result ready, then fetch it once."""
        fetch = self._fetch_result
        if fetch is None:
            raise self._no_result_operation()
        check_wait_args(deadline)
        core = self._core(
            job_id, deadline, on_poll, want_result=True, stall_after=stall_after
        )
        self._require_success(core, self._run(core))
        try:
            with self._decoding():
                return fetch(core.job_id, core.time_left())
        except SDKError as error:
            raise attach_job_id(error, core.job_id) from None

    def create_and_wait(
        self,
        create: Callable[[str | None], httpx.Response],
        *,
        deadline: float = 600.0,
        on_poll: Callable[[PollEvent[RecordT]], None] | None = None,
        stall_after: float | None = None,
    ) -> ResultT | RecordT:
        """Create a job with one idempotency key, then wait for its result or record."""
        check_wait_args(deadline)
        job_id = self._job_id_from(create(self._idempotency_key()))
        if self._has_result:
            return self.wait_for_result(
                job_id, deadline=deadline, on_poll=on_poll, stall_after=stall_after
            )
        return self.wait_for_job(
            job_id, deadline=deadline, on_poll=on_poll, stall_after=stall_after
        )

    def wait_for_jobs(
        self,
        job_ids: Iterable[str],
        *,
        concurrency: int = 8,
        deadline: float = 600.0,
        on_poll: Callable[[PollEvent[RecordT]], None] | None = None,
    ) -> Iterator[JobOutcome[RecordT]]:
        """Wait for many jobs, at most `concurrency` at once, yielding each as it ends.

        `deadline` bounds the whole collection. Closing the iterator early stops the
        waits still running before their next status read.
        """
        check_wait_args(deadline, concurrency)
        return self._outcomes(iter(job_ids), concurrency, deadline, on_poll)

    def _outcomes(
        self,
        job_ids: Iterator[str],
        concurrency: int,
        deadline: float,
        on_poll: Callable[[PollEvent[RecordT]], None] | None,
    ) -> Iterator[JobOutcome[RecordT]]:
        end = self.config.clock() + deadline
        abandon = threading.Event()
        pool = concurrent.futures.ThreadPoolExecutor(concurrency, "job-waiter")
        running: set[concurrent.futures.Future[JobOutcome[RecordT]]] = set()
        try:
            while True:
                for job_id in itertools.islice(job_ids, concurrency - len(running)):
                    running.add(pool.submit(self._one, job_id, end, on_poll, abandon))
                if not running:
                    return
                done, running = concurrent.futures.wait(
                    running, return_when=concurrent.futures.FIRST_COMPLETED
                )
                for future in done:
                    yield future.result()
        finally:
            abandon.set()
            pool.shutdown(wait=False, cancel_futures=True)

    def _one(
        self,
        job_id: str,
        end: float,
        on_poll: Callable[[PollEvent[RecordT]], None] | None,
        abandon: threading.Event,
    ) -> JobOutcome[RecordT]:
        try:
            left = end - self.config.clock()
            core = self._core(job_id, left, on_poll, abandon=abandon)
            return JobOutcome(job_id=job_id, record=self._decode(core, self._run(core)))
        except SDKError as error:
            return JobOutcome(job_id=job_id, error=attach_job_id(error, job_id))

    def _run(self, core: WaitCore) -> Finished:
        with wait_span(self.spec.name, core.job_id):
            try:
                while True:
                    step = core.step(self._read(core))
                    if isinstance(step, Finished):
                        return step
                    self.config.sleep(step.delay)
            except JobTimeout as error:
                if not self._cancels_on(error) or not self._cancel_quietly(core):
                    raise
                raise self._canceled(core, error) from None

    def _cancel_quietly(self, core: WaitCore) -> bool:
        """Send the cancel of a timed-out wait; a failure is logged, not raised."""
        budget = self._cancel_budget(core)
        if budget is None:
            return False
        try:
            self.cancel(core.job_id, timeout=budget)
        except SDKError as error:
            logger.info("job %s: cancel on timeout failed: %s", core.job_id, error)
            return False
        return True

    def cancel(self, job_id: str, *, timeout: float = 30.0) -> None:
        """Ask the server to cancel the job (its declared cancel operation), once."""
        cancel = self._cancel
        if cancel is None:
            raise self._no_cancel_operation()
        try:
            cancel(job_id, timeout)
        except SDKError as error:
            raise attach_job_id(error, job_id) from None

    def _read(self, core: WaitCore) -> Poll:
        config, limiter = self.config, self.limiter

        def attempt() -> Poll:
            core.before_read()
            if limiter is not None and not limiter.acquire(
                config.sleep, timeout=core.time_left()
            ):
                raise core.timeout_error()
            response = self._read_status(core.job_id, timeout=core.request_timeout())
            return core.parse(ensure_success(response))

        stats = RetryStats()
        try:
            return call_with_retries(
                attempt,
                config.status_retry,
                sleep=config.sleep,
                clock=config.clock,
                rng=config.rng,
                wall_clock=config.wall_clock,
                time_left=core.time_left,
                stats=stats,
            )
        except Exception as error:  # noqa: BLE001 - read_failed re-raises or maps it
            core.read_failed(error, stats)


class AsyncJobOutcomes(Generic[RecordT]):
    """Outcomes of `AsyncJobWaiter.wait_for_jobs`, as an async iterator.

    Use it as an async context manager (or call `aclose()`) to cancel and await,
    on the spot, the waits still running when the loop exits early.
    """

    def __init__(self, outcomes: AsyncGenerator[JobOutcome[RecordT], None]) -> None:
        self._outcomes = outcomes

    def __aiter__(self) -> AsyncJobOutcomes[RecordT]:
        return self

    async def __anext__(self) -> JobOutcome[RecordT]:
        return await self._outcomes.__anext__()

    async def aclose(self) -> None:
        """Cancel the waits still running and wait until they have stopped."""
        await self._outcomes.aclose()

    async def __aenter__(self) -> AsyncJobOutcomes[RecordT]:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class AsyncJobWaiter(BaseJobWaiter[RecordT, ResultT]):
    """Waits for jobs of one type in asyncio; cancelling a wait leaves nothing running."""

    def __init__(
        self,
        spec: JobSpec,
        *,
        read_status: AsyncReadStatus,
        decode_record: Callable[[Any], RecordT],
        fetch_result: Callable[[str, float], Awaitable[ResultT]] | None = None,
        config: WaitConfig | None = None,
        limiter: StatusLimiter | None = None,
        cancel: Callable[[str, float], Awaitable[object]] | None = None,
    ) -> None:
        super().__init__(
            spec,
            decode_record,
            config,
            limiter,
            fetch_result is not None,
            has_cancel=cancel is not None,
        )
        self._read_status = read_status
        self._fetch_result = fetch_result
        self._cancel = cancel

    async def wait_for_job(
        self,
        job_id: str | None = None,
        *,
        deadline: float = 600.0,
        on_poll: Callable[[PollEvent[RecordT]], None] | None = None,
        resume: str | None = None,
        stall_after: float | None = None,
    ) -> RecordT:
        """Poll until the job is terminal and return its record, whatever the state.

        `resume` continues a wait from a `JobTimeout.resume_token`: the job id, the
        time left before the original deadline and the attempt count come from the
        token, and `deadline` is ignored (a token whose deadline has passed raises
        `JobTimeout` at once, without a request). `stall_after` overrides the job's.
        """
        check_wait_args(deadline)
        core = self._core(job_id, deadline, on_poll, resume, stall_after=stall_after)
        return self._decode(core, await self._run(core))

    async def wait_for_result(
        self,
        job_id: str,
        *,
        deadline: float = 600.0,
        on_poll: Callable[[PollEvent[RecordT]], None] | None = None,
        stall_after: float | None = None,
    ) -> ResultT:
        """Poll until the job succeeds with its result ready, then fetch it once."""
        fetch = self._fetch_result
        if fetch is None:
            raise self._no_result_operation()
        check_wait_args(deadline)
        core = self._core(
            job_id, deadline, on_poll, want_result=True, stall_after=stall_after
        )
        self._require_success(core, await self._run(core))
        try:
            with self._decoding():
                return await fetch(core.job_id, core.time_left())
        except SDKError as error:
            raise attach_job_id(error, core.job_id) from None

    async def create_and_wait(
        self,
        create: Callable[[str | None], Awaitable[httpx.Response]],
        *,
        deadline: float = 600.0,
        on_poll: Callable[[PollEvent[RecordT]], None] | None = None,
        stall_after: float | None = None,
    ) -> ResultT | RecordT:
        """Create a job with one idempotency key, then wait for its result or record."""
        check_wait_args(deadline)
        job_id = self._job_id_from(await create(self._idempotency_key()))
        if self._has_result:
            return await self.wait_for_result(
                job_id, deadline=deadline, on_poll=on_poll, stall_after=stall_after
            )
        return await self.wait_for_job(
            job_id, deadline=deadline, on_poll=on_poll, stall_after=stall_after
        )

    def wait_for_jobs(
        self,
        job_ids: Iterable[str],
        *,
        concurrency: int = 8,
        deadline: float = 600.0,
        on_poll: Callable[[PollEvent[RecordT]], None] | None = None,
    ) -> AsyncJobOutcomes[RecordT]:
        """Wait for many jobs, at most `concurrency` at once, yielding each as it ends.

        `deadline` bounds the whole collection. On exit (break, error, cancellation)
        the waits still running are cancelled and awaited; `async with` makes that
        immediate on `break`.
        """
        check_wait_args(deadline, concurrency)
        return AsyncJobOutcomes(
            self._outcomes(iter(job_ids), concurrency, deadline, on_poll)
        )

    async def _outcomes(
        self,
        job_ids: Iterator[str],
        concurrency: int,
        deadline: float,
        on_poll: Callable[[PollEvent[RecordT]], None] | None,
    ) -> AsyncGenerator[JobOutcome[RecordT], None]:
        end = self.config.clock() + deadline
        running: set[asyncio.Future[JobOutcome[RecordT]]] = set()
        try:
            while True:
                for job_id in itertools.islice(job_ids, concurrency - len(running)):
                    running.add(asyncio.ensure_future(self._one(job_id, end, on_poll)))
                if not running:
                    return
                done, running = await asyncio.wait(
                    running, return_when=asyncio.FIRST_COMPLETED
                )
                for task in done:
                    yield task.result()
        finally:
            for task in running:
                task.cancel()
            if running:
                await asyncio.gather(*running, return_exceptions=True)

    async def _one(
        self,
        job_id: str,
        end: float,
        on_poll: Callable[[PollEvent[RecordT]], None] | None,
    ) -> JobOutcome[RecordT]:
        try:
            core = self._core(job_id, end - self.config.clock(), on_poll)
            return JobOutcome(
                job_id=job_id, record=self._decode(core, await self._run(core))
            )
        except SDKError as error:
            return JobOutcome(job_id=job_id, error=attach_job_id(error, job_id))

    async def _run(self, core: WaitCore) -> Finished:
        with wait_span(self.spec.name, core.job_id):
            try:
                while True:
                    step = core.step(await self._read(core))
                    if isinstance(step, Finished):
                        return step
                    await self.config.async_sleep(step.delay)
            except JobTimeout as error:
                if not self._cancels_on(error) or not await self._cancel_quietly(core):
                    raise
                raise self._canceled(core, error) from None

    async def _cancel_quietly(self, core: WaitCore) -> bool:
        """Send the cancel of a timed-out wait; a failure is logged, not raised."""
        budget = self._cancel_budget(core)
        if budget is None:
            return False
        try:
            await self.cancel(core.job_id, timeout=budget)
        except SDKError as error:
            logger.info("job %s: cancel on timeout failed: %s", core.job_id, error)
            return False
        return True

    async def cancel(self, job_id: str, *, timeout: float = 30.0) -> None:
        """Ask the server to cancel the job (its declared cancel operation), once."""
        cancel = self._cancel
        if cancel is None:
            raise self._no_cancel_operation()
        try:
            await cancel(job_id, timeout)
        except SDKError as error:
            raise attach_job_id(error, job_id) from None

    async def _read(self, core: WaitCore) -> Poll:
        config, limiter = self.config, self.limiter

        async def attempt() -> Poll:
            core.before_read()
            if limiter is not None and not await limiter.acquire_async(
                config.async_sleep, timeout=core.time_left()
            ):
                raise core.timeout_error()
            response = await self._read_status(
                core.job_id, timeout=core.request_timeout()
            )
            return core.parse(ensure_success(response))

        stats = RetryStats()
        try:
            return await async_call_with_retries(
                attempt,
                config.status_retry,
                sleep=config.async_sleep,
                clock=config.clock,
                rng=config.rng,
                wall_clock=config.wall_clock,
                time_left=core.time_left,
                stats=stats,
            )
        except Exception as error:  # noqa: BLE001 - read_failed re-raises or maps it
            core.read_failed(error, stats)
