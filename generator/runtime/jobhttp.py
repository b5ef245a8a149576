"""The HTTP layer of an SDK with jobs: the client's `WaitConfig` and its status-read cap.

`SyncJobHTTP` and `AsyncJobHTTP` are the plain HTTP twins with what every wait of one
client shares: the `WaitConfig` (also the requests' `Timing`) and the limiter that caps
status reads across all of them. Copies (`with_options`, raw and streaming views)
share both.
"""

from __future__ import annotations

from typing import Any

from .base import BaseHTTP
from .http import AsyncHTTP, SyncHTTP
from .ratelimit import RateLimiter, StatusLimiter
from .waitspec import WaitConfig

__all__ = ["AsyncJobHTTP", "SyncJobHTTP", "status_limiter"]


def status_limiter(config: WaitConfig) -> StatusLimiter | None:
    """The client-wide cap on status reads: the configured limiter, or one at
    `max_status_reads_per_second`, or None."""
    rate = config.max_status_reads_per_second
    return config.status_limiter or (
        RateLimiter(rate, clock=config.clock) if rate else None
    )


class _Waits(BaseHTTP):
    """What the job twins add to their HTTP class: the client's wait settings."""

    def __init__(
        self, *, wait_config: WaitConfig | None = None, **settings: Any
    ) -> None:
        config = wait_config or WaitConfig()
        super().__init__(timing=config, **settings)
        self.wait_config = config
        self.status_limiter = status_limiter(config)


class SyncJobHTTP(_Waits, SyncHTTP):
    """`SyncHTTP` with the client's wait settings."""


class AsyncJobHTTP(_Waits, AsyncHTTP):
    """`AsyncHTTP` with the client's wait settings."""
