"""What the sync and async waiters share besides the decision core: no I/O here.

Argument checks, resume handling, record decoding, terminal outcomes turned into
errors, and reading the new job's id from a create response.
"""

from __future__ import annotations

import contextlib
import math
import threading
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Generic, Protocol, TypeVar

import httpx

from .errors import (
    DecodeError,
    InvalidResumeToken,
    JobCanceled,
    JobFailed,
    JobTimeout,
    MissingJobId,
    NoCancelOperation,
    NoResultOperation,
    RecordDecodeError,
    SDKError,
    attach_job_id,
)
from .ratelimit import RateLimiter, StatusLimiter
from .resume import decode_resume_token
from .serde import lenient
from .waitcore import Finished, WaitCore, dig, ensure_success, pointer
from .waitspec import JobSpec, PollEvent, WaitConfig

__all__ = [
    "CANCEL_ON_TIMEOUT_SECONDS",
    "AsyncReadStatus",
    "BaseJobWaiter",
    "ReadStatus",
    "check_wait_args",
]

#: The longest a timed-out wait's cancel may take (`WaitConfig.cancel_on_timeout`): less
#: when the wait is already past its deadline, so it still ends within it and a second.
CANCEL_ON_TIMEOUT_SECONDS = 1.0

RecordT = TypeVar("RecordT")
ResultT = TypeVar("ResultT")


class ReadStatus(Protocol):
    """Reads the job's status once; raises `errors` exceptions for failures."""

    def __call__(self, job_id: str, timeout: float) -> httpx.Response: ...


class AsyncReadStatus(Protocol):
    """The async twin of `ReadStatus`."""

    def __call__(self, job_id: str, timeout: float) -> Awaitable[httpx.Response]: ...


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
        self._has_result = has_result
        self._has_cancel = has_cancel

    def _core(
        self,
        job_id: str | None,
        deadline: float,
        on_poll: Callable[[PollEvent[RecordT]], None] | None,
        resume: str | None = None,
        *,
        want_result: bool = False,
        abandon: threading.Event | None = None,
        stall_after: float | None = None,
    ) -> WaitCore:
        if resume is not None:
            token = decode_resume_token(resume, self.spec.name)
            if job_id is not None and job_id != token.job_id:
                raise InvalidResumeToken(
                    f"resume token is for job {token.job_id}, not job {job_id}"
                )
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
            )
        if not isinstance(job_id, str) or not job_id:
            raise ValueError(f"job_id must be a non-empty string, got {job_id!r}")
        return WaitCore(
            self.spec,
            self.config,
            job_id,
            deadline=deadline,
            on_poll=on_poll,
            event_record=self._lenient_record,
            want_result=want_result,
            abandon=abandon,
            stall_after=stall_after,
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
        return self._decode_raw(core, finished.record, finished.state, finished.outcome)

    def _decode_raw(
        self, core: WaitCore, raw: object, state: str | None, outcome: str | None
    ) -> RecordT:
        """A record, typed; off the spec, a `RecordDecodeError` that keeps it."""
        try:
            with self._decoding():
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
        cls = JobCanceled if finished.outcome == "canceled" else JobFailed
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
            error=finished.error,
            last_record=finished.record,
            record=record,
        )

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

    def _idempotency_key(self) -> str | None:
        return str(uuid.uuid4()) if self.spec.idempotency_header else None

    def _job_id_from(self, response: httpx.Response) -> str:
        """The new job's id from a create response (`id_path` or `id_header`)."""
        ensure_success(response)
        spec = self.spec
        found: object = None
        where = "the spec declares neither id_path nor id_header"
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


def check_wait_args(deadline: float, concurrency: int = 1) -> None:
    if not (deadline > 0 and math.isfinite(deadline)):
        raise ValueError(
            f"deadline must be a positive number of seconds, got {deadline!r}"
        )
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1, got {concurrency!r}")
