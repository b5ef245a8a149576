"""A wait builds its status request once and sends it on every poll: what could go
stale between two polls (a token a provider refreshes, cookies the server sets) is
sent fresh, and every poll keeps its own timeout within the time left (W5)."""

from __future__ import annotations

import pytest

from tests.waiters.support import SUME, ScriptedAPI, answer


def _polls(api: ScriptedAPI, job_id: str = "job_01") -> list[dict[str, str]]:
    return [r.headers for r in api.of("status", job_id)]


def test_a_token_refreshed_between_two_polls_of_one_wait_is_sent(twin) -> None:
    api = ScriptedAPI(SUME).script("job_01", "processing", "processing", "completed")
    issued: list[str] = []

    def token() -> str:
        issued.append(f"tok-{len(issued) + 1}")
        return issued[-1]

    s = twin.connect(api, api_key=token)
    record = s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    assert record.status == "completed"
    assert [h["x-api-key"] for h in _polls(api)] == ["tok-1", "tok-2", "tok-3"]


def test_an_async_token_provider_is_awaited_for_every_poll(twins) -> None:
    _, twin = twins
    api = ScriptedAPI(SUME).script("job_01", "processing", "completed")
    issued: list[str] = []

    async def token() -> str:
        issued.append(f"async-{len(issued) + 1}")
        return issued[-1]

    s = twin.connect(api, api_key=token)
    s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    assert [h["x-api-key"] for h in _polls(api)] == ["async-1", "async-2"]


def test_a_fixed_key_is_sent_on_every_poll_with_the_same_request_line(twin) -> None:
    api = ScriptedAPI(SUME).script("job_01", "queued", "processing", "completed")
    s = twin.connect(api)
    s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    polls = api.of("status", "job_01")
    assert len(polls) == 3
    assert {(p.method, p.path, p.query) for p in polls} == {("GET", "/v1/jobs/job_01", "")}
    assert [p.headers["x-api-key"] for p in polls] == ["sk-sume-secret"] * 3


def test_a_cookie_the_server_sets_is_sent_on_the_next_poll(twin) -> None:
    cookie = {"set-cookie": "affinity=node-7; Path=/"}
    api = ScriptedAPI(SUME).script(
        "job_01", answer("processing", headers=cookie), "processing", "completed"
    )
    s = twin.connect(api)
    s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=60))

    sent = [h.get("cookie") for h in _polls(api)]
    assert sent == [None, "affinity=node-7", "affinity=node-7"]


def test_each_poll_of_one_wait_is_bounded_by_its_own_time_left(twin) -> None:
    api = ScriptedAPI(SUME).script("job_01", "processing", "processing", "completed")
    s = twin.connect(api, timeout=30.0)
    s.run(lambda c: c.jobs.wait_for_job("job_01", deadline=31))

    polls = api.of("status", "job_01")
    assert len(polls) == 3
    assert polls[0].timeout["read"] == 30.0  # the client's timeout, under 31 s left
    for poll in polls[1:]:
        left = 31 - poll.at
        assert left < 30.0
        assert poll.timeout == pytest.approx(dict.fromkeys(poll.timeout, left)), poll.at
