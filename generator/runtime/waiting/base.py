"""What the sync and async waiters share besides the decision core: no I/O here.

Argument checks, resume handling, record decoding, terminal outcomes turned into
errors, and reading the new job's id from a create response.
"""

from __future__ import annotations

import contextlib
import copy
import threading
import uuid
from collections.abc import Callable
from typing import Any, Generic, TypeVar, cast

import attrs
import httpx

from ..shared.errors import (
    DecodeError,
    InvalidResumeToken,
    JobFailed,
    JobTimeout,
    NoCancelOperation,
    NoResultOperation,
    OperationUrlRefused,
    RecordDecodeError,
    SDKError,
    attach_job_id,
)
from ..shared.shown import display_id
from ..wire.serde import collect_drift, decoding, lenient
from .calls import AsyncDrive, Begun, Drive, Polled, check_wait_args
from .core import Finished, WaitCore
from .created import Created, by_status_rules, creating, read_created
from .ratelimit import RateLimiter, StatusLimiter
from .records import MISSING, Poll, decode_error, dig
from .resume import decode_resume_token
from .spec import Carried, JobSpec, PollEvent, WaitConfig

__all__ = ["CANCEL_ON_TIMEOUT_SECONDS", "BaseJobWaiter", "check_wait_args"]

#: The longest a timed-out wait's cancel may take (`WaitConfig.cancel_on_timeout`): less
#: when the wait is already past its deadline, so it still ends within it and a second.
CANCEL_ON_TIMEOUT_SECONDS = 1.0

RecordT = TypeVar("RecordT")
ResultT = TypeVar("ResultT")
_W = TypeVar("_W", bound="BaseJobWaiter[Any, Any]")


