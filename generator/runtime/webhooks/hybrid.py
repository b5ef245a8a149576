"""Waits that end on a webhook delivery, with polling as the slow fallback.

`SyncEventWaits` and `AsyncEventWaits` wrap a job's waiter. Given `events=` (a
`WebhookReceiver`), a wait is the waiter's own (its core, errors, result fetch,
cancel on timeout), driven by a loop that listens (`BaseJobWaiter.driven_by`): it
takes the records delivered for its job before reading the status, listens first
(the fallback's first interval, at most half the time left) and between reads
sleeps until the next poll or until a delivery arrives, whichever comes first: a
job whose delivery arrives costs no status read. The create answer of
`create_and_wait` is the first status read (W7), on the fallback schedule. A delivered record goes through
the same decision core as a polled one (terminal states, undocumented states,
result readiness, stalls). The poll schedule becomes the receiver's slow
fallback: its floor (never below the job's own), first and cap, unless
`WaitConfig` sets them. The deadline is unchanged; when the next poll would not
fit before it, the wait listens for a delivery until the deadline, then raises
`JobTimeout`. Without `events`, every call is the waiter's own.

Sleeps go through `WaitConfig.sleep` / `async_sleep`. The sync wait cuts its sleep
short on a delivery only with the default `time.sleep`; an injected sleep runs in
full, and deliveries it makes (a test's) are taken right after it.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import httpx

from ..http.download import PathLike
from ..shared.errors import JobTimeout
from ..waiting.calls import AsyncCreate, Create
from ..waiting.core import Finished, Sleep, WaitCore
from ..waiting.records import Poll
from ..waiting.spec import Carried, PollEvent
from ..waiting.waiter import AsyncJobWaiter, SyncJobWaiter

if TYPE_CHECKING:  # asyncio loads with the first async wait, not on import
    import asyncio

    from .deliveries import WebhookReceiver  # loads with the first receiver

__all__ = ["AsyncEventWaits", "SyncEventWaits"]

RecordT = TypeVar("RecordT")
ResultT = TypeVar("ResultT")

_NO_HEADERS = httpx.Headers()


def _slow(core: WaitCore, events: WebhookReceiver[Any]) -> None:
    """Turn the core's schedule into the receiver's fallback; `WaitConfig`'s first,
    floor and cap win when set, as they do over the job's own schedule."""
    spec, config = events.spec, core.config
    if config.floor is None:
        core.floor = max(core.floor, spec.fallback_floor)
    if config.first is None:
        core.first = spec.fallback_first
    if config.cap is None:
        core.cap = max(spec.fallback_cap, core.floor)


def _first_listen(core: WaitCore) -> float:
    """How long a wait listens before its first status read: the fallback's first
    interval, but at most half the time left, so that one read still fits."""
    return max(0.0, min(max(core.floor, core.first), core.time_left() / 2))


def _delivered(core: WaitCore, records: list[object]) -> Sleep | Finished | None:
    """Decide on the delivered records, oldest first; None when there were none."""
    step: Sleep | Finished | None = None
    for record in records:
        step = core.step(Poll(record, _NO_HEADERS))
        if isinstance(step, Finished):
            return step
    return step


def _opening(
    core: WaitCore, delivered: Sleep | Finished | None
) -> Sleep | Finished | None:
    """How a listening wait opens: on the deliveries made before it began, which are
    newer than the create answer; else on the create answer (`WaitCore.open`)."""
    if delivered is None:
        return core.open()
    core.opening = None
    return delivered


