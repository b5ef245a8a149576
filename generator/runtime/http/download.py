"""Result downloads: streamed to a file whole or not at all, or fetched only once.

A result asked for in a file (`to_file`) is streamed there by `download`: chunk by
chunk into a temporary file beside it, renamed into place once the body is whole.
The target is checked (`check_target`) and the temporary file created before any
request, so a bad path costs nothing; a file error once the body is arriving raises
`ResultFileError` (for a one-shot result: it is spent). A result asked for in memory
is refused past `MAX_RESULT_BYTES` (`ResponseTooLarge`, pointing at `to_file`), and so
is one read back from its file (the file then stays, whole); an `OnDisk` target is not
read back into memory at all.
Results that can be downloaded only once are fetched by `fetch_once`: never sent a
second time once the server may have received the request (see its docstring).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Awaitable, Callable
from os import PathLike as _PathLike
from os import fdopen, fspath, replace, unlink
from os.path import abspath, dirname, isdir
from pathlib import Path
from typing import IO, Union

import httpx

from ..shared.errors import APIConnectionError, ResponseTooLarge, ResultFileError

__all__ = [
    "MAX_RESULT_BYTES",
    "ONCE_ATTEMPTS",
    "Download",
    "Memory",
    "OnDisk",
    "Path",
    "PathLike",
    "async_download",
    "async_fetch_once",
    "check_target",
    "download",
    "fetch_once",
    "never_sent",
    "no_file",
    "on_disk",
]

PathLike = Union[str, "_PathLike[str]"]

#: At most this many tries of a one-shot download, all but one refused connections.
ONCE_ATTEMPTS = 3
#: The largest bytes or text result held in memory (without `to_file`), in bytes.
MAX_RESULT_BYTES = 256 * 1024 * 1024


class OnDisk(str):
    """A `to_file` path whose result stays on disk: the body is streamed there and
    not read back into memory (the call returns the path)."""

    __slots__ = ()


def on_disk(path: PathLike) -> OnDisk:
    """`path` as a target whose result is not read back into memory."""
    return OnDisk(fspath(path))


def check_target(path: PathLike | None) -> None:
    """Refuse a `to_file` that cannot be written (a directory, a folder that does
    not exist or is not writable) with `ResultFileError`, before any request."""
    if path is None:
        return
    target = fspath(path)
    folder = dirname(abspath(target))
    problem = None
    if isdir(target):
        problem = "is a directory"
    elif not isdir(folder):
        problem = f"is in a folder that does not exist ({folder})"
    elif not os.access(folder, os.W_OK | os.X_OK):
        problem = f"is in a folder this process cannot write to ({folder})"
    if problem is not None:
        raise ResultFileError(f"to_file {target!r} {problem}; nothing was fetched")


def _lost(path: str, error: OSError, once: bool) -> ResultFileError:
    """The error of a body that arrived but could not be written to `path`."""
    if once:
        fate = "the server serves it only once, so the result is spent"
    else:
        fate = "nothing was written; the result may be fetched again"
    reason = error.strerror or type(error).__name__
    lost = ResultFileError(
        f"the result could not be written to {path!r} ({reason}): {fate}"
    )
    lost.spent = once
    return lost


class Memory:
    """A result body held in memory (a `bounded.Sink`), refused past `limit` bytes."""

    def __init__(self, limit: int, once: bool) -> None:
        self.limit = limit
        self.once = once
        self.chunks: list[bytes] = []
        self.size = 0

    def start(self) -> None:
        self.chunks, self.size = [], 0

    def write(self, chunk: bytes) -> None:
        self.size += len(chunk)
        if self.size > self.limit:
            self.chunks = []
            spent = "; served only once, the result is now spent" if self.once else ""
            error = ResponseTooLarge(
                f"the result is larger than {self.limit} bytes, the most held in"
                f" memory: pass to_file= to stream it to a file{spent}"
            )
            error.limit = self.limit
            raise error
        self.chunks.append(chunk)


class Download:
    """A result body on its way to `path`: written chunk by chunk to a temporary
    file beside it (a `bounded.Sink`), renamed into place by `commit`, deleted by
    `discard`; the file at `path` is thus whole or untouched."""

    def __init__(self, path: PathLike) -> None:
        self.path = fspath(path)
        self._file: IO[bytes] | None = None
        self._temporary: str | None = None

    #: Whether a body began arriving (the server has sent the result).
    began = False

    def open(self) -> None:
        """Create the temporary file (before the request is sent)."""
        if self._file is None:
            fd, self._temporary = tempfile.mkstemp(
                prefix=".download-", dir=dirname(abspath(self.path))
            )
            self._file = fdopen(fd, "wb")

    def start(self) -> None:
        """A body begins: the temporary file is emptied (for a retry)."""
        self.began = True
        self.open()
        assert self._file is not None
        self._file.seek(0)
        self._file.truncate()

    def write(self, chunk: bytes) -> None:
        assert self._file is not None
        self._file.write(chunk)

    def commit(self) -> None:
        """Put the body written in place at `path` (an empty one if none began)."""
        self.began = True
        self.open()
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


def _with_body(response: httpx.Response, content: bytes) -> httpx.Response:
    """The response again, with `content` as its (decoded) body."""
    skip = {"content-encoding", "content-length", "transfer-encoding"}
    headers = [
        (k, v) for k, v in response.headers.multi_items() if k.lower() not in skip
    ]
    return httpx.Response(
        response.status_code,
        headers=headers,
        content=content,
        request=response.request,
        extensions={"http_version": response.http_version.encode()},
    )


def _from_file(
    response: httpx.Response, path: str, read: bool, limit: int
) -> httpx.Response:
    """The response again, its body read back from the file it was streamed to
    (left empty when not `read`), refused past `limit` bytes like a body held in
    memory: the file is then left whole where it is, and the error names it."""
    content = b""
    if read:
        with open(path, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            content = file.read(limit + 1) if size <= limit else b""
        if size > limit or len(content) > limit:
            error = ResponseTooLarge(
                f"the result was written to {path!r} ({size:,} bytes), larger than the"
                f" {limit:,} bytes held in memory: it is left there, and read_back=False"
                " returns its path without reading it back"
            )
            error.limit = limit
            raise error
    return _with_body(response, content)


def _prepared(path: PathLike) -> Download:
    """The sink of a download to `path`, its temporary file created."""
    check_target(path)
    sink = Download(path)
    try:
        sink.open()
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise ResultFileError(
            f"to_file {sink.path!r}: cannot create a file beside it ({reason});"
            " nothing was fetched"
        ) from None
    return sink


def _failed(sink: Download, error: BaseException, once: bool) -> BaseException:
    """What a failed download raises: a file error once the body was arriving
    becomes `ResultFileError` (the result spent when `once`)."""
    sink.discard()
    if isinstance(error, OSError) and sink.began:
        return _lost(sink.path, error, once)
    return error


def download(
    path: PathLike | None,
    send: Callable[[Download | Memory], httpx.Response],
    *,
    once: bool = False,
    limit: int | None = None,
) -> httpx.Response:
    """`send(sink)` a result request whose body goes to `path` (when one is given),
    else to memory, refused past `limit` bytes (default `MAX_RESULT_BYTES`) with
    `ResponseTooLarge`.

    The target is checked and the temporary file created before the request; the
    body is streamed to it (`Download`) and renamed into place only once it is
    whole: a failure, a deadline or a cut-off body leaves no file. Returns the
    response, its body then read back from the file for decoding (empty for an
    `OnDisk` path), refused past `limit` bytes too (the file is left whole). `once`: the server serves the result once (errors say so).
    """
    if path is None:
        memory = Memory(MAX_RESULT_BYTES if limit is None else limit, once)
        return _with_body(send(memory), b"".join(memory.chunks))
    sink = _prepared(path)
    try:
        response = send(sink)
        sink.commit()
    except BaseException as error:
        failure = _failed(sink, error, once)
        if failure is error:
            raise
        raise failure from error
    bound = MAX_RESULT_BYTES if limit is None else limit
    return _from_file(response, sink.path, not isinstance(path, OnDisk), bound)


async def async_download(
    path: PathLike | None,
    send: Callable[[Download | Memory], Awaitable[httpx.Response]],
    *,
    once: bool = False,
    limit: int | None = None,
) -> httpx.Response:
    """The async twin of `download`."""
    if path is None:
        memory = Memory(MAX_RESULT_BYTES if limit is None else limit, once)
        return _with_body(await send(memory), b"".join(memory.chunks))
    sink = _prepared(path)
    try:
        response = await send(sink)
        sink.commit()
    except BaseException as error:
        failure = _failed(sink, error, once)
        if failure is error:
            raise
        raise failure from error
    bound = MAX_RESULT_BYTES if limit is None else limit
    return _from_file(response, sink.path, not isinstance(path, OnDisk), bound)


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
