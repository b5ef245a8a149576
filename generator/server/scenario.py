"""Scenarios: the timeline and faults of one simulated job, parsed and validated strictly.

A scenario arrives as JSON (the ``x-jobgen-scenario`` header of a create call, or the body
of ``POST /_jobgen/jobs``). Every field is optional; every mistake raises
:class:`ScenarioError` naming the field, e.g. ``states[1].polls``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal

import attrs

from ..model import ir

__all__ = [
    "CreateFault",
    "JobStates",
    "RetryAfter",
    "Scenario",
    "ScenarioError",
    "Stage",
    "StatusError",
    "WebhookFaults",
    "parse_scenario",
]

TerminalKind = Literal["success", "failure", "canceled"]
Kind = Literal["pending", "success", "failure", "canceled"]
FinalKind = Literal["success", "failure", "canceled", "undocumented", "never"]

DEFAULT_PENDING_POLLS = 2
#: Percent a running job's declared progress advances per read (0: a stuck job).
DEFAULT_PROGRESS_PER_READ = 10.0
MAX_POLL = 1_000_000
MAX_SECONDS = 86_400.0


class ScenarioError(ValueError):
    """A scenario that cannot be used; ``field`` names the offending field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


@attrs.frozen
class JobStates:
    """The documented states of a job, each with its kind, in declaration order."""

    kinds: tuple[tuple[str, Kind], ...]

    @classmethod
    def of(cls, job: ir.Job) -> JobStates:
        if job.state_path is None:
            # A job with a terminal flag only: these names never reach the wire.
            return cls((("running", "pending"), ("succeeded", "success"), ("failed", "failure")))
        groups: tuple[tuple[tuple[str, ...], Kind], ...] = (
            (job.pending, "pending"),
            (job.success, "success"),
            (job.failure, "failure"),
            (job.canceled, "canceled"),
        )
        return cls(tuple((state, kind) for states, kind in groups for state in states))

    def kind(self, state: str) -> Kind | None:
        return dict(self.kinds).get(state)

    def first(self, kind: Kind) -> str | None:
        return next((state for state, k in self.kinds if k == kind), None)

    def named(self, kind: Kind) -> list[str]:
        return [state for state, k in self.kinds if k == kind]


@attrs.frozen
class RetryAfter:
    """A ``Retry-After`` value to send: delta-seconds, an HTTP-date relative to now, or raw text."""

    form: Literal["seconds", "date", "raw"]
    seconds: float = 0.0
    text: str = ""


@attrs.frozen
class Stage:
    """One state of the timeline, held for ``polls`` status answers or for ``seconds``."""

    state: str
    polls: int | None = None
    seconds: float | None = None


@attrs.frozen
class StatusError:
    """``count`` consecutive status reads from poll ``at_poll`` answer ``status``."""

    at_poll: int
    status: int
    count: int = 1
    retry_after: RetryAfter | None = None

    @property
    def polls(self) -> range:
        return range(self.at_poll, self.at_poll + self.count)


@attrs.frozen
class CreateFault:
    """What create attempts ``attempt`` .. ``attempt + count - 1`` answer instead of the job."""

    attempt: int
    count: int = 1
    status: int | None = None
    drop_connection: bool = False
    retry_after: RetryAfter | None = None
    after_create: bool = False

    @property
    def attempts(self) -> range:
        return range(self.attempt, self.attempt + self.count)


@attrs.frozen
class WebhookFaults:
    """How the webhook of a job is delivered (see docs/webhooks.md)."""

    url: str | None = None
    drop: bool = False
    drop_attempts: int = 0
    delay: float = 0.0
    duplicate: int = 0
    reorder: bool = False
    bad_signature: bool = False
    retry_scale: float = 1.0


@attrs.frozen
class JobError:
    """The error a failed job reports: its code and message (None: the server's choice)."""

    code: str | None = None
    message: str | None = None