class SyncEventWaits(Generic[RecordT, ResultT]):
    """The waits of one job type that also listen for webhook deliveries."""

    def __init__(self, waiter: SyncJobWaiter[RecordT, ResultT]) -> None:
        self.waiter = waiter

    def cancelling(self, on_timeout: bool | None) -> SyncEventWaits[RecordT, ResultT]:
        """These waits, cancelling the job on timeout or not (`SyncJobWaiter.cancelling`)."""
        return SyncEventWaits(self.waiter.cancelling(on_timeout))

    def _with(
        self, events: WebhookReceiver[Any] | None
    ) -> SyncJobWaiter[RecordT, ResultT]:
        """The waiter, its waits listening to `events` when given."""
        if events is None:
            return self.waiter
        return self.waiter.driven_by(functools.partial(_listen, events))

    def wait_for_job(
        self,
        job_id: str | None = None,
        *,
        events: WebhookReceiver[Any] | None = None,
        deadline: float = 600.0,
        on_poll: Callable[[PollEvent[RecordT]], None] | None = None,
        resume: str | None = None,
        stall_after: float | None = None,
        carried: Carried = None,
    ) -> RecordT:
        """`SyncJobWaiter.wait_for_job`, ended at once by a delivery for the job."""
        return self._with(events).wait_for_job(
            job_id,
            deadline=deadline,
            on_poll=on_poll,
            resume=resume,
            stall_after=stall_after,
            carried=carried,
        )

    def wait_for_result(
        self,
        job_id: str,
        *,
        events: WebhookReceiver[Any] | None = None,
        deadline: float = 600.0,
        on_poll: Callable[[PollEvent[RecordT]], None] | None = None,
        stall_after: float | None = None,
        carried: Carried = None,
        to_file: PathLike | None = None,
    ) -> ResultT:
        """`SyncJobWaiter.wait_for_result`, ended at once by a delivery for the job."""
        return self._with(events).wait_for_result(
            job_id,
            deadline=deadline,
            on_poll=on_poll,
            stall_after=stall_after,
            carried=carried,
            to_file=to_file,
        )

    def create_and_wait(
        self,
        create: Create,
        *,
        events: WebhookReceiver[Any] | None = None,
        deadline: float = 600.0,
        on_poll: Callable[[PollEvent[RecordT]], None] | None = None,
        stall_after: float | None = None,
        to_file: PathLike | None = None,
    ) -> ResultT | RecordT:
        """Create a job with one idempotency key, then wait as above."""
        return self._with(events).create_and_wait(
            create,
            deadline=deadline,
            on_poll=on_poll,
            stall_after=stall_after,
            to_file=to_file,
        )


def _listen(
    events: WebhookReceiver[Any], core: WaitCore, read: Callable[[], Poll]
) -> Finished:
    """Drive one wait (`SyncJobWaiter.driven_by`): deliveries first, status reads
    (`read`) on the fallback schedule, sleeps cut short by a delivery."""
    _slow(core, events)
    wake = threading.Event()
    stop = events.watch(core.job_id, wake.set)
    try:
        listened = False
        while True:
            wake.clear()
            try:
                step = _delivered(core, events.take(core.job_id))
                if not listened:
                    listened = True
                    step = _opening(core, step)
                    if step is None:
                        _pause(core, wake, _first_listen(core))
                        continue
                if step is None:
                    if core.time_left() <= 0:
                        raise core.timeout_error()
                    step = core.step(read())
            except JobTimeout:
                # The next poll does not fit before the deadline: listen until then.
                if core.time_left() <= 0:
                    raise
                _pause(core, wake, core.time_left())
                continue
            if isinstance(step, Finished):
                return step
            _pause(core, wake, step.delay)
    finally:
        stop()


def _pause(core: WaitCore, wake: threading.Event, delay: float) -> None:
    sleep = core.config.sleep
    if sleep is time.sleep:
        wake.wait(delay)
    else:
        sleep(delay)


