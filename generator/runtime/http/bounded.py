"""Requests bounded as a whole: pool wait, connect, headers and every byte of the body.

httpx bounds each phase of a request (pool, connect, each read, each write) but not
the whole: a server that trickles its body a byte at a time never trips a read
timeout, and a request queued behind a busy connection pool waits its pool timeout
before its other timeouts even start. A wait's deadline must bound all of it, so
the requests a wait sends go through `send_within` / `send_within_async`, which
give up after the time left and raise `APITimeoutError`. Given a `Sink`, a
successful response's body goes to it chunk by chunk instead of into memory, within
the same bound.
"""

from __future__ import annotations

import contextvars
import socket
import sys
import threading
from typing import TYPE_CHECKING, Any, Protocol

import httpx

from ..shared.errors import APITimeoutError

if TYPE_CHECKING:  # asyncio loads with the first async request, not on import
    import asyncio

__all__ = [
    "POOL_LIMITS",
    "Gate",
    "Sink",
    "drain",
    "drain_async",
    "send_within",
    "send_within_async",
    "where",
]

#: The connection pool of the clients an SDK creates: every connection may stay open
#: between polls (httpx keeps 20 of its 100), so a crowd of waits does not reconnect.
POOL_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=100)


def where(request: httpx.Request) -> str:
    """``METHOD URL`` of a request for messages: no query string, no credentials."""
    return f"{request.method} {request.url.copy_with(query=None, userinfo=b'')}"


class Sink(Protocol):
    """Where a successful response's body goes, chunk by chunk, instead of memory."""

    def start(self) -> None:
        """A body begins: whatever an earlier one wrote is dropped."""

    def write(self, chunk: bytes) -> None:
        """The next chunk of the body."""


def drain(response: httpx.Response, sink: Sink | None) -> None:
    """Read a streamed response's body: into `sink` when it is a success and one is
    given (then the response is closed and its `content` unread), else into memory."""
    if sink is None or not response.is_success:
        response.read()
        return
    try:
        sink.start()
        for chunk in response.iter_bytes():
            sink.write(chunk)
    finally:
        response.close()


async def drain_async(response: httpx.Response, sink: Sink | None) -> None:
    """The async twin of `drain`."""
    if sink is None or not response.is_success:
        await response.aread()
        return
    try:
        sink.start()
        async for chunk in response.aiter_bytes():
            sink.write(chunk)
    finally:
        await response.aclose()


def _overrun(request: httpx.Request, seconds: float) -> APITimeoutError:
    return APITimeoutError(
        f"{where(request)}: no complete response within the {seconds:.2f}s left",
        request=request,
    )


def _abort(response: httpx.Response) -> None:
    """Shut the response's socket, waking a thread blocked reading it."""
    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if isinstance(sock, socket.socket):
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class _Flight:
    """One request, headers and body, sent on a thread of its own.

    httpx bounds each phase of a request (pool, connect, each read) but not the
    whole: a body trickled a byte at a time never trips a read timeout. The caller
    waits for the flight at most ``seconds`` and then abandons it; an abandoned
    flight's socket is shut, so the thread ends at once (or, before the headers are
    in, at its next phase timeout) and its connection is not reused. Its sink is not
    written once the flight is abandoned.
    """

    __slots__ = ("_abandoned", "_done", "_error", "_lock", "_response", "_sink")

    def __init__(self, sink: Sink | None = None) -> None:
        self._sink = sink
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._abandoned = False
        self._response: httpx.Response | None = None
        self._error: BaseException | None = None

    def send(
        self, client: httpx.Client, request: httpx.Request, seconds: float
    ) -> httpx.Response:
        context = contextvars.copy_context()
        thread = threading.Thread(
            target=context.run,
            args=(self._run, client, request),
            name="jobgen-request",
            daemon=True,
        )
        thread.start()
        try:
            finished = self._done.wait(seconds)
        finally:
            if not self._done.is_set():
                self._abandon()
        if not finished:
            raise _overrun(request, seconds)
        if self._error is not None:
            raise self._error
        assert self._response is not None
        return self._response

    def _run(self, client: httpx.Client, request: httpx.Request) -> None:
        try:
            response = client.send(request, stream=True, follow_redirects=False)
            with self._lock:
                self._response = response
                abandoned = self._abandoned
            if abandoned:
                response.close()
                return
            try:
                drain(response, self if self._sink is not None else None)
            except BaseException:
                response.close()
                raise
        except BaseException as error:  # noqa: BLE001 - handed to the caller
            self._error = error
        finally:
            self._done.set()

    def start(self) -> None:
        self._to_sink(None)

    def write(self, chunk: bytes) -> None:
        self._to_sink(chunk)

    def _to_sink(self, chunk: bytes | None) -> None:
        with self._lock:
            if self._abandoned:
                # the caller has given up (and raised); stop the body here
                raise APITimeoutError("the request was given up on at the deadline")
            assert self._sink is not None
            if chunk is None:
                self._sink.start()
            else:
                self._sink.write(chunk)

    def _abandon(self) -> None:
        with self._lock:
            self._abandoned = True
            response = self._response
        if response is not None:
            _abort(response)


