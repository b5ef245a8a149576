"""The plain data the waiter works from: job specs, wait configuration, poll events.

Generated code builds one `JobSpec` per job type from the spec's `x-jobgen` extension;
callers tune a wait with `WaitConfig` and observe it through `PollEvent`s.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Generic, Optional, Protocol, TypeVar

import attrs

from ..http.retry import RetryPolicy
from ..http.retry_after import DELAY_FORMATS
from ..shared.errors import JobCanceled, JobFailed, JobStalled, JobTimeout, SDKError
from ..shared.shown import display_id
from ..shared.timing import Timing
from ..wire.serde import Drift
from .opurl import StatusRule
from .ratelimit import StatusLimiter

if TYPE_CHECKING:
    import httpx

__all__ = [
    "DEFAULT_STATUS_RETRY",
    "Carried",
    "Carries",
    "HeaderHint",
    "JobOutcome",
    "JobSpec",
    "PollEvent",
    "StatusRule",
    "WaitConfig",
]

RecordT = TypeVar("RecordT")

#: Carried values as a wait or a handle takes them: by name, or none.
Carried = Optional[Mapping[str, object]]


class Carries(Protocol):
    """The values a job carries from its create response into every later call, as
    the waits use them (`carry.Carry`, given by the code of a job that declares some)."""

    def check(self, given: Carried) -> dict[str, object]:
        """`given` checked: every value there and typed, no others."""
        ...

    def read(self, response: httpx.Response, job: str) -> dict[str, object]:
        """The values of a create response (MissingJobId names one it lacks)."""
        ...

    def from_record(
        self, record: object, job_id: str, *, failed: bool = False
    ) -> dict[str, object] | None:
        """The values a terminal record holds for the result fetch (MissingJobId
        names one a succeeded record lacks); with `failed`, those of the failure
        download (None when there is none or the record lacks one)."""


def _format(_: object, attribute: attrs.Attribute[str], value: str) -> None:
    if value not in DELAY_FORMATS:
        raise ValueError(
            f"{attribute.name} must be one of {sorted(DELAY_FORMATS)}, got {value!r}"
        )


@attrs.frozen
class HeaderHint:
    """A response header carrying a poll hint, in `format` retry-after|seconds|milliseconds."""

    name: str
    format: str = attrs.field(default="retry-after", validator=_format)


def _seconds(_: object, attribute: attrs.Attribute[float], value: float) -> None:
    if not (value >= 0 and math.isfinite(value)):
        raise ValueError(
            f"{attribute.name} must be a non-negative number, got {value!r}"
        )


def _optional_seconds(
    _: object, attribute: attrs.Attribute[float | None], value: float | None
) -> None:
    if value is not None:
        _seconds(_, attribute, value)  # type: ignore[arg-type]


def _path(value: Iterable[str]) -> tuple[str, ...]:
    if isinstance(value, str):
        raise TypeError(
            f"a path is a sequence of keys, like ('data', 'status'); got {value!r}"
        )
    return tuple(value)


def _optional_path(value: Iterable[str] | None) -> tuple[str, ...] | None:
    return None if value is None else _path(value)


def _states(value: Iterable[str]) -> frozenset[str]:
    if isinstance(value, str):
        raise TypeError(f"states are a collection of names; got the string {value!r}")
    return frozenset(value)


def _hints(value: Iterable[HeaderHint]) -> tuple[HeaderHint, ...]:
    return tuple(value)


def _rules(value: Iterable[StatusRule]) -> tuple[StatusRule, ...]:
    return tuple(value)


def _final_from(_: object, attribute: attrs.Attribute[str], value: str) -> None:
    if value not in (
        "result",
        "location",
        "record",
        "original-uri",
        "create-location",
    ):
        raise ValueError(
            f"{attribute.name} must be result, location or record, got {value!r}"
        )


def _final_name(value: str) -> str:
    """`final_from` by its current name ("operation-url" is the older "record")."""
    return "record" if value == "operation-url" else value


@attrs.frozen(kw_only=True)
class JobSpec:
    """What the waiter knows about one job type.

    Paths are tuples of keys (digit strings index lists): `record_path` leads from the
    status body to the record (`()` is the body itself); every other path is inside the
    record, except `id_path`, which points into the create response body. `hint_scale`
    converts the body hint to seconds (0.001 for milliseconds). `id_header` names a
    create-response header holding a URL whose last path segment is the job id.
    Progress is a percentage at `progress_path`, or `progress_done_path` out of
    `progress_total_path`; `stall_after` (seconds without a change of state or
    progress) makes a wait raise `JobStalled`.
    `carry` holds the values of the create response that every later call of the job
    sends (a `carry.Carry`; None when there are none); `result_once` marks a result the server serves only once.
    `header_hints` defaults to `Retry-After` alone; pass `()` to ignore every header.
    A job that fails raises `failed_error`, one canceled `canceled_error` (the job's
    own subclasses), whose `error` is the JSON at `error_path` decoded by
    `decode_error(value, path)` (the job's error model; kept as JSON without one).
    `operation_url` names the create-response headers (first present wins) holding
    the absolute URL the job is polled at; `status_rules` give status answers a
    state by HTTP status or body value (see `opurl`); `final_from` is where
    `wait_for_result` gets the result: "result" (the result operation, by job id),
    "location" (the `Location` of the terminal status answer) or "record" (the
    terminal record itself; "operation-url" is its older name); with "record",
    `result_path` names the record's member that is the result (an Azure status
    monitor's `analyzeResult`), decoded by `decode_result(value, path)`, and a
    succeeded record without it is not ready yet.
    """

    name: str
    record_path: tuple[str, ...] = attrs.field(default=(), converter=_path)
    state_path: tuple[str, ...] | None = attrs.field(
        default=None, converter=_optional_path
    )
    success: frozenset[str] = attrs.field(default=frozenset(), converter=_states)
    failure: frozenset[str] = attrs.field(default=frozenset(), converter=_states)
    canceled: frozenset[str] = attrs.field(default=frozenset(), converter=_states)
    pending: frozenset[str] = attrs.field(default=frozenset(), converter=_states)
    terminal_path: tuple[str, ...] | None = attrs.field(
        default=None, converter=_optional_path
    )
    ready_path: tuple[str, ...] | None = attrs.field(
        default=None, converter=_optional_path
    )
    error_path: tuple[str, ...] | None = attrs.field(
        default=None, converter=_optional_path
    )
    hint_path: tuple[str, ...] | None = attrs.field(
        default=None, converter=_optional_path
    )
    hint_scale: float = attrs.field(default=1.0, validator=_seconds)
    header_hints: tuple[HeaderHint, ...] = attrs.field(
        default=(HeaderHint("Retry-After", "retry-after"),), converter=_hints
    )
    floor: float = attrs.field(default=0.0, validator=_seconds)
    first: float = attrs.field(default=1.0, validator=_seconds)
    cap: float = attrs.field(default=30.0, validator=_seconds)
    id_path: tuple[str, ...] | None = attrs.field(
        default=None, converter=_optional_path
    )
    id_header: str | None = None
    #: The id is the last `/`-separated segment of the value at `id_path`
    #: (an AIP-151 Operation's name `operations/123` -> `123`).
    id_last_segment: bool = False
    idempotency_header: str | None = None
    progress_path: tuple[str, ...] | None = attrs.field(
        default=None, converter=_optional_path
    )
    progress_done_path: tuple[str, ...] | None = attrs.field(
        default=None, converter=_optional_path
    )
    progress_total_path: tuple[str, ...] | None = attrs.field(
        default=None, converter=_optional_path
    )
    stall_after: float | None = attrs.field(default=None, validator=_optional_seconds)
    carry: Carries | None = None
    result_once: bool = False
    failed_error: type[JobFailed[Any, Any]] = JobFailed
    canceled_error: type[JobCanceled[Any, Any]] = JobCanceled
    timeout_error: type[JobTimeout[Any]] = JobTimeout
    stalled_error: type[JobStalled[Any]] = JobStalled
    decode_error: Callable[[Any, str], object] | None = None
    result_path: tuple[str, ...] | None = attrs.field(
        default=None, converter=_optional_path
    )
    decode_result: Callable[[Any, str], object] | None = None
    operation_url: tuple[str, ...] = attrs.field(default=(), converter=_path)
    status_rules: tuple[StatusRule, ...] = attrs.field(default=(), converter=_rules)
    final_from: str = attrs.field(
        default="result", converter=_final_name, validator=_final_from
    )
    #: States compared without regard to case (Azure's `Succeeded` / `succeeded`).
    ignore_case: bool = False
    #: The outcome of each terminal state ("success", "failure" or "canceled").
    outcome_of: Mapping[str, str] = attrs.field(init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        if self.state_path is None and self.terminal_path is None:
            raise ValueError(
                f"job {self.name!r}: needs a state_path or a terminal_path"
            )
        groups = (self.success, self.failure, self.canceled, self.pending)
        seen: set[str] = set()
        for group in groups:
            twice = seen & group
            if twice:
                raise ValueError(
                    f"job {self.name!r}: states classified twice: {sorted(twice)}"
                )
            seen |= group
        outcome_of = dict.fromkeys(self.success, "success")
        outcome_of.update(dict.fromkeys(self.failure, "failure"))
        outcome_of.update(dict.fromkeys(self.canceled, "canceled"))
        object.__setattr__(self, "outcome_of", outcome_of)

    def documented(self, state: str) -> str:
        """`state` as the spec writes it: itself, or with `ignore_case` the documented
        state it equals without regard to case (itself when none does)."""
        if not self.ignore_case or state in self.documented_states:
            return state
        folded = state.casefold()
        for known in sorted(self.documented_states):
            if known.casefold() == folded:
                return known
        return state

    @property
    def documented_states(self) -> frozenset[str]:
        """Every state the API documents for this job."""
        return self.success | self.failure | self.canceled | self.pending

    def carried(self, given: Carried) -> dict[str, object]:
        """`given` checked against the values the job carries (without `carry`, none)."""
        if self.carry is not None:
            return self.carry.check(given)
        if given:
            name = min(given)
            raise ValueError(
                f"unexpected carried value {name!r}: this job carries none"
            )
        return {}

    def carried_from(self, response: httpx.Response) -> dict[str, object]:
        """The carried values of a create response (none without `carry`)."""
        return {} if self.carry is None else self.carry.read(response, self.name)


#: The status read's own retry budget, apart from the job deadline.
DEFAULT_STATUS_RETRY = RetryPolicy(attempts=5, budget=60.0)


def _decoding(_: object, attribute: attrs.Attribute[str], value: str) -> None:
    if value not in ("tolerant", "strict", "lenient"):
        raise ValueError(
            f"{attribute.name} must be 'tolerant', 'strict' or 'lenient', got {value!r}"
        )


@attrs.frozen(kw_only=True)
class WaitConfig(Timing):
    """How waits run: schedule overrides, status retries, clocks and hooks (a `Timing`
    with the waits' settings added).

    `first`, `floor` and `cap` override the spec's when set. `clock` is monotonic and
    measures deadlines; `wall_clock` (epoch seconds) reads HTTP-dates and resume tokens.
    `sleep`, `async_sleep` and `rng` are injectable so a test can pin an exact schedule;
    an injected `sleep` paces async waits too, unless `async_sleep` is given.
    `max_status_reads_per_second` caps status reads across every wait of the client;
    `status_limiter` replaces that cap with one of your own (a `StatusLimiter`, such
    as `fleet.limit.RedisRateLimiter`, shared by every process of a fleet). `decoding` is how the
    client decodes every answer, the records and results of waits included: "tolerant"
    (the default) reads a value off the spec the nearest type-sound way (an optional
    field that does not match is absent; each such drift is logged once per field and
    given on the poll event); "strict" raises (`RecordDecodeError` in a wait, carrying
    the raw record), for contract tests; "lenient" keeps such values as received.
    `cancel_on_timeout` (off by default) sends the job's declared cancel operation
    when a wait raises `JobTimeout` (its `canceled` then says whether it was sent).
    """

    first: float | None = attrs.field(default=None, validator=_optional_seconds)
    floor: float | None = attrs.field(default=None, validator=_optional_seconds)
    cap: float | None = attrs.field(default=None, validator=_optional_seconds)
    status_retry: RetryPolicy = DEFAULT_STATUS_RETRY
    on_poll: Callable[[PollEvent[Any]], None] | None = None
    max_status_reads_per_second: float | None = attrs.field(
        default=None, validator=_optional_seconds
    )
    decoding: str = attrs.field(default="tolerant", validator=_decoding)
    cancel_on_timeout: bool = False
    status_limiter: StatusLimiter | None = None


@attrs.frozen(kw_only=True)
class PollEvent(Generic[RecordT]):
    """One status read of a wait, for progress displays and metrics.

    `attempt` counts the status reads of the wait from 1 (the first read, or the
    create answer standing for it, is 1; status retries do not count); `delay` is the
    chosen wait before the next poll, None when the wait stops here; `source` is where
    it came from: "retry-after", "hint" (the body), "header" (another header),
    "backoff", "floor", or "deadline" (the last read, moved to the deadline less one
    read's budget, W5). `record` is the record decoded to the job's record model
    (tolerantly; a record whose top level cannot be typed, leniently: values that match
    nowhere kept as received); `raw_record` is its JSON.
    A job's own `on_poll` receives `PollEvent[ItsRecord]`; `WaitConfig.on_poll`, shared
    by every job of a client, receives `PollEvent[Any]`. `progress` is the job's
    declared progress as a percentage (0-100), None when undeclared or absent.
    `drift` lists the values of this record the server sent beside the spec (a null
    where the spec wants a string...) and how they were read, each field once a wait.
    """

    job_id: str = attrs.field(repr=lambda job_id: repr(display_id(job_id)))
    attempt: int
    state: str | None
    delay: float | None
    source: str | None
    elapsed: float
    record: RecordT
    raw_record: object = None
    progress: float | None = None
    drift: tuple[Drift, ...] = ()


@attrs.frozen(kw_only=True)
class JobOutcome(Generic[RecordT]):
    """How one job of `wait_for_jobs` ended: its terminal record, or the error."""

    job_id: str = attrs.field(repr=lambda job_id: repr(display_id(job_id)))
    record: RecordT | None = None
    error: SDKError | None = None

    @property
    def ok(self) -> bool:
        """Whether the wait reached a terminal record (whatever its state)."""
        return self.error is None
