"""W10: clock, sleep and randomness are injectable, so a schedule is exactly repeatable."""

from __future__ import annotations

import itertools

import pytest

from tests.waiters.support import AZURE, STRIPE, SUME, FakeTime, ScriptedAPI, answer, http


def _run(twin, rng=lambda: 0.5, time: FakeTime | None = None):
    api = ScriptedAPI(SUME, time).script(
        "job_01",
        "queued",
        http(503),
        answer("processing", hint=3),
        "processing",
        "processing",
        answer("completed", ready=False),
        "completed",
    )
    s = twin.connect(api, rng=rng)
    events = []
    s.run(lambda c: c.jobs.wait_for_result("job_01", deadline=600, on_poll=events.append))
    return (
        s.time.sleeps,
        [r.key() for r in api.requests],
        [(e.attempt, e.state, e.delay, e.source, e.elapsed) for e in events],
    )


def test_two_runs_with_the_same_injections_are_identical(twin) -> None:
    first = _run(twin)
    second = _run(twin)

    assert first == second
    assert first[0] == [3.0, 0.375, 3.0, 12.0, 22.5, 22.5]


def test_a_different_rng_changes_the_backoff(twin) -> None:
    low = _run(twin, rng=lambda: 0.0)[0]
    high = _run(twin, rng=lambda: 1.0)[0]

    assert low == [2.0, 0.25, 3.0, 8.0, 15.0, 15.0]
    assert high == [4.0, 0.5, 3.0, 16.0, 30.0, 30.0]


@pytest.mark.parametrize(("rng", "expected"), [(0.0, [1.0, 2.0, 4.0]), (1.0, [2.0, 4.0, 8.0])])
def test_stripe_schedule_follows_the_rng(twin, rng: float, expected: list[float]) -> None:
    api = ScriptedAPI(STRIPE).script("frr_01", "pending", "pending", "pending", "succeeded")
    s = twin.connect(api, rng=lambda: rng)

    s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=60))

    assert s.time.sleeps == expected


def test_rng_is_drawn_once_per_backoff(twin) -> None:
    draws = itertools.cycle([0.0, 1.0])
    api = ScriptedAPI(STRIPE).script("frr_01", "pending", "pending", "pending", "succeeded")
    s = twin.connect(api, rng=lambda: next(draws))

    s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=60))

    assert s.time.sleeps == [1.0, 4.0, 4.0]


def test_server_hints_do_not_depend_on_the_rng(twin) -> None:
    op = AZURE.make_id(1)
    api = ScriptedAPI(AZURE).script(op, answer("Running", {"Retry-After": "5"}), "Succeeded")
    s = twin.connect(api, rng=lambda: 0.99)

    s.run(lambda c: c.analysis.wait_for_job(op, deadline=60))

    assert s.time.sleeps == [5.0]


def test_the_deadline_follows_the_monotonic_clock_not_the_wall_clock(twin) -> None:
    class JumpyWall(FakeTime):
        def wall_clock(self) -> float:  # the wall clock is set back an hour at every read
            self.wall_offset -= 3600
            return super().wall_clock()

    api = ScriptedAPI(STRIPE, JumpyWall()).script("frr_01", "pending")
    s = twin.connect(api)

    with pytest.raises(s.errors.JobTimeout) as caught:
        s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=60))

    assert caught.value.elapsed == 59.5
    assert s.time.sleeps == [1.5, 3.0, 6.0, 12.0, 22.5, 14.5]
