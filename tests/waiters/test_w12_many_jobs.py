"""W12: waiting for many jobs with bounded concurrency, outcomes as they finish, and a
client-wide cap on status reads per second."""

from __future__ import annotations

import threading

import pytest

from tests.waiters.support import STRIPE, After, ScriptedAPI, http

JOBS = [STRIPE.make_id(n) for n in range(1, 21)]
UNKNOWN, UNAUTHORIZED = STRIPE.make_id(7), STRIPE.make_id(13)


def _twenty_jobs() -> ScriptedAPI:
    api = ScriptedAPI(STRIPE)
    for n, job in enumerate(JOBS, start=1):
        if job == UNKNOWN:
            last = "paused"
        elif job == UNAUTHORIZED:
            last = http(401)
        else:
            last = "failed" if n % 5 == 0 else "succeeded"
        api.script(job, *["pending"] * (n % 4), last)
    return api


def test_twenty_jobs_three_at_a_time_yield_every_outcome(twin) -> None:
    api = _twenty_jobs()
    if not twin.is_async:
        api.gate = threading.Barrier(3)  # the first three reads meet: three threads at once
    s = twin.connect(api)

    outcomes = s.collect(lambda c: c.reporting.wait_for_jobs(JOBS, concurrency=3, deadline=3600))

    assert sorted(o.job_id for o in outcomes) == JOBS
    by_id = {o.job_id: o for o in outcomes}
    for n, job in enumerate(JOBS, start=1):
        outcome = by_id[job]
        if job in (UNKNOWN, UNAUTHORIZED):
            assert not outcome.ok and outcome.record is None
            assert outcome.error.job_id == job
        else:
            assert outcome.ok and outcome.error is None
            assert isinstance(outcome.record, s.models.ReportingReportRun)
            assert outcome.record.status == ("failed" if n % 5 == 0 else "succeeded")
    assert isinstance(by_id[UNKNOWN].error, s.errors.UnknownJobState)
    assert isinstance(by_id[UNAUTHORIZED].error, s.errors.AuthenticationError)
    assert len(api.requests) == sum(n % 4 + 1 for n in range(1, 21))
    assert {r.method for r in api.requests} == {"GET"}
    assert api.max_active == 3  # jobs started and not yet finished
    assert api.max_in_flight == 3  # status requests on the wire at once


def test_outcomes_come_as_jobs_finish(twin) -> None:
    slow, fast = STRIPE.make_id(1), STRIPE.make_id(2)
    fast_seen = threading.Event()
    api = ScriptedAPI(STRIPE)
    api.script(slow, "pending", After(fast_seen, "pending"), "succeeded")
    api.script(fast, "succeeded")
    s = twin.connect(api)

    def note(outcome) -> None:
        if outcome.job_id == fast:
            fast_seen.set()

    outcomes = s.collect(
        lambda c: c.reporting.wait_for_jobs([slow, fast], concurrency=2, deadline=600), each=note
    )

    assert [o.job_id for o in outcomes] == [fast, slow]


def test_concurrency_one_waits_one_job_at_a_time(twin) -> None:
    api = ScriptedAPI(STRIPE)
    for job in JOBS[:5]:
        api.script(job, "pending", "succeeded")
    s = twin.connect(api)

    outcomes = s.collect(lambda c: c.reporting.wait_for_jobs(JOBS[:5], concurrency=1))

    assert [o.job_id for o in outcomes] == JOBS[:5]
    assert [r.job_id for r in api.requests] == [j for j in JOBS[:5] for _ in range(2)]
    assert api.max_active == 1


def test_the_deadline_bounds_the_whole_collection(twin) -> None:
    api = ScriptedAPI(STRIPE)
    for job in JOBS[:4]:
        api.script(job, "pending")
    s = twin.connect(api)

    outcomes = s.collect(lambda c: c.reporting.wait_for_jobs(JOBS[:4], concurrency=2, deadline=30))

    assert sorted(o.job_id for o in outcomes) == JOBS[:4]
    for outcome in outcomes:
        assert isinstance(outcome.error, s.errors.JobTimeout)
        assert outcome.error.job_id == outcome.job_id


