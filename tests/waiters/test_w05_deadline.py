"""W5: one deadline per wait, checked before every sleep; JobTimeout with a portable
resume token; request timeouts and retries bounded by the time left."""

from __future__ import annotations

import json
import random

import httpx
import pytest

from tests.waiters.support import (
    AZURE,
    STRIPE,
    SUME,
    WALL_START,
    FakeTime,
    ScriptedAPI,
    Timed,
    answer,
    http,
)


def _never_finishing() -> ScriptedAPI:
    return ScriptedAPI(STRIPE).script("frr_01", "pending")


def test_stripe_job_never_finishing_takes_a_last_look_before_the_deadline(twin) -> None:
    api = _never_finishing()
    s = twin.connect(api)
    events = []

    with pytest.raises(s.errors.JobTimeout) as caught:
        s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=60, on_poll=events.append))

    error = caught.value
    # 45 + 30 (the backoff's cap) would pass 60: the backoff is cut so that one last
    # read starts at the deadline less one read's budget (0.5 s), then it raises.
    assert s.time.sleeps == [1.5, 3.0, 6.0, 12.0, 22.5, 14.5]
    assert [r.at for r in api.requests] == [0.0, 1.5, 4.5, 10.5, 22.5, 45.0, 59.5]
    assert [(e.delay, e.source) for e in events][-2:] == [(14.5, "deadline"), (None, None)]
    assert s.time.elapsed == 59.5
    assert error.job_id == "frr_01"
    assert error.elapsed == 59.5
    assert error.deadline == 60
    assert error.last_state == "pending"
    assert error.last_record == api.last_record["frr_01"]
    assert "frr_01" in str(error)


def test_the_last_look_finds_the_job_done(twin) -> None:
    api = ScriptedAPI(STRIPE).script("frr_01", "pending", "pending", "succeeded")
    s = twin.connect(api)

    record = s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=4))

    # 1.5, then 1.5 + 3.0 would pass 4: the last look goes at 4 - 0.5 and sees the end
    assert record.status == "succeeded"
    assert s.time.sleeps == [1.5, 2.0]
    assert [r.at for r in api.requests] == [0.0, 1.5, 3.5]


def test_no_last_look_without_a_read_budget_left(twin) -> None:
    # 1.5 would pass 0.4, and 0.4 s left is less than a read's budget: raise now
    api = _never_finishing()
    s = twin.connect(api)

    with pytest.raises(s.errors.JobTimeout) as caught:
        s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=0.4))

    assert s.time.sleeps == []
    assert caught.value.elapsed == 0.0


def test_the_next_read_moves_to_the_last_look_when_the_one_after_would_not_fit(twin) -> None:
    # 1.5 fits 1.8, but the read after it would not (0.3 s left, less than a read's
    # budget): the next read itself moves to 1.8 - 0.5, the last look
    api = _never_finishing()
    s = twin.connect(api)
    events = []

    with pytest.raises(s.errors.JobTimeout) as caught:
        s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=1.8, on_poll=events.append))

    assert s.time.sleeps == [pytest.approx(1.3)]
    assert [(e.delay, e.source) for e in events] == [
        (pytest.approx(1.3), "deadline"),
        (None, None),
    ]
    assert caught.value.elapsed == pytest.approx(1.3)


def test_the_last_look_moves_later_within_the_floor(twin) -> None:
    # A floor of 2 s: from 2.0, the backoff's 3.0 would leave 1.0 s at 5.0, less than
    # the floor and a read's budget, so the read moves to 6 - 0.5
    api = _never_finishing()
    s = twin.connect(api, wait={"floor": 2.0})

    with pytest.raises(s.errors.JobTimeout) as caught:
        s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=6))

    assert s.time.sleeps == [2.0, 3.5]
    assert [r.at for r in api.requests] == [0.0, 2.0, 5.5]
    assert caught.value.elapsed == 5.5


def test_the_last_look_keeps_the_floor(twin) -> None:
    # A floor of 2 s and a 2.3 s deadline: 2.3 - 0.5 is sooner than the floor allows,
    # so the read stays at 2.0, and nothing fits after it
    api = _never_finishing()
    s = twin.connect(api, wait={"floor": 2.0})

    with pytest.raises(s.errors.JobTimeout) as caught:
        s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=2.3))

    assert s.time.sleeps == [2.0]
    assert caught.value.elapsed == 2.0


