"""Behaviour of the waiter (W1-W9, W13), each test run against both twins."""

from __future__ import annotations

import json
import logging
import sys
import types
import uuid
from email.utils import formatdate
from typing import Any

import attrs
import httpx
import pytest

from jobgen.runtime.http.retry import RetryPolicy
from jobgen.runtime.http.statuses import status_error_for
from jobgen.runtime.shared.errors import (
    AuthenticationError,
    DecodeError,
    InternalServerError,
    InvalidResumeToken,
    JobCanceled,
    JobFailed,
    JobTimeout,
    MissingJobId,
    NoResultOperation,
    NotFoundError,
    StatusUnavailable,
    UnknownJobState,
    UnreadableStatus,
)
from jobgen.runtime.waiting import core as waitcore
from jobgen.runtime.waiting.waiter import HeaderHint, JobSpec, PollEvent

from .fakes import (
    DEMO,
    REQUEST,
    START,
    SUME,
    WALL_START,
    FakeClock,
    Harness,
    Script,
    conn_error,
    job,
    response,
    sume,
)


def setup(mode: str, spec: JobSpec, steps: list[Any], **kwargs: Any):
    clock = FakeClock()
    script = Script(steps, clock)
    result = kwargs.pop("result", None)
    decode = kwargs.pop("decode", lambda raw: raw)
    harness = Harness(mode, spec, script, clock.config(**kwargs), result=result, decode=decode)
    return clock, script, harness


# -- the documented demo schedule (rng = 0.5, first = 1, cap = 30) ---------------------


def test_demo_running_three_times_then_succeeded(mode: str) -> None:
    clock, script, h = setup(mode, DEMO, [job("running")] * 3 + [job("succeeded")])
    record = h.wait_for_job("job_1")
    assert record["status"] == "succeeded"
    assert clock.sleeps == [1.5, 3.0, 6.0]
    assert script.count == 4


def test_demo_retry_after_five(mode: str) -> None:
    hinted = job("running", headers={"Retry-After": "5"})
    clock, _, h = setup(mode, DEMO, [hinted, hinted, job("succeeded")])
    assert h.wait_for_job("job_2")["status"] == "succeeded"
    assert clock.sleeps == [5.0, 5.0]


def test_demo_failing_job_returns_failed_record(mode: str) -> None:
    clock, script, h = setup(mode, DEMO, [job("running"), job("failed")])
    assert h.wait_for_job("job_3")["status"] == "failed"
    assert clock.sleeps == [1.5]
    assert script.count == 2


def test_demo_never_finishes_times_out_at_deadline(mode: str) -> None:
    clock, script, h = setup(mode, DEMO, [job("running")])
    with pytest.raises(JobTimeout) as info:
        h.wait_for_job("job_4", deadline=60)
    err = info.value
    assert script.count == 7
    # 45 + 30 would pass 60: the backoff is cut for a last look at 60 - 0.5
    assert clock.sleeps == [1.5, 3.0, 6.0, 12.0, 22.5, 14.5]
    assert err.job_id == "job_4" and "job_4" in str(err)
    assert err.elapsed == 59.5 and err.deadline == 60
    assert err.last_state == "running" and err.last_record == {"status": "running"}
    assert clock.now - START == 59.5  # no sleep after the last look


@pytest.mark.parametrize("state", ["succeeded", "failed", "canceled"])
def test_stops_on_every_terminal_state(mode: str, state: str) -> None:
    _, script, h = setup(mode, DEMO, [job("queued"), job(state)])
    assert h.wait_for_job("j")["status"] == state
    assert script.count == 2


# -- hints and floors (W4) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("hint", "delay", "source"), [(0.5, 2.0, "floor"), (4, 4.0, "hint"), (2, 2.0, "hint")]
)
def test_body_hint_against_floor(mode: str, hint: float, delay: float, source: str) -> None:
    events: list[PollEvent] = []
    steps = [sume("processing", next_poll_after_seconds=hint), sume("completed")]
    clock, _, h = setup(mode, SUME, steps, on_poll=events.append)
    h.wait_for_job("job_1")
    assert clock.sleeps == [delay]
    assert (events[0].delay, events[0].source) == (delay, source)


