"""Hand-written runtime of the generated SDKs: errors, retries and waiters.

The modules an SDK uses (those its generated code imports, and theirs) are copied
verbatim into it as its `_runtime` package, so they import one another relatively and
depend only on the standard library, httpx, attrs and tenacity. Generated code imports
from the submodules; the names below are the public surface. An SDK's copy of this
table names only the modules it ships: any other name is an AttributeError.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .display import ProgressDisplay
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
        JobStalled,
        JobTimeout,
        MissingJobId,
        NoCancelOperation,
        NoResultOperation,
        NotFoundError,
        PermissionDeniedError,
        RateLimitError,
        RecordDecodeError,
        SDKError,
        StatusUnavailable,
        UnknownJobState,
        UnprocessableEntityError,
        UnreadableStatus,
        WaitError,
    )
    from .fleet import CeleryWaits
    from .fleetlimit import RedisRateLimiter
    from .handle import AsyncJobHandle, JobHandle, PollDecision
    from .hybrid import AsyncEventWaits, SyncEventWaits
    from .policy import backoff
    from .ratelimit import RateLimiter, StatusLimiter
    from .retry import RetryPolicy, async_call_with_retries, call_with_retries
    from .retry_after import parse_delay, parse_retry_after
    from .statuses import status_error_for
    from .timing import Timing
    from .waiter import AsyncJobOutcomes, AsyncJobWaiter, SyncJobWaiter
    from .waitspec import HeaderHint, JobOutcome, JobSpec, PollEvent, WaitConfig
    from .webhooks import (
        DuplicateWebhook,
        InvalidSignature,
        MalformedWebhook,
        StaleWebhook,
        WebhookDelivery,
        WebhookError,
        WebhookReceiver,
        WebhookSpec,
        sign_webhook,
    )

__all__ = [
    "APIConnectionError",
    "APIStatusError",
    "APITimeoutError",
    "AsyncEventWaits",
    "AsyncJobHandle",
    "AsyncJobOutcomes",
    "AsyncJobWaiter",
    "AuthenticationError",
    "BadRequestError",
    "CeleryWaits",
    "ConflictError",
    "DecodeError",
    "DuplicateWebhook",
    "HeaderHint",
    "InternalServerError",
    "InvalidResumeToken",
    "InvalidSignature",
    "JobCanceled",
    "JobFailed",
    "JobHandle",
    "JobOutcome",
    "JobSpec",
    "JobStalled",
    "JobTimeout",
    "MalformedWebhook",
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
    "StaleWebhook",
    "StatusLimiter",
    "StatusUnavailable",
    "SyncEventWaits",
    "SyncJobWaiter",
    "Timing",
    "UnknownJobState",
    "UnprocessableEntityError",
    "UnreadableStatus",
    "WaitConfig",
    "WaitError",
    "WebhookDelivery",
    "WebhookError",
    "WebhookReceiver",
    "WebhookSpec",
    "async_call_with_retries",
    "backoff",
    "call_with_retries",
    "parse_delay",
    "parse_retry_after",
    "sign_webhook",
    "status_error_for",
]

# Names load on first use: importing the package (as every SDK module does) stays cheap.
_HOMES = {
    "APIConnectionError": "errors",
    "APIStatusError": "errors",
    "APITimeoutError": "errors",
    "AsyncEventWaits": "hybrid",
    "AsyncJobHandle": "handle",
    "AsyncJobOutcomes": "waiter",
    "AsyncJobWaiter": "waiter",
    "AuthenticationError": "errors",
    "BadRequestError": "errors",
    "CeleryWaits": "fleet",
    "ConflictError": "errors",
    "DecodeError": "errors",
    "DuplicateWebhook": "webhooks",
    "HeaderHint": "waitspec",
    "InternalServerError": "errors",
    "InvalidResumeToken": "errors",
    "InvalidSignature": "webhooks",
    "JobCanceled": "errors",
    "JobFailed": "errors",
    "JobHandle": "handle",
    "JobOutcome": "waitspec",
    "JobSpec": "waitspec",
    "JobStalled": "errors",
    "JobTimeout": "errors",
    "MalformedWebhook": "webhooks",
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
    "RedisRateLimiter": "fleetlimit",
    "RetryPolicy": "retry",
    "SDKError": "errors",
    "StaleWebhook": "webhooks",
    "StatusLimiter": "ratelimit",
    "StatusUnavailable": "errors",
    "SyncEventWaits": "hybrid",
    "SyncJobWaiter": "waiter",
    "Timing": "timing",
    "UnknownJobState": "errors",
    "UnprocessableEntityError": "errors",
    "UnreadableStatus": "errors",
    "WaitConfig": "waitspec",
    "WaitError": "errors",
    "WebhookDelivery": "webhooks",
    "WebhookError": "webhooks",
    "WebhookReceiver": "webhooks",
    "WebhookSpec": "webhooks",
    "async_call_with_retries": "retry",
    "backoff": "policy",
    "call_with_retries": "retry",
    "parse_delay": "retry_after",
    "parse_retry_after": "retry_after",
    "sign_webhook": "webhooks",
    "status_error_for": "statuses",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{home}", __name__), name)
