"""Scenario parsing: every field, and a clear error naming the field for every mistake."""

from __future__ import annotations

from functools import cache
from typing import Any

import attrs
import pytest

from jobgen.model import ir
from jobgen.model.build import load_and_build
from jobgen.server.scenario import RetryAfter, ScenarioError, Stage, parse_scenario
from tests.helpers import SPECS


@cache
def job(name: str = "sume") -> ir.Job:
    return load_and_build(SPECS / f"{name}.yaml").jobs[0]


def test_defaults() -> None:
    s = parse_scenario(None, job())
    assert s.stages == (Stage("queued", polls=2),)
    assert (s.final, s.final_kind) == ("completed", "success")
    assert s.status_errors == () and s.create_errors == () and s.hint is None


def test_every_field() -> None:
    s = parse_scenario(
        {
            "states": [{"state": "queued", "polls": 1}, {"state": "processing", "seconds": 0.5}],
            "final": "canceled",
            "result_delay_polls": 1,
            "result_delay_seconds": 0.25,
            "hint": 7,
            "retry_after": "date:+30",
            "status_errors": [{"at_poll": 2, "status": 503, "count": 3, "retry_after": 1}],
            "drop_connection_at_polls": [6],
            "malformed_at_polls": [7],
            "create_errors": [{"attempt": 1, "drop_connection": True, "after_create": True}],
        },
        job(),
    )
    assert s.stages == (Stage("queued", polls=1), Stage("processing", seconds=0.5))
    assert s.final_kind == "canceled"
    assert s.retry_after == RetryAfter("date", 30.0)
    assert s.status_errors[0].polls == range(2, 5)
    assert s.status_errors[0].retry_after == RetryAfter("seconds", 1.0)
    assert s.drop_connection_at_polls == {6} and s.malformed_at_polls == {7}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (5, RetryAfter("seconds", 5.0)),
        (0.05, RetryAfter("seconds", 0.05)),
        ("0", RetryAfter("seconds", 0.0)),
        ("2.5", RetryAfter("seconds", 2.5)),
        ("date:+10", RetryAfter("date", 10.0)),
        ("date:-10", RetryAfter("date", -10.0)),
        ("raw:soon", RetryAfter("raw", text="soon")),
    ],
)
def test_retry_after_forms(value: object, expected: RetryAfter) -> None:
    assert parse_scenario({"retry_after": value}, job()).retry_after == expected


def test_poll_after_ms_needs_a_custom_header_in_the_spec() -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario({"poll_after_ms": 500}, job())
    assert caught.value.field == "poll_after_ms"
    custom = ir.HeaderHint("x-poll-after-ms", "milliseconds")
    with_header = _with(job(), header_hints=(custom,))
    assert parse_scenario({"poll_after_ms": 500}, with_header).poll_after_ms == 500


def _with(j: ir.Job, **changes: Any) -> ir.Job:
    return attrs.evolve(j, **changes)


