"""Jobs, idempotency keys, create-attempt counters and the log are bounded (injected clock)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from jobgen.server import RunningServer, run_server
from tests.helpers import SPECS

SUME = SPECS / "sume.yaml"
KEY = {"x-api-key": "key-1"}
BODY = {"input": {"type": "text", "text": "hello"}}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def create(server: RunningServer, **headers: str) -> httpx.Response:
    return httpx.post(f"{server.base_url}/v1/jobs", headers={**KEY, **headers}, json=BODY)


def status(server: RunningServer, job_id: str) -> int:
    return httpx.get(f"{server.base_url}/v1/jobs/{job_id}", headers=KEY).status_code


def test_a_job_and_its_idempotency_key_expire_after_the_ttl() -> None:
    clock = Clock()
    with run_server(SUME, clock=clock, job_ttl=10) as server:
        first = create(server, **{"Idempotency-Key": "k"}).json()["data"]["id"]
        clock.now += 9.9
        assert status(server, first) == 200
        assert create(server, **{"Idempotency-Key": "k"}).json()["data"]["id"] == first
        clock.now += 0.1
        assert status(server, first) == 404
        assert server.app.store.jobs == {} and server.app.store.replays == {}
        second = create(server, **{"Idempotency-Key": "k"}).json()["data"]["id"]
        assert second != first  # the key was forgotten with its job
        assert [r.replayed for r in server.requests() if r.operation == "create"] == [
            False,
            True,
            False,
        ]


def test_control_jobs_expire_too() -> None:
    clock = Clock()
    with run_server(SUME, clock=clock, job_ttl=5) as server:
        job_id = server.create_job({"final": "never"})
        clock.now += 5
        assert status(server, job_id) == 404


def test_the_oldest_jobs_go_first_past_max_jobs() -> None:
    with run_server(SUME, max_jobs=3) as server:
        made = [
            create(server, **{"Idempotency-Key": f"k{i}"}).json()["data"]["id"] for i in range(5)
        ]
        assert [status(server, job) for job in made] == [404, 404, 200, 200, 200]
        assert len(server.app.store.replays) == 3
        assert create(server, **{"Idempotency-Key": "k0"}).json()["data"]["id"] not in made


def test_create_attempt_counters_are_bounded() -> None:
    clock = Clock()
    refuse = '{"create_errors": [{"attempt": 1, "status": 503, "count": 1000}]}'
    with run_server(SUME, clock=clock, job_ttl=60, max_jobs=3) as server:
        for i in range(5):
            answer = create(server, **{"Idempotency-Key": f"k{i}", "x-jobgen-scenario": refuse})
            assert answer.status_code == 503
        assert len(server.app.store.attempts) == 3
        clock.now += 60
        create(server, **{"Idempotency-Key": "late"})
        assert list(server.app.store.attempts) == [(server.app.fingerprint("key-1"), "job", "late")]


def test_the_log_keeps_the_newest_requests() -> None:
    with run_server(SUME, max_log=4) as server:
        job_id = server.create_job()
        for _ in range(6):
            status(server, job_id)
        assert [r.seq for r in server.requests()] == [3, 4, 5, 6]


def test_none_lifts_the_limits() -> None:
    clock = Clock()
    with run_server(SUME, clock=clock, job_ttl=None, max_jobs=None, max_log=None) as server:
        made = [server.create_job() for _ in range(30)]
        clock.now += 1e9
        assert all(status(server, job) == 200 for job in made)
        assert len(server.requests()) == 30


@pytest.mark.parametrize(
    ("limit", "value"), [("job_ttl", 0), ("job_ttl", -1.0), ("max_jobs", 0), ("max_log", -5)]
)
def test_limits_must_be_positive(limit: str, value: float) -> None:
    with pytest.raises(ValueError, match=limit):
        kwargs: dict[str, Any] = {limit: value}
        run_server(SUME, **kwargs)
