"""Errors raised by the SDK: one hierarchy, rooted at `SDKError`.

```
SDKError
├── APIConnectionError              the request never got an HTTP answer
│   └── APITimeoutError             ... because it timed out
├── APIStatusError                  the server answered with an error status
│   ├── BadRequestError             400
│   ├── AuthenticationError         401
│   ├── PermissionDeniedError       403
│   ├── NotFoundError               404
│   ├── ConflictError               409
│   ├── UnprocessableEntityError    422
│   ├── RateLimitError              429
│   └── InternalServerError         500 and above
├── DecodeError (ValueError)        a response did not match its schema
│   ├── UnreadableStatus            a 2xx status body that is not a record (retried)
│   └── RecordDecodeError           a job's record reached a state, off its schema
├── ResponseTooLarge, ResultFileError  a body past its size limit; a to_file not written
├── UploadError (ValueError)        a body file not regular, or resized while sent
├── InvalidHeader (ValueError)      a header no request can carry (a line break, NUL)
├── MissingCredentials (ValueError) a client made without the credentials its API needs
├── TokenError                      the OAuth 2 token endpoint refused or answered nonsense
├── MissingJobId (ValueError)       a create response carried no job id
├── OperationUrlRefused             an operation URL on a host the client does not trust
├── InvalidResumeToken (ValueError) a resume token that cannot be read
├── NoResultOperation (TypeError)   wait_for_result on a job without a result operation
├── NoCancelOperation (TypeError)   cancel on a job without a cancel operation
└── WaitError                       a wait ended without a usable record
    ├── JobTimeout                  the deadline came first
    ├── JobStalled                  neither state nor progress changed for stall_after
    ├── UnknownJobState             the server reported an undocumented state
    ├── JobFailed                   the job ended in a failure state
    ├── JobCanceled                 the job ended in a canceled state
    └── StatusUnavailable           the status endpoint kept failing
```

Every error raised while waiting for a job names that job: waiter errors carry it as
`job_id` and in their message; any other `SDKError` escaping a wait (a 401, a 404, a
decoding error) is raised unchanged, with its `job_id` attribute set, which its message
then mentions. Messages are built from status codes, paths and server payloads only,
never from request headers, credentials or query strings (a job's operation URL is its
`job_id`, shown as `display_id` shows it: without the query).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, TypeVar

import httpx

from .shown import display_id, seconds, summary

__all__ = [
    "APIConnectionError",
    "APIStatusError",
    "APITimeoutError",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "DecodeError",
    "InternalServerError",
    "InvalidHeader",
    "InvalidResumeToken",
    "JobCanceled",
    "JobFailed",
    "JobStalled",
    "JobTimeout",
    "MissingCredentials",
    "MissingJobId",
    "NoCancelOperation",
    "NoResultOperation",
    "NotFoundError",
    "OperationUrlRefused",
    "PermissionDeniedError",
    "RateLimitError",
    "RecordDecodeError",
    "ResponseTooLarge",
    "ResultFileError",
    "SDKError",
    "StatusUnavailable",
    "TokenError",
    "UnknownJobState",
    "UnprocessableEntityError",
    "UnreadableStatus",
    "UploadError",
    "WaitError",
    "attach_job_id",
]


class SDKError(Exception):
    """Root of every error this SDK raises."""

    #: The job this error concerns, when it was raised while waiting for one.
    job_id: str | None = None
    #: Whether the request that raised it is retried like a transport fault.
    transient = False

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        if self.job_id is not None:
            shown = display_id(self.job_id)
            if shown not in self.message:
                return f"{self.message} (job {shown})"
        return self.message


E = TypeVar("E", bound=BaseException)


def attach_job_id(error: E, job_id: str) -> E:
    """Record on an `SDKError` which job it concerns; other exceptions pass unchanged."""
    if isinstance(error, SDKError) and error.job_id is None:
        error.job_id = job_id
    return error


class APIConnectionError(SDKError):
    """The request did not get an HTTP response (DNS, refused, reset, TLS...)."""

    def __init__(
        self,
        message: str = "Connection error.",
        *,
        request: httpx.Request | None = None,
    ) -> None:
        super().__init__(message)
        self.request = request


class APITimeoutError(APIConnectionError):
    """The request timed out."""

    def __init__(
        self,
        message: str = "Request timed out.",
        *,
        request: httpx.Request | None = None,
    ) -> None:
        super().__init__(message, request=request)


class APIStatusError(SDKError):
    """The server answered with a 4xx or 5xx status."""

    #: Extra advice appended to the message of this class.
    advice: str = ""

    def __init__(
        self,
        message: str,
        *,
        response: httpx.Response,
        body: object = None,
    ) -> None:
        super().__init__(message)
        self.response = response
        self.status_code: int = response.status_code
        self.body = body
        headers = response.headers
        self.request_id: str | None = headers.get("x-request-id") or headers.get(
            "request-id"
        )


class BadRequestError(APIStatusError):
    """400 Bad Request."""


class AuthenticationError(APIStatusError):
    """401 Unauthorized."""

    advice = (
        "check the API key or credentials this client was configured with; "
        "a job is often readable only with the key that created it"
    )


class PermissionDeniedError(APIStatusError):
    """403 Forbidden."""

    advice = "the credentials this client was configured with lack permission"


class NotFoundError(APIStatusError):
    """404 Not Found."""


class ConflictError(APIStatusError):
    """409 Conflict."""


class UnprocessableEntityError(APIStatusError):
    """422 Unprocessable Entity."""


class RateLimitError(APIStatusError):
    """429 Too Many Requests."""


class InternalServerError(APIStatusError):
    """500 and above."""


class DecodeError(SDKError, ValueError):
    """A response did not match the schema; `path` locates the value, e.g. `$.data.status`."""

    status_code: int | None = None  # the answer's; its `request_id` and `body` (text)
    request_id: str | None = None
    body: str | None = None

    def __init__(self, reason: str, *, path: str = "$") -> None:
        super().__init__(f"cannot decode {path}: {reason}")
        self.path = path
        self.reason = reason


class ResponseTooLarge(SDKError):
    """A body held in memory, or an event stream's line or event, passed `limit`."""

    limit = 0


