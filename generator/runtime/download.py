"""Result downloads: streamed to a file whole or not at all, or fetched only once.

A result asked for in a file (`to_file`) is streamed there by `download`: chunk by
chunk into a temporary file beside it, renamed into place once the body is whole.
Results that can be downloaded only once are fetched by `fetch_once`: never sent a
second time once the server may have received the request (see its docstring).
"""

from __future__ import annotations

import tempfile
from collections.abc import Awaitable, Callable
from os import PathLike as _PathLike
from os import fdopen, fspath, replace, unlink
from os.path import abspath, dirname
from typing import IO, Union

import httpx

from .errors import APIConnectionError

__all__ = [
    "ONCE_ATTEMPTS",
    "Download",
    "PathLike",
    "async_download",
    "async_fetch_once",
    "download",
    "fetch_once",
    "never_sent",
    "no_file",
]

PathLike = Union[str, "_PathLike[str]"]

#: At most this many tries of a one-shot download, all but one refused connections.
ONCE_ATTEMPTS = 3


class Download:
    """A result body on its way to `path`: written chunk by chunk to a temporary
    file beside it (a `bounded.Sink`), renamed into place by `commit`, deleted by
    `discard`; the file at `path` is thus whole or untouched."""

    def __init__(self, path: PathLike) -> None:
        self.path = fspath(path)
        self._file: IO[bytes] | None = None
        self._temporary: str | None = None

    def start(self) -> None:
        """A body begins: the temporary file is created, or emptied for a retry."""
        if self._file is None:
            fd, self._temporary = tempfile.mkstemp(
                prefix=".download-", dir=dirname(abspath(self.path))
            )
            self._file = fdopen(fd, "wb")
        else:
            self._file.seek(0)
            self._file.truncate()

    def write(self, chunk: bytes) -> None:
        assert self._file is not None
        self._file.write(chunk)

    def commit(self) -> None:
        """Put the body written in place at `path` (an empty one if none began)."""
        if self._file is None:
            self.start()
        assert self._file is not None and self._temporary is not None
        self._file.close()
        replace(self._temporary, self.path)
        self._file = self._temporary = None

    def discard(self) -> None:
        """Delete what was written; `path` is left as it was."""
        if self._file is not None:
            self._file.close()
        if self._temporary is not None:
            try:
                unlink(self._temporary)
            except OSError:
                pass
        self._file = self._temporary = None


def _from_file(response: httpx.Response, path: str) -> httpx.Response:
    """The response again, its body read back from the file it was streamed to."""
    skip = {"content-encoding", "content-length", "transfer-encoding"}
    headers = [
        (k, v) for k, v in response.headers.multi_items() if k.lower() not in skip
    ]
    with open(path, "rb") as file:
        content = file.read()
    return httpx.Response(
        response.status_code,
        headers=headers,
        content=content,
        request=response.request,
        extensions={"http_version": response.http_version.encode()},
    )


def download(
    path: PathLike | None, send: Callable[[Download | None], httpx.Response]
) -> httpx.Response:
    """`send(sink)` a result request whose body goes to `path` (when one is given).

    The body is streamed to a temporary file (`Download`) and renamed into place
    only once it is whole: a failure, a deadline or a cut-off body leaves no file.
    Returns the response, its body then read back from the file for decoding.
    """
    if path is None:
        return send(None)
    sink = Download(path)
    try:
        response = send(sink)
        sink.commit()
    except BaseException:
        sink.discard()
        raise
    return _from_file(response, sink.path)


async def async_download(
    path: PathLike | None,
    send: Callable[[Download | None], Awaitable[httpx.Response]],
) -> httpx.Response:
    """The async twin of `download`."""
    if path is None:
        return await send(None)
    sink = Download(path)
    try:
        response = await send(sink)
        sink.commit()
    except BaseException:
        sink.discard()
        raise
    return _from_file(response, sink.path)


def no_file(to_file: PathLike | None) -> None:
    """Refuse `to_file` for a result that is neither bytes nor text."""
    if to_file is not None:
        raise TypeError("to_file= needs a result that is bytes or text")


def never_sent(error: BaseException) -> bool:
    """Whether a failed request certainly never reached the server.

    Only a connection that was never established qualifies (refused, unreachable,
    connect timeout, no free connection in the pool): not a byte of the request left.
    A reset, a read timeout or a closed keep-alive connection may come after the
    server received the request, and so may any HTTP answer, even a 5xx.
    """
    cause = error.__cause__ if isinstance(error, APIConnectionError) else error
    return isinstance(
        cause, (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
    )


def _pause(attempt: int, time_left: float) -> float | None:
    """The pause before retry `attempt` (1-based) of a one-shot fetch, or None."""
    pause = 0.1 * 2 ** (attempt - 1)
    return pause if attempt < ONCE_ATTEMPTS and pause < time_left else None


def fetch_once(
    send: Callable[[float], httpx.Response],
    time_left: float,
    clock: Callable[[], float],
    sleep: Callable[[float], None],
) -> httpx.Response:
    """Send a one-shot download (`send(time_left)`), at most once to the server.

    The server deletes such a result once it has served it, so a request it may have
    received is never sent again: only a connection that was never established is
    tried again (at most `ONCE_ATTEMPTS` tries, within `time_left`); any other
    failure, an HTTP error included, propagates at once.
    """
    end = clock() + time_left
    attempt = 0
    while True:
        attempt += 1
        try:
            return send(max(end - clock(), 0.0))
        except APIConnectionError as error:
            pause = _pause(attempt, end - clock()) if never_sent(error) else None
            if pause is None:
                raise
        sleep(pause)


async def async_fetch_once(
    send: Callable[[float], Awaitable[httpx.Response]],
    time_left: float,
    clock: Callable[[], float],
    sleep: Callable[[float], Awaitable[None]],
) -> httpx.Response:
    """The async twin of `fetch_once`."""
    end = clock() + time_left
    attempt = 0
    while True:
        attempt += 1
        try:
            return await send(max(end - clock(), 0.0))
        except APIConnectionError as error:
            pause = _pause(attempt, end - clock()) if never_sent(error) else None
            if pause is None:
                raise
        await sleep(pause)