@attrs.frozen
class Scenario:
    stages: tuple[Stage, ...]
    final: str | None
    final_kind: FinalKind
    result_delay_polls: int = 0
    result_delay_seconds: float = 0.0
    hint: float | None = None
    retry_after: RetryAfter | None = None
    poll_after_ms: float | None = None
    status_errors: tuple[StatusError, ...] = ()
    drop_connection_at_polls: frozenset[int] = frozenset()
    malformed_at_polls: frozenset[int] = frozenset()
    create_errors: tuple[CreateFault, ...] = ()
    progress_per_read: float = DEFAULT_PROGRESS_PER_READ
    webhook: WebhookFaults = WebhookFaults()
    operation_host: str | None = None
    """Another host named in the job's operation URL (and its 303 Location)."""
    time_scale: float = 1.0
    """How many times faster than written every duration runs; the durations above are
    already divided by it. Hints are not: they are sent as the spec allows them, and the
    SDK under test is told the scale (docs/serve.md#fast-simulated-time)."""
    error: JobError | None = None
    """The error a failed job reports, where the scenario chooses it."""

    def scaled(self, factor: float) -> Scenario:
        """This scenario run ``factor`` times faster: every duration divided (stages,
        result delays, webhook delays and retries), the hints kept as written."""
        if factor == 1.0:
            return self
        return attrs.evolve(
            self,
            stages=tuple(
                attrs.evolve(s, seconds=s.seconds / factor) if s.seconds is not None else s
                for s in self.stages
            ),
            result_delay_seconds=self.result_delay_seconds / factor,
            webhook=attrs.evolve(
                self.webhook,
                delay=self.webhook.delay / factor,
                retry_scale=self.webhook.retry_scale / factor,
            ),
            time_scale=self.time_scale * factor,
        )


_FIELDS = frozenset(
    {
        "states",
        "final",
        "undocumented_state",
        "result_delay_polls",
        "result_delay_seconds",
        "hint",
        "retry_after",
        "poll_after_ms",
        "status_errors",
        "drop_connection_at_polls",
        "malformed_at_polls",
        "create_errors",
        "progress_per_read",
        "webhook",
        "operation_host",
        "time_scale",
        "error",
    }
)
_WEBHOOK_FIELDS = frozenset(
    {
        "url",
        "drop",
        "drop_attempts",
        "delay",
        "duplicate",
        "reorder",
        "bad_signature",
        "retry_scale",
    }
)


