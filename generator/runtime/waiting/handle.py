"""Non-blocking job handles: `JobHandle` and `AsyncJobHandle`.

A handle follows one job without a sleeping loop. `poll()` reads the status once
and returns the decision of the same sans-I/O `WaitCore` the waiters drive: done
(with the typed record and its outcome), or poll again in `delay` seconds (and
why). A task queue or a cron calls `poll()`, schedules its next call after
`decision.delay`, and may carry the job across processes in `resume_token`
(`client.<resource>.handle(resume=token)` continues the poll schedule where it
stopped). `result()` and `wait()` block, for callers that can. The SDK's resources
build handles (`handle()`, `start()`); the waiter they take is the resource's own.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

import attrs

from ..http.download import PathLike
from ..shared.shown import display_id
from .base import check_wait_args
from .calls import AsyncCreate, Create, Polled
from .core import Finished, WaitCore
from .created import Created
from .spec import Carried, PollEvent

if TYPE_CHECKING:
    from .base import BaseJobWaiter
    from .waiter import AsyncJobWaiter, SyncJobWaiter

__all__ = ["AsyncJobHandle", "JobHandle", "PollDecision"]

RecordT = TypeVar("RecordT")
ResultT = TypeVar("ResultT")
# A handle's types as `start` takes them from its waiter (a static method: called on
# the bare class, it leaves nothing unknown to type checkers).
_StartedT = TypeVar("_StartedT")
_StartedResultT = TypeVar("_StartedResultT")

#: Bound of one status read of `poll()` when the handle has no deadline.
DEFAULT_POLL_TIMEOUT = 30.0

_Method = TypeVar("_Method", bound=Callable[..., Any])


def _deadline_keyword(method: _Method) -> _Method:
    """Refuse `timeout=` on a wait, naming `deadline=`: how long a wait may take is
    its deadline everywhere; `timeout=` is the HTTP request timeout."""

    def refuse(kwargs: dict[str, Any]) -> None:
        if "timeout" in kwargs:
            name = method.__qualname__
            raise TypeError(
                f"{name}() takes deadline= (the seconds the wait may take), not"
                f" timeout=: write {name.rsplit('.', 1)[-1]}(deadline=...)"
            )

    if inspect.iscoroutinefunction(method):

        @functools.wraps(method)
        async def awaiting(*args: Any, **kwargs: Any) -> Any:
            refuse(kwargs)
            return await method(*args, **kwargs)

        return cast("_Method", awaiting)

    @functools.wraps(method)
    def blocking(*args: Any, **kwargs: Any) -> Any:
        refuse(kwargs)
        return method(*args, **kwargs)

    return cast("_Method", blocking)


@attrs.frozen(kw_only=True)
class PollDecision(Generic[RecordT]):
    """What one `poll()` found: done, or when to poll again and why.

    `done` is True once the job is terminal (and, when the job has a result
    operation and succeeded, its result is ready); `outcome` is then "success",
    "failure" or "canceled". Otherwise `delay` is the seconds to wait before the
    next poll and `source` where it came from ("retry-after", "hint", "header",
    "backoff", "floor", or "deadline": the last look, moved to the deadline less
    one read's budget). `resume_token` continues the handle in another process.
    """

    job_id: str = attrs.field(repr=lambda job_id: repr(display_id(job_id)))
    done: bool
    state: str | None
    record: RecordT
    outcome: str | None = None
    delay: float | None = None
    source: str | None = None
    resume_token: str = attrs.field(repr=False)


def _deadline_at(
    waiter: BaseJobWaiter[Any, Any], deadline: float | None
) -> float | None:
    """The epoch second a handle's `deadline` (from now) ends, checked; None: none."""
    if deadline is None:
        return None
    check_wait_args(deadline)
    return waiter.config.wall_clock() + deadline


class _BaseHandle(Generic[RecordT, ResultT]):
    """What both handles share: the core, the last decision, the token; no I/O."""

    def __init__(
        self,
        waiter: BaseJobWaiter[RecordT, ResultT],
        job_id: str | None = None,
        *,
        deadline: float | None = None,
        resume: str | None = None,
        on_poll: Callable[[PollEvent[RecordT]], None] | None = None,
        poll_timeout: float = DEFAULT_POLL_TIMEOUT,
        stall_after: float | None = None,
        carried: Carried = None,
    ) -> None:
        check_wait_args(poll_timeout)
        if deadline is not None:
            check_wait_args(deadline)
        begun = waiter.begin(job_id, resume, carried)
        # Without a deadline of its own, a resumed handle keeps its token's.
        deadline_at = begun.deadline_at
        if deadline is not None:
            deadline_at = waiter.config.wall_clock() + deadline
        #: The values of the create response every call of the job sends (`carry`).
        self.carried = begun.carried
        self._begun = begun
        self._waiter = waiter
        self._deadline_at = deadline_at
        self._poll_timeout = poll_timeout
        self._on_poll = on_poll
        self._stall_after = stall_after
        self._finished: Finished | None = None
        self._result: tuple[ResultT] | None = None
        self._core = self._core_for(want_result=waiter.has_result)
        #: The create answer's decision, while the first status read is not due (W7).
        self._opening: PollDecision[RecordT] | None = None

    def _open(self, created: Created, deadline_at: float | None) -> None:
        """Take the create answer as the handle's first poll (W7), its deadline
        counted from before the create (`deadline_at`)."""
        self._deadline_at = deadline_at
        self._begun = attrs.evolve(
            self._begun, final_url=created.final_url, by_status=created.by_status
        )
        core = self._core_for(want_result=self._waiter.has_result)
        core.opening = created.answer
        self._core = core
        polled = self._waiter.opened(core)
        if polled is not None:
            self._opening = self._decide(core, polled)

    def _opened(self) -> PollDecision[RecordT] | None:
        """The decision while the next status read is not due yet (the create
        answer's, or a resumed handle's whose token says when it is due), its delay
        counting down; a job that ended with its create: that, for good."""
        decision = self._opening
        if decision is not None and decision.done:
            return decision
        core = self._core
        left = 0.0 if core.due is None else core.due - self._waiter.config.clock()
        if left <= 0:
            self._opening = None
            return None
        if left > self._time_left():
            raise core.timeout_error()  # W5: the server asked not to look before
        if decision is None:
            record = self._waiter.unset_record()
            if record is None:
                return None
            decision = PollDecision(
                job_id=core.job_id,
                done=False,
                state=core.last_state,
                record=record,
                source=core.due_source,
                resume_token="",
            )
        return attrs.evolve(decision, delay=left, resume_token=self.resume_token)

    @property
    def job_id(self) -> str:
        """The job this handle follows: its id, or its operation URL (query included;
        shown without it in reprs and messages), as every call taking a job id
        accepts it."""
        return self._core.job_id

    @property
    def resume_token(self) -> str:
        """Versioned JSON (job id, deadline, poll count, carried values) that
        `handle(resume=...)` and `wait_for_job(resume=...)` accept in another process.
        No credentials, but a job's carried values (such as a document key)."""
        return self._core.resume_token()

    def _time_left(self) -> float:
        if self._deadline_at is None:
            return math.inf
        return self._deadline_at - self._waiter.config.wall_clock()

    def _core_for(
        self, *, want_result: bool, deadline: float | None = None
    ) -> WaitCore:
        """A core for the next poll (the handle's deadline, each request capped) or,
        given `deadline`, for a blocking wait."""
        return self._waiter.new_core(
            self._begun,
            self._time_left() if deadline is None else deadline,
            on_poll=self._on_poll,
            want_result=want_result,
            stall_after=self._stall_after,
            deadline_at=self._deadline_at if deadline is None else None,
            request_cap=self._poll_timeout if deadline is None else None,
        )

    def _new_core(
        self, *, want_result: bool, deadline: float | None = None
    ) -> WaitCore:
        """`_core_for`, continuing the handle's last core (its schedule, its record)."""
        core = self._core_for(want_result=want_result, deadline=deadline)
        core.follow(self._core)
        return core

    def _fresh_core(self) -> WaitCore:
        """A core for the next poll: the schedule continues, the clock is re-read."""
        self._core = self._new_core(want_result=self._waiter.has_result)
        return self._core

    def _decide(self, core: WaitCore, polled: Polled[RecordT]) -> PollDecision[RecordT]:
        step = polled.step
        if isinstance(step, Finished):
            self._finished = step
            return PollDecision(
                job_id=core.job_id,
                done=True,
                state=step.state,
                record=polled.record,
                outcome=step.outcome,
                resume_token=self.resume_token,
            )
        return PollDecision(
            job_id=core.job_id,
            done=False,
            state=core.last_state,
            record=polled.record,
            delay=step.delay,
            source=step.source,
            resume_token=self.resume_token,
        )

    def _wait_core(self, deadline: float, *, want_result: bool) -> WaitCore:
        check_wait_args(deadline)
        return self._new_core(
            want_result=want_result, deadline=min(deadline, self._time_left())
        )

    def _after_wait(self, core: WaitCore, finished: Finished) -> None:
        self._core.follow(core)
        if core.want_result or not self._waiter.has_result:
            self._finished = finished

    def __repr__(self) -> str:
        name = type(self).__name__
        job_id = display_id(self.job_id)
        return f"{name}(job={self._waiter.spec.name!r}, job_id={job_id!r})"


class JobHandle(_BaseHandle[RecordT, ResultT]):
    """A job followed without blocking: `poll()` once, then decide when to poll again.

    `JobHandle(waiter, job_id)` follows a job; `resume=` (a handle's or a `JobTimeout`'s
    token) continues one. `deadline` (seconds from now) bounds every later `poll()`;
    without one, a resumed handle keeps its token's deadline and a fresh one has none.
    `stall_after` overrides the job's: a poll then raises `JobStalled` once state and
    progress have not changed for that long (within this process).
    """

    _waiter: SyncJobWaiter[RecordT, ResultT]

    @staticmethod
    def start(
        waiter: SyncJobWaiter[_StartedT, _StartedResultT],
        create: Create,
        *,
        deadline: float | None = None,
        on_poll: Callable[[PollEvent[_StartedT]], None] | None = None,
        stall_after: float | None = None,
    ) -> JobHandle[_StartedT, _StartedResultT]:
        """Create a job (with one idempotency key, where the API takes one) and follow
        it. `deadline` counts from before the create, which it bounds too; the create
        answer is the handle's first poll (W7): `poll()` returns its decision, without
        a request, until the next read is due (the answer's record, or for a bare 202
        with `Retry-After`, a record of unset fields and no state); `wait()`,
        `result()` and the resume token keep that due time too."""
        deadline_at, started = _deadline_at(waiter, deadline), waiter.config.clock()
        with waiter.creating(started, deadline):
            created = waiter.start_job(create, deadline)
        handle = JobHandle(
            waiter,
            created.job_id,
            on_poll=on_poll,
            stall_after=stall_after,
            carried=created.carried,
        )
        handle._open(created, deadline_at)
        return handle

    def poll(self) -> PollDecision[RecordT]:
        """Read the status once and return the decision (see `PollDecision`); after
        `start()`, until the first read is due, the create answer's decision, without
        a request (W7).

        Raises `JobTimeout` (with a resume token) when the handle's deadline has
        passed or the next poll would pass it, `UnknownJobState` for a state the API
        does not document, and `StatusUnavailable` when the status read keeps failing.
        """
        opened = self._opened()
        if opened is not None:
            return opened
        core = self._fresh_core()
        return self._decide(core, self._waiter.poll_core(core))

    def status(self) -> RecordT:
        """The job's typed record, read now (one `poll()`)."""
        return self.poll().record

    def cancel(self, timeout: float = 30.0) -> None:
        """Ask the server to cancel the job (once); later polls report the outcome.

        Raises `NoCancelOperation` when the job declares no cancel operation.
        """
        self._waiter.cancel(self.job_id, timeout=timeout, carried=self.carried)

    def done(self) -> bool:
        """Whether the job is finished: True without a request once a poll saw it end."""
        if self._finished is not None:
            return True
        return self.poll().done

    @_deadline_keyword
    def wait(
        self, deadline: float = 600.0, *, cancel_on_timeout: bool | None = None
    ) -> RecordT:
        """Block until the job is terminal (at most `deadline` seconds) and return its
        record, whatever the terminal state; `JobTimeout` carries a resume token.
        `cancel_on_timeout` (None: `WaitConfig.cancel_on_timeout`) says whether a
        wait that times out sends the job's cancel operation."""
        waiter = self._waiter.cancelling(cancel_on_timeout)
        core = self._wait_core(deadline, want_result=False)
        finished = self._finished or waiter.run_core(core)
        self._after_wait(core, finished)
        return self._waiter.terminal_record(core, finished)

    @_deadline_keyword
    def result(
        self,
        deadline: float = 600.0,
        *,
        to_file: PathLike | None = None,
        cancel_on_timeout: bool | None = None,
    ) -> ResultT:
        """Block until the job succeeds with its result ready (at most `deadline`
        seconds), fetch the result once and return it; later calls return it again.
        `to_file` also writes a bytes or text result to that file, streamed there
        (whole or not at all) within `deadline`; `cancel_on_timeout` as for `wait`.

        Raises `JobFailed` / `JobCanceled` for a job that ended otherwise.
        """
        if self._result is not None:
            return self._result[0]
        self._waiter.check_result()
        waiter = self._waiter.cancelling(cancel_on_timeout)
        core = self._wait_core(deadline, want_result=True)
        finished = self._finished or waiter.run_core(core)
        self._after_wait(core, finished)
        result = self._waiter.core_result(core, finished, to_file)
        self._result = (result,)
        return result


class AsyncJobHandle(_BaseHandle[RecordT, ResultT]):
    """The asyncio twin of `JobHandle`."""

    _waiter: AsyncJobWaiter[RecordT, ResultT]

    @staticmethod
    async def start(
        waiter: AsyncJobWaiter[_StartedT, _StartedResultT],
        create: AsyncCreate,
        *,
        deadline: float | None = None,
        on_poll: Callable[[PollEvent[_StartedT]], None] | None = None,
        stall_after: float | None = None,
    ) -> AsyncJobHandle[_StartedT, _StartedResultT]:
        """The async twin of `JobHandle.start`."""
        deadline_at, started = _deadline_at(waiter, deadline), waiter.config.clock()
        with waiter.creating(started, deadline):
            created = await waiter.start_job(create, deadline)
        handle = AsyncJobHandle(
            waiter,
            created.job_id,
            on_poll=on_poll,
            stall_after=stall_after,
            carried=created.carried,
        )
        handle._open(created, deadline_at)
        return handle

    async def poll(self) -> PollDecision[RecordT]:
        """Read the status once and return the decision (see `JobHandle.poll`)."""
        opened = self._opened()
        if opened is not None:
            return opened
        core = self._fresh_core()
        return self._decide(core, await self._waiter.poll_core(core))

    async def status(self) -> RecordT:
        """The job's typed record, read now (one `poll()`)."""
        return (await self.poll()).record

    async def cancel(self, timeout: float = 30.0) -> None:
        """Ask the server to cancel the job (see `JobHandle.cancel`)."""
        await self._waiter.cancel(self.job_id, timeout=timeout, carried=self.carried)

    async def done(self) -> bool:
        """Whether the job is finished: True without a request once a poll saw it end."""
        if self._finished is not None:
            return True
        return (await self.poll()).done

    @_deadline_keyword
    async def wait(
        self, deadline: float = 600.0, *, cancel_on_timeout: bool | None = None
    ) -> RecordT:
        """Wait until the job is terminal (see `JobHandle.wait`)."""
        waiter = self._waiter.cancelling(cancel_on_timeout)
        core = self._wait_core(deadline, want_result=False)
        finished = self._finished or await waiter.run_core(core)
        self._after_wait(core, finished)
        return self._waiter.terminal_record(core, finished)

    @_deadline_keyword
    async def result(
        self,
        deadline: float = 600.0,
        *,
        to_file: PathLike | None = None,
        cancel_on_timeout: bool | None = None,
    ) -> ResultT:
        """Wait for the result and fetch it once (see `JobHandle.result`)."""
        if self._result is not None:
            return self._result[0]
        self._waiter.check_result()
        waiter = self._waiter.cancelling(cancel_on_timeout)
        core = self._wait_core(deadline, want_result=True)
        finished = self._finished or await waiter.run_core(core)
        self._after_wait(core, finished)
        result = await self._waiter.core_result(core, finished, to_file)
        self._result = (result,)
        return result
