"""Waiting for many jobs at once: the drivers behind `wait_for_jobs`.

Each job's wait is the waiter's own (`one`); these run at most `concurrency` of them
at a time and yield each outcome as it ends. The sync driver uses a thread pool and
tells the waits still running to stop (`abandon`) when the caller stops iterating;
the async one cancels and awaits its tasks.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import threading
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Generic, TypeVar, Union

from .spec import JobOutcome

if TYPE_CHECKING:  # asyncio loads with the first async wait, not on import
    import asyncio

__all__ = ["AsyncJobOutcomes", "JobRef", "async_outcomes", "sync_outcomes"]

RecordT = TypeVar("RecordT")

#: A job to wait for: its id, or its id and carried values.
JobRef = Union[str, tuple[str, Mapping[str, object]]]


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


def sync_outcomes(
    one: Callable[[JobRef, threading.Event], JobOutcome[RecordT]],
    jobs: Iterator[JobRef],
    concurrency: int,
) -> Iterator[JobOutcome[RecordT]]:
    """Run `one` for each job on a pool of `concurrency` threads, yielding outcomes
    as they end; stopping early sets the event every running wait was given."""
    abandon = threading.Event()
    pool = concurrent.futures.ThreadPoolExecutor(concurrency, "job-waiter")
    running: set[concurrent.futures.Future[JobOutcome[RecordT]]] = set()
    try:
        while True:
            for job in itertools.islice(jobs, concurrency - len(running)):
                running.add(pool.submit(one, job, abandon))
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


async def async_outcomes(
    one: Callable[[JobRef], Awaitable[JobOutcome[RecordT]]],
    jobs: Iterator[JobRef],
    concurrency: int,
) -> AsyncGenerator[JobOutcome[RecordT], None]:
    """The async twin of `sync_outcomes`: on exit, running waits are cancelled and
    awaited. Each wait reports its end to a queue, so taking the next outcome costs
    the same with ten or ten thousand waits running (`asyncio.wait` would visit
    every one of them each time)."""
    import asyncio

    running: set[asyncio.Future[JobOutcome[RecordT]]] = set()
    ended: asyncio.Queue[asyncio.Future[JobOutcome[RecordT]]] = asyncio.Queue()
    try:
        while True:
            for job in itertools.islice(jobs, concurrency - len(running)):
                wait = asyncio.ensure_future(one(job))
                wait.add_done_callback(ended.put_nowait)
                running.add(wait)
            if not running:
                return
            finished = await ended.get()
            running.discard(finished)
            yield finished.result()
    finally:
        for task in running:
            task.cancel()
        if running:
            await asyncio.gather(*running, return_exceptions=True)
