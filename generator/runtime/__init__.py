"""Hand-written runtime shared by every generated SDK: errors, retries and waiters.

The modules here are copied verbatim into each SDK as its `_runtime` package, so they
import one another relatively and depend only on the standard library, httpx, attrs
and tenacity. Generated code imports from the submodules; the names below are the
public surface.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "APIConnectionError",
    "APIStatusError",
    "APITimeoutError",
    "AsyncJobHandle",
    "AsyncJobOutcomes",
    "AsyncJobWaiter",
    "AuthenticationError",
    "BadRequestError",
    "CeleryWaits",
    "ConflictError",
    "DecodeError",
    "HeaderHint",
    "InternalServerError",
    "InvalidResumeToken",
    "JobCanceled",
    "JobFailed",
    "JobHandle",
    "JobOutcome",
    "JobSpec",
    "JobStalled",
    "JobTimeout",
    "MissingJobId",
    "NoCancelOperation",
    "NoResultOperation",
    "NotFoundError",
    "PermissionDeniedError",
    "PollDecision",
    "PollEvent",
    "ProgressDisplay",
    "RateLimitError",
    "RateLimiter",
    "RecordDecodeError",
    "RedisRateLimiter",
    "RetryPolicy",
    "SDKError",
    "StatusLimiter",
    "StatusUnavailable",
    "SyncJobWaiter",
    "UnknownJobState",
    "UnprocessableEntityError",
    "UnreadableStatus",
    "WaitConfig",
    "WaitError",
    "async_call_with_retries",
    "backoff",
    "call_with_retries",
    "parse_delay",
    "parse_retry_after",
    "status_error_for",
]

# Names load on first use: importing the package (as every SDK module does) stays cheap.
_HOMES = {
    "APIConnectionError": "errors",
    "APIStatusError": "errors",
    "APITimeoutError": "errors",
    "AsyncJobHandle": "handle",
    "AsyncJobOutcomes": "waiter",
    "AsyncJobWaiter": "waiter",
    "AuthenticationError": "errors",
    "BadRequestError": "errors",
    "CeleryWaits": "fleet",
    "ConflictError": "errors",
    "DecodeError": "errors",
    "HeaderHint": "waitspec",
    "InternalServerError": "errors",
    "InvalidResumeToken": "errors",
    "JobCanceled": "errors",
    "JobFailed": "errors",
    "JobHandle": "handle",
    "JobOutcome": "waitspec",
    "JobSpec": "waitspec",
    "JobStalled": "errors",
    "JobTimeout": "errors",
    "MissingJobId": "errors",
    "NoCancelOperation": "errors",
    "NoResultOperation": "errors",
    "NotFoundError": "errors",
    "PermissionDeniedError": "errors",
    "PollDecision": "handle",
    "PollEvent": "waitspec",
    "ProgressDisplay": "display",
    "RateLimitError": "errors",
    "RateLimiter": "ratelimit",
    "RecordDecodeError": "errors",
    "RedisRateLimiter": "fleet",
    "RetryPolicy": "retry",
    "SDKError": "errors",
    "StatusLimiter": "ratelimit",
    "StatusUnavailable": "errors",
    "SyncJobWaiter": "waiter",
    "UnknownJobState": "errors",
    "UnprocessableEntityError": "errors",
    "UnreadableStatus": "errors",
    "WaitConfig": "waitspec",
    "WaitError": "errors",
    "async_call_with_retries": "retry",
    "backoff": "policy",
    "call_with_retries": "retry",
    "parse_delay": "retry_after",
    "parse_retry_after": "retry_after",
    "status_error_for": "statuses",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{home}", __name__), name)