@pytest.mark.parametrize("concurrency", [0, -1])
def test_concurrency_must_be_positive(twin, concurrency: int) -> None:
    s = twin.connect(ScriptedAPI(STRIPE))

    with pytest.raises(ValueError, match="concurrency"):
        s.client.reporting.wait_for_jobs(JOBS, concurrency=concurrency)


# -- the client-wide rate cap --------------------------------------------------------------


def _instant_jobs(count: int) -> ScriptedAPI:
    api = ScriptedAPI(STRIPE)
    for job in JOBS[:count]:
        api.script(job, "succeeded")
    return api


def test_rate_cap_spreads_the_reads_of_concurrent_waits(twin) -> None:
    api = _instant_jobs(20)
    s = twin.connect(api, wait={"max_status_reads_per_second": 5})

    outcomes = s.collect(lambda c: c.reporting.wait_for_jobs(JOBS, concurrency=3, deadline=600))

    assert len(outcomes) == 20 and all(o.ok for o in outcomes)
    assert len(api.requests) == 20
    # 20 reads at 5 per second need at least 19 intervals of 0.2 s
    assert s.time.elapsed >= 19 * 0.2 - 1e-9
    assert all(0 < d <= 0.6 + 1e-9 for d in s.time.sleeps)  # only the limiter slept


def test_without_a_cap_the_same_reads_are_not_spread(twin) -> None:
    api = _instant_jobs(20)
    s = twin.connect(api)

    s.collect(lambda c: c.reporting.wait_for_jobs(JOBS, concurrency=3, deadline=600))

    assert s.time.elapsed == 0.0


def test_rate_cap_spaces_sequential_reads_exactly(twin) -> None:
    api = _instant_jobs(5)
    s = twin.connect(api, wait={"max_status_reads_per_second": 5})

    s.collect(lambda c: c.reporting.wait_for_jobs(JOBS[:5], concurrency=1, deadline=600))

    assert [round(r.at, 9) for r in api.requests] == [0.0, 0.2, 0.4, 0.6, 0.8]


def test_rate_cap_is_shared_by_separate_waits_of_one_client(twin) -> None:
    api = _instant_jobs(3)
    s = twin.connect(api, wait={"max_status_reads_per_second": 5})

    for job in JOBS[:3]:
        s.run(lambda c, job=job: c.reporting.wait_for_job(job, deadline=60))

    assert [round(r.at, 9) for r in api.requests] == [0.0, 0.2, 0.4]
    assert [round(d, 9) for d in s.time.sleeps] == [0.2, 0.2]


def test_rate_cap_counts_status_retries_too(twin) -> None:
    api = ScriptedAPI(STRIPE).script(JOBS[0], http(503), "succeeded")
    s = twin.connect(api, wait={"max_status_reads_per_second": 1})

    s.run(lambda c: c.reporting.wait_for_job(JOBS[0], deadline=60))

    # the retry's own backoff (0.375 s) is followed by the limiter's remainder (0.625 s)
    assert [round(r.at, 9) for r in api.requests] == [0.0, 1.0]


def test_a_crowd_of_async_waits_hands_httpx_no_more_requests_than_its_pool(twins) -> None:
    # Queued inside httpx's pool, thousands of requests cost CPU quadratic in the queue
    # and overran their deadlines; the SDK queues them itself, a pool's worth at a time.
    _, twin = twins
    jobs = [STRIPE.make_id(n) for n in range(1, 301)]
    api = ScriptedAPI(STRIPE)
    for job in jobs:
        api.script(job, "pending", "succeeded")
    s = twin.connect(api)

    outcomes = s.collect(lambda c: c.reporting.wait_for_jobs(jobs, concurrency=300, deadline=3600))

    assert sorted(o.job_id for o in outcomes) == sorted(jobs) and all(o.ok for o in outcomes)
    assert api.max_active == 300
    assert api.max_in_flight == 100  # the size of the pool of the client the SDK creates
