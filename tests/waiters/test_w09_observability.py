"""W9: every poll is observable through a PollEvent hook and standard logging."""

from __future__ import annotations

import logging

from tests.waiters.support import AZURE, SALESFORCE, STRIPE, SUME, ScriptedAPI, answer, http

SOURCES = {"retry-after", "hint", "header", "backoff", "floor"}


def _sume_api() -> ScriptedAPI:
    return ScriptedAPI(SUME).script(
        "job_01",
        answer("queued", {"Retry-After": "5"}),
        answer("processing", hint=4, progress={"percent": 20.0, "stage": "fetching"}),
        answer("processing", hint=0.5, progress={"percent": 60.0, "stage": "summarising"}),
        "processing",
        "completed",
    )


def test_on_poll_receives_one_event_per_poll(twin) -> None:
    api = _sume_api()
    s = twin.connect(api)
    events = []

    s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=600, on_poll=events.append))

    assert [(e.attempt, e.state, e.delay, e.source) for e in events] == [
        (1, "queued", 5.0, "retry-after"),
        (2, "processing", 4.0, "hint"),
        (3, "processing", 2.0, "floor"),
        (4, "processing", 22.5, "backoff"),  # first 2: raw = min(30, 2 * 2**4)
        (5, "completed", None, None),
    ]
    assert all(isinstance(e, s.sdk.PollEvent) for e in events)
    assert {e.source for e in events if e.source} <= SOURCES
    assert {e.job_id for e in events} == {"job_01"}
    assert [e.elapsed for e in events] == [0.0, 5.0, 9.0, 11.0, 33.5]
    # The record is decoded to the job's record model (typed for the hook); the JSON is kept.
    assert events[1].record.progress.percent == 20.0  # enough for a progress bar
    assert type(events[1].record).__name__ == "Job"
    assert events[1].raw_record["progress"]["percent"] == 20.0


def test_wait_config_hook_and_call_hook_both_see_every_poll(twin) -> None:
    api = ScriptedAPI(STRIPE).script("frr_01", "pending", "pending", "succeeded")
    configured, per_call = [], []
    s = twin.connect(api, wait={"on_poll": configured.append})

    s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=60, on_poll=per_call.append))

    assert configured == per_call
    assert [(e.attempt, e.delay, e.source) for e in per_call] == [
        (1, 1.5, "backoff"),
        (2, 3.0, "backoff"),
        (3, None, None),
    ]


def test_status_retries_are_not_poll_events(twin) -> None:
    op = AZURE.make_id(1)
    api = ScriptedAPI(AZURE).script(op, "Running", http(503), http(502), "Succeeded")
    s = twin.connect(api)
    events = []

    s.run(lambda c: c.analysis.wait_for_job(op, deadline=60, on_poll=events.append))

    assert [e.attempt for e in events] == [1, 2]
    assert len(api.requests) == 4


def test_the_last_event_of_a_timeout_has_no_delay(twin) -> None:
    api = ScriptedAPI(SALESFORCE)
    job = SALESFORCE.make_id(1)
    api.script(job, "InProgress")
    s = twin.connect(api)
    events = []

    try:
        s.run(lambda c: c.ingest.wait_for_job(job, deadline=5, on_poll=events.append))
    except s.errors.JobTimeout:
        pass

    assert [(e.attempt, e.delay) for e in events] == [(1, 1.5), (2, 3.0), (3, None)]


def test_polls_are_logged_at_debug_by_the_runtime_logger(twin, caplog) -> None:
    caplog.set_level(logging.DEBUG, logger="sume_sdk")
    s = twin.connect(_sume_api())

    s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=600))

    polls = [
        r
        for r in caplog.records
        if r.name.startswith("sume_sdk._runtime")
        and r.levelno == logging.DEBUG
        and "poll" in r.getMessage()
    ]
    assert len(polls) == 5
    assert all("job_01" in r.getMessage() for r in polls)
    assert "poll 1" in polls[0].getMessage() and "retry-after" in polls[0].getMessage()
    finished = [
        r for r in caplog.records if r.levelno == logging.INFO and "finished" in r.getMessage()
    ]
    assert len(finished) == 1 and "job_01" in finished[0].getMessage()
    assert all("sk-sume-secret" not in r.getMessage() for r in caplog.records)


def test_timeout_is_logged(twin, caplog) -> None:
    caplog.set_level(logging.DEBUG, logger="stripe_report_runs_sdk")
    s = twin.connect(ScriptedAPI(STRIPE).script("frr_01", "pending"))

    try:
        s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=5))
    except s.errors.JobTimeout:
        pass

    messages = [
        r.getMessage() for r in caplog.records if r.name.startswith("stripe_report_runs_sdk")
    ]
    assert any("frr_01" in m and "after" in m for m in messages if "poll" not in m)