def test_longest_hint_wins(mode: str) -> None:
    events: list[PollEvent] = []
    steps = [
        sume("processing", next_poll_after_seconds=3, headers={"x-poll-after-ms": "4500"}),
        sume("processing", next_poll_after_seconds=6, headers={"Retry-After": "5"}),
        sume("completed"),
    ]
    clock, _, h = setup(mode, SUME, steps, on_poll=events.append)
    h.wait_for_job("job_1")
    assert clock.sleeps == [4.5, 6.0]
    assert [e.source for e in events] == ["header", "hint", None]


def test_hints_are_reread_every_poll(mode: str) -> None:
    steps = [
        job("running", headers={"Retry-After": "7"}),
        job("running"),
        job("running", headers={"Retry-After": "2"}),
        job("succeeded"),
    ]
    clock, _, h = setup(mode, DEMO, steps)
    h.wait_for_job("j")
    assert clock.sleeps == [7.0, 3.0, 2.0]  # backoff(1) = 3.0 when no hint


def test_retry_after_http_date_with_fixed_wall_clock(mode: str) -> None:
    date = formatdate(WALL_START + 7, usegmt=True)
    events: list[PollEvent] = []
    steps = [job("running", headers={"Retry-After": date}), job("succeeded")]
    clock, _, h = setup(mode, DEMO, steps, on_poll=events.append)
    h.wait_for_job("j")
    assert clock.sleeps == [7.0]
    assert events[0].source == "retry-after"


@pytest.mark.parametrize("value", ["0", formatdate(WALL_START - 60, usegmt=True)])
def test_retry_after_zero_or_past_is_floored(mode: str, value: str) -> None:
    steps = [sume("processing", headers={"Retry-After": value}), sume("completed")]
    clock, _, h = setup(mode, SUME, steps)
    h.wait_for_job("job_1")
    assert clock.sleeps == [2.0]


def test_retry_after_zero_with_zero_floor_waits_first(mode: str) -> None:
    """A floor of 0 cannot hot-loop: a zero wait becomes `first`, the SDK's own delay
    (source "backoff", not "floor": there is no floor)."""
    events: list[PollEvent] = []
    steps = [job("running", headers={"Retry-After": "0"})] * 3 + [job("succeeded")]
    clock, _, h = setup(mode, DEMO, steps, on_poll=events.append)
    h.wait_for_job("j")
    assert clock.sleeps == [1.0, 1.0, 1.0]
    assert {e.source for e in events[:3]} == {"backoff"}


def test_unparsable_retry_after_is_ignored(mode: str) -> None:
    steps = [job("running", headers={"Retry-After": "soon-ish"}), job("succeeded")]
    clock, _, h = setup(mode, DEMO, steps)
    h.wait_for_job("j")
    assert clock.sleeps == [1.5]  # backoff


def test_config_overrides_the_spec_schedule(mode: str) -> None:
    clock, _, h = setup(mode, DEMO, [job("running")] * 3 + [job("succeeded")], first=2.0, cap=5.0)
    h.wait_for_job("j")
    assert clock.sleeps == [3.0, 3.75, 3.75]


# -- the deadline (W5) -----------------------------------------------------------------


def test_hint_longer_than_time_left_raises_at_once(mode: str) -> None:
    steps = [job("running", headers={"Retry-After": "30"})]
    clock, script, h = setup(mode, DEMO, steps)
    with pytest.raises(JobTimeout) as info:
        h.wait_for_job("j_9", deadline=10)
    assert clock.sleeps == [] and script.count == 1
    assert info.value.elapsed == 0 and "j_9" in str(info.value)