@pytest.mark.parametrize("floor", [0.0, 1.0, 2.0])
def test_a_job_done_at_19_s_of_20_is_seen_on_every_seed(twin, floor: float) -> None:
    for seed in range(40):
        api = ScriptedAPI(STRIPE).script("frr_01", Timed(19.0, "pending", "succeeded"))
        s = twin.connect(api, rng=random.Random(seed).random, wait={"floor": floor})

        record = s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=20))

        # the read that sees it comes after 19 s and by the deadline less a read's budget
        assert record.status == "succeeded", (floor, seed)
        assert 19.0 <= api.requests[-1].at <= 19.5 + 1e-9, (floor, seed)


def test_against_a_2_s_floor_a_job_done_at_3_2_s_of_4_is_seen(twin) -> None:
    # Sume: floor 2 s. The read at 2.0 would leave no room for another (2.0 s left is
    # less than the floor and a read's budget): it moves to 4 - 0.5 and sees the end
    for seed in range(20):
        api = ScriptedAPI(SUME).script("job_01", Timed(3.2, "processing", "completed"))
        s = twin.connect(api, rng=random.Random(seed).random)

        record = s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=4))

        assert record.status == "completed", seed
        assert [r.at for r in api.requests] == [0.0, pytest.approx(3.5)], seed


@pytest.mark.parametrize(("hint", "reads"), [(2.2, [0.0, 3.5]), (3.8, [0.0, 3.8])])
def test_the_last_look_never_comes_sooner_than_a_server_hint(twin, hint, reads) -> None:
    # A body hint that leaves no room for a read after it: the read moves later to the
    # deadline less a read's budget (2.2 -> 3.5), never sooner than the hint (3.8)
    api = ScriptedAPI(SUME).script("job_01", answer("processing", hint=hint), "processing")
    s = twin.connect(api)

    with pytest.raises(s.errors.JobTimeout):
        s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=4))

    assert [r.at for r in api.requests] == pytest.approx(reads)


def test_a_slow_status_read_widens_the_last_looks_budget(twin) -> None:
    api = _never_finishing()
    slow = {"reads": 0}
    base = api.handle

    def handle(request):
        slow["reads"] += 1
        api.time.now += 1.25  # each status read takes 1.25 s of the wait's clock
        return base(request)

    async def handle_async(request):
        return handle(request)

    api.transport = lambda is_async: httpx.MockTransport(handle_async if is_async else handle)
    s = twin.connect(api)

    with pytest.raises(s.errors.JobTimeout) as caught:
        s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=10))

    # reads end at 1.25, 4.0 (1.25 + 1.5 + 1.25), then 3.0 would end at 7.0 + 1.25,
    # then 6.0 passes 10: cut to 10 - 1.25 (the slowest read) from 8.25 is 0.5
    assert s.time.sleeps == [1.5, 3.0, 0.5]
    assert slow["reads"] == 4
    assert caught.value.elapsed == 10.0


def test_a_hint_longer_than_the_time_left_raises_at_once(twin) -> None:
    api = ScriptedAPI(SUME).script("job_01", answer("processing", hint=120), "completed")
    s = twin.connect(api)

    with pytest.raises(s.errors.JobTimeout) as caught:
        s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    assert len(api.requests) == 1
    assert s.time.sleeps == []
    assert caught.value.job_id == "job_01"
    assert caught.value.last_state == "processing"


def test_a_retry_after_longer_than_the_time_left_raises_at_once(twin) -> None:
    op = AZURE.make_id(1)
    api = ScriptedAPI(AZURE).script(
        op, answer("Running", {"Retry-After": "3"}), answer("Running", {"Retry-After": "58"})
    )
    s = twin.connect(api)

    with pytest.raises(s.errors.JobTimeout) as caught:
        s.run(lambda c: c.analysis.wait_for_job(op, deadline=60))

    assert s.time.sleeps == [3.0]
    assert caught.value.elapsed == 3.0


