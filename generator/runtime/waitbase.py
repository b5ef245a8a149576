"""What the sync and async waiters share besides the decision core: no I/O here.

Argument checks, resume handling, record decoding, terminal outcomes turned into
errors, and reading the new job's id from a create response.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import math
import threading
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Generic, Protocol, TypeVar

import httpx

from .download import PathLike
from .errors import (
    DecodeError,
    InvalidResumeToken,
    JobTimeout,
    MissingJobId,
    NoCancelOperation,
    NoResultOperation,
    OperationUrlRefused,
    RecordDecodeError,
    SDKError,
    attach_job_id,
)
from .opurl import display_url, is_url
from .ratelimit import RateLimiter, StatusLimiter
from .records import Poll, dig, ensure_success, pointer
from .resume import decode_resume_token
from .serde import lenient
from .waitcore import Finished, WaitCore
from .waitspec import Carried, JobSpec, PollEvent, WaitConfig

__all__ = [
    "CANCEL_ON_TIMEOUT_SECONDS",
    "AsyncDrive",
    "AsyncReadOnce",
    "AsyncReadStatus",
    "BaseJobWaiter",
    "Drive",
    "FetchResult",
    "JobCall",
    "PrepareStatus",
    "ReadOnce",
    "ReadStatus",
    "check_wait_args",
    "job_ref",
]

#: The longest a timed-out wait's cancel may take (`WaitConfig.cancel_on_timeout`): less
#: when the wait is already past its deadline, so it still ends within it and a second.
CANCEL_ON_TIMEOUT_SECONDS = 1.0

RecordT = TypeVar("RecordT")
ResultT = TypeVar("ResultT")
T_co = TypeVar("T_co", covariant=True)
_W = TypeVar("_W", bound="BaseJobWaiter[Any, Any]")


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


#: What drives a wait instead of the polling loop (`BaseJobWaiter.driven_by`; `hybrid`
#: also listens for webhook deliveries): given the wait's core and its status read
#: (retried, rate-limited), it returns the terminal step.
Drive = Callable[[WaitCore, Callable[[], Poll]], Finished]
AsyncDrive = Callable[[WaitCore, Callable[[], Awaitable[Poll]]], Awaitable[Finished]]


class PrepareStatus(Protocol[T_co]):
    """Prepares a wait's status read once (job id or URL, carried values): what
    does not change between its polls is built here, not on every read."""

    def __call__(self, job_id: str, **carried: object) -> T_co: ...


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


class BaseJobWaiter(Generic[RecordT, ResultT]):
    """What both twins share: everything but the I/O."""

    def __init__(
        self,
        spec: JobSpec,
        decode_record: Callable[[Any], RecordT],
        config: WaitConfig | None,
        limiter: StatusLimiter | None,
        has_result: bool,
        has_cancel: bool = False,
    ) -> None:
        self.spec = spec
        self.config = config = WaitConfig() if config is None else config
        if limiter is None:
            limiter = config.status_limiter
        if limiter is None and config.max_status_reads_per_second:
            limiter = RateLimiter(
                config.max_status_reads_per_second, clock=config.clock
            )
        self.limiter = limiter
        self._decode_record = decode_record
        self._has_result = has_result or spec.final_from == "operation-url"
        self._has_cancel = has_cancel
        self._read_status: Any = None
        self._prepare_status: Any = None
        self._drive: Drive | AsyncDrive | None = None

    def driven_by(self: _W, drive: Drive | AsyncDrive) -> _W:  # noqa: PYI019 (3.9)
        """This waiter, its waits driven by ``drive`` (see `Drive`; an async waiter's
        by an `AsyncDrive`) instead of the polling loop; all else (cores, errors,
        results) stays the waiter's own."""
        driven = copy.copy(self)
        driven._drive = drive
        return driven

    def _status_reads(self, read_status: object, prepare_status: object) -> None:
        """Keep how the status is read: `read_status` called on every poll, or
        `prepare_status` asked once per wait for its read (exactly one of them)."""
        if (read_status is None) == (prepare_status is None):
            raise TypeError("give exactly one of read_status and prepare_status")
        self._read_status = read_status
        self._prepare_status = prepare_status

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

    def _core(
        self,
        job_id: str | None,
        deadline: float,
        on_poll: Callable[[PollEvent[RecordT]], None] | None,
        resume: str | None = None,
        stall_after: float | None = None,
        carried: Carried = None,
        *,
        want_result: bool = False,
        abandon: threading.Event | None = None,
    ) -> WaitCore:
        if resume is not None:
            token = decode_resume_token(resume, self.spec.name)
            if job_id is not None and job_ref(self.spec, job_id)[0] != token.job_id:
                raise InvalidResumeToken(
                    f"resume token is for job {token.job_id}, not job {job_id}"
                )
            carried = {
                **token.carried,
                **{k: v for k, v in (carried or {}).items() if v is not None},
            }
            # The schedule continues where the timed-out wait left off; the resumed
            # wait gets its own deadline (the old one is usually what ran out).
            return WaitCore(
                self.spec,
                self.config,
                token.job_id,
                deadline=deadline,
                attempt=token.attempt,
                on_poll=on_poll,
                event_record=self._lenient_record,
                want_result=want_result,
                abandon=abandon,
                stall_after=stall_after,
                carried=self.spec.carried(carried),
                target=token.url,
            )
        if not isinstance(job_id, str) or not job_id:
            raise ValueError(f"job_id must be a non-empty string, got {job_id!r}")
        shown, target = job_ref(self.spec, job_id)
        return WaitCore(
            self.spec,
            self.config,
            shown,
            target=target,
            deadline=deadline,
            on_poll=on_poll,
            event_record=self._lenient_record,
            want_result=want_result,
            abandon=abandon,
            stall_after=stall_after,
            carried=self.spec.carried(carried),
        )

    def _decoding(self) -> contextlib.AbstractContextManager[None]:
        """Where the records and results a wait returns are decoded."""
        if self.config.decoding == "lenient":
            return lenient()
        return contextlib.nullcontext()

    def _lenient_record(self, raw: object) -> RecordT:
        """A record for a poll event or a failed job: decoded, values off the spec kept."""
        with lenient():
            return self._decode_record(raw)

    def _decode(self, core: WaitCore, finished: Finished) -> RecordT:
        """The terminal record, typed; off the spec, an error that keeps it."""
        return self._decode_raw(
            core, finished.record, finished.state, finished.outcome, finished.ruled
        )

    def _decode_raw(
        self,
        core: WaitCore,
        raw: object,
        state: str | None,
        outcome: str | None,
        ruled: bool = False,
    ) -> RecordT:
        """A record, typed; off the spec, a `RecordDecodeError` that keeps it. The
        body of an answer a status rule classified is decoded leniently."""
        try:
            with lenient() if ruled else self._decoding():
                return self._decode_record(raw)
        except DecodeError as error:
            raise RecordDecodeError(
                error,
                job_id=core.job_id,
                state=state,
                outcome=outcome,
                record=raw,
            ) from None
        except SDKError as error:
            raise attach_job_id(error, core.job_id) from None

    def _require_success(self, core: WaitCore, finished: Finished) -> None:
        """Raise JobFailed / JobCanceled unless the job succeeded (W3)."""
        if finished.outcome == "success":
            return
        spec = self.spec
        canceled = finished.outcome == "canceled"
        cls = spec.canceled_error if canceled else spec.failed_error
        try:
            with self._decoding():
                record = self._decode_record(finished.record)
        except SDKError:
            try:
                record = self._lenient_record(finished.record)
            except SDKError as error:
                raise attach_job_id(error, core.job_id) from None
        raise cls(
            core.job_id,
            state=finished.state,
            error=self._decode_error(finished.error),
            last_record=finished.record,
            record=record,
            error_json=finished.error,
        )

    def _result_core(
        self,
        job_id: str,
        deadline: float,
        on_poll: Callable[[PollEvent[RecordT]], None] | None,
        stall_after: float | None,
        carried: Carried,
    ) -> WaitCore:
        """The core of a wait for the result; NoResultOperation when there is none."""
        if not self._has_result:
            raise self._no_result_operation()
        check_wait_args(deadline)
        return self._core(
            job_id,
            deadline,
            on_poll,
            want_result=True,
            stall_after=stall_after,
            carried=carried,
        )

    def _decode_error(self, raw: object) -> object:
        """A failed job's error payload, as the job's error model where it fits
        (values off the spec kept); None when absent or beyond decoding."""
        spec = self.spec
        if spec.decode_error is None or raw is None:
            return raw
        path = (*spec.record_path, *(spec.error_path or ()))
        try:
            with lenient():
                return spec.decode_error(raw, "$" + "".join(f".{key}" for key in path))
        except SDKError:
            return None

    def _no_cancel_operation(self) -> NoCancelOperation:
        return NoCancelOperation(
            f"{self.spec.name} jobs declare no cancel operation in the job extension"
        )

    def _cancels_on(self, error: JobTimeout[Any]) -> bool:
        """Whether a wait that timed out with `error` sends the cancel operation."""
        return self.config.cancel_on_timeout and self._has_cancel and not error.canceled

    def _cancel_budget(self, core: WaitCore) -> float | None:
        """How long the cancel of a timed-out wait may take, so that the wait still ends
        within its deadline and a second (W5); None when no time is left for it."""
        left = core.time_left() + CANCEL_ON_TIMEOUT_SECONDS - 0.1
        budget = min(CANCEL_ON_TIMEOUT_SECONDS, left)
        return budget if budget >= 0.05 else None

    def _canceled(self, core: WaitCore, error: JobTimeout[Any]) -> JobTimeout[Any]:
        """`error`, saying the job's cancel was sent and accepted."""
        return JobTimeout(
            core.job_id,
            elapsed=error.elapsed,
            deadline=error.deadline,
            resume_token=error.resume_token,
            last_state=error.last_state,
            last_record=error.last_record,
            record=error.record,
            canceled=True,
        )

    def _no_result_operation(self) -> NoResultOperation:
        return NoResultOperation(
            f"{self.spec.name} jobs have no result operation: "
            "use wait_for_job(), which returns the terminal record"
        )

    def _success_target(self, core: WaitCore, finished: Finished) -> str | None:
        """Raise JobFailed / JobCanceled unless the job succeeded; then where its
        result is fetched from (`_result_target`)."""
        self._require_success(core, finished)
        try:
            return self._result_target(core, finished)
        except SDKError as error:
            raise attach_job_id(error, core.job_id) from None

    def _result_target(self, core: WaitCore, finished: Finished) -> str | None:
        """What the result fetch is given (the job id, or the terminal answer's
        Location); None when the terminal record is the result."""
        final = self.spec.final_from
        if final == "operation-url":
            return None
        if final == "location":
            if not finished.location:
                raise OperationUrlRefused(
                    f"the terminal status answer of job {core.job_id} has no"
                    " Location header to fetch the result at"
                )
            return finished.location
        return core.target

    def _idempotency_key(self) -> str | None:
        return str(uuid.uuid4()) if self.spec.idempotency_header else None

    def _started(self, response: httpx.Response) -> tuple[str, dict[str, object]]:
        """The new job's id and carried values, from its create response."""
        job_id = self._job_id_from(response)
        return job_id, self.spec.carried_from(response)

    def _job_id_from(self, response: httpx.Response) -> str:
        """The new job's id from a create response (`id_path` or `id_header`)."""
        ensure_success(response)
        spec = self.spec
        found: object = None
        where = "the spec declares neither id_path nor id_header"
        for header in spec.operation_url:
            url = response.headers.get(header, "").strip()
            if url:
                return str(response.request.url.join(url))
        if spec.operation_url:
            names = " or ".join(spec.operation_url)
            raise MissingJobId(f"the create response has no {names} header")
        if spec.id_path is not None:
            where = f"nothing at {pointer(spec.id_path)} of the create response"
            try:
                found = dig(response.json(), spec.id_path)
            except ValueError:
                where = "the create response body is not JSON"
        if not _usable_id(found) and spec.id_header is not None:
            where = f"no usable {spec.id_header} header in the create response"
            url = response.headers.get(spec.id_header)
            if url:
                found = httpx.URL(url.strip()).path.rstrip("/").rsplit("/", 1)[-1]
        if isinstance(found, int) and not isinstance(found, bool):
            found = str(found)
        if not _usable_id(found):
            raise MissingJobId(f"cannot find the new {spec.name} job's id: {where}")
        return str(found)


def _usable_id(value: object) -> bool:
    return (isinstance(value, str) and bool(value.strip())) or (
        isinstance(value, int) and not isinstance(value, bool)
    )


def job_ref(spec: JobSpec, job_id: str) -> tuple[str, str]:
    """`(id as shown, what the status read is given)`: for a job polled at its
    operation URL, `job_id` is that URL (or, where the status operation takes the
    id alone, the id) and a URL is shown without its query."""
    if not spec.operation_url or not is_url(job_id):
        return job_id, job_id
    return display_url(job_id), job_id


def check_wait_args(deadline: float, concurrency: int = 1) -> None:
    if not (deadline > 0 and math.isfinite(deadline)):
        raise ValueError(
            f"deadline must be a positive number of seconds, got {deadline!r}"
        )
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1, got {concurrency!r}")