def test_request_timeout_is_bounded_by_time_left(mode: str) -> None:
    _, script, h = setup(mode, DEMO, [job("running")] * 2 + [job("succeeded")])
    h.wait_for_job("j", deadline=20)
    assert [timeout for _, timeout in script.calls] == [20.0, 18.5, 15.5]


def test_status_retries_stop_at_the_deadline_with_job_timeout(mode: str) -> None:
    busy = response(503, {"error": "busy"}, {"Retry-After": "4"})
    clock, script, h = setup(mode, DEMO, [job("running"), busy])
    with pytest.raises(JobTimeout) as info:
        h.wait_for_job("j", deadline=6)
    assert script.count == 3
    assert clock.sleeps == [1.5, 4.0]  # 1.5 + 4 + 4 would pass 6
    assert isinstance(info.value.__cause__, InternalServerError)
    assert clock.now - START <= 6


# -- status read failures (W6) ---------------------------------------------------------


def test_503s_mid_job_neither_fail_nor_advance_the_schedule(mode: str) -> None:
    events: list[PollEvent] = []
    busy = response(503, {"error": "busy"})
    steps = [job("running"), busy, busy, busy, job("running"), job("succeeded")]
    clock, script, h = setup(mode, DEMO, steps, on_poll=events.append)
    assert h.wait_for_job("j")["status"] == "succeeded"
    # polls wait 1.5 then 3.0 (polls 1, 2); the retries in between wait 0.375, 0.75, 1.5
    assert clock.sleeps == [1.5, 0.375, 0.75, 1.5, 3.0]
    assert [(e.attempt, e.delay) for e in events] == [(1, 1.5), (2, 3.0), (3, None)]
    assert script.count == 6


def test_retries_honour_retry_after_on_429(mode: str) -> None:
    limited = response(429, {"error": "rate_limited"}, {"Retry-After": "2"})
    clock, _, h = setup(mode, DEMO, [job("running"), limited, job("succeeded")])
    h.wait_for_job("j")
    assert clock.sleeps == [1.5, 2.0]


@pytest.mark.parametrize("fault", ["503", "connection"])
def test_endpoint_down_past_budget_raises_status_unavailable(mode: str, fault: str) -> None:
    down: Any = response(503, {"error": "down"}) if fault == "503" else conn_error
    clock, script, h = setup(mode, DEMO, [job("running"), down])
    with pytest.raises(StatusUnavailable) as info:
        h.wait_for_job("job_7")
    assert clock.sleeps == [1.5, 0.375, 0.75, 1.5, 3.0]
    err = info.value
    assert script.count == 1 + 5  # default status_retry: 5 attempts
    assert err.job_id == "job_7" and "job_7" in str(err)
    assert "status endpoint unavailable" in str(err) and "job job_7 failed" not in str(err)
    assert err.__cause__ is err.last_error and err.last_state == "running"
    assert err.attempts == 5


def test_status_retry_budget_in_seconds(mode: str) -> None:
    down = response(503, {"error": "down"}, {"Retry-After": "2"})
    policy = RetryPolicy(attempts=100, budget=5.0)
    clock, script, h = setup(mode, DEMO, [down], status_retry=policy)
    with pytest.raises(StatusUnavailable):
        h.wait_for_job("j")
    assert clock.sleeps == [2.0, 2.0] and script.count == 3


@pytest.mark.parametrize("raise_it", [False, True])
def test_401_is_not_retried_and_names_the_job(mode: str, raise_it: bool) -> None:
    denied = response(401, {"error": {"message": "invalid api key"}})
    step: Any = (lambda: status_error_for(denied)) if raise_it else denied
    _, script, h = setup(mode, DEMO, [step])
    with pytest.raises(AuthenticationError) as info:
        h.wait_for_job("job_5")
    assert script.count == 1
    assert info.value.job_id == "job_5" and "job_5" in str(info.value)
    assert "API key" in str(info.value)


def test_404_propagates_with_job_id(mode: str) -> None:
    _, script, h = setup(mode, DEMO, [job("running"), response(404, {"error": "no such job"})])
    with pytest.raises(NotFoundError) as info:
        h.wait_for_job("job_6")
    assert script.count == 2 and info.value.job_id == "job_6"