def _bool(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise ScenarioError(field, f"must be true or false, not {_describe(value)}")
    return value


def _webhook(raw: object, job: ir.Job) -> WebhookFaults:
    if job.webhooks is None:
        raise ScenarioError("webhook", "the job declares no webhooks (webhooks:)")
    data = _mapping(raw, "webhook")
    _known(data, _WEBHOOK_FIELDS, "webhook")
    url = data.get("url")
    if url is not None and not (isinstance(url, str) and url.startswith(("http://", "https://"))):
        raise ScenarioError("webhook.url", "must be an http:// or https:// URL")
    return WebhookFaults(
        url=url,
        drop=_bool(data.get("drop", False), "webhook.drop"),
        drop_attempts=_int(data.get("drop_attempts", 0), "webhook.drop_attempts", low=0, high=100),
        delay=_number(data.get("delay", 0), "webhook.delay"),
        duplicate=_int(data.get("duplicate", 0), "webhook.duplicate", low=0, high=100),
        reorder=_bool(data.get("reorder", False), "webhook.reorder"),
        bad_signature=_bool(data.get("bad_signature", False), "webhook.bad_signature"),
        retry_scale=_number(data.get("retry_scale", 1), "webhook.retry_scale", high=1000),
    )


_ALIASES: dict[str, TerminalKind] = {
    "success": "success",
    "failure": "failure",
    "canceled": "canceled",
}


# -- primitive readers ------------------------------------------------------------------


def _mapping(value: object, field: str) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        what = "must be" if field else "the scenario must be"
        raise ScenarioError(field, f"{what} a JSON object, not {_describe(value)}")
    return value


def _known(data: Mapping[str, object], allowed: frozenset[str], field: str) -> None:
    for key in data:
        if key not in allowed:
            where = f"{field}.{key}" if field else str(key)
            raise ScenarioError(
                where, f"unknown field; expected one of {', '.join(sorted(allowed))}"
            )


def _describe(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _int(value: object, field: str, *, low: int, high: int = MAX_POLL) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScenarioError(field, f"must be an integer, not {_describe(value)}")
    if not low <= value <= high:
        raise ScenarioError(field, f"must be between {low} and {high}, not {value}")
    return value


def _number(
    value: object, field: str, *, positive: bool = False, high: float = MAX_SECONDS
) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ScenarioError(field, f"must be a number, not {_describe(value)}")
    number = float(value)
    if not math.isfinite(number) or number < 0 or (positive and number == 0):
        raise ScenarioError(
            field, f"must be {'greater than 0' if positive else 'at least 0'}, not {value}"
        )
    if number > high:
        raise ScenarioError(field, f"must be at most {high:g}, not {value}")
    return number


def _list(value: object, field: str) -> list[object]:
    if not isinstance(value, list):
        raise ScenarioError(field, f"must be an array, not {_describe(value)}")
    return value


def _polls(value: object, field: str) -> frozenset[int]:
    items = [_int(item, f"{field}[{i}]", low=1) for i, item in enumerate(_list(value, field))]
    if len(set(items)) != len(items):
        raise ScenarioError(field, "lists a poll more than once")
    return frozenset(items)


def parse_retry_after(value: object, field: str) -> RetryAfter:
    """A number of seconds, ``"N"``, ``"date:+N"`` / ``"date:-N"``, or ``"raw:TEXT"``."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return RetryAfter("seconds", _number(value, field))
    if not isinstance(value, str):
        raise ScenarioError(field, f"must be a number or a string, not {_describe(value)}")
    if value.startswith("date:"):
        amount = value[5:]
        sign = -1.0 if amount.startswith("-") else 1.0
        digits = amount.lstrip("+-")
        if amount[:1] not in ("+", "-") or not _is_decimal(digits):
            raise ScenarioError(field, f"{value!r}: expected date:+N or date:-N with N seconds")
        return RetryAfter("date", sign * _number(float(digits), field))
    if value.startswith("raw:"):
        text = value[4:]
        if not text or not all(" " <= ch <= "~" for ch in text):
            raise ScenarioError(field, "raw: needs printable ASCII text")
        return RetryAfter("raw", text=text)
    if _is_decimal(value):
        return RetryAfter("seconds", _number(float(value), field))
    raise ScenarioError(
        field, f'{value!r}: expected seconds (5, 0.05, "0"), "date:+N", "date:-N" or "raw:TEXT"'
    )


def _is_decimal(text: str) -> bool:
    whole, _, fraction = text.partition(".")
    return whole.isdigit() and (fraction == "" or fraction.isdigit()) and text.isascii()


# -- parts ------------------------------------------------------------------------------


def _stages(value: object, states: JobStates) -> tuple[Stage, ...]:
    stages = []
    pending = states.named("pending")
    for index, item in enumerate(_list(value, "states")):
        field = f"states[{index}]"
        data = _mapping(item, field)
        _known(data, frozenset({"state", "polls", "seconds"}), field)
        state = data.get("state")
        if not isinstance(state, str):
            raise ScenarioError(f"{field}.state", "is required and must be a string")
        kind = states.kind(state)
        if kind is None:
            raise ScenarioError(
                f"{field}.state",
                f"{state!r} is not a documented in-progress state ({', '.join(pending)})",
            )
        if kind != "pending":
            raise ScenarioError(
                f"{field}.state", f"{state!r} is terminal ({kind}); put it in 'final' instead"
            )
        if ("polls" in data) == ("seconds" in data):
            raise ScenarioError(field, "give exactly one of 'polls' or 'seconds'")
        if "polls" in data:
            stages.append(Stage(state, polls=_int(data["polls"], f"{field}.polls", low=1)))
        else:
            stages.append(
                Stage(state, seconds=_number(data["seconds"], f"{field}.seconds", positive=True))
            )
    return tuple(stages)


def _final(data: Mapping[str, object], states: JobStates) -> tuple[str | None, FinalKind]:
    if "undocumented_state" in data:
        if "final" in data:
            raise ScenarioError(
                "undocumented_state", "give either 'final' or 'undocumented_state', not both"
            )
        state = data["undocumented_state"]
        if not isinstance(state, str) or not state:
            raise ScenarioError("undocumented_state", "must be a non-empty string")
        if states.kind(state) is not None:
            raise ScenarioError("undocumented_state", f"{state!r} is a documented state")
        return state, "undocumented"
    final = data.get("final", "success")
    if not isinstance(final, str):
        raise ScenarioError("final", f"must be a string, not {_describe(final)}")
    if final == "never":
        return None, "never"
    kind = states.kind(final)
    alias = _ALIASES.get(final)
    if kind is None and alias is not None:
        first = states.first(alias)
        if first is None:
            raise ScenarioError("final", f"the job declares no {final} state")
        return first, alias
    if kind is None:
        terminal = [s for s, k in states.kinds if k != "pending"]
        raise ScenarioError(
            "final",
            f"{final!r} is not a documented terminal state; expected one of "
            f"{', '.join(terminal + ['success', 'failure', 'canceled', 'never'])} "
            "(or use undocumented_state)",
        )
    if kind == "pending":
        raise ScenarioError(
            "final", f'{final!r} is not terminal; use "never" for a job that never ends'
        )
    return final, _ALIASES[kind]


def _status_errors(value: object) -> tuple[StatusError, ...]:
    out = []
    for index, item in enumerate(_list(value, "status_errors")):
        field = f"status_errors[{index}]"
        data = _mapping(item, field)
        _known(data, frozenset({"at_poll", "status", "count", "retry_after"}), field)
        for required in ("at_poll", "status"):
            if required not in data:
                raise ScenarioError(f"{field}.{required}", "is required")
        out.append(
            StatusError(
                at_poll=_int(data["at_poll"], f"{field}.at_poll", low=1),
                status=_status(data["status"], f"{field}.status"),
                count=_int(data.get("count", 1), f"{field}.count", low=1),
                retry_after=(
                    parse_retry_after(data["retry_after"], f"{field}.retry_after")
                    if "retry_after" in data
                    else None
                ),
            )
        )
    return tuple(out)


def _status(value: object, field: str) -> int:
    status = _int(value, field, low=400, high=599)
    if status == 401:
        raise ScenarioError(
            field, "401 comes from credentials: read the job with another key instead"
        )
    return status


def _create_errors(value: object) -> tuple[CreateFault, ...]:
    out = []
    allowed = frozenset(
        {"attempt", "count", "status", "drop_connection", "retry_after", "after_create"}
    )
    for index, item in enumerate(_list(value, "create_errors")):
        field = f"create_errors[{index}]"
        data = _mapping(item, field)
        _known(data, allowed, field)
        if "attempt" not in data:
            raise ScenarioError(f"{field}.attempt", "is required")
        drop = data.get("drop_connection", False)
        if not isinstance(drop, bool):
            raise ScenarioError(
                f"{field}.drop_connection", f"must be a boolean, not {_describe(drop)}"
            )
        if drop == ("status" in data):
            raise ScenarioError(field, "give exactly one of 'status' or 'drop_connection: true'")
        if drop and "retry_after" in data:
            raise ScenarioError(f"{field}.retry_after", "a dropped connection sends no headers")
        after = data.get("after_create", False)
        if not isinstance(after, bool):
            raise ScenarioError(
                f"{field}.after_create", f"must be a boolean, not {_describe(after)}"
            )
        out.append(
            CreateFault(
                attempt=_int(data["attempt"], f"{field}.attempt", low=1),
                count=_int(data.get("count", 1), f"{field}.count", low=1),
                status=_status(data["status"], f"{field}.status") if "status" in data else None,
                drop_connection=drop,
                retry_after=(
                    parse_retry_after(data["retry_after"], f"{field}.retry_after")
                    if "retry_after" in data
                    else None
                ),
                after_create=after,
            )
        )
    _disjoint([(f"create_errors[{i}]", f.attempts) for i, f in enumerate(out)], "attempt")
    return tuple(out)


def _disjoint(groups: list[tuple[str, range | frozenset[int]]], unit: str) -> None:
    owner: dict[int, str] = {}
    for field, numbers in groups:
        for number in numbers:
            if number in owner:
                raise ScenarioError(
                    field, f"{unit} {number} already has a fault from {owner[number]}"
                )
            owner[number] = field


def _custom_hints(job: ir.Job) -> list[ir.HeaderHint]:
    return [h for h in job.header_hints if h.name.lower() != "retry-after"]


# -- entry point ------------------------------------------------------------------------


#: The largest time scale: a day's schedule in under a second.
MAX_TIME_SCALE = 100_000.0


def parse_scenario(raw: object, job: ir.Job, *, time_scale: float = 1.0) -> Scenario:
    """Validate ``raw`` (decoded JSON, or None for all defaults) against ``job``.

    The scenario runs ``time_scale`` times faster than written (the server's
    ``--time-scale``), or as fast as its own ``time_scale`` field says.
    """
    data = _mapping({} if raw is None else raw, "")
    _known(data, _FIELDS, "")
    if "time_scale" in data:
        time_scale = _number(data["time_scale"], "time_scale", positive=True, high=MAX_TIME_SCALE)
    return _parse(data, job).scaled(time_scale)


def _parse(data: Mapping[str, object], job: ir.Job) -> Scenario:
    states = JobStates.of(job)
    final, final_kind = _final(data, states)
    if "states" in data:
        stages = _stages(data["states"], states)
    else:
        first = states.first("pending")
        stages = (Stage(first, polls=DEFAULT_PENDING_POLLS),) if first is not None else ()
    if not stages and final_kind == "never":
        raise ScenarioError("states", "a job that never ends needs a state to stay in")

    has_result = job.result is not None or job.ready_path is not None
    for name in ("result_delay_polls", "result_delay_seconds"):
        if name in data and not has_result:
            raise ScenarioError(
                name, "the job declares neither a result operation nor a readiness field"
            )
    if "hint" in data and job.hint_path is None:
        raise ScenarioError("hint", "the job declares no body poll hint (poll.body_hint)")
    if "poll_after_ms" in data and not _custom_hints(job):
        raise ScenarioError(
            "poll_after_ms", "the job declares no custom poll header (poll.headers)"
        )

    has_progress = job.progress_path is not None or job.progress_done_path is not None
    if "progress_per_read" in data and not has_progress:
        raise ScenarioError("progress_per_read", "the job declares no progress field (progress)")

    operation_host = data.get("operation_host")
    if operation_host is not None:
        if not job.operation_url:
            raise ScenarioError("operation_host", "the job declares no operation_url")
        if not isinstance(operation_host, str) or not _is_hostname(operation_host):
            raise ScenarioError("operation_host", "must be a host name such as 'localhost'")
    status_errors = _status_errors(data.get("status_errors", []))
    drops = _polls(data.get("drop_connection_at_polls", []), "drop_connection_at_polls")
    malformed = _polls(data.get("malformed_at_polls", []), "malformed_at_polls")
    _disjoint(
        [(f"status_errors[{i}]", e.polls) for i, e in enumerate(status_errors)]
        + [("drop_connection_at_polls", drops), ("malformed_at_polls", malformed)],
        "poll",
    )
    return Scenario(
        stages=stages,
        final=final,
        final_kind=final_kind,
        result_delay_polls=_int(data.get("result_delay_polls", 0), "result_delay_polls", low=0),
        result_delay_seconds=_number(data.get("result_delay_seconds", 0), "result_delay_seconds"),
        hint=_number(data["hint"], "hint", high=1e9) if "hint" in data else None,
        retry_after=parse_retry_after(data["retry_after"], "retry_after")
        if "retry_after" in data
        else None,
        poll_after_ms=(
            _number(data["poll_after_ms"], "poll_after_ms", high=1e12)
            if "poll_after_ms" in data
            else None
        ),
        status_errors=status_errors,
        drop_connection_at_polls=drops,
        malformed_at_polls=malformed,
        create_errors=_create_errors(data.get("create_errors", [])),
        progress_per_read=_number(
            data.get("progress_per_read", DEFAULT_PROGRESS_PER_READ), "progress_per_read", high=100
        ),
        webhook=_webhook(data["webhook"], job) if "webhook" in data else WebhookFaults(),
        operation_host=operation_host,
        error=_job_error(data["error"], job) if "error" in data else None,
    )


def _job_error(raw: object, job: ir.Job) -> JobError:
    """The scenario's ``error``: ``{"code": ..., "message": ...}`` (the server checks the
    values against the spec's error schema when the job is made)."""
    if job.error_path is None:
        raise ScenarioError("error", "the job declares no error field (error_field)")
    data = _mapping(raw, "error")
    _known(data, frozenset({"code", "message"}), "error")
    for name in ("code", "message"):
        value = data.get(name)
        if value is not None and not isinstance(value, str):
            raise ScenarioError(f"error.{name}", f"must be a string, not {_describe(value)}")
    code, message = data.get("code"), data.get("message")
    return JobError(
        code=code if isinstance(code, str) else None,
        message=message if isinstance(message, str) else None,
    )


def _is_hostname(text: str) -> bool:
    labels = text.split(".")
    return 0 < len(text) <= 253 and all(
        label and len(label) <= 63 and label.replace("-", "").isalnum() and label.isascii()
        for label in labels
    )