class AsyncEventWaits(Generic[RecordT, ResultT]):
    """The async twin of `SyncEventWaits`; cancelling a wait leaves nothing running."""

    def __init__(self, waiter: AsyncJobWaiter[RecordT, ResultT]) -> None:
        self.waiter = waiter

    def cancelling(self, on_timeout: bool | None) -> AsyncEventWaits[RecordT, ResultT]:
        """These waits, cancelling the job on timeout or not (`AsyncJobWaiter.cancelling`)."""
        return AsyncEventWaits(self.waiter.cancelling(on_timeout))

    def _with(
        self, events: WebhookReceiver[Any] | None
    ) -> AsyncJobWaiter[RecordT, ResultT]:
        """The waiter, its waits listening to `events` when given."""
        if events is None:
            return self.waiter
        return self.waiter.driven_by(functools.partial(_listen_async, events))

    async def wait_for_job(
        self,
        job_id: str | None = None,
        *,
        events: WebhookReceiver[Any] | None = None,
        deadline: float = 600.0,
        on_poll: Callable[[PollEvent[RecordT]], None] | None = None,
        resume: str | None = None,
        stall_after: float | None = None,
        carried: Carried = None,
    ) -> RecordT:
        """`AsyncJobWaiter.wait_for_job`, ended at once by a delivery for the job."""
        return await self._with(events).wait_for_job(
            job_id,
            deadline=deadline,
            on_poll=on_poll,
            resume=resume,
            stall_after=stall_after,
            carried=carried,
        )

    async def wait_for_result(
        self,
        job_id: str,
        *,
        events: WebhookReceiver[Any] | None = None,
        deadline: float = 600.0,
        on_poll: Callable[[PollEvent[RecordT]], None] | None = None,
        stall_after: float | None = None,
        carried: Carried = None,
        to_file: PathLike | None = None,
    ) -> ResultT:
        """`AsyncJobWaiter.wait_for_result`, ended at once by a delivery for the job."""
        return await self._with(events).wait_for_result(
            job_id,
            deadline=deadline,
            on_poll=on_poll,
            stall_after=stall_after,
            carried=carried,
            to_file=to_file,
        )

    async def create_and_wait(
        self,
        create: AsyncCreate,
        *,
        events: WebhookReceiver[Any] | None = None,
        deadline: float = 600.0,
        on_poll: Callable[[PollEvent[RecordT]], None] | None = None,
        stall_after: float | None = None,
        to_file: PathLike | None = None,
    ) -> ResultT | RecordT:
        """Create a job with one idempotency key, then wait as above."""
        return await self._with(events).create_and_wait(
            create,
            deadline=deadline,
            on_poll=on_poll,
            stall_after=stall_after,
            to_file=to_file,
        )


async def _listen_async(
    events: WebhookReceiver[Any],
    core: WaitCore,
    read: Callable[[], Awaitable[Poll]],
) -> Finished:
    """The async twin of `_listen`."""
    import asyncio

    _slow(core, events)
    loop = asyncio.get_running_loop()
    wake = asyncio.Event()

    def from_any_thread() -> None:
        try:
            loop.call_soon_threadsafe(wake.set)
        except RuntimeError:  # the loop has closed: nobody is waiting any more
            pass

    stop = events.watch(core.job_id, from_any_thread)
    try:
        listened = False
        while True:
            wake.clear()
            try:
                step = _delivered(core, events.take(core.job_id))
                if not listened:
                    listened = True
                    step = _opening(core, step)
                    if step is None:
                        await _pause_async(core, wake, _first_listen(core))
                        continue
                if step is None:
                    if core.time_left() <= 0:
                        raise core.timeout_error()
                    step = core.step(await read())
            except JobTimeout:
                # The next poll does not fit before the deadline: listen until then.
                if core.time_left() <= 0:
                    raise
                await _pause_async(core, wake, core.time_left())
                continue
            if isinstance(step, Finished):
                return step
            await _pause_async(core, wake, step.delay)
    finally:
        stop()


async def _pause_async(core: WaitCore, wake: asyncio.Event, delay: float) -> None:
    import asyncio

    sleeper = asyncio.ensure_future(core.config.async_sleep(delay))
    woken = asyncio.ensure_future(wake.wait())
    try:
        await asyncio.wait({sleeper, woken}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (sleeper, woken):
            task.cancel()
        await asyncio.gather(sleeper, woken, return_exceptions=True)
