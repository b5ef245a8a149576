"""A job's status read, built once per wait and sent on each of its polls.

The request of a status read is the same on every poll of one wait: URL, headers,
credentials. `SyncStatusRead` / `AsyncStatusRead` prepare it once (`BaseHTTP.prepare`)
and send it on each read (`send_prepared`): built on the first read, sent again on
the next ones with only its timeout renewed (each read is bounded as a whole by the
time left, see `bounded`), and built anew for every read when it could go stale
(a credential a provider gives, cookies the client holds). A status read follows no
redirect: a 3xx is the job's answer, for the status rules.
"""

from __future__ import annotations

from collections.abc import Awaitable

import httpx

from ..http.base import PreparedRequest
from ..http.layer import AsyncHTTP, SyncHTTP
from ..wire.encoding import RequestOptions
from .opurl import status_redirects

__all__ = ["AsyncStatusRead", "SyncStatusRead"]


class SyncStatusRead:
    """One wait's status read through a `SyncHTTP`: ``read(timeout)`` sends it once,
    bounded as a whole by ``timeout`` (the wait's time left)."""

    __slots__ = ("_http", "_prepared")

    def __init__(self, http: SyncHTTP, options: RequestOptions) -> None:
        self._http = http
        self._prepared: PreparedRequest = http.prepare(
            options, status_redirects(options)
        )

    def __call__(self, timeout: float) -> httpx.Response:
        return self._http.send_prepared(self._prepared, timeout)


class AsyncStatusRead:
    """The async twin of `SyncStatusRead`."""

    __slots__ = ("_http", "_prepared")

    def __init__(self, http: AsyncHTTP, options: RequestOptions) -> None:
        self._http = http
        self._prepared: PreparedRequest = http.prepare(
            options, status_redirects(options)
        )

    def __call__(self, timeout: float) -> Awaitable[httpx.Response]:
        # The coroutine of `send_prepared` itself: no coroutine of its own per read.
        return self._http.send_prepared(self._prepared, timeout)