class Gate:
    """Admits at most `size` bounded requests of one async client at a time.

    httpcore's pool rescans every queued request against every connection each time
    a request comes or goes: ten thousand requests queued in it cost seconds of CPU
    per second and starve the event loop (waits overran a 20 s deadline by 15 s). The
    queue is kept here instead, in a semaphore sized like the pool, and waiting in it
    counts against the request's time left. One semaphore per event loop.
    """

    def __init__(self, size: int = POOL_LIMITS.max_connections or 100) -> None:
        self.size = size
        self._loop: asyncio.AbstractEventLoop | None = None
        self._semaphore: asyncio.Semaphore | None = None

    def semaphore(self) -> asyncio.Semaphore:
        import asyncio

        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._loop is not loop:
            self._loop, self._semaphore = loop, asyncio.Semaphore(self.size)
        return self._semaphore


async def _fetch(
    client: httpx.AsyncClient,
    request: httpx.Request,
    gate: Gate | None,
    sink: Sink | None,
) -> httpx.Response:
    # One coroutine frame, not one per step: every resumption of a waiting request
    # re-enters each frame of its chain.
    semaphore = gate.semaphore() if gate is not None else None
    if semaphore is not None:
        await semaphore.acquire()
    try:
        response = await client.send(request, stream=True, follow_redirects=False)
        try:
            if sink is None:
                await response.aread()
            else:
                await drain_async(response, sink)
        except BaseException:
            await response.aclose()
            raise
        return response
    finally:
        if semaphore is not None:
            semaphore.release()


#: Whether ``asyncio.timeout`` (Python 3.11+) bounds the request: a deadline on the
#: running task, no extra task.
_timeout = sys.version_info >= (3, 11)


async def send_within_async(
    client: httpx.AsyncClient,
    request: httpx.Request,
    seconds: float,
    gate: Gate | None = None,
    sink: Sink | None = None,
) -> httpx.Response:
    """Send ``request`` and read its body (into ``sink``, see `drain`), giving up
    after ``seconds``.

    On Python 3.11+ with `asyncio.timeout`. Before, the request runs as a task of its
    own, awaited with `asyncio.wait`, which (unlike `asyncio.wait_for` there) never
    swallows the caller's cancellation; a request given up on, or whose caller is
    cancelled, is cancelled and awaited.
    """
    import asyncio

    if _timeout:
        timeout: Any = getattr(asyncio, "timeout")  # noqa: B009 (absent before 3.11)
        try:
            async with timeout(seconds):
                return await _fetch(client, request, gate, sink)
        except TimeoutError:
            raise _overrun(request, seconds) from None
    flight = asyncio.ensure_future(_fetch(client, request, gate, sink))
    try:
        await asyncio.wait((flight,), timeout=seconds)
    finally:
        if not flight.done():
            flight.cancel()
            await asyncio.wait((flight,))
    if flight.cancelled():
        raise _overrun(request, seconds)
    return flight.result()


def send_within(
    client: httpx.Client,
    request: httpx.Request,
    seconds: float,
    sink: Sink | None = None,
) -> httpx.Response:
    """Send ``request`` and read its body (into ``sink``, see `drain`), giving up
    after ``seconds``."""
    return _Flight(sink).send(client, request, seconds)