class ResultFileError(SDKError):
    """A result's `to_file` cannot be written (`spent`: a one-shot result is lost)."""

    spent = False


class UploadError(SDKError, ValueError):
    """A body file not regular (a device, a FIFO, /proc), resized while sent, or idle."""


class InvalidHeader(SDKError, ValueError):
    """A header no request can carry, refused before sending; names it, not its value."""


class MissingCredentials(SDKError, ValueError):
    """A client was made without any of the credentials its API requires."""


class TokenError(SDKError):
    """The token endpoint refused the client's credentials or answered nonsense."""


class RecordDecodeError(DecodeError):
    """A job reached a state, but its record does not match the record's schema.

    Spec drift must not lose a job: this names the job (`job_id`), the state it
    reached (`state`) and what that state means (`outcome`: "success", "failure",
    "canceled", or None while in progress), and carries the raw JSON record
    (`record`); `path` and `reason` locate the first value off the schema.
    `WaitConfig(decoding="lenient")` keeps such values instead of raising.
    """

    def __init__(
        self,
        error: DecodeError,
        *,
        job_id: str,
        state: str | None,
        outcome: str | None,
        record: object,
    ) -> None:
        reached = f"state {state}" if state is not None else "a terminal record"
        if outcome is not None:
            reached += f" ({outcome})"
        SDKError.__init__(
            self,
            f"job {display_id(job_id)} reached {reached}, but its record does not match the "
            f"spec at {error.path}: {error.reason}; the raw record is on .record, "
            'and WaitConfig(decoding="lenient") keeps off-spec values',
        )
        self.path, self.reason = error.path, error.reason
        self.job_id = job_id
        self.state = state
        self.outcome = outcome
        self.record = record


class UnreadableStatus(DecodeError):
    """A 2xx status response whose body is not the job's record (truncated JSON, a
    proxy's HTML page, JSON without the record): a transient fault of the path to the
    server, retried on the status read's budget like a 5xx; when that runs out it is
    the `last_error` of `StatusUnavailable`."""

    transient = True


class MissingJobId(SDKError, ValueError):
    """The create response did not carry the new job's id."""


class OperationUrlRefused(SDKError):
    """An operation URL (or a result Location) whose origin is not the client's.
    Credentials are never sent to another scheme, host or port; the client option
    `operation_hosts` lists the other origins to trust."""


class InvalidResumeToken(SDKError, ValueError):
    """A resume token that is not one this SDK wrote."""


class NoResultOperation(SDKError, TypeError):
    """`wait_for_result` was called for a job type that has no result operation."""


class NoCancelOperation(SDKError, TypeError):
    """`cancel()` was called for a job type that declares no cancel operation."""


class WaitError(SDKError):
    """A wait for a job ended without a usable record; names the job."""

    def __init__(
        self,
        message: str,
        *,
        job_id: str,
        last_state: str | None = None,
        last_record: object = None,
    ) -> None:
        super().__init__(message)
        self.job_id, self.last_state, self.last_record = job_id, last_state, last_record


if TYPE_CHECKING:  # the bare name (`except JobTimeout as exc`) is any job's: object
    import typing_extensions as _te  # (the default needs Python 3.13 at run time)

    RecordT_co = _te.TypeVar("RecordT_co", covariant=True, default=object)
    ErrorT_co = _te.TypeVar("ErrorT_co", covariant=True, default=object)
else:
    RecordT_co, ErrorT_co = (
        TypeVar("RecordT_co", covariant=True),
        TypeVar("ErrorT_co", covariant=True),
    )


