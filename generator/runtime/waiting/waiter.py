"""Waiting for jobs: `SyncJobWaiter` and `AsyncJobWaiter`.

Both twins drive the same sans-I/O `WaitCore` (see `core`): their loops only read
the status (through `retry`, bounded by the time left) and sleep. They never resubmit
or cancel a job, and every error they raise names the job: waiter errors carry
`job_id`; a terminal record off the spec raises `RecordDecodeError` (with the raw
record); any other `SDKError` from the status read (401, 404...) or from decoding
the result propagates as it is, with its `job_id` attribute set, which its message
then shows. Each request is bounded as a whole by the time left (see `bounded`).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator
from threading import Event
from typing import Any, TypeVar, cast

from ..http.download import PathLike, no_file
from ..shared.errors import JobTimeout, SDKError, attach_job_id
from .base import BaseJobWaiter, check_wait_args
from .calls import (
    AsyncCreate,
    AsyncDrive,
    Create,
    Drive,
    FetchResult,
    JobCall,
    Polled,
)
from .core import Finished, WaitCore, wait_span
from .created import Created
from .many import AsyncJobOutcomes, JobRef, async_outcomes, sync_outcomes
from .ratelimit import StatusLimiter
from .reads import (
    AsyncReadOnce,
    AsyncReadStatus,
    AsyncStatusReads,
    PrepareStatus,
    ReadOnce,
    ReadStatus,
    StatusReads,
)
from .spec import Carried, HeaderHint, JobOutcome, JobSpec, PollEvent, WaitConfig

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
        read_status: ReadStatus | None = None,
        prepare_status: PrepareStatus[ReadOnce] | None = None,
        decode_record: Callable[[Any], RecordT],
        fetch_result: FetchResult[ResultT] | None = None,
        config: WaitConfig | None = None,
        limiter: StatusLimiter | None = None,
        cancel: JobCall[object] | None = None,
    ) -> None:
        has = (fetch_result is not None, cancel is not None)
        super().__init__(spec, decode_record, config, limiter, *has)
        self._reads = StatusReads(
            read_status, prepare_status, self.config, self.limiter
        )
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
        carried: Carried = None,
    ) -> RecordT:
        """Poll until the job is terminal and return its record, whatever the state.

        `resume` continues a wait from a `JobTimeout.resume_token`: the job id, the
        time left before the original deadline and the attempt count come from the
        token, and `deadline` is ignored (a token whose deadline has passed raises
        `JobTimeout` at once, without a request). `stall_after` overrides the job's.
        """
        check_wait_args(deadline)
        core = self._core(job_id, deadline, on_poll, resume, stall_after, carried)
        return self.terminal_record(core, self.run_core(core))

    def wait_for_result(
        self,
        job_id: str,
        *,
        deadline: float = 600.0,
        on_poll: Callable[[PollEvent[RecordT]], None] | None = None,
        stall_after: float | None = None,
        carried: Carried = None,
        to_file: PathLike | None = None,
    ) -> ResultT:
        """Poll until the job succeeds with its result ready, then fetch it once
        (`to_file`: also stream a bytes or text result to that file, whole or not
        at all, within the deadline)."""
        core = self._result_core(job_id, deadline, on_poll, stall_after, carried)
        return self.core_result(core, self.run_core(core), to_file)

    def core_result(
        self, core: WaitCore, finished: Finished, to_file: PathLike | None = None
    ) -> ResultT:
        """The result of a finished wait (JobFailed / JobCanceled unless it
        succeeded): the terminal record, or fetched once where `final_from` says. A
        failed job's failure download, where declared, goes with its JobFailed."""
        failure = self._failure_values(core, finished)
        if failure is not None:
            self._require_success(core, finished, self._fetch_failure(core, failure))
        target = self._success_target(core, finished)
        if target is None:
            no_file(to_file)
            return self.record_outcome(core, finished)  # type: ignore[return-value]
        return self._fetch(core, to_file, target, finished)

    def create_and_wait(
        self,
        create: Create,
        *,
        deadline: float = 600.0,
        on_poll: Callable[[PollEvent[RecordT]], None] | None = None,
        stall_after: float | None = None,
        to_file: PathLike | None = None,
    ) -> ResultT | RecordT:
        """Create a job with one idempotency key, then wait for its result or record.

        The deadline counts from before the create, which it bounds too (W5); the
        create answer is the wait's first status read (W7)."""
        check_wait_args(deadline)
        started = self.config.clock()
        with self.creating(started, deadline):
            created = self.start_job(create, deadline)
        core = self.created_core(created, deadline, started, on_poll, stall_after)
        finished = self.run_core(core)
        if self.has_result:
            return self.core_result(core, finished, to_file)
        no_file(to_file)
        return self.terminal_record(core, finished)

    def wait_for_jobs(
        self,
        job_ids: Iterable[JobRef],
        *,
        concurrency: int = 8,
        deadline: float = 600.0,
        on_poll: Callable[[PollEvent[RecordT]], None] | None = None,
        stall_after: float | None = None,
    ) -> Iterator[JobOutcome[RecordT]]:
        """Wait for many jobs, at most `concurrency` at once, yielding each as it ends.

        `deadline` bounds the whole collection, `stall_after` each job. Closing the
        iterator early stops the waits still running before their next status read.
        A job with carried values is given as `(job_id, carried)`.
        """
        check_wait_args(deadline, concurrency)
        start = functools.partial(self._core, on_poll=on_poll, stall_after=stall_after)
        one = functools.partial(
            self._one, end=self.config.clock() + deadline, start=start
        )
        return sync_outcomes(one, iter(job_ids), concurrency)

    def _one(
        self, job: JobRef, abandon: Event, *, end: float, start: Callable[..., WaitCore]
    ) -> JobOutcome[RecordT]:
        job_id, carried = (job, None) if isinstance(job, str) else job
        try:
            left = end - self.config.clock()
            core = start(job_id, left, abandon=abandon, carried=carried)
            return JobOutcome(
                job_id=job_id, record=self.terminal_record(core, self.run_core(core))
            )
        except SDKError as error:
            return JobOutcome(job_id=job_id, error=attach_job_id(error, job_id))

    def run_core(self, core: WaitCore) -> Finished:
        drive = cast("Drive | None", self._drive)  # a sync waiter's drive is sync
        with wait_span(self.spec.name, core.job_id):
            try:
                if drive is not None:
                    return drive(core, functools.partial(self._reads.read, core))
                step = core.open()
                while not isinstance(step, Finished):
                    if step is not None:
                        self.config.sleep(step.delay)
                    step = core.step(self._reads.read(core))
                return step
            except JobTimeout as error:
                if not self._cancels_on(error) or not self._cancel_quietly(core):
                    raise
                raise self._canceled(core, error) from None

    def poll_core(self, core: WaitCore) -> Polled[RecordT]:
        """One status read of `core`'s wait (retried, rate-limited), decided."""
        return self._polled(core, self._reads.read(core))

    def start_job(self, create: Create, time_left: float | None = None) -> Created:
        """Create a job (with one idempotency key, where the API takes one) within
        `time_left` seconds: the new job's id, carried values and first answer."""
        return self._created(create(self._idempotency_key(), time_left))

    def _cancel_quietly(self, core: WaitCore) -> bool:
        """Send the cancel of a timed-out wait; a failure is logged, not raised."""
        budget = self._cancel_budget(core)
        if budget is None:
            return False
        try:
            self.cancel(core.job_id, timeout=budget, carried=core.carried)
        except SDKError as error:
            logger.info("job %s: cancel on timeout failed: %s", core.shown, error)
            return False
        return True

    def cancel(
        self, job_id: str, *, timeout: float = 30, carried: Carried = None
    ) -> None:
        """Ask the server to cancel the job (its declared cancel operation), once."""
        cancel = self._cancel
        if cancel is None:
            raise self._no_cancel_operation()
        values = self.spec.carried(carried)
        try:
            cancel(job_id, timeout, **values)
        except SDKError as error:
            raise attach_job_id(error, job_id) from None

    def _fetch(
        self,
        core: WaitCore,
        to_file: PathLike | None,
        target: str,
        finished: Finished,
    ) -> ResultT:
        """Fetch the result of a job whose record says it is ready (once), from
        `target`, streamed to `to_file` when given."""
        fetch = self._fetch_result
        assert fetch is not None
        try:
            values = self._result_values(core, finished)
            with core.reading():
                return fetch(target, core.time_left(), to_file, **values)
        except SDKError as error:
            raise attach_job_id(error, core.job_id) from None

    def _fetch_failure(
        self, core: WaitCore, values: dict[str, object]
    ) -> tuple[object, SDKError | None]:
        """The failure download of a failed job, or the error that ended it."""
        fetch = self._fetch_result
        assert fetch is not None
        try:
            with core.reading():
                return fetch(core.target, core.time_left(), None, **values), None
        except SDKError as error:
            return None, attach_job_id(error, core.job_id)


