"""Request bodies read from files: what may be sent, and what is checked as it goes.

A path must name a regular file (after symbolic links): its size, taken before the
request, is the ``Content-Length``, so a device (``/dev/zero``), a FIFO, a directory or
a file whose size says nothing of its content (``/proc``, ``/sys``) is refused with
`UploadError` before anything is sent; a path is opened without blocking, so a FIFO put
in its place cannot hold the call. An open file object over a regular file goes from
where it stands, its length known. A file object that cannot seek (a pipe, a socket, a
stream of the caller's) is a stream without a length: sent chunked, once, never retried;
where it has a descriptor, each read waits for data at most the call's timeout. A file
that grows or shrinks while it is sent raises `UploadError`, naming the file, instead of
sending a body that contradicts its ``Content-Length``.
"""

from __future__ import annotations

import select
import stat
import sys
from collections.abc import AsyncIterator, Iterator
from os import O_RDONLY, SEEK_END, PathLike, fdopen, fspath, fstat
from os import open as open_fd
from os import stat as stat_path
from typing import IO, Union

from ..shared.errors import UploadError

if sys.platform != "win32":  # opening a FIFO for reading waits for a writer, unless
    from os import O_NONBLOCK as _NONBLOCK  # opened non-blocking
else:  # pragma: no cover - no FIFOs to open
    _NONBLOCK = 0

__all__ = [
    "CHUNK",
    "Source",
    "chunks",
    "chunks_async",
    "file_length",
    "part_file",
    "path_length",
]

#: Bytes read from a file at a time while it is sent.
CHUNK = 64 * 1024

Source = Union["PathLike[str]", IO[bytes]]

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _named(source: Source) -> str:
    if isinstance(source, PathLike):
        return repr(fspath(source))
    name = getattr(source, "name", None)
    return repr(name) if isinstance(name, (str, bytes)) else "the file object"


def _open(path: PathLike[str]) -> IO[bytes]:
    """`path` opened for reading, refused unless it is a regular file. Opened without
    blocking (a FIFO would wait for a writer) and checked on the descriptor itself."""
    try:
        kind = stat_path(path).st_mode
        if not stat.S_ISREG(kind):
            raise UploadError(
                f"cannot upload {_named(path)}: it is {_kind(kind)}, not a regular file;"
                " pass its bytes, or an open file object that cannot seek to stream it"
            )
        fd = open_fd(path, O_RDONLY | _NONBLOCK)
    except OSError as error:
        raise UploadError(
            f"cannot upload {_named(path)}: {error.strerror or error}"
        ) from None
    file = fdopen(fd, "rb")
    kind = fstat(fd).st_mode
    if not stat.S_ISREG(kind):
        file.close()
        raise UploadError(
            f"cannot upload {_named(path)}: it is {_kind(kind)}, not a regular file"
        )
    return file


def path_length(path: PathLike[str]) -> int:
    """The size of the regular file at `path`; anything else raises `UploadError`.

    A file that says it is empty is read: one that is not (``/proc``, ``/sys``) has no
    size to announce."""
    with _open(path) as file:
        size = fstat(file.fileno()).st_size
        if size == 0 and file.read(1):
            raise UploadError(
                f"cannot upload {_named(path)}: its size reads 0 but it has content"
                " (a /proc or /sys file); read it and pass the bytes"
            )
    return size


def file_length(file: IO[bytes], start: int) -> int | None:
    """The bytes a file object sends from `start` (where it stood): from its descriptor
    when it has one, which must be a regular file's; else by seeking to its end."""
    try:
        fd = file.fileno()
    except (AttributeError, OSError, ValueError):
        end = file.seek(0, SEEK_END)
        file.seek(start)
        return end - start
    info = fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise UploadError(
            f"cannot upload {_named(file)}: it is {_kind(info.st_mode)}, which can seek"
            " but has no length; pass a regular file or its bytes"
        )
    return max(info.st_size - start, 0)


def part_file(file: IO[bytes]) -> None:
    """Refuse, as a multipart file, a file object over a pipe, a socket or a device:
    httpx would announce the length its descriptor reports (0, or what is buffered)
    and send more. A regular file, or one without a descriptor, is streamed."""
    if _descriptor(file) is not None:
        kind = _kind(fstat(file.fileno()).st_mode)
        raise UploadError(
            f"cannot upload {_named(file)} as a multipart file: it is {kind}, whose"
            " length is unknown; read it and pass the bytes"
        )


def _read(file: IO[bytes], fd: int | None, wait: float | None) -> bytes:
    """The next chunk of a stream; with a descriptor, waiting at most `wait` for it."""
    if fd is not None and wait is not None:
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            raise UploadError(
                f"the upload from {_named(file)} gave no data for {wait:g}s"
                " (the call's timeout)"
            )
    read1 = getattr(file, "read1", None)
    chunk = read1(CHUNK) if fd is not None and read1 is not None else file.read(CHUNK)
    return chunk or b""


def _descriptor(file: IO[bytes]) -> int | None:
    """The descriptor of a stream that can block (a pipe, a socket), else None."""
    try:
        fd = file.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    return None if stat.S_ISREG(fstat(fd).st_mode) else fd


def _counted(
    parts: Iterator[bytes], source: Source, length: int | None
) -> Iterator[bytes]:
    """`parts`, checked against the `length` announced: a file that grows or shrinks
    while it is sent raises `UploadError` rather than contradict its Content-Length."""
    sent = 0
    for part in parts:
        sent += len(part)
        if length is not None and sent > length:
            raise UploadError(
                f"the upload from {_named(source)} grew while it was sent: more than"
                f" the {length:,} bytes announced"
            )
        yield part
    if length is not None and sent < length:
        raise UploadError(
            f"the upload from {_named(source)} shrank while it was sent: {sent:,} of"
            f" the {length:,} bytes announced"
        )


def _raw(source: Source, wait: float | None) -> Iterator[bytes]:
    if isinstance(source, PathLike):
        with _open(source) as file:
            yield from _raw(file, None)
        return
    fd = _descriptor(source)
    while chunk := _read(source, fd, wait if fd is not None else None):
        yield chunk


def chunks(source: Source, length: int | None, wait: float | None) -> Iterator[bytes]:
    """The body of an upload from `source`, chunk by chunk; `wait`: how long a stream
    with a descriptor may give no data."""
    return _counted(_raw(source, wait), source, length)


async def chunks_async(
    source: Source, length: int | None, wait: float | None
) -> AsyncIterator[bytes]:
    """The async twin of `chunks`: a stream with a descriptor is read on a worker
    thread, so a read waiting for data never holds the event loop."""
    import asyncio

    parts = chunks(source, length, wait)
    blocking = not isinstance(source, PathLike) and _descriptor(source) is not None
    while True:
        if blocking:
            part = await asyncio.to_thread(next, parts, None)
        else:
            part = next(parts, None)
        if part is None:
            return
        yield part