class JobTimeout(WaitError, Generic[RecordT_co]):
    """The deadline came before a terminal state; the job may still finish.
    `resume_token` lets `wait_for_job(resume=...)` continue the wait elsewhere.
    `record` is the last record read, decoded to the job's record model (None when no
    read succeeded); `last_record` is its JSON.
    `canceled` is True when `WaitConfig.cancel_on_timeout` had the job canceled."""

    def __init__(
        self,
        job_id: str,
        *,
        elapsed: float,
        deadline: float,
        resume_token: str,
        last_state: str | None = None,
        last_record: object = None,
        record: RecordT_co | None = None,
        canceled: bool = False,
    ) -> None:
        state = last_state if last_state is not None else "not finished"
        fate = (
            "its cancel was requested (WaitConfig.cancel_on_timeout)"
            if canceled
            else "it was not canceled, wait again or resume with the resume_token"
        )
        super().__init__(
            f"job {display_id(job_id)} still {state} after {seconds(elapsed)} "
            f"(deadline {seconds(deadline)}); {fate}",
            job_id=job_id,
            last_state=last_state,
            last_record=last_record,
        )
        self.elapsed = elapsed
        self.deadline = deadline
        self.resume_token = resume_token
        self.record: RecordT_co | None = record
        #: Whether the server accepted a cancel sent on this timeout.
        self.canceled = canceled


class JobStalled(WaitError, Generic[RecordT_co]):
    """Neither the state nor the progress changed for `stall_after` seconds; the job was
    not canceled. `resume_token` continues the wait (like `JobTimeout`'s); `progress` is
    the last percentage seen, `unchanged_for` how long nothing changed and `record` the
    last record, decoded to the job's record model (None when it could not be)."""

    record: RecordT_co | None = None
    unchanged_for: float = 0.0
    stall_after: float = 0.0
    resume_token: str = ""
    progress: float | None = None


class UnknownJobState(WaitError):
    """The server reported a state the API does not document."""

    def __init__(
        self,
        job_id: str,
        *,
        state: str | None,
        documented: frozenset[str] = frozenset(),
        last_record: object = None,
        detail: str = "",
    ) -> None:
        if state is None:
            message = f"job {display_id(job_id)}: the status record has no state"
        else:
            message = f"job {display_id(job_id)} reported undocumented state {state!r}"
        if detail:
            message += f" ({detail})"
        if documented:
            message += f"; documented states: {', '.join(sorted(documented))}"
        super().__init__(
            message, job_id=job_id, last_state=state, last_record=last_record
        )
        self.state = state


class _JobEnded(WaitError, Generic[RecordT_co, ErrorT_co]):
    """A terminal state that has no result: base of `JobFailed` and `JobCanceled`.

    Generic in the job's record and error models. A generated SDK raises a subclass
    per job (e.g. `TranscriptFailed(JobFailed[Transcript, TranscriptError])`): catch
    it to get both typed; `except JobFailed as exc` catches every job's.
    """

    verb = "ended"

    def __init__(
        self,
        job_id: str,
        *,
        state: str | None,
        error: ErrorT_co | None = None,
        last_record: object = None,
        record: Any = None,
        error_json: object = None,
    ) -> None:
        message = f"job {display_id(job_id)} {self.verb}"
        if state is not None:
            message += f" (state {state})"
        detail = summary(error if error_json is None else error_json)
        if detail:
            message += f": {detail}"
        super().__init__(
            message, job_id=job_id, last_state=state, last_record=last_record
        )
        #: The server's error payload found at the spec's error field, decoded to
        #: the job's error model (JSON where no model applies); None when absent.
        #: The message quotes `error_json`, the payload as received, when given.
        self.error: ErrorT_co | None = error
        #: The terminal record, decoded to its model (values off the spec kept); a
        #: wait always sets it.
        self.record: RecordT_co = record


class JobFailed(_JobEnded[RecordT_co, ErrorT_co]):
    """The job ended in a failure state; `error` is the server's error payload.

    `failure_result` is what the job's failure download fetched (a result operation
    given the failed record's values, such as OpenAI's `error_file_id`): None when the
    job declares none, the record names nothing, or the download failed (its error is
    then this one's `__cause__`).
    """

    verb = "failed"
    if TYPE_CHECKING:  # a job's own class narrows it to its download's type
        failure_result: Any
    failure_result = None


class JobCanceled(_JobEnded[RecordT_co, ErrorT_co]):
    """The job ended in a canceled state; `error` is the server's payload, if any."""

    verb = "was canceled"


class StatusUnavailable(WaitError):
    """The status endpoint kept failing past its retry budget. This says nothing about
    the job itself, which may still be running; the last transport or server error is
    `last_error` (and `__cause__`)."""

    def __init__(
        self,
        job_id: str,
        *,
        last_error: BaseException,
        attempts: int,
        last_state: str | None = None,
        last_record: object = None,
    ) -> None:
        super().__init__(
            f"status endpoint unavailable for job {display_id(job_id)} after {attempts} "
            f"attempt{'' if attempts == 1 else 's'} (last error: {last_error}); "
            "the job itself may still be running",
            job_id=job_id,
            last_state=last_state,
            last_record=last_record,
        )
        self.last_error = last_error
        self.attempts = attempts
