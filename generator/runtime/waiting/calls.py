"""The calls a waiter is given (a job's create, cancel and result fetch, or a drive
that replaces its polling loop) and the steps it hands back (`Begun`, `Polled`)."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import Generic, Optional, Protocol, TypeVar

import attrs
import httpx

from ..http.download import PathLike
from .core import Finished, Sleep, WaitCore
from .records import Poll

__all__ = [
    "AsyncCreate",
    "AsyncDrive",
    "Begun",
    "Create",
    "Drive",
    "FetchResult",
    "JobCall",
    "Polled",
    "check_wait_args",
]

RecordT = TypeVar("RecordT")
T_co = TypeVar("T_co", covariant=True)


#: What drives a wait instead of the polling loop (`BaseJobWaiter.driven_by`; `hybrid`
#: also listens for webhook deliveries): given the wait's core and its status read
#: (retried, rate-limited), it returns the terminal step.
Drive = Callable[[WaitCore, Callable[[], Poll]], Finished]
AsyncDrive = Callable[[WaitCore, Callable[[], Awaitable[Poll]]], Awaitable[Finished]]

#: Sends a job's create request (its idempotency key, or None; the seconds it may
#: take, or None for no bound) and returns the answer; the SDK's resources give one.
Create = Callable[[Optional[str], Optional[float]], httpx.Response]
AsyncCreate = Callable[[Optional[str], Optional[float]], Awaitable[httpx.Response]]


class JobCall(Protocol[T_co]):
    """Cancels a job (`job_id`, seconds left, carried values)."""

    def __call__(self, job_id: str, time_left: float, **carried: object) -> T_co: ...


class FetchResult(Protocol[T_co]):
    """Fetches a job's result (`job_id`, seconds left, carried values); given
    `to_file`, streams a bytes or text result there (whole or not at all) and
    refuses any other result with TypeError."""

    def __call__(
        self,
        job_id: str,
        time_left: float,
        to_file: PathLike | None = None,
        **carried: object,
    ) -> T_co: ...


@attrs.frozen
class Begun:
    """Where a wait or a handle begins: the job's id and what its status read is given
    (the same: the id, or the job's operation URL, query included), the poll count and deadline of a resume token, and the carried values, checked."""

    job_id: str
    target: str
    attempt: int = 0
    deadline_at: float | None = None
    carried: dict[str, object] = attrs.field(factory=dict[str, object])
    due_at: float | None = None
    final_url: str | None = None
    #: The job's monitor is read by HTTP status (a `Location` alone, `created`).
    by_status: bool = False


@attrs.frozen
class Polled(Generic[RecordT]):
    """One poll decided: the core's step and the record read, typed."""

    step: Finished | Sleep
    record: RecordT


def check_wait_args(deadline: float, concurrency: int = 1) -> None:
    if not (deadline > 0 and math.isfinite(deadline)):
        raise ValueError(
            f"deadline must be a positive number of seconds, got {deadline!r}"
        )
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1, got {concurrency!r}")