BAD: list[tuple[str, object, str, str]] = [
    ("sume", [], "", "the scenario must be a JSON object, not an array"),
    ("sume", {"sates": []}, "sates", "unknown field"),
    ("sume", {"states": {}}, "states", "must be an array"),
    ("sume", {"states": [{"state": "queued"}]}, "states[0]", "exactly one of 'polls' or 'seconds'"),
    (
        "sume",
        {"states": [{"state": "queued", "polls": 1, "seconds": 1}]},
        "states[0]",
        "exactly one",
    ),
    ("sume", {"states": [{"polls": 1}]}, "states[0].state", "is required"),
    ("sume", {"states": [{"state": "running", "polls": 1}]}, "states[0].state", "not a documented"),
    ("sume", {"states": [{"state": "completed", "polls": 1}]}, "states[0].state", "is terminal"),
    ("sume", {"states": [{"state": "queued", "polls": 0}]}, "states[0].polls", "between 1"),
    ("sume", {"states": [{"state": "queued", "polls": True}]}, "states[0].polls", "an integer"),
    ("sume", {"states": [{"state": "queued", "polls": 1.5}]}, "states[0].polls", "an integer"),
    (
        "sume",
        {"states": [{"state": "queued", "seconds": 0}]},
        "states[0].seconds",
        "greater than 0",
    ),
    ("sume", {"states": [{"state": "queued", "seconds": "1"}]}, "states[0].seconds", "a number"),
    ("sume", {"states": [{"state": "queued", "polls": 1, "x": 1}]}, "states[0].x", "unknown field"),
    ("sume", {"final": "processing"}, "final", "not terminal"),
    ("sume", {"final": "done"}, "final", "not a documented terminal state"),
    ("sume", {"final": 3}, "final", "must be a string"),
    ("stripe_report_runs", {"final": "canceled"}, "final", "no canceled state"),
    ("sume", {"final": "failed", "undocumented_state": "x"}, "undocumented_state", "not both"),
    ("sume", {"undocumented_state": "failed"}, "undocumented_state", "is a documented state"),
    ("sume", {"undocumented_state": ""}, "undocumented_state", "non-empty string"),
    ("sume", {"states": [], "final": "never"}, "states", "needs a state"),
    ("sume", {"result_delay_polls": -1}, "result_delay_polls", "between 0"),
    ("sume", {"result_delay_seconds": "soon"}, "result_delay_seconds", "a number"),
    ("stripe_report_runs", {"result_delay_polls": 1}, "result_delay_polls", "neither a result"),
    ("stripe_report_runs", {"hint": 1}, "hint", "no body poll hint"),
    ("sume", {"hint": -1}, "hint", "at least 0"),
    ("sume", {"hint": float("nan")}, "hint", "at least 0"),
    ("sume", {"retry_after": "later"}, "retry_after", "expected seconds"),
    ("sume", {"retry_after": "date:10"}, "retry_after", "date:+N"),
    ("sume", {"retry_after": "raw:"}, "retry_after", "printable ASCII"),
    ("sume", {"retry_after": -1}, "retry_after", "at least 0"),
    ("sume", {"retry_after": True}, "retry_after", "a number or a string"),
    ("sume", {"status_errors": [{"status": 503}]}, "status_errors[0].at_poll", "is required"),
    ("sume", {"status_errors": [{"at_poll": 1}]}, "status_errors[0].status", "is required"),
    (
        "sume",
        {"status_errors": [{"at_poll": 1, "status": 200}]},
        "status_errors[0].status",
        "between 400",
    ),
    (
        "sume",
        {"status_errors": [{"at_poll": 1, "status": 401}]},
        "status_errors[0].status",
        "credentials",
    ),
    (
        "sume",
        {"status_errors": [{"at_poll": 0, "status": 503}]},
        "status_errors[0].at_poll",
        "between 1",
    ),
    (
        "sume",
        {"status_errors": [{"at_poll": 1, "status": 503, "count": 0}]},
        "status_errors[0].count",
        "between 1",
    ),
    (
        "sume",
        {"status_errors": [{"at_poll": 1, "status": 503, "retry_after": "x"}]},
        "status_errors[0].retry_after",
        "expected seconds",
    ),
    (
        "sume",
        {"status_errors": [{"at_poll": 1, "status": 503, "when": 1}]},
        "status_errors[0].when",
        "unknown",
    ),
    (
        "sume",
        {"status_errors": [{"at_poll": 2, "status": 503, "count": 2}], "malformed_at_polls": [3]},
        "malformed_at_polls",
        "poll 3 already has a fault from status_errors[0]",
    ),
    ("sume", {"drop_connection_at_polls": [1, 1]}, "drop_connection_at_polls", "more than once"),
    ("sume", {"drop_connection_at_polls": ["1"]}, "drop_connection_at_polls[0]", "an integer"),
    ("sume", {"malformed_at_polls": 3}, "malformed_at_polls", "must be an array"),
    ("sume", {"create_errors": [{"status": 503}]}, "create_errors[0].attempt", "is required"),
    ("sume", {"create_errors": [{"attempt": 1}]}, "create_errors[0]", "exactly one of 'status'"),
    (
        "sume",
        {"create_errors": [{"attempt": 1, "status": 503, "drop_connection": True}]},
        "create_errors[0]",
        "exactly one",
    ),
    (
        "sume",
        {"create_errors": [{"attempt": 1, "drop_connection": True, "retry_after": 1}]},
        "create_errors[0].retry_after",
        "sends no headers",
    ),
    (
        "sume",
        {"create_errors": [{"attempt": 1, "status": 503, "after_create": "yes"}]},
        "create_errors[0].after_create",
        "a boolean",
    ),
    (
        "sume",
        {
            "create_errors": [
                {"attempt": 1, "status": 503, "count": 2},
                {"attempt": 2, "status": 500},
            ]
        },
        "create_errors[1]",
        "attempt 2 already has a fault",
    ),
]


