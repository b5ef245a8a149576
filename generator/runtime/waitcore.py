"""The sans-I/O decision core of the waiter, shared by the sync and async loops.

A `WaitCore` follows one wait. The loops hand it each 2xx status response (`parse`:
the record, or `UnreadableStatus`, which the status read retries), then each record
(`step`), and it answers `Finished` (a terminal record), `Sleep` (how long, and why),
or raises (`JobTimeout`, `UnknownJobState`). It never sends a request and never
sleeps, so the two loops only do I/O and cannot drift apart.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import logging
import math
import threading
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

import attrs
import httpx

from .errors import (
    APIStatusError,
    JobStalled,
    JobTimeout,
    SDKError,
    StatusUnavailable,
    UnknownJobState,
    UnreadableStatus,
    WaitError,
    attach_job_id,
)
from .opurl import is_url, match_rule
from .policy import choose_delay
from .resume import ResumeToken, encode_resume_token
from .retry import RetryStats
from .retry_after import parse_delay
from .statuses import status_error_for
from .waitspec import JobSpec, PollEvent, WaitConfig

__all__ = [
    "Finished",
    "Poll",
    "Sleep",
    "WaitCore",
    "dig",
    "ensure_success",
    "pointer",
    "wait_span",
]

logger = logging.getLogger(__name__)

_MISSING: Any = object()


def dig(value: object, path: tuple[str, ...]) -> Any:
    """The value at `path` inside `value`, or a private MISSING marker."""
    for key in path:
        if isinstance(value, dict):
            value = value.get(key, _MISSING)
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            return _MISSING
        if value is _MISSING:
            return _MISSING
    return value


def _number(record: object, path: tuple[str, ...] | None) -> float | None:
    """The finite number at `path` inside `record`, else None."""
    raw = dig(record, path) if path is not None else None
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        return None
    return float(raw) if math.isfinite(raw) else None


def pointer(path: tuple[str, ...]) -> str:
    """A path as shown in messages: `$.data.items[3].status`."""
    return "$" + "".join(f"[{key}]" if key.isdigit() else f".{key}" for key in path)


def ensure_success(response: httpx.Response) -> httpx.Response:
    """`response` itself if it is 2xx, else raise its `APIStatusError`."""
    if not response.is_success:
        raise status_error_for(response)
    return response


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
        "jobgen.wait", attributes={"job.id": job_id, "job.type": job}
    )
    return span


@attrs.frozen
class Poll:
    """One readable status answer: the record inside its body, and its headers.

    `state` is set when a status rule gave the answer its state; `location` is the
    answer's `Location` header, made absolute.
    """

    record: object
    headers: httpx.Headers
    state: str | None = None
    location: str | None = None


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
    ) -> None:
        self.spec = spec
        self.config = config
        self.job_id = job_id
        #: Values of the create response sent with every call of the job (`carry`).
        self.carried: Mapping[str, object] = carried or {}
        #: What the status read is given: the job id, or the job's operation URL.
        self.target = job_id if target is None else target
        self.deadline = deadline
        self.attempt = attempt
        self.started = config.clock()
        self.deadline_at = (
            config.wall_clock() + deadline if deadline_at is None else deadline_at
        )
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
        #: The status read of this wait, prepared on its first poll (see `waitbase`).
        self.read_once: Any = None

    def elapsed(self) -> float:
        return self.config.clock() - self.started

    def time_left(self) -> float:
        return self.deadline - self.elapsed()

    def request_timeout(self) -> float:
        """The timeout for the next status request: the time left, never negative."""
        left = max(0.0, self.time_left())
        return left if self.request_cap is None else min(left, self.request_cap)

    def before_read(self) -> None:
        """Called before every status request: no request starts past the deadline."""
        if self._abandon is not None and self._abandon.is_set():
            raise Abandoned(self.job_id)
        if self.time_left() < 0:
            raise self.timeout_error()

    def resume_token(self) -> str:
        """The token that continues this wait (see `resume`)."""
        deadline_at = self.deadline_at if math.isfinite(self.deadline_at) else None
        url = self.target if is_url(self.target) else None
        token = ResumeToken(
            self.job_id,
            deadline_at,
            self.attempt,
            self.spec.name,
            self.carried,
            url=url,
        )
        return encode_resume_token(token)

    def timeout_error(self) -> JobTimeout[Any]:
        error: JobTimeout[Any] = JobTimeout(
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

    def _decoded_last_record(self) -> object:
        """The last record for a timeout, typed where it can be; None if none came."""
        if self.last_record is None or self._event_record is None:
            return None
        try:
            return self._event_record(self.last_record)
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
        if match_rule(self.spec.status_rules, error.response) is None:
            raise error
        return error.response

    def read(self, response: httpx.Response) -> Poll:
        """The `Poll` of a status answer: by the first status rule it matches, else
        its record (`parse`; an error status raises)."""
        rules = self.spec.status_rules
        matched = match_rule(rules, response) if rules else None
        location = response.headers.get("location")
        if location:
            location = str(response.request.url.join(location.strip()))
        if matched is None:
            return self.parse(ensure_success(response), location)
        rule, body = matched
        record = dig(body, self.spec.record_path) if body is not None else _MISSING
        if record is _MISSING or record is None:
            record = {}
        return Poll(record, response.headers, state=rule.state, location=location)

    def parse(self, response: httpx.Response, location: str | None = None) -> Poll:
        """The record of a 2xx status answer (W6).

        A body that is not JSON (truncated, a proxy's HTML page) or has no record
        raises `UnreadableStatus`, which the status read retries like a 5xx.
        """
        spec = self.spec
        try:
            body = response.json()
        except ValueError:
            kind = response.headers.get("content-type", "no content type")
            error = UnreadableStatus(f"the status body is not JSON ({kind})")
            raise attach_job_id(error, self.job_id) from None
        record = dig(body, spec.record_path)
        if record is _MISSING:
            error = UnreadableStatus(
                "the status body has no record", path=pointer(spec.record_path)
            )
            raise attach_job_id(error, self.job_id)
        return Poll(record, response.headers, location=location)

    def step(self, poll: Poll) -> Sleep | Finished:
        """Decide what a status record means: finished, or how long to sleep."""
        spec = self.spec
        record = poll.record
        attempt = self.attempt
        self.attempt += 1
        self.last_record = record
        state, outcome = self._classify(record, poll.state)
        self.last_state = state
        self.progress = self._progress(record)
        if outcome is not None and not (
            self.want_result and outcome == "success" and not self._ready(record)
        ):
            self._emit(attempt, record, None, None)
            logger.info(
                "job %s finished: %s (state %s) after %d polls in %.2fs",
                self.job_id,
                outcome,
                state,
                self.attempt,
                self.elapsed(),
            )
            payload = dig(record, spec.error_path) if spec.error_path else None
            return Finished(
                record,
                state,
                outcome,
                None if payload is _MISSING else payload,
                location=poll.location,
                ruled=poll.state is not None,
            )
        self._check_stall(attempt, record)
        delay, source = choose_delay(
            self._hints(record, poll.headers),
            attempt=attempt,
            floor=self.floor,
            first=self.first,
            cap=self.cap,
            rng=self.config.rng,
        )
        if self.elapsed() + delay > self.deadline:
            self._emit(attempt, record, None, None)
            raise self.timeout_error()
        self._emit(attempt, record, delay, source)
        return Sleep(delay, source)

    def _check_stall(self, attempt: int, record: object) -> None:
        """Raise `JobStalled` when state and progress stayed put for `stall_after` (W14)."""
        now = self.config.clock()
        mark = (self.last_state, self.progress)
        if mark != self.mark:
            self.mark, self.changed_at = mark, now
            return
        if self.stall_after is None or now - self.changed_at < self.stall_after:
            return
        self._emit(attempt, record, None, None)
        unchanged = now - self.changed_at
        state = self.last_state if self.last_state is not None else "not finished"
        at = f" at {self.progress:g}%" if self.progress is not None else ""
        error = JobStalled(
            f"job {self.job_id} stalled: still {state}{at} after {unchanged:.2f}s without"
            f" a change (stall_after {self.stall_after:g}s); it was not canceled, wait"
            " again or resume with the resume_token",
            job_id=self.job_id,
            last_state=self.last_state,
            last_record=record,
        )
        error.unchanged_for, error.stall_after = unchanged, self.stall_after
        error.resume_token, error.progress = self.resume_token(), self.progress
        logger.info("%s", error)
        raise error

    def _progress(self, record: object) -> float | None:
        """The declared progress as a percentage, None when absent or not a number."""
        spec = self.spec
        if spec.progress_path is not None:
            return _number(record, spec.progress_path)
        if spec.progress_done_path is None:
            return None
        done = _number(record, spec.progress_done_path)
        total = _number(record, spec.progress_total_path)
        if done is None or not total:
            return None
        return max(0.0, min(100.0, 100.0 * done / total))

    def _classify(
        self, record: object, ruled: str | None = None
    ) -> tuple[str | None, str | None]:
        """The record's state (or the one a status rule gave) and terminal outcome
        (None while in progress), W1/W2."""
        spec = self.spec
        state: str | None = None
        outcome: str | None = None
        if spec.state_path is not None or ruled is not None:
            raw = ruled if ruled is not None else dig(record, spec.state_path or ())
            if raw is _MISSING or raw is None:
                raise UnknownJobState(
                    self.job_id,
                    state=None,
                    documented=spec.documented_states,
                    last_record=record,
                    detail=f"nothing at {pointer(spec.state_path or ())}",
                )
            state = raw if isinstance(raw, str) else json.dumps(raw)
            outcome = spec.outcome_of.get(state)
            if outcome is None and state not in spec.pending:
                raise UnknownJobState(
                    self.job_id,
                    state=state,
                    documented=spec.documented_states,
                    last_record=record,
                )
        terminal = spec.terminal_path
        if outcome is None and terminal is not None and dig(record, terminal) is True:
            error = dig(record, spec.error_path) if spec.error_path else None
            outcome = "success" if error is None or error is _MISSING else "failure"
        return state, outcome

    def _ready(self, record: object) -> bool:
        path = self.spec.ready_path
        return path is None or dig(record, path) is True

    def _hints(self, record: object, headers: httpx.Headers) -> list[tuple[float, str]]:
        """Every server hint of this poll, in seconds (W4), re-read on every poll."""
        hints: list[tuple[float, str]] = []
        now = self.config.wall_clock()
        for hint in self.spec.header_hints:
            seconds = parse_delay(headers.get(hint.name), hint.format, now)
            if seconds is not None:
                kind = "retry-after" if hint.name.lower() == "retry-after" else "header"
                hints.append((seconds, kind))
        if self.spec.hint_path is not None:
            raw = dig(record, self.spec.hint_path)
            value: float | None = None
            if isinstance(raw, (int, float)) and not isinstance(raw, bool):
                value = float(raw)
            elif isinstance(raw, str):
                value = parse_delay(raw, "seconds", now)
            if value is not None and value >= 0 and math.isfinite(value):
                hints.append((value * self.spec.hint_scale, "hint"))
        return hints

    def _emit(
        self,
        attempt: int,
        record: object,
        delay: float | None,
        source: str | None,
    ) -> None:
        elapsed = self.elapsed()
        logger.debug(
            "job %s poll %d: state=%s delay=%s source=%s elapsed=%.2fs",
            self.job_id,
            attempt,
            self.last_state,
            delay,
            source,
            elapsed,
        )
        if self._hooks:
            event = PollEvent(
                job_id=self.job_id,
                attempt=attempt,
                state=self.last_state,
                delay=delay,
                source=source,
                elapsed=elapsed,
                record=record
                if self._event_record is None
                else self._event_record(record),
                raw_record=record,
                progress=self.progress,
            )
            for hook in self._hooks:
                hook(event)
