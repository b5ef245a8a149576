"""A job's status read, built once per wait and sent on each of its polls.

The request of a status read is the same on every poll of one wait: URL, headers,
credentials. `SyncStatusRead` / `AsyncStatusRead` build it on the first read and send
that request again on the next ones, with only its timeout renewed (each read is
bounded as a whole by the time left, see `bounded`). The request is built anew for
every read when it could go stale: a credential whose value a provider gives
(a token that refreshes) or cookies the client holds (the server may change them).
A status read follows no redirect: a 3xx is the job's answer, for the status rules.
"""

from __future__ import annotations

import functools

import httpx

from .bounded import send_within, send_within_async
from .credentials import ask_providers
from .http import AsyncHTTP, SyncHTTP
from .http import _transport_error as transport_error
from .opurl import status_redirects
from .wire import RequestOptions

__all__ = ["AsyncStatusRead", "SyncStatusRead"]


class _StatusRead:
    __slots__ = (
        "_bound",
        "_fresh",
        "_options",
        "_redirects",
        "_request",
        "_timeouts",
        "_top",
    )

    def __init__(self, http: SyncHTTP | AsyncHTTP, options: RequestOptions) -> None:
        self._options = options
        self._redirects = status_redirects(options)
        #: Whether every read needs a request of its own (a provider's credential).
        self._fresh = any(c.scheme in options.security for c in http._providers)
        self._request: httpx.Request | None = None
        #: The timeout of a read with less time left than the request's own timeouts.
        self._bound = functools.partial(http.timeout_within, options.timeout)
        #: The request's own timeouts, used while the time left is longer than each.
        self._timeouts = httpx.Timeout(self._bound(None)).as_dict()
        known = [t for t in self._timeouts.values() if t is not None]
        self._top = max(known) if len(known) == len(self._timeouts) else float("inf")

    def _reused(self, cookies: httpx.Cookies, time_left: float) -> httpx.Request | None:
        """The request built before, its timeout renewed, if it may be sent again."""
        request = self._request
        if request is None or cookies:
            return None
        if time_left >= self._top:
            request.extensions["timeout"] = self._timeouts
        else:
            request.extensions["timeout"] = httpx.Timeout(
                self._bound(time_left)
            ).as_dict()
        return request

    def _keep(self, request: httpx.Request) -> httpx.Request:
        if not self._fresh:
            self._request = request
        return request


class SyncStatusRead(_StatusRead):
    """One wait's status read through a `SyncHTTP`: ``read(timeout)`` sends it once,
    bounded as a whole by ``timeout`` (the wait's time left)."""

    __slots__ = ("_http",)

    def __init__(self, http: SyncHTTP, options: RequestOptions) -> None:
        super().__init__(http, options)
        self._http = http

    def __call__(self, timeout: float) -> httpx.Response:
        http, options, client = self._http, self._options, self._http._client
        request = self._reused(client.cookies, timeout)
        if request is None:
            request = self._keep(http.build_request(client, options, timeout))
        try:
            response = send_within(client, request, max(timeout, 0.0))
        except httpx.TransportError as exc:
            raise transport_error(exc, request) from exc
        return http.check(response, self._redirects)


class AsyncStatusRead(_StatusRead):
    """The async twin of `SyncStatusRead`."""

    __slots__ = ("_http",)

    def __init__(self, http: AsyncHTTP, options: RequestOptions) -> None:
        super().__init__(http, options)
        self._http = http

    async def __call__(self, timeout: float) -> httpx.Response:
        http, options, client = self._http, self._options, self._http._client
        request = self._reused(client.cookies, timeout)
        if request is None:
            resolved = None
            if self._fresh:
                resolved = await ask_providers(http._providers, options.security)
            built = http.build_request(client, options, timeout, resolved)
            request = self._keep(built)
        try:
            response = await send_within_async(
                client, request, max(timeout, 0.0), http._gate
            )
        except httpx.TransportError as exc:
            raise transport_error(exc, request) from exc
        return http.check(response, self._redirects)
