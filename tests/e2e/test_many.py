"""`wait_for_jobs` over the wire: ten jobs, three at a time, under a client-wide cap on
status reads per second, checked on the server's request log; leaving early stops it."""

from __future__ import annotations

import time
from typing import Any

from tests.e2e.support import E2E, OTHER_KEY, max_overlap

RATE = 25.0  # status reads per second, for the whole client
JOBS = 10
UNDOCUMENTED, FOREIGN = 4, 7  # positions of the jobs whose waits end in an error


def test_ten_jobs_three_at_a_time_under_the_read_rate_cap(e2e: E2E) -> None:
    api = e2e.api
    job_ids, failed = [], set()
    for n in range(JOBS):
        if n == UNDOCUMENTED:
            job_ids.append(e2e.job({"states": api.stages(1), "undocumented_state": "Lost"}))
        elif n == FOREIGN:
            job_ids.append(e2e.job({"states": api.stages(1)}, key=OTHER_KEY))
        else:
            final = "failure" if n % 3 == 2 else "success"
            job_ids.append(e2e.job({"states": api.stages(1), "final": final}))
            if final == "failure":
                failed.add(job_ids[-1])

    outcomes = e2e.collect(
        lambda jobs: jobs.wait_for_jobs(job_ids, concurrency=3, deadline=20),
        max_status_reads_per_second=RATE,
    )

    assert sorted(o.job_id for o in outcomes) == sorted(job_ids)
    by_id = {o.job_id: o for o in outcomes}
    for n, job_id in enumerate(job_ids):
        outcome = by_id[job_id]
        if n == UNDOCUMENTED:
            assert isinstance(outcome.error, e2e.sdk.UnknownJobState)
        elif n == FOREIGN:
            assert isinstance(outcome.error, e2e.sdk.AuthenticationError)
        else:
            assert outcome.ok and outcome.error is None
            assert str(outcome.record.id) == job_id
            expected = api.failure if job_id in failed else api.success
            assert e2e.state(outcome.record) == expected
            continue
        assert not outcome.ok and outcome.record is None
        assert outcome.error.job_id == job_id

    polls = [r for r in e2e.log() if r.operation == "status"]
    assert len(polls) == 2 * (JOBS - 1) + 1
    # Concurrency: a job counts from its first status request to its last.
    spans = [
        (min(r.time for r in polls if r.job_id == j), max(r.time for r in polls if r.job_id == j))
        for j in job_ids
    ]
    assert max_overlap(spans) <= 3
    # Rate: in any window, no more reads than the cap allows, plus one burst token.
    times = sorted(r.time for r in polls)
    for i, start in enumerate(times):
        for j in range(i + 1, len(times)):
            allowed = 2 + RATE * (times[j] - start)
            assert j - i + 1 <= allowed, (j - i + 1, times[j] - start)
    assert times[-1] - times[0] >= (len(times) - 2) / RATE


def test_leaving_wait_for_jobs_early_stops_the_other_waits(e2e: E2E) -> None:
    never = [e2e.job({"states": e2e.api.stages(1), "final": "never"}) for _ in range(3)]
    quick = e2e.job({"states": []})
    job_ids = [never[0], never[1], quick, never[2]]

    def first(jobs: Any) -> Any:
        outcomes = jobs.wait_for_jobs(job_ids, concurrency=3, deadline=10)
        outcome = next(outcomes)
        outcomes.close()
        return outcome

    async def first_async(jobs: Any) -> Any:
        async with jobs.wait_for_jobs(job_ids, concurrency=3, deadline=10) as outcomes:
            async for outcome in outcomes:
                return outcome
        raise AssertionError("no outcome")

    outcome = e2e.run(first_async if e2e.is_async else first)

    assert outcome.job_id == quick and outcome.ok
    time.sleep(0.05)  # a wait mid-request or mid-sleep makes at most one more request
    settled = len([r for r in e2e.log() if r.operation == "status"])
    time.sleep(0.1)
    assert len([r for r in e2e.log() if r.operation == "status"]) == settled
    assert e2e.polls(never[2]) == []  # never started
