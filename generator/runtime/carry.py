"""Values a job carries from its create response into every later call.

Some APIs key a job by more than its id: a document translation answers its upload
with a `document_id` and a `document_key`, and each status read, result download or
cancel must send the key back. A `JobSpec` lists such values as `CarriedValue`s; the
waiter reads them from the create response (`carried_from`), keeps them beside the
job id (in its handle and its resume token, which then hold them: keep a token as
secret as the values), and hands them to every call as keyword arguments, which the
generated code puts where the API wants them (`take`).

Results that can be downloaded only once are fetched by `fetch_once`: never sent a
second time once the server may have received the request (see its docstring). A
result asked for in a file (`to_file`) is streamed there by `download`: chunk by
chunk into a temporary file beside it, renamed into place once the body is whole.
"""

from __future__ import annotations

import tempfile
from collections.abc import Awaitable, Callable, Mapping
from os import PathLike as _PathLike
from os import fdopen, fspath, replace, unlink
from os.path import abspath, dirname
from typing import IO, Optional, TypeVar, Union, cast

import attrs
import httpx

from .errors import APIConnectionError, MissingJobId

__all__ = [
    "ONCE_ATTEMPTS",
    "Carried",
    "CarriedValue",
    "Download",
    "PathLike",
    "async_download",
    "async_fetch_once",
    "carried_from",
    "check_carried",
    "download",
    "fetch_once",
    "never_sent",
    "no_file",
    "take",
]

T = TypeVar("T")
PathLike = Union[str, "_PathLike[str]"]
#: Carried values as a wait or a handle takes them: by name, or none.
Carried = Optional[Mapping[str, object]]

#: At most this many tries of a one-shot download, all but one refused connections.
ONCE_ATTEMPTS = 3


@attrs.frozen
class CarriedValue:
    """One value read from create's response: at `path` in its JSON body, or in the
    `header` of that name; `kind` is its type (str, int, float or bool)."""

    name: str
    path: tuple[str, ...] | None = None
    header: str | None = None
    kind: type = str


def _dig(value: object, path: tuple[str, ...]) -> object:
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def _fits(value: object, kind: type) -> bool:
    if isinstance(value, bool) or kind is bool:
        return isinstance(value, bool) and kind is bool
    if kind is float:
        return isinstance(value, (int, float))
    return isinstance(value, kind)


def carried_from(
    specs: tuple[CarriedValue, ...], response: httpx.Response, job: str
) -> dict[str, object]:
    """The carried values of a create response; MissingJobId names one it lacks."""
    if not specs:
        return {}
    try:
        body: object = response.json() if any(s.path for s in specs) else None
    except ValueError:
        body = None
    out: dict[str, object] = {}
    for spec in specs:
        if spec.header is not None:
            value: object = response.headers.get(spec.header)
            where = f"no {spec.header} header"
        else:
            value = _dig(body, spec.path or ())
            where = "nothing at /" + "/".join(spec.path or ())
        if isinstance(value, str) and spec.kind is not str:
            value = _parse(value, spec.kind)
        if value is None or not _fits(value, spec.kind):
            raise MissingJobId(
                f"cannot find the new {job} job's {spec.name}: {where} in the create"
                " response (every later call of the job needs it)"
            )
        out[spec.name] = value
    return out


def _parse(text: str, kind: type) -> object:
    try:
        if kind is bool:
            return {"true": True, "false": False}.get(text.strip().lower())
        return kind(text.strip())
    except ValueError:
        return None


def check_carried(
    specs: tuple[CarriedValue, ...], given: Mapping[str, object] | None
) -> dict[str, object]:
    """`given` checked against the job's carried values: all there, typed, no others."""
    given = dict(given or {})
    names = {spec.name for spec in specs}
    unknown = sorted(set(given) - names)
    if unknown:
        raise ValueError(
            f"unexpected carried value {unknown[0]!r}"
            + (f": this job carries {', '.join(sorted(names))}" if names else "")
        )
    for spec in specs:
        if given.get(spec.name) is None:
            raise ValueError(
                f"{spec.name} is required: every call of this job sends it"
                " (create's response holds it; a job handle and a resume token keep it)"
            )
        if not _fits(given[spec.name], spec.kind):
            raise ValueError(
                f"{spec.name} must be a {spec.kind.__name__},"
                f" got {type(given[spec.name]).__name__}"
            )
    return given


def take(carried: Mapping[str, object], name: str, kind: type[T]) -> T:
    """The carried value `name`, of type `kind` (generated calls put it in place)."""
    value = carried.get(name)
    if value is None or not _fits(value, kind):
        raise ValueError(f"{name} is required: every call of this job sends it")
    return cast(T, float(value) if kind is float else value)  # type: ignore[arg-type]


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
