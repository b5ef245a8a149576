"""W7: the create answer is the first status read. Its record (terminal already: no status
read at all) and its hints (an Azure 202's Retry-After) schedule what follows, in
create_and_wait, start() and its handle; a resume token keeps the first read's due time."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.waiters.support import (
    AZURE,
    STRIPE,
    SUME,
    WALL_START,
    FakeTime,
    Reply,
    ScriptedAPI,
    answer,
)

OP = AZURE.make_id(1)
OP_URL = (
    f"https://example.cognitiveservices.azure.com/language/operations/{OP}?api-version=2024-05-01"
)


def _azure_202(state: str = "NotStarted", retry_after: str | None = "5", body: bool = True):
    headers = {"Operation-Location": OP_URL}
    if retry_after is not None:
        headers["Retry-After"] = retry_after
    return Reply(status=202, headers=headers, body=AZURE.record(OP, state) if body else None)


def _azure_create_and_wait(s, **options: Any) -> Any:
    body = AZURE.create_body(s.sdk)
    return s.run(lambda c: c.analysis.create_and_wait(body=body, deadline=600, **options))


def _timeline(api: ScriptedAPI) -> list[tuple[str, str, float]]:
    return [(r.kind, r.method, r.at) for r in api.requests]


def test_the_202s_retry_after_schedules_the_first_status_read(twin) -> None:
    api = (
        ScriptedAPI(AZURE)
        .on_create(_azure_202())
        .script(OP, answer("Running", {"Retry-After": "2"}), "Succeeded")
    )
    s = twin.connect(api)
    events = []

    result = _azure_create_and_wait(s, on_poll=events.append)

    assert result.status.value == "Succeeded"
    assert _timeline(api) == [
        ("create", "POST", 0.0),
        ("status", "GET", 5.0),  # not before the 202's Retry-After
        ("status", "GET", 7.0),
    ]
    assert s.time.sleeps == [5.0, 2.0]
    # the create answer is poll 1, seen by on_poll like any status read
    assert [(e.attempt, e.state, e.delay, e.source) for e in events] == [
        (1, "NotStarted", 5.0, "retry-after"),
        (2, "Running", 2.0, "retry-after"),
        (3, "Succeeded", None, None),
    ]
    assert api.requests[1].query == "api-version=2024-05-01"


def test_a_bodiless_202_still_schedules_the_first_read_by_its_retry_after(twin) -> None:
    api = ScriptedAPI(AZURE).on_create(_azure_202(body=False)).script(OP, "Succeeded")
    s = twin.connect(api)
    events = []

    _azure_create_and_wait(s, on_poll=events.append)

    assert _timeline(api) == [("create", "POST", 0.0), ("status", "GET", 5.0)]
    assert [e.attempt for e in events] == [1]  # no record came with the create


def test_a_create_answer_without_record_or_hint_is_read_at_once(twin) -> None:
    api = ScriptedAPI(AZURE).on_create(_azure_202(body=False, retry_after=None))
    api.script(OP, "Succeeded")
    s = twin.connect(api)

    _azure_create_and_wait(s)

    assert _timeline(api) == [("create", "POST", 0.0), ("status", "GET", 0.0)]


def test_a_retry_after_past_the_deadline_raises_at_once_naming_the_job(twin) -> None:
    api = ScriptedAPI(AZURE).on_create(_azure_202(retry_after="30")).script(OP, "Succeeded")
    s = twin.connect(api)
    body = AZURE.create_body(s.sdk)

    with pytest.raises(s.errors.JobTimeout) as caught:
        s.run(lambda c: c.analysis.create_and_wait(body=body, deadline=10))

    assert api.kinds == ["create"]
    assert caught.value.job_id == OP_URL
    assert OP_URL.split("?")[0] in str(caught.value) and "api-version" not in str(caught.value)
    assert caught.value.last_state == "NotStarted"


def test_a_create_answer_in_an_undocumented_state_is_not_taken_as_a_record(twin) -> None:
    reply = _azure_202(retry_after="3")
    reply.body["status"] = "Accepted"
    api = ScriptedAPI(AZURE).on_create(reply).script(OP, "Succeeded")
    s = twin.connect(api)

    _azure_create_and_wait(s)

    # its Retry-After still counts; the record is the status read's
    assert _timeline(api) == [("create", "POST", 0.0), ("status", "GET", 3.0)]


def test_a_terminal_create_answer_ends_create_and_wait_with_no_status_read(twin) -> None:
    api = ScriptedAPI(STRIPE).on_create(Reply(body=STRIPE.record("frr_01", "succeeded")))
    s = twin.connect(api)
    body = STRIPE.create_body(s.sdk)

    record = s.run(lambda c: c.reporting.create_and_wait(body=body, deadline=60))

    assert record.id == "frr_01" and record.status == "succeeded"
    assert api.kinds == ["create"]
    assert s.time.sleeps == []


def test_a_terminal_create_answer_goes_straight_to_the_result(twin) -> None:
    api = ScriptedAPI(SUME).on_create(Reply(status=202, body=SUME.record("job_01", "completed")))
    api.last_record["job_01"] = SUME.record("job_01", "completed")  # the result is ready
    s = twin.connect(api)
    body = SUME.create_body(s.sdk)

    result = s.run(lambda c: c.jobs.create_and_wait(body=body, deadline=60))

    assert result.data.job_id == "job_01"
    assert api.kinds == ["create", "result"]
    assert s.time.sleeps == []


def test_a_failed_create_answer_raises_the_jobs_failure(twin) -> None:
    api = ScriptedAPI(SUME).on_create(Reply(status=202, body=SUME.record("job_01", "failed")))
    s = twin.connect(api)
    body = SUME.create_body(s.sdk)

    with pytest.raises(s.errors.JobFailed) as caught:
        s.run(lambda c: c.jobs.create_and_wait(body=body, deadline=60))

    assert caught.value.job_id == "job_01"
    assert api.kinds == ["create"]


def test_a_completed_create_answer_whose_result_is_not_ready_keeps_polling(twin) -> None:
    record = SUME.record("job_01", "completed", ready=False)
    api = ScriptedAPI(SUME).on_create(Reply(status=202, body=record)).script("job_01", "completed")
    s = twin.connect(api)
    body = SUME.create_body(s.sdk)

    s.run(lambda c: c.jobs.create_and_wait(body=body, deadline=60))

    assert api.kinds == ["create", "status", "result"]
    assert s.time.sleeps and s.time.sleeps[0] > 0  # the status read follows the schedule


# -- start() and its handle ---------------------------------------------------------------


def _start(s) -> Any:
    body = AZURE.create_body(s.sdk)
    return s.run(lambda c: c.analysis.start_analysis_job(body=body, deadline=600))


def _call(s, fn) -> Any:
    if not s.is_async:
        return fn()

    async def main() -> Any:
        return await fn()

    import asyncio

    return asyncio.run(main())


def test_start_polls_only_when_the_202s_retry_after_is_due(twin) -> None:
    api = ScriptedAPI(AZURE).on_create(_azure_202()).script(OP, "Running", "Succeeded")
    s = twin.connect(api)
    handle = _start(s)

    first = _call(s, handle.poll)  # the create answer's decision: no request
    s.time.sleep(2.0)
    second = _call(s, handle.poll)  # 3 s still to go: no request either

    assert api.kinds == ["create"]
    assert (first.done, first.state, first.delay, first.source) == (
        False,
        "NotStarted",
        5.0,
        "retry-after",
    )
    assert (second.done, second.delay) == (False, 3.0)
    assert json.loads(second.resume_token)["due_at"] == WALL_START + 5.0

    result = _call(s, lambda: handle.result(deadline=600))

    assert result.status.value == "Succeeded"
    # then backoff(1) with the spec's first of 1 s: 3 s
    assert [(r.kind, r.at) for r in api.requests][1:] == [("status", 5.0), ("status", 8.0)]


def test_start_with_a_terminal_create_answer_is_done_without_a_request(twin) -> None:
    api = ScriptedAPI(AZURE).on_create(_azure_202("Succeeded", retry_after=None))
    s = twin.connect(api)
    handle = _start(s)

    decision = _call(s, handle.poll)
    done = _call(s, handle.done)
    record = _call(s, lambda: handle.wait(deadline=60))

    assert decision.done and decision.outcome == "success"
    assert done and record.status.value == "Succeeded"
    assert api.kinds == ["create"]


def test_a_resume_token_keeps_the_first_reads_due_time(twin) -> None:
    api = ScriptedAPI(AZURE).on_create(_azure_202(retry_after="5"))
    s = twin.connect(api)
    token = _start(s).resume_token
    assert json.loads(token)["due_at"] == WALL_START + 5.0

    # another process, 2 s later: its wait makes the first read 3 s on, when it is due
    later = ScriptedAPI(AZURE, FakeTime(start=500.0, wall=WALL_START + 2.0)).script(OP, "Succeeded")
    resumed = twin.connect(later)
    record = resumed.run(lambda c: c.analysis.wait_for_job(resume=token, deadline=60))

    assert record.status.value == "Succeeded"
    assert resumed.time.sleeps == [3.0]
    assert [(r.kind, r.at, r.query) for r in later.requests] == [
        ("status", 3.0, "api-version=2024-05-01")
    ]


# -- operation-URL ids round-trip (W8) ----------------------------------------------------

SIGNED = OP_URL + "&sig=S3CRET-SIG"


def _signed_202(state: str = "NotStarted") -> Reply:
    return Reply(
        status=202,
        headers={"Operation-Location": SIGNED, "Retry-After": "1"},
        body=AZURE.record(OP, state),
    )


def test_every_job_id_the_sdk_hands_out_is_accepted_back(twin, caplog) -> None:
    caplog.set_level("DEBUG")
    api = ScriptedAPI(AZURE).on_create(_signed_202())
    api.script(OP, answer("Running", {"Retry-After": "50"}), "Running", "Succeeded")
    s = twin.connect(api)
    events = []
    handle = _start(s)

    # a timeout's job id, a poll event's, a handle's: each one waits for the same job
    with pytest.raises(s.errors.JobTimeout) as caught:
        s.run(lambda c: c.analysis.wait_for_job(handle.job_id, deadline=10, on_poll=events.append))
    record = s.run(lambda c: c.analysis.wait_for_result(caught.value.job_id, deadline=600))
    again = s.client.analysis.handle(events[0].job_id)

    assert handle.job_id == caught.value.job_id == events[0].job_id == SIGNED
    assert again.job_id == SIGNED
    assert record.status.value == "Succeeded"
    assert [r.query for r in api.of("status")] == [SIGNED.split("?")[1]] * 3
    # the signature stays out of what the SDK prints
    shown = [str(caught.value), repr(caught.value), repr(handle), repr(events[0])]
    shown += [repr(_call(s, again.poll)), caplog.text]
    assert [text for text in shown if "S3CRET" in text] == []
    assert OP_URL.split("?")[0] in str(caught.value)


def test_a_handle_resumed_before_the_first_read_is_due_waits_for_it(twin) -> None:
    api = ScriptedAPI(AZURE).on_create(_azure_202(retry_after="5"))
    token = _start(twin.connect(api)).resume_token

    # another process (a task queue's worker), 2 s later: no request until it is due
    later = ScriptedAPI(AZURE, FakeTime(start=500.0, wall=WALL_START + 2.0))
    later.script(OP, "Running", "Succeeded")
    resumed = twin.connect(later)
    handle = resumed.client.analysis.handle(resume=token)
    early = _call(resumed, handle.poll)
    resumed.time.sleep(early.delay)
    due = _call(resumed, handle.poll)

    assert (early.done, early.state, early.delay) == (False, None, 3.0)
    assert json.loads(early.resume_token)["due_at"] == WALL_START + 5.0
    assert (due.done, due.state) == (False, "Running")
    assert [(r.kind, r.at) for r in later.requests] == [("status", 3.0)]