class AsyncJobWaiter(BaseJobWaiter[RecordT, ResultT]):
    """Waits for jobs of one type in asyncio; cancelling a wait leaves nothing running."""

    def __init__(
        self,
        spec: JobSpec,
        *,
        read_status: AsyncReadStatus | None = None,
        prepare_status: PrepareStatus[AsyncReadOnce] | None = None,
        decode_record: Callable[[Any], RecordT],
        fetch_result: FetchResult[Awaitable[ResultT]] | None = None,
        config: WaitConfig | None = None,
        limiter: StatusLimiter | None = None,
        cancel: JobCall[Awaitable[object]] | None = None,
    ) -> None:
        has = (fetch_result is not None, cancel is not None)
        super().__init__(spec, decode_record, config, limiter, *has)
        self._reads = AsyncStatusReads(
            read_status, prepare_status, self.config, self.limiter
        )
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
        carried: Carried = None,
    ) -> RecordT:
        """Poll until the job is terminal and return its record, whatever the state.

        `resume` continues a wait from a `JobTimeout.resume_token`: the job id, the
        time left before the original deadline and the attempt count come from the
        token, and `deadline` is ignored (a token whose deadline has passed raises
        `JobTimeout` at once, without a request). `stall_after` overrides the job's.
        """
        check_wait_args(deadline)
        core = self._core(job_id, deadline, on_poll, resume, stall_after, carried)
        return self.terminal_record(core, await self.run_core(core))

    async def wait_for_result(
        self,
        job_id: str,
        *,
        deadline: float = 600.0,
        on_poll: Callable[[PollEvent[RecordT]], None] | None = None,
        stall_after: float | None = None,
        carried: Carried = None,
        to_file: PathLike | None = None,
    ) -> ResultT:
        """Poll until the job succeeds with its result ready, then fetch it once
        (`to_file`: also stream a bytes or text result to that file, whole or not
        at all, within the deadline)."""
        core = self._result_core(job_id, deadline, on_poll, stall_after, carried)
        return await self.core_result(core, await self.run_core(core), to_file)

    async def core_result(
        self, core: WaitCore, finished: Finished, to_file: PathLike | None = None
    ) -> ResultT:
        """The async twin of `SyncJobWaiter.core_result`."""
        failure = self._failure_values(core, finished)
        if failure is not None:
            self._require_success(
                core, finished, await self._fetch_failure(core, failure)
            )
        target = self._success_target(core, finished)
        if target is None:
            no_file(to_file)
            return self.record_outcome(core, finished)  # type: ignore[return-value]
        return await self._fetch(core, to_file, target, finished)

    async def create_and_wait(
        self,
        create: AsyncCreate,
        *,
        deadline: float = 600.0,
        on_poll: Callable[[PollEvent[RecordT]], None] | None = None,
        stall_after: float | None = None,
        to_file: PathLike | None = None,
    ) -> ResultT | RecordT:
        """The async twin of `SyncJobWaiter.create_and_wait`."""
        check_wait_args(deadline)
        started = self.config.clock()
        with self.creating(started, deadline):
            created = await self.start_job(create, deadline)
        core = self.created_core(created, deadline, started, on_poll, stall_after)
        finished = await self.run_core(core)
        if self.has_result:
            return await self.core_result(core, finished, to_file)
        no_file(to_file)
        return self.terminal_record(core, finished)

    def wait_for_jobs(
        self,
        job_ids: Iterable[JobRef],
        *,
        concurrency: int = 8,
        deadline: float = 600.0,
        on_poll: Callable[[PollEvent[RecordT]], None] | None = None,
        stall_after: float | None = None,
    ) -> AsyncJobOutcomes[RecordT]:
        """Wait for many jobs, at most `concurrency` at once, yielding each as it ends.

        `deadline` bounds the whole collection, `stall_after` each job (a job with
        carried values is given as `(job_id, carried)`). On exit (break, error,
        cancellation) the waits still running are cancelled and awaited; `async
        with` makes that immediate on `break`.
        """
        check_wait_args(deadline, concurrency)
        start = functools.partial(self._core, on_poll=on_poll, stall_after=stall_after)
        one = functools.partial(
            self._one, end=self.config.clock() + deadline, start=start
        )
        return AsyncJobOutcomes(async_outcomes(one, iter(job_ids), concurrency))

    async def _one(
        self, job: JobRef, end: float, start: Callable[..., WaitCore]
    ) -> JobOutcome[RecordT]:
        job_id, carried = (job, None) if isinstance(job, str) else job
        try:
            core = start(job_id, end - self.config.clock(), carried=carried)
            return JobOutcome(
                job_id=job_id,
                record=self.terminal_record(core, await self.run_core(core)),
            )
        except SDKError as error:
            return JobOutcome(job_id=job_id, error=attach_job_id(error, job_id))

    async def run_core(self, core: WaitCore) -> Finished:
        drive = cast("AsyncDrive | None", self._drive)
        with wait_span(self.spec.name, core.job_id):
            try:
                if drive is not None:
                    return await drive(core, functools.partial(self._reads.read, core))
                step = core.open()
                while not isinstance(step, Finished):
                    if step is not None:
                        await self.config.async_sleep(step.delay)
                    step = core.step(await self._reads.read(core))
                return step
            except JobTimeout as error:
                if not self._cancels_on(error) or not await self._cancel_quietly(core):
                    raise
                raise self._canceled(core, error) from None

    async def poll_core(self, core: WaitCore) -> Polled[RecordT]:
        """The async twin of `SyncJobWaiter.poll_core`."""
        return self._polled(core, await self._reads.read(core))

    async def start_job(
        self, create: AsyncCreate, time_left: float | None = None
    ) -> Created:
        """The async twin of `SyncJobWaiter.start_job`."""
        return self._created(await create(self._idempotency_key(), time_left))

    async def _cancel_quietly(self, core: WaitCore) -> bool:
        """Send the cancel of a timed-out wait; a failure is logged, not raised."""
        budget = self._cancel_budget(core)
        if budget is None:
            return False
        try:
            await self.cancel(core.job_id, timeout=budget, carried=core.carried)
        except SDKError as error:
            logger.info("job %s: cancel on timeout failed: %s", core.shown, error)
            return False
        return True

    async def cancel(
        self, job_id: str, *, timeout: float = 30, carried: Carried = None
    ) -> None:
        """Ask the server to cancel the job (its declared cancel operation), once."""
        cancel = self._cancel
        if cancel is None:
            raise self._no_cancel_operation()
        values = self.spec.carried(carried)
        try:
            await cancel(job_id, timeout, **values)
        except SDKError as error:
            raise attach_job_id(error, job_id) from None

    async def _fetch(
        self,
        core: WaitCore,
        to_file: PathLike | None,
        target: str,
        finished: Finished,
    ) -> ResultT:
        """The async twin of `SyncJobWaiter._fetch`."""
        fetch = self._fetch_result
        assert fetch is not None
        try:
            values = self._result_values(core, finished)
            with core.reading():
                return await fetch(target, core.time_left(), to_file, **values)
        except SDKError as error:
            raise attach_job_id(error, core.job_id) from None

    async def _fetch_failure(
        self, core: WaitCore, values: dict[str, object]
    ) -> tuple[object, SDKError | None]:
        """The async twin of `SyncJobWaiter._fetch_failure`."""
        fetch = self._fetch_result
        assert fetch is not None
        try:
            with core.reading():
                return await fetch(core.target, core.time_left(), None, **values), None
        except SDKError as error:
            return None, attach_job_id(error, core.job_id)
