"""Hand-written runtime of the generated SDKs: errors, retries and waiters.

The modules an SDK uses (those its generated code imports, and theirs) are copied
verbatim into it as its `_runtime` package, so they import one another relatively and
depend only on the standard library, httpx, attrs and tenacity. Generated code imports
from the submodules; the names below are the public surface. An SDK's copy of this
table names only the modules it ships: any other name is an AttributeError.

The modules are grouped by concern, each group importing only from those before it:
`shared` (errors, how URLs are shown, delays, clocks), `wire` (typed decoding and
encoding, parameter styles, request bodies), `http` (credentials, requests and their
retries, responses, pages, events), `waiting` (the decision core, the sync and async
waiters, handles), then `webhooks` and `fleet`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .fleet.limit import RedisRateLimiter
    from .fleet.waits import CeleryWaits
    from .http.retry import RetryPolicy, async_call_with_retries, call_with_retries
    from .http.retry_after import parse_delay, parse_retry_after
    from .http.statuses import status_error_for
    from .shared.errors import (
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
    from .shared.policy import backoff
    from .shared.timing import Timing
    from .waiting.display import ProgressDisplay
    from .waiting.handle import AsyncJobHandle, JobHandle, PollDecision
    from .waiting.ratelimit import RateLimiter, StatusLimiter
    from .waiting.spec import HeaderHint, JobOutcome, JobSpec, PollEvent, WaitConfig
    from .waiting.waiter import AsyncJobOutcomes, AsyncJobWaiter, SyncJobWaiter
    from .webhooks.deliveries import (
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
    from .webhooks.hybrid import AsyncEventWaits, SyncEventWaits

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
    "APIConnectionError": "shared.errors",
    "APIStatusError": "shared.errors",
    "APITimeoutError": "shared.errors",
    "AsyncEventWaits": "webhooks.hybrid",
    "AsyncJobHandle": "waiting.handle",
    "AsyncJobOutcomes": "waiting.waiter",
    "AsyncJobWaiter": "waiting.waiter",
    "AuthenticationError": "shared.errors",
    "BadRequestError": "shared.errors",
    "CeleryWaits": "fleet.waits",
    "ConflictError": "shared.errors",
    "DecodeError": "shared.errors",
    "DuplicateWebhook": "webhooks.deliveries",
    "HeaderHint": "waiting.spec",
    "InternalServerError": "shared.errors",
    "InvalidResumeToken": "shared.errors",
    "InvalidSignature": "webhooks.deliveries",
    "JobCanceled": "shared.errors",
    "JobFailed": "shared.errors",
    "JobHandle": "waiting.handle",
    "JobOutcome": "waiting.spec",
    "JobSpec": "waiting.spec",
    "JobStalled": "shared.errors",
    "JobTimeout": "shared.errors",
    "MalformedWebhook": "webhooks.deliveries",
    "MissingJobId": "shared.errors",
    "NoCancelOperation": "shared.errors",
    "NoResultOperation": "shared.errors",
    "NotFoundError": "shared.errors",
    "PermissionDeniedError": "shared.errors",
    "PollDecision": "waiting.handle",
    "PollEvent": "waiting.spec",
    "ProgressDisplay": "waiting.display",
    "RateLimitError": "shared.errors",
    "RateLimiter": "waiting.ratelimit",
    "RecordDecodeError": "shared.errors",
    "RedisRateLimiter": "fleet.limit",
    "RetryPolicy": "http.retry",
    "SDKError": "shared.errors",
    "StaleWebhook": "webhooks.deliveries",
    "StatusLimiter": "waiting.ratelimit",
    "StatusUnavailable": "shared.errors",
    "SyncEventWaits": "webhooks.hybrid",
    "SyncJobWaiter": "waiting.waiter",
    "Timing": "shared.timing",
    "UnknownJobState": "shared.errors",
    "UnprocessableEntityError": "shared.errors",
    "UnreadableStatus": "shared.errors",
    "WaitConfig": "waiting.spec",
    "WaitError": "shared.errors",
    "WebhookDelivery": "webhooks.deliveries",
    "WebhookError": "webhooks.deliveries",
    "WebhookReceiver": "webhooks.deliveries",
    "WebhookSpec": "webhooks.deliveries",
    "async_call_with_retries": "http.retry",
    "backoff": "shared.policy",
    "call_with_retries": "http.retry",
    "parse_delay": "http.retry_after",
    "parse_retry_after": "http.retry_after",
    "sign_webhook": "webhooks.deliveries",
    "status_error_for": "http.statuses",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{home}", __name__), name)