UNREADABLE = {
    "html": lambda: httpx.Response(
        200,
        text="<html>502 from the proxy</html>",
        headers={"content-type": "text/html"},
        request=REQUEST,
    ),
    "truncated": lambda: httpx.Response(
        200, text='{"data": {"id": "job_1", "status": "proc', request=REQUEST
    ),
    "no-record": lambda: response(200, {"message": "upstream is warming up"}),
    "empty": lambda: httpx.Response(200, request=REQUEST),
}


@pytest.mark.parametrize("body", list(UNREADABLE))
def test_an_unreadable_status_body_is_retried_like_a_5xx(mode: str, body: str) -> None:
    bad = UNREADABLE[body]
    steps = [sume("processing"), bad, bad, sume("completed", result_ready=True)]
    clock, script, h = setup(mode, SUME, steps)
    events: list[PollEvent] = []
    record = h.wait_for_job("job_1", on_poll=events.append)
    assert record["status"] == "completed"
    assert script.count == 4
    # one poll delay (the 2 s floor), then the status-read backoff: 0.375, 0.75
    assert clock.sleeps == [2.0, 0.375, 0.75]
    assert [e.attempt for e in events] == [1, 2]  # retries do not advance the schedule


@pytest.mark.parametrize("body", list(UNREADABLE))
def test_unreadable_status_past_the_budget_is_status_unavailable(mode: str, body: str) -> None:
    _, script, h = setup(mode, SUME, [sume("processing"), UNREADABLE[body]])
    with pytest.raises(StatusUnavailable) as info:
        h.wait_for_job("job_8")
    error = info.value
    assert error.job_id == "job_8" and "job_8" in str(error)
    assert isinstance(error.last_error, UnreadableStatus)
    assert isinstance(error.last_error, DecodeError)
    assert error.last_state == "processing"
    assert script.count == 1 + 5


# -- states (W1, W2) -------------------------------------------------------------------


def test_undocumented_state_raises_unknown_job_state(mode: str) -> None:
    _, script, h = setup(mode, DEMO, [job("running"), job("paused")])
    with pytest.raises(UnknownJobState) as info:
        h.wait_for_job("job_u")
    err = info.value
    assert err.state == "paused" and err.job_id == "job_u" and "job_u" in str(err)
    assert err.last_record == {"status": "paused"} and script.count == 2


def test_missing_state_is_unknown(mode: str) -> None:
    _, _, h = setup(mode, DEMO, [response(200, {"progress": 3})])
    with pytest.raises(UnknownJobState, match=r"\$\.status"):
        h.wait_for_job("j")


def test_terminal_flag_alone(mode: str) -> None:
    spec = JobSpec(name="t", terminal_path=("done",), error_path=("error",))
    steps = [response(200, {"done": False}), response(200, {"done": True, "error": None})]
    _, script, h = setup(mode, spec, steps)
    assert h.wait_for_job("j") == {"done": True, "error": None} and script.count == 2
    failed = [response(200, {"done": True, "error": {"message": "bad"}})]
    _, _, h = setup(mode, spec, failed, result=lambda job_id, _left: "r")
    with pytest.raises(JobFailed, match="bad"):
        h.wait_for_result("j")


# -- results (W3, W7) ------------------------------------------------------------------


def test_result_fetched_once_after_ready(mode: str) -> None:
    fetched: list[str] = []
    steps = [
        sume("processing"),
        sume("completed", result_ready=False),
        sume("completed", result_ready=False),
        sume("completed", result_ready=True),
    ]

    def fetch(job_id: str, time_left: float) -> dict[str, str]:
        assert 0 < time_left <= 600
        fetched.append(job_id)
        return {"url": "s3://result"}

    clock, script, h = setup(mode, SUME, steps, result=fetch)
    assert h.wait_for_result("job_1") == {"url": "s3://result"}
    assert fetched == ["job_1"] and script.count == 4
    assert clock.sleeps == [2.0, 3.0, 6.0]  # same schedule as any non-terminal poll


