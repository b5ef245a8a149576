"""The HTTP layer of an SDK with jobs: the client's `WaitConfig` and its status-read cap.

`SyncJobHTTP` and `AsyncJobHTTP` are the plain HTTP twins with what every wait of one
client shares: the `WaitConfig` (also the requests' `Timing`) and the limiter that caps
status reads across all of them. Copies (`with_options`, raw and streaming views)
share both, unless `with_options(wait_config=...)` gives the copy its own.
"""

from __future__ import annotations

from typing import Any, TypeVar

from ..http.base import BaseHTTP
from ..http.layer import AsyncHTTP, SyncHTTP
from .ratelimit import RateLimiter, StatusLimiter
from .spec import WaitConfig

__all__ = ["AsyncJobHTTP", "SyncJobHTTP", "status_limiter"]

_J = TypeVar("_J", bound="_Waits")


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
        self._configure(config)

    def _configure(self, config: WaitConfig) -> None:
        self.timing = self.wait_config = config
        self.status_limiter = status_limiter(config)

    def copy(  # noqa: PYI019 - typing.Self is not in Python 3.9
        self: _J, *, wait_config: WaitConfig | None = None, **options: Any
    ) -> _J:
        """`BaseHTTP.copy`, whose waits use `wait_config` when given."""
        new = super().copy(**options)
        if wait_config is not None:
            new._configure(wait_config)
        return new


class SyncJobHTTP(_Waits, SyncHTTP):
    """`SyncHTTP` with the client's wait settings."""


class AsyncJobHTTP(_Waits, AsyncHTTP):
    """`AsyncHTTP` with the client's wait settings."""
