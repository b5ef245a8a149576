"""Values a job carries from its create response into every later call.

Some APIs key a job by more than its id: a document translation answers its upload
with a `document_id` and a `document_key`, and each status read, result download or
cancel must send the key back. A `JobSpec` lists such values as `CarriedValue`s; the
waiter reads them from the create response (`carried_from`), keeps them beside the
job id (in its handle and its resume token, which then hold them: keep a token as
secret as the values), and hands them to every call as keyword arguments, which the
generated code puts where the API wants them (`take`).

Results that can be downloaded only once are fetched by `fetch_once`: never sent a
second time once the server may have received the request (see its docstring).
"""

from __future__ import annotations

import tempfile
from collections.abc import Awaitable, Callable, Mapping
from os import PathLike as _PathLike
from os import fdopen, fspath, replace, unlink
from os.path import abspath, dirname
from typing import Optional, TypeVar, Union, cast

import attrs
import httpx

from .errors import APIConnectionError, MissingJobId

__all__ = [
    "ONCE_ATTEMPTS",
    "Carried",
    "CarriedValue",
    "PathLike",
    "async_fetch_once",
    "carried_from",
    "check_carried",
    "fetch_once",
    "never_sent",
    "take",
    "write_file",
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


def write_file(path: PathLike, data: bytes | str) -> None:
    """Write a result to `path` whole or not at all (a temporary file, then a rename)."""
    target = fspath(path)
    folder = dirname(abspath(target))
    fd, temporary = tempfile.mkstemp(prefix=".download-", dir=folder)
    try:
        with fdopen(fd, "wb") as file:
            file.write(data.encode() if isinstance(data, str) else data)
        replace(temporary, target)
    except BaseException:
        try:
            unlink(temporary)
        except OSError:
            pass
        raise


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