def test_wait_for_job_returns_terminal_record_even_if_not_ready(mode: str) -> None:
    steps = [sume("completed", result_ready=False)]
    _, _, h = setup(mode, SUME, steps, decode=lambda raw: ("typed", raw["status"]))
    assert h.wait_for_job("job_1") == ("typed", "completed")


@pytest.mark.parametrize(("state", "cls"), [("failed", JobFailed), ("canceled", JobCanceled)])
def test_failed_and_canceled_carry_payload(mode: str, state: str, cls: type) -> None:
    payload = {"code": "boom", "message": "the worker exploded"}
    fetched: list[str] = []
    steps = [sume("processing"), sume(state, error=payload)]
    _, _, h = setup(mode, SUME, steps, result=fetched.append, decode=lambda raw: ("typed", raw))
    with pytest.raises(cls) as info:
        h.wait_for_result("job_1")
    err = info.value
    assert err.job_id == "job_1" and err.error == payload and err.last_state == state
    assert "job_1" in str(err) and err.record[0] == "typed"
    assert fetched == []
    if cls is JobCanceled:
        assert not isinstance(err, JobFailed)


class _Failed(JobFailed[Any, str]):
    """A job's own failure class, as a generated SDK declares it."""


class _Canceled(JobCanceled[Any, str]):
    """A job's own cancellation class."""


def _message_of(raw: object, path: str) -> str:
    if not isinstance(raw, dict) or not isinstance(raw.get("message"), str):
        raise DecodeError("not an error object", path=path)
    return f"{raw['message']} (decoded at {path})"


@pytest.mark.parametrize(("state", "cls"), [("failed", _Failed), ("canceled", _Canceled)])
def test_the_jobs_own_error_classes_carry_the_decoded_error(
    mode: str, state: str, cls: type
) -> None:
    spec = attrs.evolve(
        SUME, failed_error=_Failed, canceled_error=_Canceled, decode_error=_message_of
    )
    payload = {"code": "boom", "message": "the worker exploded"}
    _, _, h = setup(mode, spec, [sume(state, error=payload)], result=lambda _: None)
    with pytest.raises(cls) as info:
        h.wait_for_result("job_1")
    assert info.value.error == "the worker exploded (decoded at $.data.error)"
    assert "the worker exploded" in str(info.value) and "decoded" not in str(info.value)


def test_an_error_payload_off_its_model_is_none_and_still_quoted(mode: str) -> None:
    spec = attrs.evolve(SUME, failed_error=_Failed, decode_error=_message_of)
    steps = [sume("failed", error="disk full")]
    _, _, h = setup(mode, spec, steps, result=lambda _: None)
    with pytest.raises(_Failed) as info:
        h.wait_for_result("job_1")
    assert info.value.error is None and "disk full" in str(info.value)


def test_no_result_operation(mode: str) -> None:
    _, script, h = setup(mode, DEMO, [job("succeeded")])
    with pytest.raises(NoResultOperation) as info:
        h.wait_for_result("j")
    assert isinstance(info.value, TypeError) and script.count == 0


# -- resume tokens (W5) ----------------------------------------------------------------


