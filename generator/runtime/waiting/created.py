"""What a create answer says about the new job: its id, carried values, first answer.

The new job's id is read where the spec says (an operation-URL header, `id_path` in
the body, or the last path segment of `id_header`). The answer itself is the job's
first status answer (W7): when its body holds a record of the job -- at the record
path, in a state the job documents, decoding as the job's record -- a wait steps it
like any status answer (a terminal one ends the wait with no status read at all);
otherwise only its headers count, their hints (an Azure 202's `Retry-After`) saying
when the first status read is due.

A create of a job polled at an operation URL may answer without one, as Azure's
services do (azure-core's pollers): with `Location` alone, the job is polled there by
HTTP status (`202` running; `200`, `201`, `204` done: `Created.by_status`); with no
monitor header at all, a `200`, `201` or `204` is the job's end (azure-core's
`StatusCheckPolling`): success, unless the body's `provisioningState` says the job
failed or was canceled.

The create is part of its wait (W5): bounded by the wait's deadline, and a create the
deadline cuts short raises `JobTimeout` (`overrun`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator
from typing import Any, cast

import attrs
import httpx

from ..shared.errors import APITimeoutError, JobTimeout, MissingJobId, SDKError
from . import records
from .opurl import StatusRule, join_url
from .records import MISSING, Poll, dig, ensure_success, pointer
from .spec import JobSpec

__all__ = [
    "Created",
    "by_status_rules",
    "creating",
    "final_url_of",
    "first_answer",
    "job_id_of",
    "overrun",
    "read_created",
]

#: How close to its deadline a create's timeout must come to be the deadline's doing.
_SLACK = 0.05


@attrs.frozen
class Created:
    """A job just created: its id (as a wait takes it), its carried values, and the
    create answer as its first status answer (`first_answer`)."""

    job_id: str
    carried: dict[str, object]
    answer: Poll
    #: The create request's own URL, where a `final_from: original-uri` job's result is.
    final_url: str | None = None
    #: Whether the job's monitor, named by `Location` alone, is read by HTTP status
    #: (`by_status_rules`), as the answer chose.
    by_status: bool = False


#: The statuses of a create answer that is the job's end when it names no monitor.
_SYNCHRONOUS = frozenset({200, 201, 204})
#: The headers naming a status monitor other than `Location` (Azure's).
_NAMED = ("operation-location", "azure-asyncoperation")


def read_created(
    spec: JobSpec, response: httpx.Response, check: Callable[[object], None]
) -> Created:
    """The new job of a create response; `check` decodes a record (raising
    `SDKError` when it does not fit the job's record model)."""
    carried = spec.carried_from(response)
    final_url = final_url_of(spec, response)
    ensure_success(response)
    monitors = {
        h.lower() for h in spec.operation_url if response.headers.get(h, "").strip()
    }
    if spec.operation_url and not monitors and response.status_code in _SYNCHRONOUS:
        answer = _synchronous(spec, response)
        if answer is not None:
            if spec.final_from == "original-uri":
                final_url = str(response.request.url)
            return Created(str(response.request.url), carried, answer, final_url)
    job_id = job_id_of(spec, response)
    named = {h.lower() for h in spec.operation_url} & set(_NAMED)
    by_status = bool(named) and monitors == {"location"} and not spec.status_rules
    return Created(
        job_id,
        carried,
        first_answer(spec, job_id, response, check),
        final_url,
        by_status and bool(by_status_rules(spec)),
    )


def _first(states: frozenset[str], preferred: str) -> str | None:
    """`preferred` when it is one of `states` (any case), else the first in order."""
    for state in sorted(states):
        if state.lower() == preferred.lower():
            return state
    return min(states) if states else None


def by_status_rules(spec: JobSpec) -> tuple[StatusRule, ...]:
    """Status rules of a `Location` monitor: 202 running; 200, 201, 204 done."""
    running = _first(spec.pending, "Running")
    done = _first(spec.success, "Succeeded")
    if running is None or done is None:
        return ()
    return (
        StatusRule(state=running, status=frozenset({202})),
        StatusRule(state=done, status=_SYNCHRONOUS),
    )


def _synchronous(spec: JobSpec, response: httpx.Response) -> Poll | None:
    """A create answer naming no monitor, as the job's terminal answer: its state is
    the body's `provisioningState` where that says failed or canceled, else success
    (None when the job has no way to say either)."""
    body: object = None
    if response.content:
        try:
            body = response.json()
        except ValueError:
            body = None
    state = _first(spec.success, "Succeeded")
    said = _provisioning_state(body)
    if said is not None:
        for ended in (spec.failure, spec.canceled, spec.success):
            match = next((s for s in ended if s.lower() == said.lower()), None)
            if match is not None:
                state = match
                break
    if state is None or spec.state_path is None:
        return None
    record: dict[str, object] = {}
    node = record
    for key in spec.state_path[:-1]:
        child: dict[str, object] = {}
        node[key] = child
        node = child
    node[spec.state_path[-1]] = state
    if spec.error_path and isinstance(body, dict):
        document = cast("dict[str, object]", body)
        if isinstance(dig(document, spec.error_path), dict):
            record[spec.error_path[0]] = document[spec.error_path[0]]
    return Poll(record, response.headers, state=state)


def _provisioning_state(body: object) -> str | None:
    """A resource's `provisioningState`, if it has one."""
    if not isinstance(body, dict):
        return None
    state = cast("dict[str, object]", body).get("provisioningState")
    return state if isinstance(state, str) else None


def final_url_of(spec: JobSpec, response: httpx.Response) -> str | None:
    """Where the result of the job a create answered is fetched from, when the
    create says: the request's own URL (`original-uri`), or the answer's `Location`
    (`create-location`; None without one: the terminal record is the result)."""
    if spec.final_from == "original-uri":
        return str(response.request.url)
    location = response.headers.get("location", "").strip()
    if spec.final_from == "create-location" and location:
        return join_url(response.request.url, location)
    return None


def first_answer(
    spec: JobSpec,
    job_id: str,
    response: httpx.Response,
    check: Callable[[object], None],
) -> Poll:
    """The create answer as the job's first status answer: its record where its
    body holds one of the job, else its headers alone (a record of `MISSING`)."""
    headers = response.headers
    try:
        poll = records.parse(spec, job_id, response)
        records.classify(spec, job_id, poll.record)
        check(poll.record)
    except SDKError:
        return Poll(MISSING, headers)
    if spec.state_path is None and not isinstance(
        dig(poll.record, spec.terminal_path or ()), bool
    ):
        return Poll(MISSING, headers)
    location = headers.get("location")
    if location:
        location = join_url(response.request.url, location)
    return Poll(poll.record, headers, location=location)


def job_id_of(spec: JobSpec, response: httpx.Response) -> str:
    """The new job's id from a create response (`id_path` or `id_header`), or its
    operation URL; `MissingJobId` when there is none."""
    ensure_success(response)
    found: object = None
    where = "the spec declares neither id_path nor id_header"
    for header in spec.operation_url:
        url = response.headers.get(header, "").strip()
        if url:
            return join_url(response.request.url, url)
    if spec.operation_url:
        names = " or ".join(spec.operation_url)
        raise MissingJobId(f"the create response has no {names} header")
    if spec.id_path is not None:
        where = f"nothing at {pointer(spec.id_path)} of the create response"
        try:
            found = dig(response.json(), spec.id_path)
        except ValueError:
            where = "the create response body is not JSON"
        if spec.id_last_segment and isinstance(found, str):
            found = found.rstrip("/").rsplit("/", 1)[-1]
    if not _usable_id(found) and spec.id_header is not None:
        where = f"no usable {spec.id_header} header in the create response"
        url = response.headers.get(spec.id_header)
        if url:
            found = httpx.URL(url.strip()).path.rstrip("/").rsplit("/", 1)[-1]
    if isinstance(found, int) and not isinstance(found, bool):
        found = str(found)
    if not _usable_id(found):
        raise MissingJobId(f"cannot find the new {spec.name} job's id: {where}")
    return str(found)


def _usable_id(value: object) -> bool:
    return (isinstance(value, str) and bool(value.strip())) or (
        isinstance(value, int) and not isinstance(value, bool)
    )


def overrun(spec: JobSpec, elapsed: float, deadline: float) -> JobTimeout[Any] | None:
    """The `JobTimeout` of a create whose answer the deadline cut short, `elapsed`
    seconds into a wait of `deadline`; None when the create timed out sooner (the
    request's own timeout: an `APITimeoutError`, raised as it is). No answer named
    the job, which may exist: `job_id` and `resume_token` are empty."""
    if elapsed < deadline - _SLACK:
        return None
    error: JobTimeout[Any] = spec.timeout_error(
        "", elapsed=elapsed, deadline=deadline, resume_token=""
    )
    error.message = (
        f"the create of a {spec.name} job got no complete answer within the deadline"
        f" ({elapsed:.2f}s of {deadline:g}s): the job may exist, but no answer named it"
        " (a create without an idempotency key is never sent twice)"
    )
    error.args = (error.message,)
    return error


@contextlib.contextmanager
def creating(
    spec: JobSpec, clock: Callable[[], float], started: float, deadline: float | None
) -> Generator[None]:
    """Around a create bounded by a wait's `deadline` (W5): a timeout the deadline
    caused, `started` seconds on `clock` ago, raises `JobTimeout` (`overrun`)."""
    try:
        yield
    except APITimeoutError as error:
        elapsed = clock() - started
        timeout = None if deadline is None else overrun(spec, elapsed, deadline)
        if timeout is None:
            raise
        raise timeout from error