@pytest.mark.parametrize(("spec", "raw", "field", "message"), BAD)
def test_bad_input_names_the_field(spec: str, raw: object, field: str, message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(raw, job(spec))
    assert caught.value.field == field
    assert message in caught.value.message, caught.value.message
    assert isinstance(caught.value, ValueError)


def test_terminal_field_only_jobs_use_neutral_state_names() -> None:
    terminal_only = _with(
        job(),
        state_path=None,
        success=(),
        failure=(),
        canceled=(),
        pending=(),
    )
    s = parse_scenario(
        {"states": [{"state": "running", "polls": 1}], "final": "failure"}, terminal_only
    )
    assert s.stages == (Stage("running", polls=1),) and s.final_kind == "failure"


def test_operation_host_needs_an_operation_url_and_a_host_name() -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario({"operation_host": "localhost"}, job())
    assert (caught.value.field, caught.value.message) == (
        "operation_host",
        "the job declares no operation_url",
    )
    reply = job("async_request_reply")
    assert parse_scenario({"operation_host": "localhost"}, reply).operation_host == "localhost"
    for bad in ("evil.example/path", "", 7, "a..b"):
        with pytest.raises(ScenarioError, match="must be a host name"):
            parse_scenario({"operation_host": bad}, reply)


def test_a_time_scale_divides_every_duration_and_keeps_every_hint() -> None:
    """Hints stay as written (the spec bounds them); the SDK under test is told the scale."""
    raw = {
        "states": [{"state": "processing", "seconds": 30}, {"state": "processing", "polls": 2}],
        "result_delay_seconds": 5,
        "hint": 10,
        "retry_after": "date:+20",
        "status_errors": [{"at_poll": 1, "status": 503, "retry_after": 4}],
        "create_errors": [{"attempt": 1, "status": 429, "retry_after": "raw:soon"}],
        "webhook": {"delay": 8, "retry_scale": 2},
    }
    fast = parse_scenario(raw, job(), time_scale=10)
    assert fast.stages == (Stage("processing", seconds=3.0), Stage("processing", polls=2))
    assert (fast.result_delay_seconds, fast.hint, fast.time_scale) == (0.5, 10.0, 10.0)
    assert fast.retry_after == RetryAfter("date", 20.0)
    assert fast.status_errors[0].retry_after == RetryAfter("seconds", 4.0)
    assert fast.create_errors[0].retry_after == RetryAfter("raw", text="soon")
    assert (fast.webhook.delay, fast.webhook.retry_scale) == (0.8, 0.2)
    # The scenario's own time_scale replaces the server's.
    own = parse_scenario({**raw, "time_scale": 100}, job(), time_scale=10)
    assert own.stages[0] == Stage("processing", seconds=0.3) and own.time_scale == 100


@pytest.mark.parametrize("value", [0, -1, 1e6, "fast"])
def test_a_bad_time_scale_names_the_field(value: object) -> None:
    with pytest.raises(ScenarioError) as refused:
        parse_scenario({"time_scale": value}, job())
    assert refused.value.field == "time_scale"