def test_resume_token_continues_in_a_fresh_waiter(mode: str) -> None:
    _, _, first = setup(mode, DEMO, [job("running")])
    with pytest.raises(JobTimeout) as info:
        first.wait_for_job("job_r", deadline=20)
    token = json.loads(json.dumps(info.value.resume_token))  # through a file, a queue...
    assert json.loads(token) == {
        "v": 1, "job": "job", "job_id": "job_r", "deadline_at": WALL_START + 20, "attempt": 5,
    }  # fmt: skip

    # another process, 2 s of wall time after the last look: fresh clock, waiter and endpoint
    clock = FakeClock(now=50.0, wall=WALL_START + 19.5 + 2)
    events: list[PollEvent] = []
    script = Script([job("running", headers={"Retry-After": "2"})], clock)
    second = Harness(mode, DEMO, script, clock.config(on_poll=events.append))
    with pytest.raises(JobTimeout) as again:
        second.wait_for_job(resume=token, deadline=7.5)
    assert events[0].attempt == 6  # the count goes on: five reads before, this is the sixth
    assert again.value.deadline == pytest.approx(7.5)  # the resumed wait's own deadline
    # 6 s of the 7.5 s, then 8 > 7.5: the server's Retry-After gets no last look
    assert clock.sleeps == [2.0, 2.0, 2.0]
    assert json.loads(again.value.resume_token)["attempt"] == 9
    assert json.loads(again.value.resume_token)["deadline_at"] == pytest.approx(
        WALL_START + 21.5 + 7.5
    )


def test_resumed_wait_returns_when_done(mode: str) -> None:
    token = json.dumps({"v": 1, "job_id": "job_r", "deadline_at": WALL_START + 100, "attempt": 3})
    clock, script, h = setup(mode, DEMO, [job("running"), job("succeeded")])
    assert h.wait_for_job(resume=token, deadline=100)["status"] == "succeeded"
    assert clock.sleeps == [12.0]  # backoff(3): the schedule goes on
    assert script.calls[0] == ("job_r", 100.0)  # the resumed wait's own deadline


@pytest.mark.parametrize(
    "token",
    [
        "not json",
        "[]",
        '{"v": 2, "job_id": "j", "deadline_at": 1, "attempt": 0}',
        '{"v": 1, "deadline_at": 1, "attempt": 0}',
        '{"v": 1, "job_id": "j", "deadline_at": "soon", "attempt": 0}',
        '{"v": 1, "job_id": "j", "deadline_at": 1, "attempt": -1}',
        '{"v": 1, "job_id": "j", "deadline_at": 1, "attempt": 0, "job": "other"}',
    ],
)
def test_malformed_resume_token(mode: str, token: str) -> None:
    _, script, h = setup(mode, DEMO, [job("running")])
    with pytest.raises(InvalidResumeToken) as info:
        h.wait_for_job(resume=token)
    assert isinstance(info.value, ValueError) and script.count == 0


def test_resume_token_for_another_job_id(mode: str) -> None:
    token = json.dumps({"v": 1, "job_id": "a", "deadline_at": WALL_START + 9, "attempt": 0})
    _, _, h = setup(mode, DEMO, [job("running")])
    with pytest.raises(InvalidResumeToken):
        h.wait_for_job("b", resume=token)


# -- create_and_wait (W13) -------------------------------------------------------------


def test_create_and_wait_uses_one_idempotency_key(mode: str) -> None:
    keys: list[str | None] = []

    def create(key: str | None, time_left: float | None) -> httpx.Response:
        keys.append(key)
        return response(201, {"data": {"id": "job_new", "status": "queued"}})

    steps = [sume("processing"), sume("completed", result_ready=True)]
    _, script, h = setup(mode, SUME, steps, result=lambda job_id, _left: f"result of {job_id}")
    assert h.create_and_wait(create) == "result of job_new"
    assert len(keys) == 1 and keys[0] is not None and uuid.UUID(keys[0]).version == 4
    assert {job_id for job_id, _ in script.calls} == {"job_new"}


def test_create_and_wait_without_result_returns_record(mode: str) -> None:
    keys: list[str | None] = []
    spec = JobSpec(
        name="op", state_path=("status",), success={"Succeeded"}, failure={"Failed"},
        canceled={"Canceled"}, pending={"Running"}, id_header="Operation-Location",
    )  # fmt: skip

    def create(key: str | None, time_left: float | None) -> httpx.Response:
        keys.append(key)
        location = "https://x/operations/op_9/?api-version=2024-01-01"
        return response(202, None, {"Operation-Location": location})

    _, script, h = setup(mode, spec, [response(200, {"status": "Succeeded"})])
    assert h.create_and_wait(create) == {"status": "Succeeded"}
    assert keys == [None] and script.calls[0][0] == "op_9"


