"""The sans-I/O decision core of the waiter, shared by the sync and async loops.

A `WaitCore` follows one wait. The loops first ask it how the wait opens (`open`:
the create answer taken as the first status read, W7, or the time until a read is
due), then hand it each status answer (`read`: the record, read by the job's spec in
`records`, or `UnreadableStatus`, which the status read retries), then each record
(`step`), and it answers `Finished` (a terminal record), `Sleep` (how long, and
why), or raises (`JobTimeout`, `UnknownJobState`, `JobStalled`). It keeps the wait's
state: schedule, deadline (and the last look before it), stall, resume token, poll
events. It never sends a request and never sleeps, so the two loops only do I/O and
cannot drift apart.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import math
import threading
from collections.abc import Callable, Generator, Mapping
from typing import Any, NoReturn

import attrs
import httpx

from ..http.retry import RetryStats
from ..shared.errors import (
    APIStatusError,
    JobStalled,
    JobTimeout,
    SDKError,
    StatusUnavailable,
    WaitError,
    attach_job_id,
)
from ..shared.policy import choose_delay
from ..shared.shown import display_id
from ..wire.serde import Drift, collect_drift, decoding
from . import records
from .opurl import is_url
from .records import Poll
from .resume import ResumeToken, encode_resume_token
from .spec import JobSpec, PollEvent, WaitConfig

__all__ = ["LAST_LOOK_BUDGET", "Finished", "Sleep", "WaitCore", "wait_span"]

logger = logging.getLogger(__name__)

#: The least time kept for the last status read before a deadline (W5): when the
#: SDK's own backoff would pass the deadline, or the read after the next one would
#: not fit (the floor and one read's budget), the wait sleeps until the deadline less
#: one read's budget -- this, or the slowest status read of the wait so far when that
#: took longer -- reads once more, and only then raises `JobTimeout`.
LAST_LOOK_BUDGET = 0.5

#: Delay sources that are the server's own: a wait never looks sooner than they say.
_SERVER_HINTS = frozenset({"retry-after", "hint", "header"})

_tracer: Any = None


def wait_span(job: str, job_id: str) -> contextlib.AbstractContextManager[object]:
    """An OpenTelemetry span "jobgen.wait" when opentelemetry is installed, else nothing."""
    global _tracer
    if _tracer is None:
        try:
            trace = importlib.import_module("opentelemetry.trace")
            _tracer = trace.get_tracer(__name__)
        except ImportError:
            _tracer = False
    if _tracer is False:
        return contextlib.nullcontext()
    span: contextlib.AbstractContextManager[object] = _tracer.start_as_current_span(
        "jobgen.wait", attributes={"job.id": display_id(job_id), "job.type": job}
    )
    return span


@attrs.frozen
class Sleep:
    """Not finished: sleep `delay` seconds (chosen by `source`), then poll again."""

    delay: float
    source: str


@attrs.frozen
class Finished:
    """A terminal record; `outcome` is "success", "failure" or "canceled"."""

    record: object
    state: str | None
    outcome: str
    error: object = None
    location: str | None = None
    ruled: bool = False


class Abandoned(Exception):
    """Internal: the caller stopped wanting this wait (a closed `wait_for_jobs`)."""


class WaitCore:
    """The state and decisions of one wait for one job."""

    def __init__(
        self,
        spec: JobSpec,
        config: WaitConfig,
        job_id: str,
        *,
        deadline: float,
        attempt: int = 0,
        deadline_at: float | None = None,
        on_poll: Callable[[PollEvent[Any]], None] | None = None,
        event_record: Callable[[object], object] | None = None,
        want_result: bool = False,
        abandon: threading.Event | None = None,
        request_cap: float | None = None,
        stall_after: float | None = None,
        carried: Mapping[str, object] | None = None,
        target: str | None = None,
        final_url: str | None = None,
        started: float | None = None,
        opening: Poll | None = None,
        due_at: float | None = None,
        by_status: bool = False,
    ) -> None:
        self.spec = spec
        #: Its monitor is read by HTTP status, as its create answer chose (`created`).
        self.by_status = by_status
        self.config = config
        self.job_id = job_id
        #: The job as logs and messages show it (`display_id`: no query string).
        self.shown = display_id(job_id)
        #: Values of the create response sent with every call of the job (`carry`).
        self.carried: Mapping[str, object] = carried or {}
        #: What the status read is given: the job id, or the job's operation URL.
        self.target = job_id if target is None else target
        #: Where the result is (the create request's URL, `final_from: original-uri`).
        self.final_url = final_url
        self.deadline = deadline
        self.attempt = attempt
        #: When the wait began on `clock` (before its create, for `create_and_wait`).
        self.started = config.clock() if started is None else started
        self.deadline_at = (
            config.wall_clock() + deadline if deadline_at is None else deadline_at
        )
        #: The create answer, not yet taken as the first status read (see `open`).
        self.opening = opening
        #: When (on `clock`) the next status read is due, while one is not yet, and why.
        self.due: float | None = None
        self.due_source = "due"
        if due_at is not None:
            self.due = config.clock() + (due_at - config.wall_clock())
        self.last_state: str | None = None
        self.last_record: object = None
        self._hooks = [h for h in (config.on_poll, on_poll) if h is not None]
        self._event_record = event_record
        self.want_result = want_result
        self._abandon = abandon
        #: An upper bound of each status request besides the time left (handles
        #: without a deadline poll with it).
        self.request_cap = request_cap
        self.stall_after = spec.stall_after if stall_after is None else stall_after
        self.progress: float | None = None
        #: The last (state, progress) seen and when it was first seen (for stalls).
        self.mark: tuple[str | None, float | None] | None = None
        self.changed_at = self.started
        self.floor = spec.floor if config.floor is None else config.floor
        self.first = spec.first if config.first is None else config.first
        self.cap = spec.cap if config.cap is None else config.cap
        #: The status read of this wait, prepared on its first poll (see `base`).
        self.read_once: Any = None
        #: The fields whose drift from the spec this wait has reported (W15).
        self.drifted: set[str] = set()
        #: The slowest status request of this wait (seconds), and when the last began.
        self.slowest_read = 0.0
        self._sent_at: float | None = None
        #: Whether the last look before the deadline was scheduled (W5).
        self.looked_last = False

    def follow(self, last: WaitCore) -> None:
        """Continue from `last`, a core of the same job: its poll count, last record
        and, for stalls, what it was and since when."""
        self.attempt = last.attempt
        self.last_state, self.last_record = last.last_state, last.last_record
        self.progress, self.mark, self.changed_at = (
            last.progress,
            last.mark,
            last.changed_at,
        )
        self.slowest_read = last.slowest_read
        self.due, self.due_source = last.due, last.due_source

    def elapsed(self) -> float:
        return self.config.clock() - self.started

    def time_left(self) -> float:
        return self.deadline - self.elapsed()

    def request_timeout(self) -> float:
        """The timeout for the status request sent now: the time left, never negative."""
        self._sent_at = self.config.clock()
        left = max(0.0, self.time_left())
        return left if self.request_cap is None else min(left, self.request_cap)

    def before_read(self) -> None:
        """Called before every status request: no request starts past the deadline."""
        if self._abandon is not None and self._abandon.is_set():
            raise Abandoned(self.job_id)
        if self.time_left() < 0:
            raise self.timeout_error()
        self.due = None

    def open(self) -> Sleep | Finished | None:
        """How the wait opens, before its first status read (W7).

        The create answer is that first read: with a record of the job, it is stepped
        like any status answer -- `Finished` when it is terminal already (no status
        read at all), else `Sleep` until the next read; without one, its hints alone
        (an Azure 202's `Retry-After`) say when the first read is due. A resumed wait
        keeps the due time of its token. `Sleep` until it is due, or None: read now.
        """
        answer, self.opening = self.opening, None
        if answer is not None and answer.record is not records.MISSING:
            step = self.step(answer)
            if isinstance(step, Finished):
                return step
            self.due, self.due_source = self.config.clock() + step.delay, step.source
            return step
        if answer is not None:
            self._hinted(answer)
        if self.due is None:
            return None
        left = self.due - self.config.clock()
        if left <= 0:
            return None
        if self.elapsed() + left > self.deadline:
            raise self.timeout_error()
        return Sleep(left, self.due_source)

    def _hinted(self, answer: Poll) -> None:
        """Schedule the first read by the hints of a create answer without a record: a
        hint longer than the time left raises at once (W5)."""
        wall = self.config.wall_clock()
        found = records.hints(self.spec, {}, answer.headers, wall)
        if not found:
            return
        delay, source = choose_delay(
            found,
            attempt=0,
            floor=self.floor,
            first=self.first,
            cap=self.cap,
            rng=self.config.rng,
        )
        logger.debug(
            "job %s: first status read in %.2fs (%s)", self.shown, delay, source
        )
        if self.elapsed() + delay > self.deadline:
            raise self.timeout_error()
        self.due, self.due_source = self.config.clock() + delay, source

    def resume_token(self) -> str:
        """The token that continues this wait (see `resume`)."""
        deadline_at = self.deadline_at if math.isfinite(self.deadline_at) else None
        url = self.target if is_url(self.target) else None
        due_at = None
        if self.due is not None and self.due > self.config.clock():
            due_at = self.config.wall_clock() + (self.due - self.config.clock())
        token = ResumeToken(
            self.shown if url is not None else self.job_id,
            deadline_at,
            self.attempt,
            self.spec.name,
            self.carried,
            url=url,
            due_at=due_at,
            final_url=self.final_url,
            by_status=self.by_status,
        )
        return encode_resume_token(token)

    def timeout_error(self) -> JobTimeout[Any]:
        error: JobTimeout[Any] = self.spec.timeout_error(
            self.job_id,
            elapsed=self.elapsed(),
            deadline=self.deadline,
            resume_token=self.resume_token(),
            last_state=self.last_state,
            last_record=self.last_record,
            record=self._decoded_last_record(),
        )
        logger.info("%s", error)
        return error

    def _decoded_last_record(self, raw: object = None) -> object:
        """The last record (or `raw`) for a timeout or a stall, typed where it can be;
        None if none came."""
        raw = self.last_record if raw is None else raw
        if raw is None or self._event_record is None:
            return None
        try:
            return self._event_record(raw)
        except SDKError:
            return None

    def read_failed(self, error: BaseException, stats: RetryStats) -> NoReturn:
        """Raise what a failed status read means for this wait (rule W6)."""
        if isinstance(error, (WaitError, Abandoned)):
            raise error
        if stats.stop_reason == "time_left" or (
            stats.stop_reason is not None and self.time_left() <= 0
        ):
            raise self.timeout_error() from error
        if stats.stop_reason is not None:
            unavailable = StatusUnavailable(
                self.job_id,
                last_error=error,
                attempts=stats.attempts,
                last_state=self.last_state,
                last_record=self.last_record,
            )
            logger.info("%s", unavailable)
            raise unavailable from error
        raise attach_job_id(error, self.job_id)

    def ruled(self, error: APIStatusError) -> httpx.Response:
        """The answer of an error status a status rule declares, else raise `error`."""
        return records.ruled(self.spec, error)

    def read(self, response: httpx.Response) -> Poll:
        """The `Poll` of a status answer (`records.read`: an error status raises)."""
        if self._sent_at is not None:
            took = self.config.clock() - self._sent_at
            self.slowest_read = max(self.slowest_read, took)
            self._sent_at = None
        return records.read(self.spec, self.job_id, response)

    def read_budget(self) -> float:
        """The time one status read is given before the deadline: `LAST_LOOK_BUDGET`,
        or the slowest read of this wait when it took longer."""
        return max(LAST_LOOK_BUDGET, self.slowest_read)

    def _fit(self, delay: float, source: str) -> tuple[float, str] | None:
        """The delay before the next read when `delay` would pass the deadline (W5):
        the SDK's own backoff is cut so that one last read ends by the deadline
        (source "deadline"); None when the wait must raise at once -- a server hint
        longer than the time left, a last look already taken, or no time for one
        (no earlier than the floor)."""
        if source in _SERVER_HINTS or self.looked_last:
            return None
        cut = self.time_left() - self.read_budget()
        if cut <= 0 or cut < self.floor:
            return None
        self.looked_last = True
        return cut, "deadline"

    def _last_look(self, delay: float, source: str) -> tuple[float, str]:
        """The delay before the next read when `delay` fits (W5): when the read after
        it would not (the floor and one read's budget), the next read moves to the
        deadline less one read's budget (source "deadline") -- never sooner than the
        floor, nor than a server hint -- so the last look is as late as it can be."""
        left, budget = self.time_left(), self.read_budget()
        if self.looked_last or left - delay >= self.floor + budget:
            return delay, source
        moved = left - budget
        if moved < self.floor or (source in _SERVER_HINTS and moved < delay):
            return delay, source
        self.looked_last = True
        return moved, "deadline"

    def step(self, poll: Poll) -> Sleep | Finished:
        """Decide what a status record means: finished, or how long to sleep."""
        spec = self.spec
        record = poll.record
        attempt = self.attempt  # 0-based, for the backoff
        self.attempt += 1
        number = self.attempt  # how a person counts this read: the first is 1
        self.last_record = record
        state, outcome = records.classify(spec, self.job_id, record, poll.state)
        self.last_state = state
        self.progress = records.progress(spec, record)
        if outcome is not None and not (
            self.want_result
            and outcome == "success"
            and not records.ready(spec, record)
        ):
            self._emit(number, record, None, None)
            logger.info(
                "job %s finished: %s (state %s) after %d polls in %.2fs",
                self.shown,
                outcome,
                state,
                self.attempt,
                self.elapsed(),
            )
            return Finished(
                record,
                state,
                outcome,
                records.error_payload(spec, record),
                location=poll.location,
                ruled=poll.state is not None,
            )
        self._check_stall(number, record)
        delay, source = choose_delay(
            records.hints(spec, record, poll.headers, self.config.wall_clock()),
            attempt=attempt,
            floor=self.floor,
            first=self.first,
            cap=self.cap,
            rng=self.config.rng,
        )
        if self.elapsed() + delay > self.deadline:
            fitted = self._fit(delay, source)
            if fitted is None:
                self._emit(number, record, None, None)
                if (
                    source in _SERVER_HINTS
                ):  # its resume token waits as the server asked
                    self.due = self.config.clock() + delay
                raise self.timeout_error()
            delay, source = fitted
        else:
            delay, source = self._last_look(delay, source)
        self._emit(number, record, delay, source)
        return Sleep(delay, source)

    def _check_stall(self, number: int, record: object) -> None:
        """Raise `JobStalled` when state and progress stayed put for `stall_after` (W14)."""
        now = self.config.clock()
        mark = (self.last_state, self.progress)
        if mark != self.mark:
            self.mark, self.changed_at = mark, now
            return
        if self.stall_after is None or now - self.changed_at < self.stall_after:
            return
        self._emit(number, record, None, None)
        unchanged = now - self.changed_at
        state = self.last_state if self.last_state is not None else "not finished"
        at = f" at {self.progress:g}%" if self.progress is not None else ""
        error: JobStalled[Any] = self.spec.stalled_error(
            f"job {self.shown} stalled: still {state}{at} after {unchanged:.2f}s without"
            f" a change (stall_after {self.stall_after:g}s); it was not canceled, wait"
            " again or resume with the resume_token",
            job_id=self.job_id,
            last_state=self.last_state,
            last_record=record,
        )
        error.unchanged_for, error.stall_after = unchanged, self.stall_after
        error.resume_token, error.progress = self.resume_token(), self.progress
        error.record = self._decoded_last_record(record)
        logger.info("%s", error)
        raise error

    @contextlib.contextmanager
    def reading(self) -> Generator[None]:
        """Decode as the config says, the drift found reported (`noted`)."""
        with collect_drift() as found, decoding(self.config.decoding):
            try:
                yield
            finally:
                self.noted(found)

    def noted(self, found: list[Drift]) -> tuple[Drift, ...]:
        """The drift in `found` this wait has not reported yet, now logged (W15)."""
        new = {d.path: d for d in found if d.path not in self.drifted}
        for drift in new.values():
            self.drifted.add(drift.path)
            logger.warning("job %s: a value beside the spec at %s", self.shown, drift)
        return tuple(new.values())

    def _emit(
        self,
        number: int,
        record: object,
        delay: float | None,
        source: str | None,
    ) -> None:
        elapsed = self.elapsed()
        logger.debug(
            "job %s poll %d: state=%s delay=%s source=%s elapsed=%.2fs",
            self.shown,
            number,
            self.last_state,
            delay,
            source,
            elapsed,
        )
        if self._hooks:
            with collect_drift() as found:
                decoded = (
                    record if self._event_record is None else self._event_record(record)
                )
            event = PollEvent(
                job_id=self.job_id,
                attempt=number,
                state=self.last_state,
                delay=delay,
                source=source,
                elapsed=elapsed,
                record=decoded,
                raw_record=record,
                progress=self.progress,
                drift=self.noted(found),
            )
            for hook in self._hooks:
                hook(event)
