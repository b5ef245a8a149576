"""Hand-written runtime shared by every generated SDK: errors, retries and waiters.

The modules here are copied verbatim into each SDK as its `_runtime` package, so they
import one another relatively and depend only on the standard library, httpx, attrs
and tenacity. Generated code imports from the submodules; the names below are the
public surface.
"""

from __future__ import annotations

from .errors import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    DecodeError,
    InternalServerError,
    InvalidResumeToken,
    JobCanceled,
    JobFailed,
    JobTimeout,
    MissingJobId,
    NoResultOperation,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    SDKError,
    StatusUnavailable,
    UnknownJobState,
    UnprocessableEntityError,
    WaitError,
    status_error_for,
)
from .policy import backoff
from .ratelimit import RateLimiter
from .retry import RetryPolicy, async_call_with_retries, call_with_retries
from .retry_after import parse_delay, parse_retry_after
from .waiter import AsyncJobOutcomes, AsyncJobWaiter, SyncJobWaiter
from .waitspec import HeaderHint, JobOutcome, JobSpec, PollEvent, WaitConfig

__all__ = [
    "APIConnectionError",
    "APIStatusError",
    "APITimeoutError",
    "AsyncJobOutcomes",
    "AsyncJobWaiter",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "DecodeError",
    "HeaderHint",
    "InternalServerError",
    "InvalidResumeToken",
    "JobCanceled",
    "JobFailed",
    "JobOutcome",
    "JobSpec",
    "JobTimeout",
    "MissingJobId",
    "NoResultOperation",
    "NotFoundError",
    "PermissionDeniedError",
    "PollEvent",
    "RateLimitError",
    "RateLimiter",
    "RetryPolicy",
    "SDKError",
    "StatusUnavailable",
    "SyncJobWaiter",
    "UnknownJobState",
    "UnprocessableEntityError",
    "WaitConfig",
    "WaitError",
    "async_call_with_retries",
    "backoff",
    "call_with_retries",
    "parse_delay",
    "parse_retry_after",
    "status_error_for",
]
