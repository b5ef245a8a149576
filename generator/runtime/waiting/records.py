"""What a job's status answer says, read by the job's spec: no wait state here.

The record inside a status body (`parse`, or the state a status rule gives an error
status, `read`), its state and terminal outcome (W1/W2), its progress, whether its
result is ready (W7), the server's poll hints (W4) and a failed job's error payload.
`core` decides on a wait from these; webhooks and fleets read records with `dig`.
"""

from __future__ import annotations

import json
import math
from typing import Any, cast

import attrs
import httpx

from ..http.retry_after import parse_delay
from ..http.statuses import status_error_for
from ..shared.errors import (
    APIStatusError,
    SDKError,
    UnknownJobState,
    UnreadableStatus,
    attach_job_id,
)
from ..wire.serde import lenient
from .opurl import join_url, match_rule
from .spec import JobSpec

__all__ = [
    "MISSING",
    "Poll",
    "classify",
    "decode_error",
    "dig",
    "ensure_success",
    "error_payload",
    "hints",
    "parse",
    "pointer",
    "progress",
    "read",
    "ready",
    "ruled",
]

#: What `dig` returns where a record has nothing (distinct from a JSON null).
MISSING: Any = object()


def dig(value: object, path: tuple[str, ...]) -> Any:
    """The value at `path` inside `value`, or `MISSING`."""
    for key in path:
        if isinstance(value, dict):
            value = cast("dict[str, object]", value).get(key, MISSING)
        elif isinstance(value, list) and key.isdigit():
            items = cast("list[object]", value)
            if int(key) >= len(items):
                return MISSING
            value = items[int(key)]
        else:
            return MISSING
        if value is MISSING:
            return MISSING
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


def ruled(spec: JobSpec, error: APIStatusError) -> httpx.Response:
    """The answer of an error status a status rule declares, else raise `error`."""
    if match_rule(spec.status_rules, error.response) is None:
        raise error
    return error.response


def read(spec: JobSpec, job_id: str, response: httpx.Response) -> Poll:
    """The `Poll` of a status answer: by the first status rule it matches, else its
    record (`parse`; an error status raises)."""
    rules = spec.status_rules
    matched = match_rule(rules, response) if rules else None
    location = response.headers.get("location")
    if location:
        location = join_url(response.request.url, location)
    if matched is None:
        return parse(spec, job_id, ensure_success(response), location)
    rule, body = matched
    record: object = dig(body, spec.record_path) if body is not None else MISSING
    if record is MISSING or record is None:
        record = dict[str, object]()
    if isinstance(record, dict):
        fields = cast("dict[str, object]", record)
        if spec.state_path and dig(fields, spec.state_path) is MISSING:
            fields = _with_state(
                fields, spec.state_path, rule.state
            )  # the rule's, typed
        record = fields
    return Poll(record, response.headers, state=rule.state, location=location)


def _with_state(
    record: dict[str, object], path: tuple[str, ...], state: str
) -> dict[str, object]:
    """A copy of `record` holding `state` at `path` (which it lacks)."""
    head, *rest = path
    if not rest:
        return {**record, head: state}
    inner = record.get(head)
    below = cast("dict[str, object]", inner) if isinstance(inner, dict) else {}
    return {**record, head: _with_state(below, tuple(rest), state)}


def parse(
    spec: JobSpec, job_id: str, response: httpx.Response, location: str | None = None
) -> Poll:
    """The record of a 2xx status answer (W6).

    A body that is not JSON (truncated, a proxy's HTML page) or has no record raises
    `UnreadableStatus`, which the status read retries like a 5xx.
    """
    try:
        body = response.json()
    except ValueError:
        kind = response.headers.get("content-type", "no content type")
        error = UnreadableStatus(f"the status body is not JSON ({kind})")
        raise attach_job_id(error, job_id) from None
    record = dig(body, spec.record_path)
    if record is MISSING:
        error = UnreadableStatus(
            "the status body has no record", path=pointer(spec.record_path)
        )
        raise attach_job_id(error, job_id)
    return Poll(record, response.headers, location=location)


def classify(
    spec: JobSpec, job_id: str, record: object, ruled: str | None = None
) -> tuple[str | None, str | None]:
    """The record's state (or the one a status rule gave) and terminal outcome (None
    while in progress), W1/W2."""
    state: str | None = None
    outcome: str | None = None
    if spec.state_path is not None or ruled is not None:
        raw = ruled if ruled is not None else dig(record, spec.state_path or ())
        if raw is MISSING or raw is None:
            raise UnknownJobState(
                job_id,
                state=None,
                documented=spec.documented_states,
                last_record=record,
                detail=f"nothing at {pointer(spec.state_path or ())}",
            )
        state = spec.documented(raw if isinstance(raw, str) else json.dumps(raw))
        outcome = spec.outcome_of.get(state)
        if outcome is None and state not in spec.pending:
            raise UnknownJobState(
                job_id,
                state=state,
                documented=spec.documented_states,
                last_record=record,
            )
    terminal = spec.terminal_path
    if outcome is None and terminal is not None and dig(record, terminal) is True:
        failed = error_payload(spec, record) is not None
        outcome = "failure" if failed else "success"
    return state, outcome


def error_payload(spec: JobSpec, record: object) -> object:
    """The error inside `record` where the spec declares one; None when absent."""
    if not spec.error_path:
        return None
    payload = dig(record, spec.error_path)
    return None if payload is MISSING else payload


def progress(spec: JobSpec, record: object) -> float | None:
    """The declared progress as a percentage, None when absent or not a number."""
    if spec.progress_path is not None:
        return _number(record, spec.progress_path)
    if spec.progress_done_path is None:
        return None
    done = _number(record, spec.progress_done_path)
    total = _number(record, spec.progress_total_path)
    if done is None or not total:
        return None
    return max(0.0, min(100.0, 100.0 * done / total))


def ready(spec: JobSpec, record: object) -> bool:
    """Whether the record says its result is ready (always, where none is declared);
    a job whose result is a member of its record has it there."""
    path = spec.ready_path
    if spec.result_path is not None and dig(record, spec.result_path) in (
        MISSING,
        None,
    ):
        return False
    return path is None or dig(record, path) is True


def hints(
    spec: JobSpec, record: object, headers: httpx.Headers, now: float
) -> list[tuple[float, str]]:
    """Every server hint of a poll, in seconds (W4); `now` is the wall clock."""
    found: list[tuple[float, str]] = []
    for hint in spec.header_hints:
        seconds = parse_delay(headers.get(hint.name), hint.format, now)
        if seconds is not None:
            kind = "retry-after" if hint.name.lower() == "retry-after" else "header"
            found.append((seconds, kind))
    if spec.hint_path is not None:
        raw = dig(record, spec.hint_path)
        value: float | None = None
        if isinstance(raw, (int, float)) and not isinstance(raw, bool):
            value = float(raw)
        elif isinstance(raw, str):
            value = parse_delay(raw, "seconds", now)
        if value is not None and value >= 0 and math.isfinite(value):
            found.append((value * spec.hint_scale, "hint"))
    return found


def decode_error(spec: JobSpec, raw: object) -> object:
    """A failed job's error payload, as the job's error model where it fits (values
    off the spec kept); None when absent or beyond decoding."""
    if spec.decode_error is None or raw is None:
        return raw
    path = (*spec.record_path, *(spec.error_path or ()))
    try:
        with lenient():
            return spec.decode_error(raw, "$" + "".join(f".{key}" for key in path))
    except SDKError:
        return None