def test_create_response_without_id(mode: str) -> None:
    _, script, h = setup(mode, SUME, [sume("completed")], result=lambda job_id, _left: 1)
    with pytest.raises(MissingJobId, match=r"\$\.data\.id"):
        h.create_and_wait(lambda key, left: response(201, {"data": {"status": "queued"}}))
    assert script.count == 0


def test_create_error_propagates(mode: str) -> None:
    _, script, h = setup(mode, SUME, [sume("completed")], result=lambda job_id, _left: 1)
    with pytest.raises(AuthenticationError):
        h.create_and_wait(lambda key, left: response(401, {"error": "no"}))
    assert script.count == 0


# -- observability (W9) and arguments --------------------------------------------------


def test_on_poll_events_and_logging(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    config_events: list[PollEvent] = []
    call_events: list[PollEvent] = []
    steps = [job("queued", headers={"Retry-After": "4"}), job("running"), job("succeeded")]
    _, _, h = setup(mode, DEMO, steps, on_poll=config_events.append)
    with caplog.at_level(logging.DEBUG, logger="jobgen.runtime"):
        h.wait_for_job("job_log", on_poll=call_events.append)
    assert config_events == call_events
    assert [(e.attempt, e.state, e.delay, e.source) for e in call_events] == [
        (1, "queued", 4.0, "retry-after"),
        (2, "running", 3.0, "backoff"),
        (3, "succeeded", None, None),
    ]
    assert [e.elapsed for e in call_events] == [0.0, 4.0, 7.0]
    assert call_events[2].record == {"status": "succeeded"} and call_events[0].job_id == "job_log"
    debug = [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG]
    info = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert any("job_log" in m and "retry-after" in m for m in debug)
    assert any("job_log" in m and "success" in m for m in info)


@pytest.mark.parametrize("deadline", [0, -1, float("inf"), float("nan")])
def test_bad_deadline(mode: str, deadline: float) -> None:
    _, _, h = setup(mode, DEMO, [job("running")])
    with pytest.raises(ValueError, match="deadline"):
        h.wait_for_job("j", deadline=deadline)


def test_bad_job_id(mode: str) -> None:
    _, _, h = setup(mode, DEMO, [job("running")])
    with pytest.raises(ValueError, match="job_id"):
        h.wait_for_job("")


def test_opentelemetry_span_when_available(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    spans: list[tuple[str, dict[str, str]]] = []

    class Tracer:
        def start_as_current_span(self, name: str, attributes: dict[str, str]) -> Any:
            spans.append((name, attributes))
            import contextlib

            return contextlib.nullcontext()

    otel = types.ModuleType("opentelemetry")
    trace = types.ModuleType("opentelemetry.trace")
    trace.get_tracer = lambda name: Tracer()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "opentelemetry", otel)
    monkeypatch.setitem(sys.modules, "opentelemetry.trace", trace)
    monkeypatch.setattr(waitcore, "_tracer", None)
    _, _, h = setup(mode, DEMO, [job("succeeded")])
    h.wait_for_job("job_s")
    assert spans == [("jobgen.wait", {"job.id": "job_s", "job.type": "job"})]


def test_job_spec_checks() -> None:
    spec = JobSpec(name="x", state_path=["s"], success=["ok"], pending=("run",))
    assert spec.state_path == ("s",) and spec.success == frozenset({"ok"})
    with pytest.raises(TypeError, match="path"):
        JobSpec(name="x", state_path="status")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="states"):
        JobSpec(name="x", state_path=("s",), success="done")
    with pytest.raises(ValueError, match="state_path or a terminal_path"):
        JobSpec(name="x")
    with pytest.raises(ValueError, match="twice"):
        JobSpec(name="x", state_path=("s",), success={"a"}, failure={"a"})
    with pytest.raises(ValueError, match="format"):
        HeaderHint("x-wait", "minutes")