def test_resume_token_is_versioned_json_naming_the_job(twin) -> None:
    s = twin.connect(_never_finishing())

    with pytest.raises(s.errors.JobTimeout) as caught:
        s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=60))

    token = json.loads(caught.value.resume_token)
    assert token["v"] == 1
    assert token["job_id"] == "frr_01"
    assert token["attempt"] == 7  # six polls on the schedule and the last look
    assert token["deadline_at"] == WALL_START + 60
    assert "secret" not in caught.value.resume_token


def _timed_out_token(twin) -> str:
    s = twin.connect(_never_finishing())
    with pytest.raises(s.errors.JobTimeout) as caught:
        s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=60))
    # through JSON and back, as if stored and read by another process
    return json.dumps(json.loads(caught.value.resume_token))


def test_resume_on_a_fresh_client_continues_the_same_job(twin) -> None:
    token = _timed_out_token(twin)
    # another process: another monotonic origin, the wall clock where the wait stopped
    api = ScriptedAPI(STRIPE, FakeTime(start=50_000.0, wall=WALL_START + 45)).script(
        "frr_01", "succeeded"
    )
    s = twin.connect(api)
    events = []

    record = s.run(lambda c: c.reporting.wait_for_job(resume=token, on_poll=events.append))

    assert record.id == "frr_01" and record.status == "succeeded"
    assert [r.job_id for r in api.requests] == ["frr_01"]
    assert [e.attempt for e in events] == [8]  # seven reads before, this is the eighth
    assert api.of("create") == []


def test_resume_counts_on_with_a_deadline_of_its_own(twin) -> None:
    token = _timed_out_token(twin)
    api = ScriptedAPI(STRIPE, FakeTime(start=7.0, wall=WALL_START + 45)).script("frr_01", "pending")
    s = twin.connect(api)

    with pytest.raises(s.errors.JobTimeout) as caught:
        s.run(lambda c: c.reporting.wait_for_job(resume=token, deadline=15))

    # the eighth read backs off 22.5 s (the cap), past the new 15 s deadline: one poll, then
    # the last look at 15 less a read's budget
    assert [r.at for r in api.requests] == [0.0, 14.5]
    assert s.time.sleeps == [14.5]
    assert json.loads(caught.value.resume_token)["attempt"] == 9
    assert caught.value.job_id == "frr_01"
    assert caught.value.deadline == 15


def test_resume_after_the_old_deadline_still_polls(twin) -> None:
    token = _timed_out_token(twin)
    api = ScriptedAPI(STRIPE, FakeTime(wall=WALL_START + 3600)).script("frr_01", "succeeded")
    s = twin.connect(api)

    record = s.run(lambda c: c.reporting.wait_for_job(resume=token, deadline=60))

    assert len(api.requests) == 1
    assert record.id == "frr_01"


def test_resume_token_of_another_job_is_refused(twin) -> None:
    token = _timed_out_token(twin)
    api = ScriptedAPI(STRIPE).script("frr_02", "succeeded")
    s = twin.connect(api)

    with pytest.raises(s.errors.InvalidResumeToken):
        s.run(lambda c: c.reporting.wait_for_job("frr_02", resume=token))
    assert api.requests == []


def test_request_timeout_never_exceeds_the_time_left(twin) -> None:
    api = ScriptedAPI(STRIPE).script("frr_01", "pending", "pending", "pending", "succeeded")
    s = twin.connect(api)

    s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=20))

    assert len(api.requests) == 4
    for request in api.requests:
        left = 20 - request.at
        assert request.timeout, "no timeout reached the transport"
        assert all(v is not None and v <= left for v in request.timeout.values()), (
            request.at,
            request.timeout,
        )


def test_request_timeout_stays_under_the_client_timeout(twin) -> None:
    api = ScriptedAPI(STRIPE).script("frr_01", "pending", "succeeded")
    s = twin.connect(api, timeout=5.0)

    s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=600))

    for request in api.requests:
        assert all(v is not None and v <= 5.0 for v in request.timeout.values()), request.timeout


def test_status_retries_stop_when_the_time_left_runs_out(twin) -> None:
    api = ScriptedAPI(STRIPE).script(
        "frr_01", "pending", http(503, {"Retry-After": "50"}), "succeeded"
    )
    s = twin.connect(api)

    with pytest.raises(s.errors.JobTimeout) as caught:
        s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=30))

    assert s.time.sleeps == [1.5]  # the 50 s retry would outlive the deadline
    assert len(api.requests) == 2
    assert caught.value.job_id == "frr_01"


