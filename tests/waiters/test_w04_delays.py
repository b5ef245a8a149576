"""W4: the delay between polls: the longest server hint, never under the floor;
equal-jitter backoff otherwise."""

from __future__ import annotations

from email.utils import formatdate

import pytest

from tests.waiters.support import AZURE, STRIPE, SUME, WALL_START, ScriptedAPI, answer

OP = AZURE.make_id(1)


def _events(s, fn):
    events = []
    s.run(lambda c: fn(c, events.append))
    return [(e.delay, e.source) for e in events]


def test_stripe_demo_schedule_three_pending_then_succeeded(twin) -> None:
    api = ScriptedAPI(STRIPE).script("frr_01", "pending", "pending", "pending", "succeeded")
    s = twin.connect(api)

    record = s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=600))

    assert s.time.sleeps == [1.5, 3.0, 6.0]
    assert record.status == "succeeded"
    assert [r.at for r in api.requests] == [0.0, 1.5, 4.5, 10.5]


def test_backoff_doubles_up_to_the_cap(twin) -> None:
    api = ScriptedAPI(STRIPE).script("frr_01", *["pending"] * 7, "succeeded")
    s = twin.connect(api)

    s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=600))

    # raw = min(30, 2 ** (n + 1)); delay = raw / 2 + 0.5 * raw / 2
    assert s.time.sleeps == [1.5, 3.0, 6.0, 12.0, 22.5, 22.5, 22.5]


def test_azure_retry_after_five_is_honoured(twin) -> None:
    headers = {"Retry-After": "5"}
    api = ScriptedAPI(AZURE).script(
        OP, answer("NotStarted", headers), answer("Running", headers), "Succeeded"
    )
    s = twin.connect(api)

    events = _events(s, lambda c, hook: c.analysis.wait_for_job(OP, deadline=60, on_poll=hook))

    assert s.time.sleeps == [5.0, 5.0]
    assert events == [(5.0, "retry-after"), (5.0, "retry-after"), (None, None)]


def test_azure_without_retry_after_backs_off_from_first(twin) -> None:
    api = ScriptedAPI(AZURE).script(OP, "NotStarted", "Running", "Running", "Succeeded")
    s = twin.connect(api)

    s.run(lambda c: c.analysis.wait_for_job(OP, deadline=60))

    assert s.time.sleeps == [1.5, 3.0, 6.0]


def test_hints_are_re_read_on_every_poll(twin) -> None:
    api = ScriptedAPI(AZURE).script(
        OP,
        answer("Running", {"Retry-After": "7"}),
        answer("Running", {"Retry-After": "2"}),
        "Running",
        "Succeeded",
    )
    s = twin.connect(api)

    s.run(lambda c: c.analysis.wait_for_job(OP, deadline=60))

    assert s.time.sleeps == [7.0, 2.0, 6.0]  # the third poll has no hint: backoff(2)


@pytest.mark.parametrize(
    ("hint", "expected", "source"),
    [(0.5, 2.0, "floor"), (4, 4.0, "hint"), (2, 2.0, "hint"), (12.5, 12.5, "hint")],
)
def test_sume_body_hint_never_under_the_floor(twin, hint, expected, source) -> None:
    api = ScriptedAPI(SUME).script("job_01", answer("processing", hint=hint), "completed")
    s = twin.connect(api)

    events = _events(s, lambda c, hook: c.jobs.wait_for_job("job_01", deadline=60, on_poll=hook))

    assert s.time.sleeps == [expected]
    assert events[0] == (expected, source)


def test_sume_without_hints_backs_off_from_its_first(twin) -> None:
    api = ScriptedAPI(SUME).script("job_01", "queued", "processing", "completed")
    s = twin.connect(api)

    s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    assert s.time.sleeps == [3.0, 6.0]  # first = 2: raw 4 then 8


@pytest.mark.parametrize(
    ("retry_after", "hint", "expected", "source"),
    [("3", 6, 6.0, "hint"), ("8", 6, 8.0, "retry-after"), ("1", None, 2.0, "floor")],
)
def test_sume_longest_hint_wins(twin, retry_after, hint, expected, source) -> None:
    step = answer("processing", {"Retry-After": retry_after}, hint=hint)
    api = ScriptedAPI(SUME).script("job_01", step, "completed")
    s = twin.connect(api)

    events = _events(s, lambda c, hook: c.jobs.wait_for_job("job_01", deadline=60, on_poll=hook))

    assert events[0] == (expected, source)
    assert s.time.sleeps == [expected]


def test_http_date_retry_after_is_read_against_the_wall_clock(twin) -> None:
    date = formatdate(WALL_START + 10, usegmt=True)
    api = ScriptedAPI(AZURE).script(OP, answer("Running", {"Retry-After": date}), "Succeeded")
    s = twin.connect(api)

    events = _events(s, lambda c, hook: c.analysis.wait_for_job(OP, deadline=60, on_poll=hook))

    assert s.time.sleeps == [10.0]
    assert events[0] == (10.0, "retry-after")


def test_sume_http_date_retry_after(twin) -> None:
    date = formatdate(WALL_START + 9, usegmt=True)
    api = ScriptedAPI(SUME).script("job_01", answer("queued", {"Retry-After": date}), "completed")
    s = twin.connect(api)

    s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    assert s.time.sleeps == [9.0]


@pytest.mark.parametrize(
    "value", ["0", formatdate(WALL_START - 3600, usegmt=True)], ids=["zero", "past-date"]
)
def test_retry_after_zero_or_past_never_hot_loops(twin, value: str) -> None:
    api = ScriptedAPI(AZURE).script(
        OP, answer("Running", {"Retry-After": value}), answer("Running", {"Retry-After": value})
    )
    api.scripts[OP].append("Succeeded")
    s = twin.connect(api)

    s.run(lambda c: c.analysis.wait_for_job(OP, deadline=60))

    assert s.time.sleeps == [1.0, 1.0]  # Azure's floor


def test_sume_retry_after_zero_waits_the_floor(twin) -> None:
    api = ScriptedAPI(SUME).script("job_01", answer("queued", {"Retry-After": "0"}), "completed")
    s = twin.connect(api)

    s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    assert s.time.sleeps == [2.0]


@pytest.mark.parametrize("value", ["soon", "-5", "1e3", "", "Thu, 99 Foo 2026"])
def test_unparsable_retry_after_is_ignored(twin, value: str) -> None:
    api = ScriptedAPI(AZURE).script(OP, answer("Running", {"Retry-After": value}), "Succeeded")
    s = twin.connect(api)

    events = _events(s, lambda c, hook: c.analysis.wait_for_job(OP, deadline=60, on_poll=hook))

    assert s.time.sleeps == [1.5]
    assert events[0] == (1.5, "backoff")