class BaseJobWaiter(Generic[RecordT, ResultT]):
    """What both twins share: everything but the I/O.

    Handles (`handle`) follow a job through this interface, the waits' own:
    `has_result`, `begin`, `new_core`, `terminal_record` and `check_result` here,
    `poll_core`, `run_core`, `core_result` and `start_job` in each twin.
    """

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
        #: Whether the job has a result to wait for (`wait_for_result`).
        self.has_result = has_result or spec.final_from == "record"
        self._has_cancel = has_cancel
        self._drive: Drive | AsyncDrive | None = None
        #: Whether a wait that times out cancels the job (None: the config says).
        self._cancel_on_timeout: bool | None = None

    def driven_by(self: _W, drive: Drive | AsyncDrive) -> _W:  # noqa: PYI019 (3.9)
        """This waiter, its waits driven by ``drive`` (`Drive` / `AsyncDrive`), not polling."""
        driven = copy.copy(self)
        driven._drive = drive
        return driven

    def cancelling(self: _W, on_timeout: bool | None) -> _W:  # noqa: PYI019 (3.9)
        """This waiter, cancelling timed-out jobs (True) or not (False) over the config's
        `cancel_on_timeout` (None keeps it); True without a cancel raises NoCancelOperation."""
        if on_timeout is None:
            return self
        if on_timeout and not self._has_cancel:
            raise self._no_cancel_operation()
        chosen = copy.copy(self)
        chosen._cancel_on_timeout = on_timeout
        return chosen

    def begin(
        self,
        job_id: str | None,
        resume: str | None = None,
        carried: Carried = None,
        final_url: str | None = None,
    ) -> Begun:
        """Where a wait or a handle of `job_id` (or of a resume token) begins; a
        resumed one keeps the token's carried values unless `carried` gives others."""
        spec = self.spec
        if resume is None:
            if job_id is None:
                raise TypeError(
                    "give the job_id to wait for, or resume=<a resume token>"
                )
            if not isinstance(cast(object, job_id), str) or not job_id:
                raise ValueError(f"job_id must be a non-empty string, got {job_id!r}")
            return Begun(
                job_id, job_id, carried=spec.carried(carried), final_url=final_url
            )
        token = decode_resume_token(resume, spec.name)
        if job_id is not None and display_id(job_id) != display_id(token.job_id):
            raise InvalidResumeToken(
                f"resume token is for job {display_id(token.job_id)}, not job"
                f" {display_id(job_id)}"
            )
        given = {k: v for k, v in (carried or {}).items() if v is not None}
        target = token.job_id if token.url is None else token.url
        return Begun(
            target,
            target,
            token.attempt,
            token.deadline_at,
            spec.carried({**token.carried, **given}),
            token.due_at,
            token.final_url,
            token.by_status,
        )

    def new_core(
        self,
        begun: Begun,
        deadline: float,
        *,
        on_poll: Callable[[PollEvent[RecordT]], None] | None = None,
        want_result: bool = False,
        stall_after: float | None = None,
        abandon: threading.Event | None = None,
        deadline_at: float | None = None,
        request_cap: float | None = None,
        started: float | None = None,
        opening: Poll | None = None,
    ) -> WaitCore:
        """The core of a wait (or of a handle's poll) that begins at `begun`, with
        `deadline` seconds left (ending at epoch `deadline_at` when given) counted
        from `started` (default: now); `opening` is the create answer (W7)."""
        spec = self.spec
        if begun.by_status:  # a `Location` alone: read by HTTP status
            spec = attrs.evolve(spec, status_rules=by_status_rules(spec))
        return WaitCore(
            spec,
            self.config,
            begun.job_id,
            target=begun.target,
            final_url=begun.final_url,
            deadline=deadline,
            attempt=begun.attempt,
            deadline_at=deadline_at,
            on_poll=on_poll,
            event_record=self._event_record,
            want_result=want_result,
            abandon=abandon,
            request_cap=request_cap,
            stall_after=stall_after,
            carried=begun.carried,
            started=started,
            opening=opening,
            due_at=begun.due_at,
            by_status=begun.by_status,
        )

    def created_core(
        self,
        created: Created,
        deadline: float,
        started: float,
        on_poll: Callable[[PollEvent[RecordT]], None] | None,
        stall_after: float | None,
    ) -> WaitCore:
        """The core of `create_and_wait`'s wait: its deadline counts from `started`,
        before the create, and the create answer is its first status read (W7)."""
        return self.new_core(
            attrs.evolve(
                self.begin(
                    created.job_id, carried=created.carried, final_url=created.final_url
                ),
                by_status=created.by_status,
            ),
            deadline,
            on_poll=on_poll,
            want_result=self.has_result,
            stall_after=stall_after,
            started=started,
            opening=created.answer,
        )

    def opened(self, core: WaitCore) -> Polled[RecordT] | None:
        """`core.open()` with its record typed: the create answer's, or, for an
        answer without one whose hints put off the first read (a bare 202 with
        `Retry-After`), a record of unset fields, as a status rule's empty answer
        gives; None when there is nothing to decide before the first read."""
        answer = core.opening
        step = core.open()
        if answer is None or step is None:
            return None
        if isinstance(step, Finished):
            return Polled(step, self.terminal_record(core, step))
        if answer.record is MISSING:
            record = self.unset_record()
            return None if record is None else Polled(step, record)
        return Polled(
            step, self._decode_raw(core, answer.record, core.last_state, None)
        )

    def unset_record(self) -> RecordT | None:
        """A record of unset fields (a status rule's empty answer); None if impossible."""
        try:
            return self._lenient_record({})
        except SDKError:
            return None

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
        # A resumed wait's schedule continues where the timed-out one left off; it
        # gets its own deadline (the old one is usually what ran out).
        return self.new_core(
            self.begin(job_id, resume, carried),
            deadline,
            on_poll=on_poll,
            want_result=want_result,
            stall_after=stall_after,
            abandon=abandon,
        )

    def _decoding(self) -> contextlib.AbstractContextManager[None]:
        """Where the records and results a wait returns are decoded."""
        return decoding(self.config.decoding)

    def _event_record(self, raw: object) -> RecordT:
        """A record for a poll event: read tolerantly (W15), else leniently."""
        try:
            with decoding("tolerant"):
                return self._decode_record(raw)
        except DecodeError:
            return self._lenient_record(raw)

    def _lenient_record(self, raw: object) -> RecordT:
        """A record for a poll event or a failed job: decoded, values off the spec kept."""
        with lenient():
            return self._decode_record(raw)

    def record_outcome(self, core: WaitCore, finished: Finished) -> object:
        """The terminal record, or its member at `result_path` (`decode_result`)."""
        spec, record = self.spec, finished.record
        if spec.result_path is None or spec.decode_result is None:
            return self.terminal_record(core, finished)
        path = "$" + "".join(f".{key}" for key in spec.result_path)
        try:
            with core.reading():
                return spec.decode_result(dig(record, spec.result_path), path)
        except SDKError as error:
            raise attach_job_id(error, core.job_id) from None

    def terminal_record(self, core: WaitCore, finished: Finished) -> RecordT:
        """The terminal record, typed; off the spec, an error that keeps it."""
        return self._decode_raw(
            core, finished.record, finished.state, finished.outcome, finished.ruled
        )

    def _polled(self, core: WaitCore, poll: Poll) -> Polled[RecordT]:
        """`poll` stepped by `core`, with its record typed (`terminal_record` once
        finished; before, decoded as the waits' poll events see it)."""
        step = core.step(poll)
        if isinstance(step, Finished):
            return Polled(step, self.terminal_record(core, step))
        ruled = poll.state is not None
        record = self._decode_raw(core, poll.record, core.last_state, None, ruled)
        return Polled(step, record)

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
            with collect_drift() as found:
                try:
                    with lenient() if ruled else self._decoding():
                        return self._decode_record(raw)
                finally:
                    core.noted(found)
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

    def _require_success(
        self,
        core: WaitCore,
        finished: Finished,
        failure: tuple[object, SDKError | None] = (None, None),
    ) -> None:
        """Raise JobFailed / JobCanceled unless the job succeeded (W3); `failure` is
        the failure download's result and the error that ended it, if any."""
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
        ended = cls(
            core.job_id,
            state=finished.state,
            error=self._decode_error(finished.error),
            last_record=finished.record,
            record=record,
            error_json=finished.error,
        )
        if isinstance(ended, JobFailed):
            ended.failure_result = failure[0]
        raise ended from failure[1]

    def _result_values(self, core: WaitCore, finished: Finished) -> dict[str, object]:
        """What the result fetch of a succeeded job is given besides its id: the
        carried values, and those its terminal record holds (`carry`)."""
        carry = self.spec.carry
        found = (
            None if carry is None else carry.from_record(finished.record, core.job_id)
        )
        return {**core.carried, **(found or {})}

    def _failure_values(
        self, core: WaitCore, finished: Finished
    ) -> dict[str, object] | None:
        """What the failure download of a failed job is given; None when the job
        declares none, did not fail, or its record names nothing to download."""
        carry = self.spec.carry
        if carry is None or finished.outcome != "failure":
            return None
        found = carry.from_record(finished.record, core.job_id, failed=True)
        return None if found is None else {**core.carried, **found}

    def _result_core(
        self,
        job_id: str,
        deadline: float,
        on_poll: Callable[[PollEvent[RecordT]], None] | None,
        stall_after: float | None,
        carried: Carried,
    ) -> WaitCore:
        """The core of a wait for the result; NoResultOperation when there is none."""
        self.check_result()
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
        return decode_error(self.spec, raw)

    def _no_cancel_operation(self) -> NoCancelOperation:
        return NoCancelOperation(
            f"{self.spec.name} jobs declare no cancel operation in the job extension"
        )

    def _cancels_on(self, error: JobTimeout[Any]) -> bool:
        """Whether a wait that timed out with `error` sends the cancel operation."""
        wanted = self._cancel_on_timeout
        if wanted is None:
            wanted = self.config.cancel_on_timeout
        return wanted and self._has_cancel and not error.canceled

    def _cancel_budget(self, core: WaitCore) -> float | None:
        """How long the cancel of a timed-out wait may take, so that the wait still ends
        within its deadline and a second (W5); None when no time is left for it."""
        left = core.time_left() + CANCEL_ON_TIMEOUT_SECONDS - 0.1
        budget = min(CANCEL_ON_TIMEOUT_SECONDS, left)
        return budget if budget >= 0.05 else None

    def _canceled(self, core: WaitCore, error: JobTimeout[Any]) -> JobTimeout[Any]:
        """`error`, saying the job's cancel was sent and accepted."""
        return self.spec.timeout_error(
            core.job_id,
            elapsed=error.elapsed,
            deadline=error.deadline,
            resume_token=error.resume_token,
            last_state=error.last_state,
            last_record=error.last_record,
            record=error.record,
            canceled=True,
        )

    def check_result(self) -> None:
        """Raise NoResultOperation unless the job has a result to wait for."""
        if not self.has_result:
            raise NoResultOperation(
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
        if final == "record":
            return None
        if final == "location":
            if not finished.location:
                raise OperationUrlRefused(
                    f"the terminal status answer of job {core.job_id} has no"
                    " Location header to fetch the result at"
                )
            return finished.location
        if final == "create-location":
            return (
                core.final_url
            )  # none: the create named none, the record is the result
        if final == "original-uri":
            if core.final_url is None:
                raise OperationUrlRefused(
                    f"job {core.job_id} is known by its operation URL alone: its result"
                    " is at the URL of the request that created it, which only"
                    " create_and_wait(), start() and their resume tokens keep"
                )
            return core.final_url
        return core.target

    def _idempotency_key(self) -> str | None:
        return str(uuid.uuid4()) if self.spec.idempotency_header else None

    def creating(
        self, started: float, deadline: float | None
    ) -> contextlib.AbstractContextManager[None]:
        """Around a create bounded by a wait's `deadline` (`created.creating`)."""
        return creating(self.spec, self.config.clock, started, deadline)

    def _created(self, response: httpx.Response) -> Created:
        """The new job, read from its create response (`read_created`)."""
        return read_created(self.spec, response, self._check_record)

    def _check_record(self, raw: object) -> None:
        """Decode `raw` as the job's record (as the waits return it), for nothing but
        the errors."""
        with self._decoding():
            self._decode_record(raw)