def test_result_fetch_is_bounded_by_the_deadline(twin) -> None:
    api = ScriptedAPI(SUME).script("job_01", "processing", "completed")
    s = twin.connect(api)

    s.run(lambda c: c.jobs.wait_for_result("job_01", deadline=10))

    (fetch,) = api.of("result")
    left = 10 - fetch.at
    assert all(v is not None and v <= left for v in fetch.timeout.values()), fetch.timeout


def test_result_fetch_retries_do_not_outlive_the_deadline(twin) -> None:
    unavailable = http(503, {"Retry-After": "30"})
    api = ScriptedAPI(SUME).script("job_01", "completed")
    api.on_result("job_01", unavailable, unavailable)
    s = twin.connect(api)

    with pytest.raises(s.errors.SDKError) as caught:
        s.run(lambda c: c.jobs.wait_for_result("job_01", deadline=10))

    assert caught.value.job_id == "job_01"
    assert s.time.elapsed <= 10, s.time.sleeps


def test_an_httpx_timeout_is_bounded_per_phase(twin) -> None:
    api = ScriptedAPI(STRIPE).script("frr_01", "pending", "succeeded")
    s = twin.connect(api, timeout=httpx.Timeout(30.0, connect=2.0))

    s.run(lambda c: c.reporting.wait_for_job("frr_01", deadline=10))

    first, second = api.requests
    assert first.timeout == {"connect": 2.0, "read": 10.0, "write": 10.0, "pool": 10.0}
    assert second.timeout == {"connect": 2.0, "read": 8.5, "write": 8.5, "pool": 8.5}


def test_resume_token_of_another_job_type_is_refused(twin) -> None:
    token = _timed_out_token(twin)
    api = ScriptedAPI(SUME).script("frr_01", "completed")
    s = twin.connect(api)

    with pytest.raises(s.errors.InvalidResumeToken, match="report_run"):
        s.run(lambda c: c.jobs.wait_for_job(resume=token))
    assert api.requests == []


def test_a_wait_or_handle_with_neither_job_id_nor_resume_says_what_it_needs(twin) -> None:
    # The type checkers refuse these calls (tests/typed_apps/mistakes); untyped code
    # is told at run time, before any request.
    api = ScriptedAPI(SUME).script("job_01", "completed")
    s = twin.connect(api)

    with pytest.raises(TypeError, match=r"job_id to wait for, or resume=<a resume token>"):
        s.run(lambda c: c.jobs.wait_for_job())
    with pytest.raises(TypeError, match=r"job_id to wait for, or resume=<a resume token>"):
        s.run(lambda c: c.jobs.handle(deadline=60))
    assert api.requests == []


@pytest.mark.parametrize("deadline", [0, -1, float("inf"), float("nan")])
def test_deadline_must_be_a_positive_number(twin, deadline: float) -> None:
    api = ScriptedAPI(SUME).script("job_01", "completed")
    s = twin.connect(api)

    with pytest.raises(ValueError, match="deadline"):
        s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=deadline))
    assert api.requests == []


@pytest.mark.parametrize("method", ["wait", "result"])
def test_a_handles_wait_takes_deadline(twin, method: str) -> None:
    api = ScriptedAPI(SUME).script("job_01", "processing")
    s = twin.connect(api)
    handle = s.client.jobs.handle("job_01")

    with pytest.raises(s.errors.JobTimeout) as caught:
        s.run(lambda c: getattr(handle, method)(deadline=4))

    assert caught.value.deadline == 4
    assert [r.at for r in api.requests] == [0.0, 3.5]  # the last look at 4 - 0.5


@pytest.mark.parametrize("method", ["wait", "result"])
def test_a_handles_wait_refuses_timeout_naming_deadline(twin, method: str) -> None:
    # timeout= is the HTTP request timeout everywhere; how long a wait may take is deadline=
    api = ScriptedAPI(SUME).script("job_01", "processing")
    s = twin.connect(api)
    handle = s.client.jobs.handle("job_01")

    with pytest.raises(TypeError) as caught:
        s.run(lambda c: getattr(handle, method)(timeout=4))

    assert f"{method}() takes deadline=" in str(caught.value)
    assert "not timeout=" in str(caught.value)
    assert api.requests == []
